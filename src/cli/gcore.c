/* nodescope gcore PID [-o FILE]: an ELF core of a live process, like gdb's gcore, but the process
 * is stopped only while its registers are saved and it forks a frozen copy (target_freeze): the
 * core is written from the copy while the process runs on (target_write_core). */
#include "cli/cli.h"
#include "target/core_file.h"
#include "util/diag.h"
#include "util/options.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int cli_gcore(int argc, char **argv)
{
    const char *out = NULL;
    int verbose = 0;
    const opt_t opts[] = {
        OPT_STR("output", 'o', "FILE", "the core file (default: core.PID)", &out),
        OPT_BOOL("verbose", 'v', "say how long the process was stopped", &verbose),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"gcore",
                           "usage: nodescope gcore PID [-o FILE] [-v]\n\n"
                           "Write an ELF core of a running process (gdb and `nodescope core FILE` read it). The\n"
                           "process is stopped only while its threads' registers are saved and it is made to fork a\n"
                           "frozen copy of itself (a few ms; gdb's gcore stops it for the whole dump); the core is\n"
                           "written from the copy while the process runs on, then the copy is killed. The core holds\n"
                           "every thread's registers (NT_PRSTATUS), NT_PRPSINFO, NT_AUXV, NT_FILE and the memory the\n"
                           "kernel's cores hold (file-backed code is read from the files).\n",
                           tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n != 1) return opt_usage_error(&cmd, n ? "one process id" : "which process (PID)?");
    char *end;
    long pid = strtol(argv[1], &end, 10);
    if (*end || pid <= 0 || pid > 0x7fffffff) return opt_usage_error(&cmd, "not a process id: '%s'", argv[1]);
    char def[32];
    snprintf(def, sizeof def, "core.%ld", pid);
    if (!out) out = def;
    target_t *t = target_open_running((int)pid);
    if (!t) return EXIT_FAIL;
    double ms = 0;
    if (target_freeze(t, &ms) != 0) {
        target_close(t);
        return EXIT_FAIL;
    }
    if (verbose)
        fprintf(stderr, "nodescope: pid %ld stopped for %.2f ms (the fork took %.2f ms)\n", pid, ms, target_fork_ms(t));
    int rc = target_write_core_path(t, out) == 0 ? EXIT_OK : EXIT_FAIL;
    size_t nthreads = target_thread_count(t);
    target_close(t);
    if (rc == EXIT_OK) {
        struct stat st;
        long long mb = stat(out, &st) == 0 ? (long long)(st.st_blocks * 512 >> 20) : -1;
        fprintf(stderr, "nodescope: wrote %s: pid %ld, %zu threads, %lld MB on disk; stopped %.2f ms\n", out, pid,
                nthreads, mb, ms);
    }
    return rc;
}
