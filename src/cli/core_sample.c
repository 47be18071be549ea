/* nodescope core --pid PID sample: the live sampler (record/live_sampler) on the process core
 * opened, written as a profile (format from -o's extension; folded text on stdout by default). */
#include "cli/cli.h"
#include "cli/core_cmds.h"
#include "cli/input_opts.h"
#include "formats/format.h"
#include "record/live_sampler.h"
#include "util/diag.h"
#include "util/options.h"
#include <string.h>

int core_cmd_sample(core_session_t *s, int argc, char **argv)
{
    double hz = 97, seconds = 10;
    const char *output = NULL;
    int stats = 0, threads_merge = 0;
    const char *thread = NULL;
    const opt_t opts[] = {
        OPT_NUM("frequency", 'F', "HZ", "samples a second per thread (default 97)", &hz),
        OPT_NUM("duration", 'd', "SECONDS", "how long (default 10)", &seconds),
        OPT_STR("output", 'o', "FILE", "the profile, its format from the extension (default: folded on stdout)",
                &output),
        OPT_FN("thread", 0, "WHICH",
               "main, all, worker, v8, libuv, other or a thread id: the threads written\n"
               "(default: main for .cpuprofile, all otherwise; -o FILE.json: all apart)",
               &thread, cli_opt_thread),
        OPT_FN("threads", 0, "roles|merge", "a root per thread role (default), or merge: one root", &threads_merge,
               cli_opt_threads),
        OPT_BOOL("stats", 0, "samples, threads and lost samples on stderr", &stats),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {
        "core sample",
        "usage: nodescope core --pid PID sample [-F HZ] [-d SECONDS] [-o FILE] [--stats]\n\n"
        "Sample a running node process without stopping it and without flags: perf_event copies\n"
        "each thread's registers and stack top, and its JavaScript frames are named as `stack`\n"
        "names them. Each thread's stacks are under its role's root (node [main], node [V8 worker], ...).\n",
        tables, 0, NULL};
    int nops = opt_parse(&cmd, argc, argv);
    if (nops < 0) return opt_exit_code(nops);
    if (nops > 0) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[1]);
    if (!(hz >= 1 && hz <= 10000))
        return opt_usage_error(&cmd, "--frequency needs 1 to 10000 samples a second, not %g", hz);
    if (!(seconds > 0)) return opt_usage_error(&cmd, "--duration needs a positive number of seconds, not %g", seconds);
    if (s->check_only) return EXIT_OK;
    if (strcmp(target_kind(s->t), "core") == 0) {
        diag_error(target_name(s->t), 0, "sample needs a live process (core --pid PID sample)");
        return EXIT_FAIL;
    }
    profile_t *p = profile_new();
    live_stats_t st;
    int rc = live_sample_target(s->t, s->v, hz, seconds, p, &st, NULL);
    if (rc == 0 && stats)
        fprintf(stderr,
                "%lu samples from %lu threads, %lu partial (JS frames left unnamed: read too late or moved by a GC), "
                "%lu lost, "
                "%lu without a frame; stack copies resized %lu times, %lu samples beyond the copy\n",
                st.samples, st.threads, st.partial, st.lost, st.empty, st.copy_changes, st.short_copies);
    if (rc == 0 && stats)
        fprintf(stderr, "%lu samples in V8's JIT code, %lu of them naming no JavaScript function\n", st.jit,
                st.jit_unnamed);
    if (rc == 0 && cli_write_profile(p, output ? output : "-", output ? NULL : format_writer_by_name("folded"),
                                     &(write_opts_t){.thread = thread, .threads_merge = threads_merge}, NULL, 0) != 0)
        rc = -1;
    profile_free(p);
    if (rc == 0 && live_stats_check_named(&st, target_problem(s->t), 0) != 0) rc = -1;
    return rc == 0 ? EXIT_OK : EXIT_FAIL;
}
