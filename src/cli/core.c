/* nodescope core: look inside a Node.js core file (or a live pid) after the fact.
 * This first piece prints each thread's native stack, symbolized; JIT frames (no
 * symbol) are shown by address until the V8 frame decoder (v8/frames.c) lands. */
#include "cli/cli.h"
#include "target/target.h"
#include "util/diag.h"
#include "v8/metadata.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORE_MAX_FRAMES 4096

static void core_usage(FILE *f)
{
    fprintf(f, "usage: nodescope core CORE [--node BIN] stack [--thread N|--all-threads]\n"
               "       nodescope core --pid PID stack [...]\n\n"
               "Print the native stack of a thread of a Node.js core file or live process.\n"
               "Frames without a native symbol (JIT code: JavaScript) are printed by address.\n\n"
               "options:\n"
               "  --node BIN      the node executable the core came from (default: from the core)\n"
               "  --pid PID       attach to a live process instead (stopped while read)\n"
               "  --thread N      the thread with this index (default 0, the main thread)\n"
               "  --all-threads   every thread\n"
               "  -h, --help      this text\n");
}

static void print_thread(target_t *t, size_t ti, target_frame_t *frames)
{
    const target_thread_t *th = target_thread(t, ti);
    printf("thread %zu (tid %d%s%s)\n", ti, th->tid, th->name ? ", " : "", th->name ? th->name : "");
    size_t n = target_unwind(t, ti, frames, CORE_MAX_FRAMES);
    for (size_t i = 0; i < n; i++) {
        target_symbol_t sym;
        /* Return addresses point after the call: look up pc-1 so a call at a function's end names it. */
        uint64_t lookup = i ? frames[i].pc - 1 : frames[i].pc;
        if (target_symbolize(t, lookup, &sym) == 0 && sym.name)
            printf("  #%-3zu native: %s+0x%llx (%s)\n", i, sym.name, (unsigned long long)(frames[i].pc - sym.addr),
                   sym.module ? sym.module : "?");
        else
            printf("  #%-3zu jit/unknown: 0x%llx\n", i, (unsigned long long)frames[i].pc);
    }
}

int cli_core(int argc, char **argv)
{
    const char *core = NULL, *node = NULL, *cmd = NULL;
    int pid = 0, all = 0;
    long thread = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            core_usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--node") && i + 1 < argc) {
            node = argv[++i];
        } else if (!strcmp(a, "--pid") && i + 1 < argc) {
            char *end;
            pid = (int)strtol(argv[++i], &end, 10);
            if (*end || pid <= 0) {
                fprintf(stderr, "nodescope: core: --pid needs a process id, not '%s'\n", argv[i]);
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--thread") && i + 1 < argc) {
            char *end;
            thread = strtol(argv[++i], &end, 10);
            if (*end || thread < 0) {
                fprintf(stderr, "nodescope: core: --thread needs a thread index, not '%s'\n", argv[i]);
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--all-threads")) {
            all = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "nodescope: core: unknown option '%s'\n", a);
            core_usage(stderr);
            return EXIT_USAGE;
        } else if (!core && !pid) {
            core = a;
        } else if (!cmd) {
            cmd = a;
        } else {
            fprintf(stderr, "nodescope: core: unexpected argument '%s'\n", a);
            return EXIT_USAGE;
        }
    }
    if ((!core && !pid) || !cmd) {
        core_usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(cmd, "stack")) {
        fprintf(stderr, "nodescope: core: unknown command '%s' (this version has: stack)\n", cmd);
        return EXIT_USAGE;
    }
    target_t *t = pid ? target_open_pid(pid) : target_open_core(core, node);
    if (!t) return EXIT_FAIL;
    v8_metadata_t md;
    if (v8_metadata_load(t, &md) != 0)
        diag_warn(target_exe_path(t), 0, "no v8dbg_ postmortem metadata: not a node binary?");
    else
        diag_info("%zu V8 postmortem constants", md.count);
    size_t nthreads = target_thread_count(t);
    if (!all && (size_t)thread >= nthreads) {
        diag_error(target_name(t), 0, "no thread %ld (the target has %zu)", thread, nthreads);
        v8_metadata_free(&md);
        target_close(t);
        return EXIT_FAIL;
    }
    target_frame_t *frames = malloc(CORE_MAX_FRAMES * sizeof *frames);
    if (!frames) abort();
    for (size_t ti = all ? 0 : (size_t)thread; ti < (all ? nthreads : (size_t)thread + 1); ti++)
        print_thread(t, ti, frames);
    free(frames);
    v8_metadata_free(&md);
    target_close(t);
    return EXIT_OK;
}
