/* Fuzz the source map parser, the lazy mappings decoder behind lookups, and the VLQ and
 * base64 decoders: never a crash, a hang, or a lookup result outside the map's tables.
 * Index map sections with a "url" get the input itself again as their map (a cycle, or a
 * nested index map), as a loader that always finds one would. */
#include "sourcemap/sourcemap.h"
#include "util/diag.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t *cur_data;
static size_t cur_size;
static smap_t *loaded[4];
static int nloaded;

static smap_t *loader(void *ctx, const smap_t *index_map, const char *url)
{
    (void)ctx, (void)index_map;
    if (!url || nloaded == 4) return NULL;
    smap_t *m = smap_parse("fuzz-section.map", "/fuzz", (const char *)cur_data, cur_size);
    if (m) smap_set_loader(m, loader, NULL);
    return loaded[nloaded++] = m;
}

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
    cur_data = data, cur_size = size, nloaded = 0;
    smap_set_loader(m, loader, NULL);
    /* lookups along the first lines and columns, and at huge positions */
    for (int32_t line = 0; line < 4; line++)
        for (int32_t col = 0; col < 64; col += 7) {
            smap_pos_t pos;
            if (smap_lookup(m, line, col, &pos) == 1) {
                if (!pos.source || pos.line < 0 || pos.column < 0) abort();
                const char *content = smap_pos_content(&pos);
                volatile size_t len =
                    strlen(pos.source) + (pos.name ? strlen(pos.name) : 0) + (content ? strlen(content) : 0);
                (void)len;
                int32_t orig;
                smap_line(m, line, pos.source, &orig);
            }
        }
    smap_pos_t pos;
    smap_lookup(m, INT32_MAX, INT32_MAX, &pos);
    smap_generated_lines(m);
    smap_decoded_count(m);
    smap_decoded_lines(m);
    smap_free(m);
    for (int i = 0; i < nloaded; i++) smap_free(loaded[i]);
    return 0;
}
