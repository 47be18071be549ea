/* nodescope record: run a Node program (or attach to one) and write a profile. By default the
 * live sampler (record/live_session) samples it with no flags and names JS frames when each
 * sample is taken; --perf records with perf instead, journaling the perf map for time-correct
 * names (record/perf_session, perf_import). */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "record/live_session.h"
#include "record/perf_import.h"
#include "record/perf_session.h"
#include "record/program.h"
#include "record/stop_signals.h"
#include "sourcemap/stage.h"
#include "symbols/journal.h"
#include "util/diag.h"
#include "util/options.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char record_usage[] =
    "usage: nodescope record [OPTIONS] -- node app.js ARGS...\n"
    "       nodescope record -p PID[,PID...] [--children] [OPTIONS]\n"
    "       nodescope record -a [OPTIONS]\n"
    "\n"
    "Profile a Node.js program, or attach to a running node process, and write OUT.\n"
    "The live sampler needs no flags, no restart and no perf map: every thread is sampled\n"
    "(perf_event copies its registers and stack top) and JavaScript frames are named from\n"
    "V8's heap when each sample is taken, functions TurboFan inlined included. Threads are\n"
    "kept apart by role (main, Worker, V8 worker, libuv). Node 18 to 24.\n"
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

/* Samples in what OUT holds: a .cpuprofile holds one thread (main by default), not all. */
static double samples_written(const profile_t *p, const char *out, const write_opts_t *wo)
{
    const format_writer_t *w = format_writer_for_path(out);
    if (!w || strcmp(w->name, "cpuprofile")) return (double)p->nsamples;
    profile_t *view = NULL;
    if (format_thread_view(p, wo, "main", THREAD_ROOTS_NONE, &view, NULL) != 0) return (double)p->nsamples;
    double n = view ? (double)view->nsamples : (double)p->nsamples;
    profile_free(view);
    return n;
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

/* The pids of the processes whose threads p holds, in order of appearance; their count. */
static int profile_pids(const profile_t *p, int *pids, int max)
{
    int n = 0;
    for (size_t t = 0; t < p->nthreads; t++) {
        int seen = 0;
        for (int i = 0; i < n && !seen; i++) seen = pids[i] == p->threads[t].pid;
        if (!seen && n < max) pids[n++] = p->threads[t].pid;
    }
    return n;
}

/* A .cpuprofile holds one thread: with several processes, OUT holds the first one's main thread
 * (the program's, or the first pid's) and OUT's name with .PID before the extension each process's
 * main thread, app.cpuprofile -> app.1234.cpuprofile (--thread picks another thread for OUT). */
static int write_cpuprofiles(const profile_t *p, const char *out, const write_opts_t *wo, const int *pids, int n)
{
    for (int i = 0; i < n; i++) {
        char path[4200], tid[32];
        const char *dot = strrchr(out, '.');
        int stem = (int)(dot ? (size_t)(dot - out) : strlen(out));
        snprintf(path, sizeof path, "%.*s.%d%s", stem, out, pids[i], dot ? dot : "");
        snprintf(tid, sizeof tid, "%d", pids[i]);
        write_opts_t one = *wo;
        one.thread = tid;
        if (cli_write_profile(p, path, NULL, &one, NULL, 0) != 0) return -1;
        if (diag_verbosity >= 0) fprintf(stderr, "nodescope: wrote %s (pid %d)\n", path, pids[i]);
    }
    return 0;
}

static int set_freq(void *target, const char *arg)
{
    if (opt_parse_double("--freq", arg, target) != 0) return -1;
    if (*(double *)target < 1) return opt_fail("--freq must be at least 1 Hz ('%s')", arg);
    return 0;
}

/* Removes V8's isolate-*-PID-v8.log side files from the working directory. */
static void remove_v8_logs(int pid)
{
    DIR *d = opendir(".");
    if (!d) return;
    char suffix[32];
    snprintf(suffix, sizeof suffix, "-%d-v8.log", pid);
    size_t sl = strlen(suffix);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (!strncmp(e->d_name, "isolate-", 8) && n > sl && !strcmp(e->d_name + n - sl, suffix)) unlink(e->d_name);
    }
    closedir(d);
}

/* rename(2), or a copy when from and to are on different file systems. */
static int move_file(const char *from, const char *to)
{
    if (rename(from, to) == 0) return 0;
    if (errno != EXDEV) return -1;
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    int ok = in && out;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
    if (in) fclose(in);
    if (out && fclose(out) != 0) ok = 0;
    if (!ok) return -1;
    unlink(from);
    return 0;
}

/* OUT's directory must be writable: checked before the program runs. */
static int check_output_dir(const char *out)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", out);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    const char *d = !slash ? "." : dir[0] ? dir : "/";
    if (access(d, W_OK) != 0) {
        diag_error(out, 0, "cannot write to directory %s: %s", d, strerror(errno));
        return -1;
    }
    return 0;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

/* The default: the live sampler on the program it starts or the process it attaches to. */
static int record_live(char **prog, int nprog, const pid_list_t *attach, int children, int all, double freq,
                       double duration, int wall, const char *out, const write_opts_t *wo, int source_maps)
{
    record_program_t rp = {0};
    /* with --children a pid may be a supervisor that is not node (a shell, make): its node
       descendants are recorded */
    for (int i = 0; i < attach->n; i++)
        if (record_check_attach(attach->pids[i], children && !record_process_is_node(attach->pids[i])
                                                     ? RECORD_ATTACH_TREE : RECORD_ATTACH_NODE) != 0)
            return EXIT_FAIL;
    /* a command that is not node: only its node descendants, when asked for (--children) */
    if (nprog && record_program_resolve(&rp, prog, nprog, NULL, children == 1) != 0) return EXIT_FAIL;
    live_session_opts_t so = {.argv = nprog ? rp.argv : NULL, .pids = attach->pids, .npids = attach->n,
                              .children = children || nprog, .all = all, .sample_root = rp.is_node, .hz = freq,
                              .duration_s = duration, .wall = wall};
    int attached = nprog == 0;
    live_session_result_t sr;
    profile_t *p = profile_new();
    int rc = EXIT_FAIL;
    char default_out[64];
    /* caught until nodescope exits, not only while the session runs: the second of two signals
       sent 0.2 s apart (record_signals.sh) arrived once the program had exited and killed
       nodescope while it wrote OUT, or in its exit (the test build's leak check takes a while) */
    stop_signals_install();
    if (live_session_run(&so, p, &sr) == 0) {
        if (!out) {
            snprintf(default_out, sizeof default_out, "nodescope-%d.svg", sr.target);
            out = default_out;
        }
        /* none found: -a, or a command that is not node and started no node (a node program
           over before its first sample is written empty, with the warning below) */
        int none = sr.nprocs == 0 && (all || (nprog && !rp.is_node));
        if (none)
            diag_error(NULL, 0, "%s", all ? "no node process to sample was found"
                                          : "no node process ran: the program is not node and started none");
        else if (p->nsamples == 0)
            diag_warn(NULL, 0, "no samples: the process did not run on a CPU while it was sampled");
        int pids[256], npids = profile_pids(p, pids, 256);
        p->thread_pids = npids > 1 || all;   /* each process a root: 'node [pid N main]' */
        const format_writer_t *w = format_writer_for_path(out);
        int several_cpuprofiles = npids > 1 && w && !strcmp(w->name, "cpuprofile");
        write_opts_t first = *wo;
        char first_tid[32];
        if (several_cpuprofiles && !wo->thread) {
            snprintf(first_tid, sizeof first_tid, "%d", sr.target ? sr.target : pids[0]);
            first.thread = first_tid;
        }
        if (!none && (!source_maps || smap_stage_default(p) == 0) && cli_write_profile(p, out, NULL, &first, NULL, 0) == 0 &&
            (!several_cpuprofiles || write_cpuprofiles(p, out, wo, pids, npids) == 0)) {
            rc = EXIT_OK;
            if (diag_verbosity >= 0) {
                fprintf(stderr, "nodescope: wrote %s (%.0f samples", out, samples_written(p, out, &first));
                if (sr.nprocs > 1) fprintf(stderr, " of %d processes", sr.nprocs);
                if (sr.stats.partial)
                    fprintf(stderr, "; %lu partial: JS frames left unnamed, %lu read too late, %lu moved by a GC",
                            sr.stats.partial, sr.stats.late, sr.stats.partial - sr.stats.late);
                if (wall) fprintf(stderr, "; %lu off the CPU", sr.stats.off_cpu);
                if (sr.stats.lost) fprintf(stderr, "; %lu lost", sr.stats.lost);
                if (diag_verbosity > 0 && sr.stats.full_gcs >= 0)
                    fprintf(stderr, "; %lu read late and named, no full GC since (%ld full GCs)", sr.stats.late_named,
                            sr.stats.full_gcs);
                if (diag_verbosity > 0 && sr.stats.samples)   /* CPU: what the sampler takes from the machine */
                    fprintf(stderr, "; %.0f us CPU a sample, %.0f us naming it", (double)sr.stats.cpu_ns / 1e3 / (double)sr.stats.samples,
                            (double)sr.stats.busy_ns / 1e3 / (double)sr.stats.samples);
                if (diag_verbosity > 0)
                    fprintf(stderr, "; stack copies resized %lu times, %lu samples beyond the copy", sr.stats.copy_changes,
                            sr.stats.short_copies);
                if (diag_verbosity > 0)
                    fprintf(stderr, "; %lu in JIT code, %lu of them naming no JS function", sr.stats.jit, sr.stats.jit_unnamed);
                fprintf(stderr, ")\n");
            }
        }
    }
    profile_free(p);
    record_program_free(&rp);
    if (rc == EXIT_OK && live_stats_check_named(&sr.stats, sr.problem, sr.other_mount_ns) != 0) rc = EXIT_FAIL;
    if (rc != EXIT_OK) return rc;
    if (attached || sr.stopped) return EXIT_OK;
    return sr.exit_status;
}

int cli_record(int argc, char **argv)
{
    const char *out = NULL, *keep = NULL, *thread = NULL;
    double freq = 99, duration = 0;
    int attach = 0, use_perf = 0, threads_merge = 0, no_source_maps = 0, wall = 0, children = 0, all = 0;
    static pid_list_t pids;   /* (4 KiB) */
    pids.n = 0;
    char output_help[320];
    snprintf(output_help, sizeof output_help, "the format follows the extension:\n%s\n(default nodescope-PID.svg)",
             format_writer_extensions());
    const opt_t own[] = {
        OPT_STR("output", 'o', "OUT", output_help, &out),
        OPT_FN("freq", 'F', "HZ", "sampling frequency (default 99)", &freq, set_freq),
        OPT_FN("duration", 'd', "S", "stop after S seconds (the program gets SIGINT; with -p: detach)", &duration,
               set_seconds),
        OPT_FN("pid", 'p', "PIDS", "attach to running node processes: PID or PID,PID,... (no flags needed;\n"
               "with --perf, one process, which needs --perf-basic-prof for JavaScript names)", &pids, set_pids),
        OPT_BOOL("children", 0, "with -p: also every node process they start, at any depth; with a\n"
                 "command that is not node (sh -c ..., make): record the node processes it\n"
                 "starts (a node command's are always recorded)", &children),
        OPT_BOOL("tree", 0, "the same as --children", &children),
        OPT_BOOL("all", 'a', "every node process on the host that nodescope may trace, those started\n"
                 "while recording included (until -d or Ctrl-C)", &all),
        OPT_BOOL("perf", 0, "record with perf instead of the live sampler: node gets --perf-basic-prof\n"
                 "and its perf map is journaled; any program or process (native frames\n"
                 "only when it is not node)", &use_perf),
        OPT_BOOL("wall", 0, "wall-clock time: threads off the CPU count too (blocked in the kernel,\n"
                 "or waiting for a CPU), under a leaf saying what they wait in:\n"
                 "(wait: epoll), (wait: futex), (wait: read), ... (needs root or CAP_PERFMON)", &wall),
        OPT_FN("thread", 0, "WHICH", "main, all, worker, v8, libuv, other or a thread id: the threads written\n"
               "(default: main for .cpuprofile, as node --cpu-prof; all otherwise;\n"
               "all threads apart: -o FILE.json, Chrome trace events)", &thread, cli_opt_thread),
        OPT_FN("threads", 0, "roles|merge", "folded and flame graphs: a root per thread role (default:\n"
               "'node [main]', 'node [V8 worker]', ...), or merge: one root", &threads_merge, cli_opt_threads),
        OPT_STR("keep", 0, "DIR", "--perf: keep perf.data, the perf script text, the journal and the perf map in DIR",
                &keep),
        OPT_BOOL("no-source-maps", 0, "keep JS frames as V8 ran them (default: mapped through their scripts'\n"
                 "source maps, as the commands that read profiles do)", &no_source_maps),
        OPT_VERBOSITY, OPT_HELP, OPT_END,
    };
    const opt_t *tables[] = {own, NULL};
    const opt_cmd_t cmd = {"record", record_usage, tables, OPT_STOP_AT_OPERAND, NULL};
    int nprog = opt_parse(&cmd, argc, argv);
    if (nprog < 0) return opt_exit_code(nprog);
    char **prog = argv + 1;
    attach = pids.n ? pids.pids[0] : 0;
    int rc_usage = 0;
    if (!attach && !all && nprog == 0) rc_usage = opt_usage_error(&cmd, "nothing to record: give a command after '--', -p PID or -a");
    else if ((attach || all) && nprog > 0) rc_usage = opt_usage_error(&cmd, "give either -p PID, -a or a command to run, not two");
    else if (attach && all) rc_usage = opt_usage_error(&cmd, "give either -p PID or -a, not both");
    else if (use_perf && (pids.n > 1 || children || all))
        rc_usage = opt_usage_error(&cmd, "--perf records one process: -p PID,PID, --children and -a are the live sampler's");
    if (rc_usage) return rc_usage;
    /* Everything that can fail is checked before the program runs. */
    const format_writer_t *w;
    if (out && cli_output_writer(&cmd, NULL, 0, out, &w) != EXIT_OK) return EXIT_USAGE;
    if (out && check_output_dir(out) != 0) return EXIT_FAIL;
    if (keep && !use_perf) return opt_usage_error(&cmd, "--keep keeps perf's files: it needs --perf");
    if (wall && use_perf) return opt_usage_error(&cmd, "--wall is the live sampler's: not with --perf");
    write_opts_t wo = {.thread = thread, .threads_merge = threads_merge};
    if (!use_perf) {
        return record_live(prog, nprog, &pids, children, all, freq, duration, wall, out, &wo, !no_source_maps);
    }
    if (perf_import_check_perf() != 0) return EXIT_FAIL;
    static const char *const node_flags[] = {"--perf-basic-prof", "--interpreted-frames-native-stack", NULL};
    record_program_t rp = {0};
    if (attach ? record_check_attach(attach, RECORD_ATTACH_ANY) != 0
               : record_program_resolve(&rp, prog, nprog, node_flags, 1) != 0)
        return EXIT_FAIL;

    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/nodescope-record.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    const char *dir = keep ? keep : mkdtemp(tmpl);
    if (!dir || (keep && mkdir(keep, 0755) != 0 && errno != EEXIST)) {
        diag_error(keep ? keep : tmpl, 0, "cannot create a directory for the recording: %s", strerror(errno));
        record_program_free(&rp);
        return EXIT_FAIL;
    }
    char data[4200], journal[4200];
    snprintf(data, sizeof data, "%s/perf.data", dir);
    snprintf(journal, sizeof journal, "%s/map-journal.txt", dir);

    /* perf record [-p PID | -- PROGRAM] */
    char freq_s[32], pid_s[32];
    snprintf(freq_s, sizeof freq_s, "%d", (int)freq);
    char **pargv = xcalloc((size_t)rp.argc + 20, sizeof *pargv);
    int k = 0;
    pargv[k++] = "perf", pargv[k++] = "record", pargv[k++] = "-q", pargv[k++] = "-g", pargv[k++] = "-k";
    pargv[k++] = "CLOCK_MONOTONIC", pargv[k++] = "-F", pargv[k++] = freq_s, pargv[k++] = "-o", pargv[k++] = data;
    if (attach) {
        snprintf(pid_s, sizeof pid_s, "%d", attach);
        pargv[k++] = "-p", pargv[k++] = pid_s;
    } else {
        pargv[k++] = "--";
        for (int i = 0; i < rp.argc; i++) pargv[k++] = rp.argv[i];
    }
    pargv[k] = NULL;

    perf_session_opts_t so = {.perf_argv = pargv, .attach_pid = attach, .duration_s = duration,
                              .journal_path = attach || rp.is_node ? journal : NULL};
    perf_session_result_t sr;
    int rc = EXIT_FAIL;
    char default_out[64];
    stop_signals_install();   /* caught until nodescope exits, as in record_live */
    if (perf_session_run(&so, &sr) == 0) {
        if (!attach && sr.target) remove_v8_logs(sr.target);
        profile_t *p = profile_new();
        int named = 0;
        if (!out) {
            snprintf(default_out, sizeof default_out, "nodescope-%d.%s", sr.target,
                     format_writer_by_name("svg") ? "svg" : "folded");
            out = default_out;
        }
        if (perf_import(dir, sr.target, sr.journaled, p, &named) == 0 && (no_source_maps || smap_stage_default(p) == 0) &&
            cli_write_profile(p, out, NULL, &wo, NULL, 0) == 0) {
            rc = EXIT_OK;
            if (diag_verbosity >= 0)
                fprintf(stderr, "nodescope: wrote %s (%.0f samples%s)\n", out, samples_written(p, out, &wo),
                        attach && named ? "; names are time-correct from the start of recording" : "");
        } else if (sr.perf_exit != 0 && !sr.stopped) {
            diag_error(NULL, 0, "perf exited with status %d%s", sr.perf_exit,
                       attach ? "" : " (the program's status, or perf's own failure above)");
        }
        profile_free(p);
    }
    /* The perf map of a program we started is ours: kept with --keep, else removed.
     * An attached process keeps its own. */
    if (!attach && sr.target && rp.is_node) {
        char map_path[64], kept[4200];
        snprintf(map_path, sizeof map_path, "/tmp/perf-%d.map", sr.target);
        snprintf(kept, sizeof kept, "%s/perf-%d.map", dir, sr.target);
        if (!keep || move_file(map_path, kept) != 0) unlink(map_path);
    }
    free(pargv);
    record_program_free(&rp);
    if (!keep) remove_dir(dir);
    if (rc != EXIT_OK) return rc;
    /* A planned stop (-d, Ctrl-C, a signal) is success; otherwise the program's status. */
    if (attach || sr.stopped) return EXIT_OK;
    return sr.perf_exit;
}
