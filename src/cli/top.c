/* nodescope top: the functions (or files) that take the time — self and total
 * share — and the hottest lines inside the top functions (from positionTicks). */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "formats/text_report.h"
#include "record/top_live.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/privilege.h"
#include <stdlib.h>
#include <string.h>

static int set_by(void *t, const char *arg)
{
    if (strcmp(arg, "file") && strcmp(arg, "function")) return opt_fail("--by takes function or file, not '%s'", arg);
    *(int *)t = !strcmp(arg, "file");
    return 0;
}

static int set_sort(void *t, const char *arg)
{
    if (strcmp(arg, "self") && strcmp(arg, "total")) return opt_fail("--sort takes self or total, not '%s'", arg);
    *(int *)t = !strcmp(arg, "total");
    return 0;
}

static int set_limit(void *t, const char *arg)
{
    if (opt_parse_double("--limit", arg, t) != 0) return -1;
    if (*(double *)t < 1) return opt_fail("--limit must be at least 1, not '%s'", arg);
    return 0;
}

static int set_positive(void *t, const char *arg)
{
    if (opt_parse_double("a number of seconds or hertz", arg, t) != 0) return -1;
    if (!(*(double *)t > 0)) return opt_fail("expected a positive number, not '%s'", arg);
    return 0;
}

int cli_top(int argc, char **argv)
{
    cli_input_t in;
    cli_input_init(&in);
    double limit = 20;
    int by_file = 0, json = 0, sort_total = 0, pid = 0, once = 0, wall = 0;
    double hz = 99, duration = 0, interval = 1;
    const opt_t live[] = {
        OPT_TITLE("A running process (no profile file):"),
        OPT_FN("pid", 'p', "PID", "sample node process PID live and redraw the table (no restart, no flags)", &pid,
               opt_set_pid),
        OPT_FN("freq", 'F', "HZ", "samples a second per thread (99)", &hz, set_positive),
        OPT_FN("duration", 'd', "S", "stop after S seconds (default: Ctrl-C or the process's end; --once: 1)",
               &duration, set_positive),
        OPT_FN("interval", 0, "S", "seconds between redraws (1)", &interval, set_positive),
        OPT_BOOL("once", 0, "sample for -d seconds and print the table once (for scripts; with --json)", &once),
        OPT_BOOL("wall", 0,
                 "wall-clock time: threads off the CPU count too (blocked in the kernel,\n"
                 "or waiting for a CPU), under a row saying what they wait in:\n"
                 "(wait: epoll), (wait: futex), (wait: read), ... (needs root or CAP_PERFMON)",
                 &wall),
        OPT_END,
    };
    const opt_t own[] = {
        OPT_FN("limit", 'n', "N", "rows (20)", &limit, set_limit),
        OPT_FN("by", 0, "function|file", "group by function (default) or by source file", &by_file, set_by),
        OPT_FN("sort", 0, "self|total", "order (self)", &sort_total, set_sort),
        OPT_BOOL("json", 0, "a JSON document instead of the table", &json),
        OPT_VERBOSITY,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {own, live, in.opts, NULL};
    const opt_cmd_t cmd = {"top",
                           "usage: nodescope top [OPTIONS] [FILE...|-]\n"
                           "       nodescope top -p PID [-F HZ] [-d S] [--wall] [--once] [--json]\n"
                           "\n"
                           "The functions that take the time, hottest first: self share (the function itself\n"
                           "was running) and total share (it was on the stack; recursion counted once), with\n"
                           "the hottest source lines inside the top functions where the profile has per-line\n"
                           "hits (.cpuprofile positionTicks). JS tiers of one function (perf's JS:*f, JS:~f)\n"
                           "count as one function. The first line says what the weights count (samples, or\n"
                           "perf's period unit: ns of CPU for cpu-clock).\n",
                           tables, 0, NULL};
    int nfiles = opt_parse(&cmd, argc, argv);
    if (nfiles < 0) return opt_exit_code(nfiles);
    if (!pid) priv_drop(); /* profile files only: no capability is needed */
    if (pid) {
        if (nfiles > 0) {
            cli_input_free(&in);
            return opt_usage_error(&cmd, "-p samples a process: no profile file with it ('%s')", argv[1]);
        }
        top_live_opts_t lo = {pid,  hz,   duration, interval,
                              once, wall, 0,        {limit, by_file, sort_total, json, NULL, NULL}};
        write_opts_t wo = {0};
        cli_input_write_opts(&in, &wo);
        lo.threads_merge = wo.threads_merge;
        int rc = top_live(&lo);
        cli_input_free(&in);
        return rc == 0 ? EXIT_OK : EXIT_FAIL;
    }
    if (once || duration > 0 || wall) {
        cli_input_free(&in);
        return opt_usage_error(&cmd, "--once, -d and --wall need -p PID");
    }
    char **files = argv + 1;
    profile_t *p = profile_new();
    if (cli_input_read(&in, files, nfiles, p) != 0) {
        cli_input_free(&in);
        profile_free(p);
        return EXIT_FAIL;
    }
    /* the split by thread role, then the functions of the threads picked (all: a root per role) */
    text_report_opts_t ro = {limit, by_file, sort_total, json, p, NULL};
    write_opts_t wo = {0};
    cli_input_write_opts(&in, &wo);
    profile_t *view = NULL;
    if (format_thread_view(p, &wo, "all", wo.threads_merge ? THREAD_ROOTS_MERGE : THREAD_ROOTS_ROLES, &view, NULL) !=
        0) {
        cli_input_free(&in);
        profile_free(p);
        return EXIT_FAIL;
    }
    buf_t out = {0};
    text_report(view ? view : p, &ro, &out);
    profile_free(view);
    fwrite(out.data, 1, out.len, stdout);
    buf_free(&out);
    cli_input_free(&in);
    profile_free(p);
    return EXIT_OK;
}
