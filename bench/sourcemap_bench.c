/* bench/sourcemap.sh's C side: parse a source map and look up positions read from a file
 * (one "line column" pair a line, 0-based, as sourcemap.mjs writes them), timing both.
 * usage: sourcemap_bench MAP POSITIONS */
#include "sourcemap/sourcemap.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time, less disturbed than the wall clock on a loaded machine */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc != 3) return fprintf(stderr, "usage: %s MAP POSITIONS\n", argv[0]), 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return perror(argv[1]), 1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *data = malloc((size_t)n + 1);
    if (fread(data, 1, (size_t)n, f) != (size_t)n) return 1;
    data[n] = 0;
    fclose(f);
    FILE *pf = fopen(argv[2], "r");
    if (!pf) return perror(argv[2]), 1;
    size_t cap = 1 << 20, np = 0;
    int32_t *pos = malloc(cap * 2 * sizeof *pos);
    int l, c;
    while (fscanf(pf, "%d %d", &l, &c) == 2) {
        if (np == cap) pos = realloc(pos, (cap *= 2) * 2 * sizeof *pos);
        pos[2 * np] = l, pos[2 * np + 1] = c, np++;
    }
    fclose(pf);
    double c0 = cpu(), t0 = now();
    /* as the cache does: the file's bytes are handed to the map (sourcemap.mjs likewise reads
     * the file before its clock starts) */
    smap_t *m = smap_parse_owned(argv[1], "", data, (size_t)n);
    if (!m) return 1;
    double t1 = now();
    size_t mapped = 0;
    long sum = 0;
    for (size_t i = 0; i < np; i++) {
        smap_pos_t p;
        if (smap_lookup(m, pos[2 * i], pos[2 * i + 1], &p) == 1) mapped++, sum += p.line + p.column;
    }
    double t2 = now(), c2 = cpu();
    printf("{\"parse_ms\":%.1f,\"lookup_ms\":%.1f,\"total_ms\":%.1f,\"cpu_ms\":%.1f,\"lookups\":%zu,\"mapped\":%zu,"
           "\"checksum\":%ld}\n", t1 - t0, t2 - t1, t2 - t0, c2 - c0, np, mapped, sum);
    smap_free(m);
    free(pos);
    return 0;
}
