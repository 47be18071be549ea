/* Fuzz the jitdump reader: any bytes, native or byte-swapped, never crash. */
#include "symbols/jitdump.h"
#include "util/diag.h"
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    perfmap_t *m = jitdump_parse("fuzz.dump", data, size, NULL);
    if (m) {
        uint32_t out[8];
        for (size_t i = 0; i < m->n && i < 32; i++) {
            perfmap_covering(m, m->entries[i].start, out, 8);
            perfmap_newest_before(m, m->entries[i].start, m->entries[i].file_offset);
        }
        perfmap_free(m);
    }
    return 0;
}
