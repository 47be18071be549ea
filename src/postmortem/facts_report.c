/* `nodescope --version -p PID` (or --node BIN, or a core): nodescope's version and, for the node pointed at, its
 * Node and V8 versions, the object V8 was found in, how many v8dbg_ constants it exports, which
 * entry of v8/layout.c's table of facts applies (v8_facts) and the frame and layout facts used.
 * `nodescope --version` alone: the version, and what this build has and lacks (util/lazylib.h). */
#include "postmortem/facts_report.h"
#include "target/target.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/lazylib.h"
#include "util/options.h"
#include "util/privilege.h"
#include "v8/v8.h"
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Node's version as its release URL in the V8 object's file names it ("v26.12.1"), "" when the
 * file has none (a build without release metadata) */
static void node_version(const char *file, char *out, size_t cap)
{
    static const char key[] = "nodejs.org/download/release/v";
    out[0] = 0;
    int fd = file ? open(file, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (fd < 0) return;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        const char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            const char *p = memmem(m, (size_t)st.st_size, key, sizeof key - 1);
            if (p) {
                p += sizeof key - 2; /* at the 'v' */
                size_t n = 0;
                while (p + n < m + st.st_size && n + 1 < cap &&
                       (p[n] == 'v' || p[n] == '.' || isdigit((unsigned char)p[n])))
                    n++;
                memcpy(out, p, n);
                out[n] = 0;
            }
            munmap((void *)m, (size_t)st.st_size);
        }
    }
    close(fd);
}

static const char *fit_name(int fit) { return fit == 0 ? "exact" : fit > 0 ? "newer" : "older"; }

static void print_text(v8_t *v, const v8_facts_t *f, const char *nodev, const char *version, buf_t *b)
{
    target_t *t = v8_target(v);
    const target_v8_object_t *o = target_v8_object(t);
    buf_printf(b, "nodescope %s\n", version);
    buf_printf(b, "target:   %s (%s)\n", target_name(t), target_exe_path(t));
    buf_printf(b, "node:     %s\n", nodev[0] ? nodev : "unknown (no release URL in the V8 object)");
    buf_printf(b, "v8:       %s\n", v8_version(v));
    buf_printf(b, "v8 from:  %s (%s%s%s)\n", o->path ? o->path : target_exe_path(t),
               o->is_exe ? "the executable" : "a library", o->build_id[0] ? ", build id " : "", o->build_id);
    buf_printf(b, "metadata: %zu v8dbg_ constants\n", f->nmetadata);
    if (f->fit == 0) buf_printf(b, "facts:    V8 %d.%d's own entry\n", f->major, f->minor);
    else
        buf_printf(b, "facts:    V8 %s is %s than nodescope knows: %s not known (taken as on %d.%d: %s)\n",
                   v8_version(v), f->fit > 0 ? "newer" : "older", f->steer, f->major, f->minor, f->risk);
    buf_printf(b, "table:   ");
    for (size_t i = 0; i < f->ntable; i++) buf_printf(b, " %d.%d", f->table[i][0], f->table[i][1]);
    buf_printf(b, "\n");
    for (int frame = 1; frame >= 0; frame--) { /* frame slots, then object layout */
        buf_printf(b, frame ? "frame:   " : "layout:  ");
        for (size_t i = 0, n = 0; i < f->nfacts; i++)
            if (!strncmp(f->facts[i].name, "fp_", 3) + !strncmp(f->facts[i].name, "api_", 4) == frame)
                buf_printf(b, "%s%s %lld", n++ ? ", " : " ", f->facts[i].name, (long long)f->facts[i].value);
        buf_printf(b, "\n");
    }
}

static void print_json(v8_t *v, const v8_facts_t *f, const char *nodev, const char *version, buf_t *b)
{
    target_t *t = v8_target(v);
    const target_v8_object_t *o = target_v8_object(t);
    char s[32];
    jw_t w;
    jw_init(&w, b);
    jw_object_begin(&w, NULL);
    jw_string(&w, "nodescope_version", version);
    jw_string(&w, "target", target_name(t));
    jw_string(&w, "executable", target_exe_path(t));
    jw_string(&w, "node_version", nodev[0] ? nodev : NULL);
    jw_string(&w, "v8_version", v8_version(v));
    jw_object_begin(&w, "v8_object");
    jw_string(&w, "path", o->path ? o->path : target_exe_path(t));
    jw_bool(&w, "is_executable", o->is_exe);
    jw_string(&w, "build_id", o->build_id[0] ? o->build_id : NULL);
    jw_end(&w);
    jw_uint(&w, "metadata_constants", f->nmetadata);
    jw_object_begin(&w, "facts");
    snprintf(s, sizeof s, "%d.%d", f->major, f->minor);
    jw_string(&w, "entry", s);
    jw_string(&w, "fit", fit_name(f->fit));
    jw_string(&w, "not_known", f->fit ? f->steer : NULL);
    jw_array_begin(&w, "table");
    for (size_t i = 0; i < f->ntable; i++) {
        snprintf(s, sizeof s, "%d.%d", f->table[i][0], f->table[i][1]);
        jw_string(&w, NULL, s);
    }
    jw_end(&w);
    jw_object_begin(&w, "used");
    for (size_t i = 0; i < f->nfacts; i++) jw_int(&w, f->facts[i].name, f->facts[i].value);
    jw_end(&w);
    jw_end(&w);
    jw_end(&w);
    buf_printf(b, "\n");
}

static const char version_usage[] =
    "usage: nodescope --version\n"
    "       nodescope --version (-p PID | --node BIN | CORE [--node BIN]) [--root DIR] [--json]\n\n"
    "nodescope's version and the libraries this build has and lacks (static or loaded on first use);\n"
    "with a node process, executable or core: which facts nodescope has for\n"
    "its node (its Node and V8 versions, the object V8 is in, the v8dbg_ constants, the entry of\n"
    "nodescope's table of V8 facts that applies, the frame and layout facts used). Exit status 0\n"
    "when all is known, 3 when V8 is not in the table, 1 when the node cannot be read or has no V8\n"
    "metadata. --node BIN alone reads the file (and the libnode it needs, under --root DIR): nothing\n"
    "is run.\n";

int pm_version_command(int argc, char **argv, const char *version)
{
    const char *node = NULL, *root = NULL;
    long pid = 0;
    int json = 0;
    const opt_t opts[] = {
        OPT_INT("pid", 'p', "PID", "a live node process (read while it runs; never stopped)", &pid),
        OPT_STR("node", 0, "BIN", "a node executable (with CORE: the one the core came from)", &node),
        OPT_STR("root", 0, "DIR", "the directory a container's or distribution's paths are under", &root),
        OPT_BOOL("json", 0, "one JSON document", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"--version", version_usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n > 1) return opt_usage_error(&cmd, "one core file, not %d", n);
    if (pid < 0 || pid > 0x7fffffff) return opt_usage_error(&cmd, "-p needs a process id, not %ld", pid);
    if (n && pid) return opt_usage_error(&cmd, "a core file or -p PID, not both");
    if ((node || root) && pid)
        return opt_usage_error(&cmd, "--%s goes with a core file or alone", node ? "node" : "root");
    if (root && !n && !node) return opt_usage_error(&cmd, "--root goes with a core file or --node BIN");
    if (!n && !pid && !node) {
        printf("nodescope %s\nbuild: %s\n", version, lazylib_build());
        return EXIT_OK;
    }
    if (!pid) priv_drop();
    if (priv_check_path("--root", root, R_OK | X_OK) || priv_check_path("--node", node, R_OK)) return EXIT_FAIL;
    target_t *t = pid ? target_open_running((int)pid)
                  : n ? target_open_core_root(argv[1], node, root)
                      : target_open_executable(node, root);
    v8_t *v = t ? v8_open(t) : NULL;
    if (!v) {
        if (t) target_close(t);
        return EXIT_FAIL;
    }
    v8_facts_t f;
    v8_facts(v, &f);
    char nodev[32];
    node_version(target_v8_object(t)->file, nodev, sizeof nodev);
    buf_t b = {0};
    (json ? print_json : print_text)(v, &f, nodev, version, &b);
    fwrite(b.data, 1, b.len, stdout);
    buf_free(&b);
    int rc = f.fit ? PM_FACTS_EXIT_UNKNOWN : EXIT_OK;
    v8_close(v);
    target_close(t);
    return rc;
}
