/* Fuzz the source map parser, the lazy mappings decoder behind lookups, and the VLQ and
 * base64 decoders: never a crash, a hang, or a lookup result outside the map's tables. */
#include "sourcemap/sourcemap.h"
#include "util/diag.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    /* the raw bytes as VLQ digits */
    const char *p = (const char *)data, *e = p + size;
    int32_t v;
    while (p < e && smap_vlq_decode(&p, e, &v) == 0) {}
    size_t n;
    free(smap_base64_decode((const char *)data, size, &n));

    smap_t *m = smap_parse("fuzz.map", "/fuzz", (const char *)data, size);
    if (!m) return 0;
    /* lookups along the first lines and columns, and at huge positions */
    for (int32_t line = 0; line < 4; line++)
        for (int32_t col = 0; col < 64; col += 7) {
            smap_pos_t pos;
            if (smap_lookup(m, line, col, &pos) == 1) {
                if (!pos.source || pos.line < 0 || pos.column < 0) abort();
                volatile size_t len = strlen(pos.source) + (pos.name ? strlen(pos.name) : 0);
                (void)len;
                int32_t orig;
                smap_line(m, line, pos.source, &orig);
            }
        }
    smap_pos_t pos;
    smap_lookup(m, INT32_MAX, INT32_MAX, &pos);
    smap_generated_lines(m);
    smap_free(m);
    return 0;
}
