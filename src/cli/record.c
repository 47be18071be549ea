/* nodescope record: run a Node program (or attach to one) under perf, journal its
 * perf map while it runs, and write a profile with time-correct JS names. */
#include "cli/cli.h"
#include "symbols/jit_resolver.h"
#include "symbols/journal.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void record_usage(FILE *f)
{
    fprintf(f,
            "usage: nodescope record [-F HZ] [-d SECONDS] [-o OUT] -- node app.js ARGS...\n"
            "       nodescope record -p PID [-F HZ] [-d SECONDS] [-o OUT]\n"
            "\n"
            "Profile a Node.js program with perf and write OUT with correct JavaScript names:\n"
            "the program runs with --perf-basic-prof --interpreted-frames-native-stack, perf\n"
            "records callchains on CLOCK_MONOTONIC, and nodescope journals the growth of\n"
            "/tmp/perf-PID.map so every sample is named after the code that was at its address\n"
            "at that moment (V8 reuses code addresses; perf alone names many samples wrongly).\n"
            "The program keeps its stdin, stdout, stderr and exit status; Ctrl-C stops it and\n"
            "still writes OUT.\n"
            "\n"
            "  -o, --output OUT   format from the extension (.svg, .folded, .cpuprofile, .txt, ...);\n"
            "                     default nodescope-PID.svg (or .folded when SVG is not available)\n"
            "  -F, --freq HZ      sampling frequency (default 99)\n"
            "  -d, --duration S   stop after S seconds (the program is terminated; with -p: detached)\n"
            "  -p, --pid PID      attach to a running process started with --perf-basic-prof;\n"
            "                     names are time-correct from the moment recording starts\n"
            "      --keep DIR     keep perf.data, the perf script text and the journal in DIR\n"
            "  -q, --quiet / -v, --verbose\n"
            "  -h, --help\n");
}

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { stop_requested = sig; }

static int perf_available(void)
{
    pid_t c = fork();
    if (c == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1), dup2(null, 2);
        execlp("perf", "perf", "--version", (char *)NULL);
        _exit(127);
    }
    int st;
    if (c < 0 || waitpid(c, &st, 0) < 0) return 0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int check_permissions(void)
{
    if (!perf_available()) {
        diag_error(NULL, 0, "perf is not installed or does not run; on Debian: apt-get install linux-perf");
        return -1;
    }
    if (geteuid() == 0) return 0;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int level = 2;
    if (f) {
        if (fscanf(f, "%d", &level) != 1) level = 2;
        fclose(f);
    }
    if (level > 2) {
        diag_error(NULL, 0, "perf_event_paranoid is %d: unprivileged users may not profile. Fix: "
                   "sudo sysctl kernel.perf_event_paranoid=2 (or run as root)", level);
        return -1;
    }
    return 0;
}

/* The first child of pid (perf forks the workload). */
static int child_of(int pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", pid, pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int c = 0;
    if (fscanf(f, "%d", &c) != 1) c = 0;
    fclose(f);
    return c;
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

static int run_to_file(char *const argv[], const char *out_path)
{
    pid_t c = fork();
    if (c == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int null = open("/dev/null", O_WRONLY);
        if (fd < 0) _exit(127);
        dup2(fd, 1);
        dup2(null, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(c, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
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

int cli_record(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"freq", required_argument, 0, 'F'},
        {"duration", required_argument, 0, 'd'}, {"pid", required_argument, 0, 'p'},
        {"keep", required_argument, 0, 'K'},     {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *out = NULL, *keep = NULL;
    double freq = 99, duration = 0;
    int attach = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+o:F:d:p:qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'F': if (cli_parse_double("-F", optarg, &freq) || freq < 1) return EXIT_USAGE; break;
        case 'd': if (cli_parse_double("-d", optarg, &duration) || duration < 0) return EXIT_USAGE; break;
        case 'p': attach = atoi(optarg); if (attach <= 0) { diag_error(NULL, 0, "-p needs a process id"); return EXIT_USAGE; } break;
        case 'K': keep = optarg; break;
        case 'q': diag_verbosity = -1; break;
        case 'v': diag_verbosity = 1; break;
        case 'h': record_usage(stdout); return EXIT_OK;
        default: record_usage(stderr); return EXIT_USAGE;
        }
    }
    char **prog = argv + optind;
    int nprog = argc - optind;
    if (!attach && nprog == 0) {
        diag_error(NULL, 0, "nothing to record: give a command after '--' or -p PID");
        record_usage(stderr);
        return EXIT_USAGE;
    }
    if (attach && kill(attach, 0) != 0) {
        diag_error(NULL, 0, "no process %d to attach to", attach);
        return EXIT_FAIL;
    }
    if (check_permissions() != 0) return EXIT_FAIL;

    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/nodescope-record.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    const char *dir = keep ? keep : mkdtemp(tmpl);
    if (!dir || (keep && mkdir(keep, 0755) != 0 && errno != EEXIST)) {
        diag_error(keep ? keep : tmpl, 0, "cannot create a directory for the recording: %s", strerror(errno));
        return EXIT_FAIL;
    }
    char data[4200], script[4200], journal[4200];
    snprintf(data, sizeof data, "%s/perf.data", dir);
    snprintf(script, sizeof script, "%s/perf.txt", dir);
    snprintf(journal, sizeof journal, "%s/map-journal.txt", dir);

    /* perf record [-p PID | -- node FLAGS app ARGS] */
    char freq_s[32];
    snprintf(freq_s, sizeof freq_s, "%d", (int)freq);
    char **pargv = xcalloc((size_t)nprog + 20, sizeof *pargv);
    int k = 0;
    pargv[k++] = "perf", pargv[k++] = "record", pargv[k++] = "-q", pargv[k++] = "-g", pargv[k++] = "-k";
    pargv[k++] = "CLOCK_MONOTONIC", pargv[k++] = "-F", pargv[k++] = freq_s, pargv[k++] = "-o", pargv[k++] = data;
    char pid_s[32];
    if (attach) {
        snprintf(pid_s, sizeof pid_s, "%d", attach);
        pargv[k++] = "-p", pargv[k++] = pid_s;
    } else {
        pargv[k++] = "--";
        pargv[k++] = prog[0];
        /* V8 flags go right after the node binary */
        pargv[k++] = "--perf-basic-prof";
        pargv[k++] = "--interpreted-frames-native-stack";
        for (int i = 1; i < nprog; i++) pargv[k++] = prog[i];
    }
    pargv[k] = NULL;

    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    uint64_t t_start = monotonic_ns();
    pid_t perf = fork();
    if (perf == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execvp("perf", pargv);
        _exit(127);
    }
    free(pargv);
    if (perf < 0) {
        diag_error(NULL, 0, "cannot start perf: %s", strerror(errno));
        return EXIT_FAIL;
    }
    int target = attach;
    map_journal_t jr;
    int journaling = 0, status = 0, forwarded = 0;
    for (;;) {
        if (!target) target = child_of(perf);
        if (target && !journaling) journaling = map_journal_start(&jr, target, journal) == 0;
        if (journaling) map_journal_poll(&jr, 2);
        else usleep(1000);
        pid_t w = waitpid(perf, &status, WNOHANG);
        if (w == perf) break;
        int timed_out = duration > 0 && (double)(monotonic_ns() - t_start) / 1e9 >= duration;
        if ((stop_requested || timed_out) && !forwarded) {
            /* Ctrl-C reaches the whole process group already; -d and SIGTERM need telling perf. */
            if (timed_out || stop_requested == SIGTERM) kill(perf, SIGINT);
            forwarded = 1;
        }
    }
    if (journaling) map_journal_stop(&jr);
    int prog_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (!attach && target) remove_v8_logs(target);

    int rc = EXIT_FAIL;
    struct stat st;
    if (stat(data, &st) != 0 || st.st_size == 0) {
        diag_error(data, 0, "perf recorded nothing (perf exit status %d)", prog_status);
        goto done;
    }
    char *sargv[] = {"perf", "script", "-i", data, NULL};
    if (run_to_file(sargv, script) != 0) {
        diag_error(script, 0, "'perf script' failed on the recording");
        goto done;
    }
    /* perf script prints thread ids; every thread of the program shares the process's map */
    char map_path[64];
    snprintf(map_path, sizeof map_path, "/tmp/perf-%d.map", target);
    jit_resolver_t *res = jit_resolver_new(access(map_path, R_OK) == 0 ? map_path : NULL, JIT_AMBIGUOUS_MARK);
    if (!res) goto done;
    if (journaling && jit_resolver_load_journal(res, journal) != 0) {
        jit_resolver_free(res);
        goto done;
    }
    read_opts_t ro = {0};
    ro.format = "perf";
    ro.resolver = res;
    profile_t *p = profile_new();
    char default_out[64];
    if (!out) {
        snprintf(default_out, sizeof default_out, "nodescope-%d.%s", target, format_writer_by_name("svg") ? "svg" : "folded");
        out = default_out;
    }
    if (format_read_path(script, p, &ro) == 0 && cli_write_profile(p, out, NULL, NULL, NULL, 0) == 0) {
        rc = EXIT_OK;
        if (diag_verbosity >= 0)
            fprintf(stderr, "nodescope: wrote %s (%.0f samples%s)\n", out, (double)p->nsamples,
                    attach ? "; names are time-correct from the start of recording" : "");
        if (diag_verbosity > 0) jit_resolver_print_stats(res);
    }
    profile_free(p);
    jit_resolver_free(res);
done:
    if (!keep) remove_dir(dir);
    /* the program's own exit status wins when recording worked */
    if (rc == EXIT_OK && !attach) {
        /* On Ctrl-C perf reports 0, or the SIGTERM it sent the program when that came
         * first; either way the program was interrupted by the user's signal. */
        if (stop_requested && (prog_status == 0 || prog_status > 128)) return 128 + stop_requested;
        return prog_status;
    }
    return rc;
}
