/* record --perf: perf records the program (node gets --perf-basic-prof and
 * --interpreted-frames-native-stack) or an attached process into a directory of its own,
 * perf_session journals the program's perf map meanwhile, and perf_import reads perf.data back
 * with time-correct JIT names. Invariants: the directory and the program's /tmp/perf-PID.map are
 * removed on every path after the run (kept in --keep's directory when asked); an attached
 * process's perf map is never touched. */
#include "record/perf_record.h"
#include "record/perf_import.h"
#include "record/stop_signals.h"
#include "util/diag.h"
#include "util/privilege.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    FILE *in = fopen(from, "rb"), *out = NULL;
    priv_user_begin(); /* to: in the user's --keep DIR */
    if (in) out = fopen(to, "wb");
    priv_user_end();
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

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[4400];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

int perf_record_run(const perf_record_opts_t *o, perf_record_t *r, profile_t *p)
{
    memset(r, 0, sizeof *r);
    if (perf_import_check_perf() != 0) return -1;
    static const char *const node_flags[] = {"--perf-basic-prof", "--interpreted-frames-native-stack", NULL};
    if (o->attach ? record_check_attach(o->attach, RECORD_ATTACH_ANY) != 0
                  : record_program_resolve(&r->rp, o->prog, o->nprog, node_flags, 1) != 0)
        return -1;
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/nodescope-record.XXXXXX", priv_env("TMPDIR") ? priv_env("TMPDIR") : "/tmp");
    priv_user_begin(); /* the user's directory, made with the user's rights */
    const char *dir = o->keep ? o->keep : mkdtemp(tmpl);
    int made = dir && (!o->keep || mkdir(o->keep, 0755) == 0 || errno == EEXIST);
    priv_user_end();
    if (o->keep && made && priv_check_path("--keep", o->keep, W_OK | X_OK) != 0) {
        record_program_free(&r->rp);
        return -1;
    }
    if (!made) {
        diag_error(o->keep ? o->keep : tmpl, 0, "cannot create a directory for the recording: %s", strerror(errno));
        record_program_free(&r->rp);
        return -1;
    }
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    char data[4200], journal[4200];
    snprintf(data, sizeof data, "%s/perf.data", dir);
    snprintf(journal, sizeof journal, "%s/map-journal.txt", dir);

    /* perf record [-p PID | -- PROGRAM] */
    char freq_s[32], pid_s[32];
    snprintf(freq_s, sizeof freq_s, "%d", (int)o->freq);
    char **pargv = xcalloc((size_t)r->rp.argc + 20, sizeof *pargv);
    int k = 0;
    pargv[k++] = "perf", pargv[k++] = "record", pargv[k++] = "-q", pargv[k++] = "-g", pargv[k++] = "-k";
    pargv[k++] = "CLOCK_MONOTONIC", pargv[k++] = "-F", pargv[k++] = freq_s, pargv[k++] = "-o", pargv[k++] = data;
    if (o->attach) {
        snprintf(pid_s, sizeof pid_s, "%d", o->attach);
        pargv[k++] = "-p", pargv[k++] = pid_s;
    } else {
        pargv[k++] = "--";
        for (int i = 0; i < r->rp.argc; i++) pargv[k++] = r->rp.argv[i];
    }
    pargv[k] = NULL;

    perf_session_opts_t so = {.perf_argv = pargv,
                              .attach_pid = o->attach,
                              .duration_s = o->duration,
                              .journal_path = o->attach || r->rp.is_node ? journal : NULL};
    stop_signals_install(); /* caught until nodescope exits, as in the live sampler's recording */
    if ((r->ran = perf_session_run(&so, &r->sr) == 0)) {
        if (!o->attach && r->sr.target) remove_v8_logs(r->sr.target);
        r->imported = perf_import(dir, r->sr.target, r->sr.journaled, p, &r->named) == 0;
    }
    free(pargv);
    return 0;
}

void perf_record_end(perf_record_t *r, const perf_record_opts_t *o)
{
    /* The perf map of a program we started is ours: kept with --keep, else removed.
     * An attached process keeps its own. */
    if (!o->attach && r->sr.target && r->rp.is_node) {
        char map_path[64], kept[4200];
        snprintf(map_path, sizeof map_path, "/tmp/perf-%d.map", r->sr.target);
        snprintf(kept, sizeof kept, "%s/perf-%d.map", r->dir, r->sr.target);
        if (!o->keep || move_file(map_path, kept) != 0) unlink(map_path);
    }
    record_program_free(&r->rp);
    if (!o->keep) remove_dir(r->dir);
}
