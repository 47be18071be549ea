/* nodescope core ... stack: every thread's stack with JavaScript frames named, as text or JSON;
 * the frames, their source-mapped positions and the async frames come from postmortem/stack.c,
 * their text and JSON from postmortem/stack_report.c. */
#include "cli/core_cmds.h"
#include "postmortem/stack_report.h"
#include "sourcemap/cache.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include <stdlib.h>
#include <string.h>

#define STACK_MAX_FRAMES 16384

typedef struct {
    int verbose, all, json, async;
    smap_cache_t *maps; /* NULL with --no-source-maps */
} stack_opts_t;

static int set_map_path(void *target, const char *arg)
{
    smap_cache_t **maps = target;
    if (*maps && smap_cache_add_rewrite(*maps, arg) == 0) return 0;
    return opt_fail("--source-map-path takes OLD=NEW, not '%s'", arg);
}

static int print_stacks(core_session_t *s, const stack_opts_t *op, long thread, int all_threads);

int core_cmd_stack(core_session_t *s, int argc, char **argv)
{
    stack_opts_t o = {0, 0, 0, 0, smap_cache_new()};
    long thread = 0;
    int all_threads = 0, no_maps = 0;
    const opt_t opts[] = {
        OPT_BOOL("verbose", 'v', "arguments and `this` of each JS frame, and where the function is defined",
                 &o.verbose),
        OPT_BOOL("all", 'a', "all frames: V8-internal frames are not folded; frame and code addresses", &o.all),
        OPT_INT("thread", 0, "N", "the thread with this index (default 0, the main thread)", &thread),
        OPT_BOOL("all-threads", 0, "every thread", &all_threads),
        OPT_BOOL("json", 0, "a JSON document (always with arguments and addresses)", &o.json),
        OPT_BOOL("async", 0,
                 "after the frames, the async frames as `new Error().stack` prints them:\n"
                 "who awaits the async function the thread runs (walks the heap)",
                 &o.async),
        OPT_BOOL("no-source-maps", 0,
                 "JS positions and names as V8 ran them, not mapped through the scripts'\n"
                 "source maps (sourceMappingURL, inline or FILE.map)",
                 &no_maps),
        OPT_FN("source-map-path", 0, "OLD=NEW", "scripts recorded under OLD are read from NEW", &o.maps, set_map_path),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {
        "core stack",
        "usage: nodescope core CORE|--pid PID stack [-v] [-a] [--async] [--thread N|--all-threads] [--json]\n\n"
        "Print a thread's stack: JavaScript frames as `name (as inferred) at file:line:column [tier]`\n"
        "with the position executing in that frame, native frames as `native: symbol+0xoff (module)`.\n",
        tables, 0, NULL};
    int nops = opt_parse(&cmd, argc, argv);
    int rc = nops < 0     ? opt_exit_code(nops)
             : nops > 0   ? opt_usage_error(&cmd, "unexpected argument '%s'", argv[1])
             : thread < 0 ? opt_usage_error(&cmd, "--thread needs a thread index, not %ld", thread)
                          : -1;
    if (no_maps) smap_cache_free(o.maps), o.maps = NULL;
    if (rc < 0) rc = print_stacks(s, &o, thread, all_threads);
    smap_cache_free(o.maps);
    return rc;
}

static int print_stacks(core_session_t *s, const stack_opts_t *op, long thread, int all_threads)
{
    stack_opts_t o = *op;
    if (s->check_only) return EXIT_OK;
    if (!s->v) { diag_warn(target_name(s->t), 0, "no V8 metadata: JavaScript frames are shown by address only"); }
    size_t nthreads = target_thread_count(s->t);
    if (nthreads == 0) {
        diag_error(target_name(s->t), 0,
                   "no thread registers in the target (a core whose notes are missing is "
                   "truncated: gcore writes them last); nothing to unwind");
        return EXIT_FAIL;
    }
    if (!all_threads && (size_t)thread >= nthreads) {
        diag_error(target_name(s->t), 0, "no thread %ld (the target has %zu)", thread, nthreads);
        return EXIT_FAIL;
    }
    v8_frame_t *frames = malloc(STACK_MAX_FRAMES * sizeof *frames);
    if (!frames) abort();
    buf_t j = {0};
    jw_t w;
    jw_init(&w, &j);
    v8_heap_t *heap = NULL;
    v8_async_frame_t async[256];
    const pm_stack_print_t pp = {s->t, s->v, o.maps, o.verbose, o.all};
    char build[512];
    if (o.verbose && s->v) fprintf(stderr, "nodescope: %s: %s\n", target_name(s->t), v8_build(s->v, build, sizeof build));
    if (o.json) {
        jw_object_begin(&w, NULL);
        jw_array_begin(&w, "threads");
    }
    size_t first = all_threads ? 0 : (size_t)thread, last = all_threads ? nthreads : (size_t)thread + 1;
    for (size_t ti = first; ti < last; ti++) {
        size_t n = pm_thread_frames(s->t, s->v, ti, frames, STACK_MAX_FRAMES);
        int with_async = o.async && s->v;
        if (!o.json) pm_stack_thread_text(stdout, &pp, ti, frames, n);
        size_t na = with_async ? pm_stack_async(s->v, &heap, frames, n, async, sizeof async / sizeof async[0]) : 0;
        if (o.json) pm_stack_thread_json(&w, &pp, ti, frames, n, with_async ? async : NULL, na);
        else pm_stack_async_text(stdout, s->v, async, na);
    }
    if (o.json) {
        jw_end(&w);
        core_json_read(s, &w); /* --pid: how it was read, and how long the process was stopped for it */
        jw_end(&w);
        buf_putc(&j, '\n');
        fwrite(j.data, 1, j.len, stdout);
    }
    buf_free(&j);
    v8_heap_close(heap);
    free(frames);
    return EXIT_OK;
}
