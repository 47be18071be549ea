#include "record/perf_import.h"
#include "formats/format.h"
#include "symbols/jit_resolver.h"
#include "symbols/perfmap.h"
#include "util/diag.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

int perf_import_check_perf(void)
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
        diag_error(NULL, 0,
                   "perf_event_paranoid is %d: unprivileged users may not profile. Fix: "
                   "sudo sysctl kernel.perf_event_paranoid=2 (or run as root)",
                   level);
        return -1;
    }
    return 0;
}

/* Runs argv with stdout to out_path and stderr to err_path; returns its exit status. */
static int run_to_file(char *const argv[], const char *out_path, const char *err_path)
{
    pid_t c = fork();
    if (c == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || err < 0) _exit(127);
        dup2(fd, 1);
        dup2(err, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (c < 0) return 127;
    int st;
    while (waitpid(c, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The first line of a file, for error messages ("" when there is none). */
static void first_line(const char *path, char *out, size_t cap)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fgets(out, (int)cap, f)) out[strcspn(out, "\n")] = 0;
    fclose(f);
}

int perf_import(const char *dir, int target, int journaled, profile_t *p, int *named)
{
    char data[4200], script[4200], journal[4200], err[4200];
    snprintf(data, sizeof data, "%s/perf.data", dir);
    snprintf(script, sizeof script, "%s/perf.txt", dir);
    snprintf(journal, sizeof journal, "%s/map-journal.txt", dir);
    snprintf(err, sizeof err, "%s/perf-script.err", dir);
    *named = 0;
    struct stat st;
    if (stat(data, &st) != 0 || st.st_size == 0) {
        diag_error(NULL, 0, "perf recorded nothing");
        return -1;
    }
    char *sargv[] = {"perf", "script", "-i", data, NULL};
    int src = run_to_file(sargv, script, err);
    if (src != 0) {
        char why[512];
        first_line(err, why, sizeof why);
        diag_error(NULL, 0, "'perf script' failed on the recording (exit %d%s%s); keep it with --keep DIR to look", src,
                   why[0] ? ": " : "", why);
        return -1;
    }
    if (stat(script, &st) == 0 && st.st_size == 0) {
        diag_warn(NULL, 0, "perf took no samples: the program was idle, or ran too briefly");
        return 0; /* an empty profile is the truth */
    }
    char map_path[256];
    if (target > 0) perfmap_path_for_pid(target, map_path, sizeof map_path); /* a container's under its root */
    else map_path[0] = 0;
    int have_map = target > 0 && access(map_path, R_OK) == 0;
    jit_resolver_t *res = jit_resolver_new(have_map ? map_path : NULL, JIT_AMBIGUOUS_MARK);
    if (!res) return -1;
    if (journaled && have_map && jit_resolver_load_journal(res, journal) != 0) {
        jit_resolver_free(res);
        return -1;
    }
    read_opts_t ro = {0};
    ro.format = "perf";
    ro.resolver = res;
    int rc = format_read_path(script, p, &ro);
    if (rc == 0 && diag_verbosity > 0) jit_resolver_print_stats(res);
    jit_resolver_free(res);
    *named = have_map;
    return rc;
}
