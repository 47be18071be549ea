#include "util/radix.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

void radix_sort_u64(uint64_t *keys, uint32_t *vals, size_t n)
{
    if (n < 2) return;
    uint64_t *k2 = xmalloc(n * sizeof *k2);
    uint32_t *v2 = vals ? xmalloc(n * sizeof *v2) : NULL;
    uint64_t *src_k = keys, *dst_k = k2;
    uint32_t *src_v = vals, *dst_v = v2;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++) count[(src_k[i] >> shift) & 0xff]++;
        if (count[(src_k[0] >> shift) & 0xff] == n) continue; /* all keys share this byte */
        size_t pos = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++) {
            size_t at = count[(src_k[i] >> shift) & 0xff]++;
            dst_k[at] = src_k[i];
            if (vals) dst_v[at] = src_v[i];
        }
        uint64_t *tk = src_k;
        src_k = dst_k;
        dst_k = tk;
        uint32_t *tv = src_v;
        src_v = dst_v;
        dst_v = tv;
    }
    if (src_k != keys) {
        memcpy(keys, src_k, n * sizeof *keys);
        if (vals) memcpy(vals, src_v, n * sizeof *vals);
    }
    free(k2);
    free(v2);
}
