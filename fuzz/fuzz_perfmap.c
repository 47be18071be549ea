/* Fuzz the perf map reader and its queries: any bytes must parse without a crash
 * and queries must stay consistent. */
#include "symbols/perfmap.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    perfmap_t *m = perfmap_parse("fuzz.map", (const char *)data, size);
    uint8_t *over = xmalloc(m->n + 1);
    perfmap_overlapped_by_later(m, over);
    uint32_t out[16];
    for (size_t i = 0; i < m->n && i < 64; i++) {
        perfmap_covering(m, m->entries[i].start, out, 16);
        perfmap_newest_before(m, m->entries[i].start + m->entries[i].size / 2, m->entries[i].file_offset);
    }
    free(over);
    perfmap_free(m);
    return 0;
}
