/* What format.h promises every reader and writer, below the registry and the formats: a reader's
 * own options found in read_opts_t, and the thread view a writer is given (--thread). */
#include "formats/format.h"
#include "util/buf.h"
#include "util/diag.h"
#include <stddef.h>

const void *format_reader_opts(const read_opts_t *o, const format_reader_t *r)
{
    if (!o) return NULL;
    for (size_t i = 0; i < FORMAT_READERS_MAX; i++)
        if (o->reader_opts[i].reader == r) return o->reader_opts[i].opts;
    return NULL;
}

int format_thread_view(const profile_t *p, const write_opts_t *o, const char *def, thread_roots_t roots,
                       profile_t **view, size_t *picked)
{
    const char *choice = o && o->thread ? o->thread : def;
    thread_pick_t pick;
    if (profile_thread_pick_parse(choice, &pick) != 0) {
        diag_error(NULL, 0, "--thread takes main, all, worker, v8, libuv, other or a thread id, not '%s'", choice);
        return -1;
    }
    size_t n = 0;
    *view = profile_thread_view(p, &pick, roots, &n);
    if (picked) *picked = n;
    if (n == 0 && (p->nthreads || pick.kind != PICK_ALL)) {
        buf_t b = {0};
        for (size_t t = 0; t < p->nthreads && t < 40; t++) {
            buf_printf(&b, "%s%d ", t ? ", " : "", (int)p->threads[t].tid);
            profile_thread_label(p, (uint32_t)t, &b);
        }
        diag_error(NULL, 0, "--thread %s picks no thread of the profile (%s)", choice,
                   p->nthreads ? b.data : "it has one thread, the main one");
        buf_free(&b);
        profile_free(*view);
        *view = NULL;
        return -1;
    }
    return 0;
}
