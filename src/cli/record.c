/* nodescope record: run a Node program (or attach to one) and write a profile. By default the
 * live sampler (record/live_session) samples it with no flags and names JS frames when each
 * sample is taken; --perf records with perf instead, journaling the perf map for time-correct
 * names (record/perf_session, perf_import). */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "formats/write_file.h"
#include "record/events.h"
#include "record/live_record.h"
#include "record/perf_record.h"
#include "record/program.h"
#include "record/stop_signals.h"
#include "sourcemap/stage.h"
#include "symbols/journal.h"
#include "util/diag.h"
#include "util/privilege.h"
#include "util/options.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

static const char record_usage[] =
    "usage: nodescope record [OPTIONS] -- node app.js ARGS...\n"
    "       nodescope record -p PID[,PID...] [--children] [OPTIONS]\n"
    "       nodescope record -a [OPTIONS]\n"
    "\n"
    "Profile a Node.js program, or attach to a running node process, and write OUT.\n"
    "The live sampler needs no flags, no restart and no perf map: every thread is sampled\n"
    "(perf_event copies its registers and stack top) and JavaScript frames are named from\n"
    "V8's heap when each sample is taken, functions TurboFan inlined included. Threads are\n"
    "kept apart by role (main, Worker, V8 worker, libuv). Node 18 to 26.\n"
    "With --perf, perf records instead: node runs with --perf-basic-prof\n"
    "--interpreted-frames-native-stack and nodescope journals /tmp/perf-PID.map so each\n"
    "sample is named after the code at its address at that moment; any program can be\n"
    "recorded that way (native frames only when it is not node).\n"
    "The command may be node or a script node runs (#!/usr/bin/env node: npx, tsc, ...).\n"
    "The program keeps its stdin, stdout, stderr and exit status.\n"
    "Process trees: every node process the program starts (child_process, cluster, npm and\n"
    "shell wrappers) is sampled too, found in /proc within 50 ms of its start; -p ... --children\n"
    "does the same for running processes, -a samples every node process on the host. Each\n"
    "process is a root of its own: 'node [pid N main]', 'node [pid N Worker 1]'.\n"
    "\n"
    "Events (-e): a sample with the JS and native stack at each system call, page fault,\n"
    "GC or native function call instead of the CPU clock: -e syscall:write, syscall:*,\n"
    "page-faults, major-faults, context-switches, cpu-migrations, gc, u:node:uv_fs_open,\n"
    "u:libc:malloc/1000 (EVENT/N: every Nth); --count prints the stacks by count, as\n"
    "DTrace's @[jstack()] = count(), --print each stack as it happens.\n"
    "\n"
    "Stopping: Ctrl-C, or SIGINT/SIGTERM/SIGHUP sent to nodescope, is passed to the\n"
    "program; a second signal, or the program still running 5 s later, kills it. OUT is\n"
    "written from what was recorded and the exit status is 0 when nodescope stopped the\n"
    "program (-d, a signal), else the program's own. An attached process is never\n"
    "signalled: recording stops and it runs on.\n";

static int set_seconds(void *target, const char *arg)
{
    if (opt_parse_double("--duration", arg, target) != 0) return -1;
    if (*(double *)target < 0) return opt_fail("--duration cannot be negative ('%s')", arg);
    return 0;
}

/* -p PID[,PID...] */
#define MAX_PIDS 1024
typedef struct {
    int pids[MAX_PIDS];
    int n;
} pid_list_t;

static int set_pids(void *target, const char *arg)
{
    pid_list_t *l = target;
    char *copy = xstrdup(arg), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        int pid;
        if ((rc = opt_set_pid(&pid, tok)) != 0) break;
        if (l->n == MAX_PIDS) rc = opt_fail("--pid takes at most %d processes", MAX_PIDS);
        else l->pids[l->n++] = pid;
    }
    if (rc == 0 && l->n == 0) rc = opt_fail("--pid needs a process id, not '%s'", arg);
    free(copy);
    return rc;
}

/* -e EVENT[,EVENT...] (record/events.h) */
static int set_events(void *target, const char *arg)
{
    char err[256];
    if (events_parse(target, arg, err, sizeof err) != 0) return opt_fail("%s", err);
    return 0;
}

static int set_weight(void *target, const char *arg)
{
    if (!strcmp(arg, "bytes")) *(int *)target = 1;
    else if (!strcmp(arg, "count")) *(int *)target = 0;
    else return opt_fail("--weight is count or bytes, not '%s'", arg);
    return 0;
}

/* --max-rate N or N/s */
static int set_rate(void *target, const char *arg)
{
    char *end;
    double r = strtod(arg, &end);
    if (end == arg || (*end && strcmp(end, "/s")) || !(r >= 1) || r > 1e7)
        return opt_fail("--max-rate takes samples a second, 1 to 1e7: N or N/s, not '%s'", arg);
    *(double *)target = r;
    return 0;
}

static int set_freq(void *target, const char *arg)
{
    if (opt_parse_double("--freq", arg, target) != 0) return -1;
    if (*(double *)target < 1) return opt_fail("--freq must be at least 1 Hz ('%s')", arg);
    return 0;
}

/* The default: the live sampler on the program it starts or the process it attaches to. */
static int record_live(const live_record_opts_t *lo, const char *out, const write_opts_t *wo, int source_maps,
                       int count)
{
    const record_events_t *ev = lo->events;
    live_record_t r;
    if (live_record_run(lo, &r) != 0) return EXIT_FAIL;
    priv_drop(); /* the processes are read: what is left (source maps, the output) is the user's */
    const live_session_result_t *sr = &r.sr;
    profile_t *p = r.p;
    int write_out = out || !(count || lo->print);
    int rc = EXIT_FAIL;
    char default_out[64];
    if (r.ran) {
        if (!out) {
            snprintf(default_out, sizeof default_out, "nodescope-%d.svg", sr->target);
            out = default_out;
        }
        if (r.print.more)
            printf("(%lu more stacks not printed: --print prints the first %d)\n", r.print.more, LIVE_PRINT_MAX);
        if (!r.none && count) live_report_counts(p, r.unit, ev ? &sr->stats : NULL);
        if (!r.none && ev) live_report_missed(&sr->stats, ev);
        if (!r.none && !write_out) {
            rc = EXIT_OK;
            if (diag_verbosity >= 0 && ev) {
                fprintf(stderr, "nodescope: %lu samples", sr->stats.samples);
                live_report_events(&sr->stats, ev, stderr);
                fprintf(stderr, "\n");
            }
        } else if (!r.none && (!source_maps || smap_stage_default(p) == 0) && live_record_write(&r, out, wo) == 0) {
            rc = EXIT_OK;
        }
    }
    live_record_end(&r);
    if (rc == EXIT_OK && live_stats_check_named(&sr->stats, sr->problem, sr->other_mount_ns) != 0) rc = EXIT_FAIL;
    if (rc != EXIT_OK) return rc;
    if (lo->nprog == 0 || sr->stopped) return EXIT_OK; /* attached, or stopped by nodescope */
    return sr->exit_status;
}

int cli_record(int argc, char **argv)
{
    const char *out = NULL, *keep = NULL, *thread = NULL;
    double freq = 99, duration = 0;
    int attach = 0, use_perf = 0, threads_merge = 0, no_source_maps = 0, wall = 0, children = 0, all = 0;
    int count = 0, print = 0;
    static pid_list_t pids; /* (4 KiB) */
    static record_events_t events;
    memset(&events, 0, sizeof events);
    pids.n = 0;
    char output_help[320];
    snprintf(output_help, sizeof output_help, "the format follows the extension:\n%s\n(default nodescope-PID.svg)",
             format_writer_extensions());
    const opt_t own[] = {
        OPT_STR("output", 'o', "OUT", output_help, &out),
        OPT_FN("freq", 'F', "HZ", "sampling frequency (default 99)", &freq, set_freq),
        OPT_FN("duration", 'd', "S", "stop after S seconds (the program gets SIGINT; with -p: detach)", &duration,
               set_seconds),
        OPT_FN("pid", 'p', "PIDS",
               "attach to running node processes: PID or PID,PID,... (no flags needed;\n"
               "with --perf, one process, which needs --perf-basic-prof for JavaScript names)",
               &pids, set_pids),
        OPT_BOOL("children", 0,
                 "with -p: also every node process they start, at any depth; with a\n"
                 "command that is not node (sh -c ..., make): record the node processes it\n"
                 "starts (a node command's are always recorded)",
                 &children),
        OPT_BOOL("tree", 0, "the same as --children", &children),
        OPT_BOOL("all", 'a',
                 "every node process on the host that nodescope may trace, those started\n"
                 "while recording included (until -d or Ctrl-C)",
                 &all),
        OPT_BOOL("perf", 0,
                 "record with perf instead of the live sampler: node gets --perf-basic-prof\n"
                 "and its perf map is journaled; any program or process (native frames\n"
                 "only when it is not node)",
                 &use_perf),
        OPT_BOOL("wall", 0,
                 "wall-clock time: threads off the CPU count too (blocked in the kernel,\n"
                 "or waiting for a CPU), under a leaf saying what they wait in:\n"
                 "(wait: epoll), (wait: futex), (wait: read), ... (needs root or CAP_PERFMON)",
                 &wall),
        OPT_FN("event", 'e', "EVENTS",
               "sample on events instead of the CPU clock: EVENT[,EVENT...], each\n"
               "EVENT or EVENT/N (every Nth): syscall:NAME, syscall:*, page-faults,\n"
               "major-faults, context-switches, cpu-migrations, gc (pauses, in ns),\n"
               "u:LIB:FUNC (u:node:uv_fs_open, u:libc:malloc); weights: the count",
               &events, set_events),
        OPT_FN("weight", 0, "count|bytes",
               "-e: what a sample weighs: count (default) or bytes (syscall:write,\n"
               "read, ...: their count argument)",
               &events.weight_bytes, set_weight),
        OPT_FN("max-rate", 0, "N/s",
               "-e: at most about N samples a second per event and process: a hot\n"
               "event's period grows (each sample then weighs more); what was not\n"
               "sampled is reported",
               &events.max_rate, set_rate),
        OPT_BOOL("count", 0,
                 "print every stack with its count (heaviest last) and the total on\n"
                 "stdout (no OUT written unless -o is given)",
                 &count),
        OPT_BOOL("print", 0, "-e: print each sample's stack on stdout as it is taken (the first 1000)", &print),
        OPT_FN("thread", 0, "WHICH",
               "main, all, worker, v8, libuv, other or a thread id: the threads written\n"
               "(default: main for .cpuprofile, as node --cpu-prof; all otherwise;\n"
               "all threads apart: -o FILE.json, Chrome trace events)",
               &thread, cli_opt_thread),
        OPT_FN("threads", 0, "roles|merge",
               "folded and flame graphs: a root per thread role (default:\n"
               "'node [main]', 'node [V8 worker]', ...), or merge: one root",
               &threads_merge, cli_opt_threads),
        OPT_STR("keep", 0, "DIR", "--perf: keep perf.data, the perf script text, the journal and the perf map in DIR",
                &keep),
        OPT_BOOL("no-source-maps", 0,
                 "keep JS frames as V8 ran them (default: mapped through their scripts'\n"
                 "source maps, as the commands that read profiles do)",
                 &no_source_maps),
        OPT_VERBOSITY,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {own, NULL};
    const opt_cmd_t cmd = {"record", record_usage, tables, OPT_STOP_AT_OPERAND, NULL};
    int nprog = opt_parse(&cmd, argc, argv);
    if (nprog < 0) return opt_exit_code(nprog);
    char **prog = argv + 1;
    attach = pids.n ? pids.pids[0] : 0;
    int rc_usage = 0;
    if (!attach && !all && nprog == 0)
        rc_usage = opt_usage_error(&cmd, "nothing to record: give a command after '--', -p PID or -a");
    else if ((attach || all) && nprog > 0)
        rc_usage = opt_usage_error(&cmd, "give either -p PID, -a or a command to run, not two");
    else if (attach && all) rc_usage = opt_usage_error(&cmd, "give either -p PID or -a, not both");
    else if (use_perf && (pids.n > 1 || children || all))
        rc_usage =
            opt_usage_error(&cmd, "--perf records one process: -p PID,PID, --children and -a are the live sampler's");
    if (rc_usage) return rc_usage;
    /* Everything that can fail is checked before the program runs. */
    const format_writer_t *w;
    if (out && cli_output_writer(&cmd, NULL, 0, out, &w) != EXIT_OK) return EXIT_USAGE;
    if (out && format_check_output_dir(out) != 0) return EXIT_FAIL; /* before the program runs */
    if (keep && !use_perf) return opt_usage_error(&cmd, "--keep keeps perf's files: it needs --perf");
    if (wall && use_perf) return opt_usage_error(&cmd, "--wall is the live sampler's: not with --perf");
    if (events.n && use_perf) return opt_usage_error(&cmd, "-e is the live sampler's: not with --perf");
    if (events.n && wall)
        return opt_usage_error(&cmd, "--wall samples the clock: not with -e (-e context-switches counts switches)");
    if (!events.n && (events.weight_bytes || events.max_rate > 0 || print))
        return opt_usage_error(&cmd, "--weight, --max-rate and --print go with -e EVENT");
    if (count && use_perf) return opt_usage_error(&cmd, "--count is the live sampler's: not with --perf");
    for (int i = 0; i < events.n; i++)
        if (events.ev[i].kind == EVK_GC && events.n > 1)
            return opt_usage_error(&cmd, "-e gc weighs GC pauses in ns: record it apart from other events");
    write_opts_t wo = {.thread = thread, .threads_merge = threads_merge};
    if (!use_perf) {
        if (events.n && events_prepare(&events) != 0) return EXIT_FAIL;
        live_record_opts_t lo = {.prog = prog,
                                 .nprog = nprog,
                                 .pids = pids.pids,
                                 .npids = pids.n,
                                 .all = all,
                                 .children = children,
                                 .hz = freq,
                                 .duration = duration,
                                 .wall = wall,
                                 .events = events.n ? &events : NULL,
                                 .print = print};
        return record_live(&lo, out, &wo, !no_source_maps, count);
    }
    perf_record_opts_t po = {
        .prog = prog, .nprog = nprog, .attach = attach, .freq = freq, .duration = duration, .keep = keep};
    perf_record_t pr;
    profile_t *p = profile_new();
    if (perf_record_run(&po, &pr, p) != 0) {
        profile_free(p);
        return EXIT_FAIL;
    }
    int rc = EXIT_FAIL;
    char default_out[64];
    if (pr.ran) {
        if (!out) {
            snprintf(default_out, sizeof default_out, "nodescope-%d.%s", pr.sr.target,
                     format_writer_by_name("svg") ? "svg" : "folded");
            out = default_out;
        }
        if (pr.imported && (no_source_maps || smap_stage_default(p) == 0) &&
            cli_write_profile(p, out, NULL, &wo, NULL, 0) == 0) {
            rc = EXIT_OK;
            if (diag_verbosity >= 0)
                fprintf(stderr, "nodescope: wrote %s (%.0f samples%s)\n", out, live_report_samples_written(p, out, &wo),
                        attach && pr.named ? "; names are time-correct from the start of recording" : "");
        } else if (pr.sr.perf_exit != 0 && !pr.sr.stopped) {
            diag_error(NULL, 0, "perf exited with status %d%s", pr.sr.perf_exit,
                       attach ? "" : " (the program's status, or perf's own failure above)");
        }
    }
    profile_free(p);
    perf_record_end(&pr, &po);
    if (rc != EXIT_OK) return rc;
    /* A planned stop (-d, Ctrl-C, a signal) is success; otherwise the program's status. */
    if (attach || pr.sr.stopped) return EXIT_OK;
    return pr.sr.perf_exit;
}
