/* Memory kept from one graph for the next (graph_big, graph_big_grow, graph_unbig) and the
 * build's trace (graph_trace, NODESCOPE_GRAPH_TRACE=1). A graph's arrays are a gigabyte for a
 * 1 GB heap, and fresh anonymous memory is zeroed by the kernel page by page: for watch --heap, which builds a graph every census, that zeroing (and the
 * faults) was a third of the census's CPU. graph_big maps the big arrays; graph_unbig keeps the
 * mapping (MADV_FREE: the kernel takes the pages back only when memory is short) for the next
 * graph_big that fits, so that the next graph writes over pages already there. */
#include "util/bigmem.h"
#include "util/privilege.h"
#include "util/xalloc.h"
#include "v8/graph_internal.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

typedef struct {
    void *p;
    size_t len;
} span_t;
static span_t *big_live, *big_spare;
static size_t nbig_live, capbig_live, nbig_spare;
static uint64_t big_fresh; /* bytes mapped anew (graph_trace) */
#define SPARE_MAX 24

void graph_trace(const char *phase)
{
    static int on = -1;
    if (on < 0) on = priv_env("NODESCOPE_GRAPH_TRACE") != NULL;
    if (!on) return;
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    fprintf(stderr, "graph %-16s faults %8ld, CPU user %7.3f s, system %7.3f s; %llu MB mapped anew\n", phase,
            r.ru_minflt, r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6, r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6,
            (unsigned long long)(big_fresh >> 20));
}

static size_t span_round(size_t bytes) { return bytes ? (bytes + 4095) & ~(size_t)4095 : 4096; }

void *graph_big(size_t bytes, int zero)
{
    size_t need = span_round(bytes), best = SIZE_MAX;
    void *p = NULL;
    size_t len = 0;
    for (size_t k = 0; k < nbig_spare; k++) /* the smallest that fits, not one many times too big */
        if (big_spare[k].len >= need && big_spare[k].len <= 4 * need + (64u << 20) && big_spare[k].len < best)
            best = big_spare[k].len, p = big_spare[k].p, len = big_spare[k].len;
    if (p) {
        for (size_t k = 0; k < nbig_spare; k++)
            if (big_spare[k].p == p) {
                big_spare[k] = big_spare[--nbig_spare];
                break;
            }
        if (zero) memset(p, 0, bytes);
    } else {
        len = span_round(need + need / 8); /* room for the next census's heap, a little bigger */
        p = big_map(len);
        big_fresh += len;
#ifdef MADV_DONTFORK
        /* not shared with a child: the freeze's guard is a fork of nodescope, and a page shared
           with it would be copied at our next write to it (a fault a page, each census) */
        madvise(p, len, MADV_DONTFORK);
#endif
    }
    XGROW(big_live, capbig_live, nbig_live + 1);
    big_live[nbig_live++] = (span_t){p, len};
    return p;
}

static span_t *live_span(const void *p)
{
    for (size_t k = nbig_live; k-- > 0;)
        if (big_live[k].p == p) return &big_live[k];
    return NULL;
}

void *graph_big_grow(void *p, size_t bytes)
{
    span_t *s = live_span(p);
    size_t need = span_round(bytes);
    if (!s) return big_realloc(p, bytes);
    if (s->len >= need) return p;
    s->p = big_remap(s->p, s->len, need);
    s->len = need;
    return s->p;
}

void graph_unbig(void *p)
{
    if (!p) return;
    span_t *s = live_span(p);
    if (!s) {
        free(p);
        return;
    }
    span_t sp = *s;
    *s = big_live[--nbig_live];
#ifdef MADV_FREE
    madvise(sp.p, sp.len, MADV_FREE);
#endif
    if (nbig_spare == SPARE_MAX) { /* the oldest goes */
        big_unmap(big_spare[0].p, big_spare[0].len);
        memmove(big_spare, big_spare + 1, (SPARE_MAX - 1) * sizeof *big_spare);
        nbig_spare--;
    }
    if (!big_spare) big_spare = xmalloc(SPARE_MAX * sizeof *big_spare);
    big_spare[nbig_spare++] = sp;
}
