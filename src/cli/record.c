/* nodescope record: run a Node program (or attach to one) and write a profile. By default the
 * live sampler (record/live_session) samples it with no flags and names JS frames when each
 * sample is taken; --perf records with perf instead, journaling the perf map for time-correct
 * names (record/perf_session, perf_import). */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "record/events.h"
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

/* --print: each sample's stack on stdout as it is taken, leaf first, up to PRINT_MAX of them. */
#define PRINT_MAX 1000
typedef struct {
    unsigned long printed, more;
    const char *unit;
} print_ctx_t;

static void print_stack(const profile_t *p, uint32_t leaf, FILE *out)
{
    buf_t b = {0};
    for (uint32_t x = leaf; x; x = p->nodes[x].parent) {
        uint32_t f = p->nodes[x].frame;
        int64_t ti = profile_thread_of_frame(p, f);
        buf_clear(&b);
        if (ti >= 0) profile_thread_label(p, (uint32_t)ti, &b);
        else profile_frame_label(p, f, &b);
        fprintf(out, "    %s\n", b.data ? b.data : "");
    }
    buf_free(&b);
}

static void on_sample_print(void *ctx, const profile_t *p, uint32_t leaf, double weight, uint64_t time_ns)
{
    print_ctx_t *c = ctx;
    if (c->printed >= PRINT_MAX) { c->more++; return; }
    c->printed++;
    printf("%.6f %.0f %s\n", (double)time_ns / 1e9, weight, c->unit);
    print_stack(p, leaf, stdout);
    printf("\n");
    fflush(stdout);
}

static int by_self_desc(const void *a, const void *b, void *p)
{
    double x = ((const profile_t *)p)->nodes[*(const uint32_t *)a].self;
    double y = ((const profile_t *)p)->nodes[*(const uint32_t *)b].self;
    return x < y ? 1 : x > y ? -1 : (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* --count: every stack with its weight, the heaviest last (as DTrace prints an aggregation:
 * the heaviest next to the prompt), then the total. */
static void print_counts(const profile_t *p, const char *unit, const live_stats_t *st)
{
    uint32_t *order = xmalloc((p->nnodes + 1) * sizeof *order);
    size_t n = 0;
    for (size_t i = 1; i < p->nnodes; i++)
        if (p->nodes[i].self > 0) order[n++] = (uint32_t)i;
    qsort_r(order, n, sizeof *order, by_self_desc, (void *)p);
    for (size_t i = n; i-- > 0;) {
        print_stack(p, order[i], stdout);
        printf("    %16.0f\n\n", p->nodes[order[i]].self);
    }
    printf("total %.0f %s in %zu stacks", p->total, unit, n);
    if (st) printf(" (%llu events counted by the kernel)", st->events);
    printf("\n");
    free(order);
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
typedef struct {
    const record_events_t *events;   /* -e (NULL: the CPU clock) */
    int count, print;                /* --count, --print */
} record_ev_opts_t;

/* What the kernel counted and what was sampled, for the summary line. */
static void say_events(const live_stats_t *st, const record_events_t *e)
{
    fprintf(stderr, "; %llu events counted by the kernel", st->events);
    if (st->events > st->samples) {
        int period = e->max_rate > 0;
        for (int i = 0; i < e->n; i++) period |= e->ev[i].every > 1;
        fprintf(stderr, ", %llu not sampled (", st->events - st->samples);
        if (period) fprintf(stderr, "every Nth: EVENT/N or --max-rate; ");
        fprintf(stderr, "rings full when nodescope fell behind: %lu samples reported lost", st->lost);
        if (st->throttled) fprintf(stderr, "; the kernel throttled the events %lu times", st->throttled);
        fprintf(stderr, ")");
    }
}

static int record_live(char **prog, int nprog, const pid_list_t *attach, int children, int all, double freq,
                       double duration, int wall, const char *out, const write_opts_t *wo, int source_maps,
                       const record_ev_opts_t *eo)
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
                              .duration_s = duration, .wall = wall, .events = eo->events};
    int attached = nprog == 0;
    live_session_result_t sr;
    profile_t *p = profile_new();
    char unit[256] = "samples";
    if (eo->events) {
        events_unit(eo->events, unit, sizeof unit);
        p->weight_unit = strpool_cstr(p->strings, unit);
    }
    print_ctx_t pc = {.unit = unit};
    if (eo->print) so.on_sample = on_sample_print, so.ctx = &pc;
    int write_out = out || !(eo->count || eo->print);
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
        else if (p->nsamples == 0 && eo->events)
            diag_warn(NULL, 0, "no samples: none of the events (%s) happened in the process while it was sampled", unit);
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
        if (pc.more) printf("(%lu more stacks not printed: --print prints the first %d)\n", pc.more, PRINT_MAX);
        if (!none && eo->count) print_counts(p, unit, eo->events ? &sr.stats : NULL);
        if (!none && eo->events && sr.stats.events > sr.stats.samples) {
            int period = eo->events->max_rate > 0;
            for (int i = 0; i < eo->events->n; i++) period |= eo->events->ev[i].every > 1;
            unsigned long long missed = sr.stats.events > sr.stats.events_weight ? sr.stats.events - sr.stats.events_weight : 0;
            if (!period && missed * 100 > sr.stats.events)
                diag_warn(NULL, 0, "%llu of the %llu events were not sampled (nodescope fell behind: a burst faster than it "
                          "names samples): the weights count %.1f%% too few; EVENT/N or --max-rate samples a part "
                          "of them evenly", missed, sr.stats.events, 100.0 * (double)missed / (double)sr.stats.events);
        }
        if (!none && !write_out) {
            rc = EXIT_OK;
            if (diag_verbosity >= 0 && eo->events) {
                fprintf(stderr, "nodescope: %lu samples", sr.stats.samples);
                say_events(&sr.stats, eo->events);
                fprintf(stderr, "\n");
            }
        } else if (!none && (!source_maps || smap_stage_default(p) == 0) && cli_write_profile(p, out, NULL, &first, NULL, 0) == 0 &&
            (!several_cpuprofiles || write_cpuprofiles(p, out, wo, pids, npids) == 0)) {
            rc = EXIT_OK;
            if (diag_verbosity >= 0) {
                fprintf(stderr, "nodescope: wrote %s (%.0f samples", out, samples_written(p, out, &first));
                if (eo->events) say_events(&sr.stats, eo->events);
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
    int count = 0, print = 0;
    static pid_list_t pids;   /* (4 KiB) */
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
        OPT_FN("event", 'e', "EVENTS", "sample on events instead of the CPU clock: EVENT[,EVENT...], each\n"
               "EVENT or EVENT/N (every Nth): syscall:NAME, syscall:*, page-faults,\n"
               "major-faults, context-switches, cpu-migrations, gc (pauses, in ns),\n"
               "u:LIB:FUNC (u:node:uv_fs_open, u:libc:malloc); weights: the count", &events, set_events),
        OPT_FN("weight", 0, "count|bytes", "-e: what a sample weighs: count (default) or bytes (syscall:write,\n"
               "read, ...: their count argument)", &events.weight_bytes, set_weight),
        OPT_FN("max-rate", 0, "N/s", "-e: at most about N samples a second per event and process: a hot\n"
               "event's period grows (each sample then weighs more); what was not\n"
               "sampled is reported", &events.max_rate, set_rate),
        OPT_BOOL("count", 0, "print every stack with its count (heaviest last) and the total on\n"
                 "stdout (no OUT written unless -o is given)", &count),
        OPT_BOOL("print", 0, "-e: print each sample's stack on stdout as it is taken (the first 1000)", &print),
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
    if (events.n && use_perf) return opt_usage_error(&cmd, "-e is the live sampler's: not with --perf");
    if (events.n && wall) return opt_usage_error(&cmd, "--wall samples the clock: not with -e (-e context-switches counts switches)");
    if (!events.n && (events.weight_bytes || events.max_rate > 0 || print))
        return opt_usage_error(&cmd, "--weight, --max-rate and --print go with -e EVENT");
    if (count && use_perf) return opt_usage_error(&cmd, "--count is the live sampler's: not with --perf");
    for (int i = 0; i < events.n; i++)
        if (events.ev[i].kind == EVK_GC && events.n > 1)
            return opt_usage_error(&cmd, "-e gc weighs GC pauses in ns: record it apart from other events");
    write_opts_t wo = {.thread = thread, .threads_merge = threads_merge};
    if (!use_perf) {
        if (events.n && events_prepare(&events) != 0) return EXIT_FAIL;
        record_ev_opts_t eo = {.events = events.n ? &events : NULL, .count = count, .print = print};
        return record_live(prog, nprog, &pids, children, all, freq, duration, wall, out, &wo, !no_source_maps, &eo);
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
