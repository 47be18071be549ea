/* Private state shared by the target/ implementation files (core.c, elf.c, live.c, unwind.c). */
#ifndef TARGET_TARGET_INTERNAL_H
#define TARGET_TARGET_INTERNAL_H
#include "target/target.h"
#include <time.h>

/* CLOCK_MONOTONIC in milliseconds: how long a stop, a fork or a step took */
static inline double target_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct {
    uint64_t vaddr, memsz, filesz, offset; /* one PT_LOAD of the core */
} target_seg_t;

typedef struct {
    char *name;
    uint64_t addr, size; /* runtime address (bias applied) */
    int is_func;
    int in_bss;        /* SHT_NOBITS: contents only in the target's memory */
    uint64_t file_off; /* offset of the contents in the ELF file, when not bss */
} target_elfsym_t;

typedef struct {
    char *path; /* as the target names it (its mappings' path) */
    char *file; /* the file read: path, or path through the target's root (files.c) */
    uint64_t bias;
    target_elfsym_t *syms; /* sorted by addr */
    size_t nsyms;
    const target_elfsym_t **by_name; /* the same symbols sorted by name, built on first lookup */
    int fd;                          /* for reading symbol contents; -1 if unavailable */
    void *debug_elf;                 /* the separate debug file's Elf handle its symbols' names point into, or NULL */
    int debug_fd;                    /* and its fd (-1) */
    void *debug_bytes;               /* MiniDebugInfo: the decompressed ELF debug_elf reads (malloc'd), or NULL */
    char *synth_names;               /* names of symbols v8_object.c made (V8's builtins in a stripped library) */
} target_module_t;

/* What differs between the kinds of target: core files (and memory blocks), running and stopped
 * processes. Everything else (mappings, threads, modules and symbols) is shared data. */
typedef struct target_ops {
    const char *kind; /* "core", "running process", "stopped process" */
    int (*read)(target_t *t, uint64_t addr, void *dst, size_t n);
    void (*close)(target_t *t); /* what the kind owns beyond the shared data; may be NULL */
} target_ops_t;

typedef struct {
    uint64_t start;
    size_t len;
    uint8_t *bytes;
} target_region_t;

struct target {
    const target_ops_t *ops;
    const arch_t *arch; /* its registers' and code's architecture (target_arch) */
    char *name;
    char *exe_path;
    int pid;            /* live target, else 0 */
    char *root;         /* a core's --root DIR: prefix of every mapped path (files.c) */
    int exe_given;      /* a core's executable was given (--node): a host path */
    char *exe_map_path; /* the path the target maps its executable by (elf.c) */
    char **unloadable;
    size_t nunloadable;  /* mapped files whose symbols could not be loaded: not tried again */
    char *problem;       /* why the target's files may be the wrong ones (files.c), or NULL */
    const uint8_t *core; /* mmap of the core file (or the caller's bytes: memory.c) */
    int core_borrowed;   /* core is not ours to unmap */
    size_t core_size;
    target_seg_t *segs;
    size_t nsegs; /* sorted by vaddr */
    target_mapping_t *maps;
    size_t nmaps;
    target_thread_t *threads;
    size_t nthreads;
    target_module_t *mods;
    size_t nmods; /* mods[0] is the executable once loaded */
    int mods_loaded;
    uint64_t at_entry;
    const uint8_t *auxv; /* a core's NT_AUXV note (in core), auxv_len bytes */
    size_t auxv_len;
    /* live targets */
    uint8_t *held; /* per thread: held with ptrace (stopped) */
    target_region_t *stacks;
    size_t nstacks;           /* stacks copied by target_snapshot */
    target_region_t lent;     /* a caller's stack copy (target_set_stack_copy), not owned */
    struct read_cache *cache; /* recent reads of a live process (live.c) */
    uint64_t maps_read_ns;    /* when /proc/PID/maps was last read (live.c) */
    uint64_t maps_wait_ns;    /* how long a miss waits after that: grows while misses find nothing */
    char **gone_paths;
    size_t ngone;                   /* paths of mappings gone since: frame records may point at them */
    int frozen_pid;                 /* target_freeze's copy, whose memory is read; 0: none (freeze.c) */
    int copy_mem_fd, copy_mem_pid;  /* /proc/COPY/mem of the copy read (fd + 1; 0: none) (live.c) */
    int frozen_ns_pid;              /* the copy's pid in the target's pid namespace (freeze.c) */
    double fork_ms;                 /* how long the injected clone took (freeze.c) */
    uint64_t syscall_insn;          /* a syscall instruction in the target's code (freeze.c) */
    int guard_pid, guard_fd;        /* the process that froze it and traces the copy, and the pipe
                                          that tells it to thaw (freeze_guard.c; 0: none) */
    int traced;                     /* its threads are traced and held by a watch (trigger.c): freeze
                                          neither seizes nor lets them go, and thaw leaves the zombie */
    int trace_opts;                 /* the watch's ptrace options, put back on the main thread after the clone */
    int traced_pending;             /* a signal the main thread got during the freeze, for the watch */
    struct target_cfi *cfi;         /* target_unwind_sample's Dwfl (unwind.c) */
    struct symbol_cache *sym_cache; /* recent address -> symbol answers (elf.c) */
    struct target_track *track;     /* the image kept by write tracking (track.c), or NULL */
    int track_want;                 /* freeze through write tracking where the kernel has it */
    int track_frozen;               /* reads are the image's, as of the last stop */
    const char *track_why;          /* why there is no tracking (a static string), or NULL */
    uint32_t sym_generation;        /* bumped when mappings or modules change: the cache's answers go */
    size_t v8_mod;                  /* mods[v8_mod - 1] holds V8 (v8_object.c); 0: none chosen yet */
    size_t v8_scanned;              /* mods[0, v8_scanned) were looked at for V8's metadata */
    target_v8_object_t v8obj;       /* what target_v8_object answers */
};
extern const target_ops_t target_core_ops;
extern const target_ops_t target_frozen_ops; /* live.c: a process read through its frozen copy */
/* live.c: what was read before now is not to be answered from the read cache (a freeze done by
   another process: the guard's stop and resume invalidated its own cache, not ours) */
void target_live_cache_invalidate(target_t *t);
/* live.c: the mappings as the frozen copy has them (the process mapped more between its open and
   the stop: a large object's new page, missing from a census that walked the old list) */
void target_live_frozen_maps(target_t *t);
/* live.c: the mappings are these now (maps taken over; old path strings kept for names) */
void target_live_set_maps(target_t *t, target_mapping_t *maps, size_t n);
/* proc_maps.c: /proc/PID/maps into a new array (each path malloc'd); -1 when it cannot be read */
int target_live_read_maps(int pid, target_mapping_t **out, size_t *nout);
/* freeze_guard.c: kills and reaps the frozen copy, if any (through the guard that made it; traced
   by a watch: kills it only, its zombie waits for target_reap_copies or the next freeze) */
void target_thaw(target_t *t);
/* freeze.c: the freeze and the thaw themselves, in this process (its tracer) */
int target_freeze_here(target_t *t, double *stopped_ms);
void target_thaw_here(target_t *t);
/* freeze.c: a syscall instruction in the target's code (0: none), and one system call nr(args) run
   by the stopped, untraced-by-a-watch thread tid whose registers are saved[] (restored after; the
   host's arch order, target_ptrace_regs): *ret its result, *pending a signal that came meanwhile.
   0, or -1 (errno). */
uint64_t target_find_syscall(target_t *t);
int target_inject_syscall(int tid, const uint64_t saved[ARCH_MAX_REGS], uint64_t insn, long nr, const uint64_t args[5],
                          long *ret, int *pending);
/* ptrace_regs.c: a stopped tracee's registers in the host's arch order (ptrace's NT_PRSTATUS
   regset: arch_host()->nregs words), read (set 0) or written (set 1). 0, or -1 (errno). */
int target_ptrace_regs(int tid, uint64_t regs[ARCH_MAX_REGS], int set);
/* target.c: th's pc, sp and fp from its regs[] (the target's arch) */
void target_thread_set_regs(const target_t *t, target_thread_t *th);
/* track.c: the tracked copy (target_track_want) */
struct target_track;
int target_track_freeze(target_t *t, double *stopped_ms);               /* 0; 1: not available (fork instead); -1 */
int target_track_read(target_t *t, uint64_t addr, void *dst, size_t n); /* 0, -1, 1: in files (read the process) */
const void *target_track_direct(target_t *t, uint64_t addr, size_t n);
void target_track_free(target_t *t);
/* freeze.c: reaps, for the untraced target, the zombies of earlier copies (a stop of its main thread) */
void target_reap_copies(target_t *t);

/* link_map.c: a core without NT_FILE (qemu-user's): mappings of the executable (AT_PHDR,
 * AT_EXECFN, else exe, --node's path) and of the libraries on the dynamic linker's list in memory */
int target_link_map_files(target_t *t, const char *exe, char **exe_found);
/* unwind.c */
void target_cfi_free(target_t *t);
/* modules.c: the target's modules loaded (again: those mapped since), V8's object chosen */
int target_elf_load_modules(target_t *t);
/* elf.c: a module's symbols read from its Elf (and its debug_elf, when debug.c found one); the
   address the Elf's first PT_LOAD is linked at (page-aligned); a path's base name */
void target_module_read_symbols(target_module_t *mod, void *elf);
uint64_t target_elf_load_base(void *elf);
const char *target_base_name(const char *path);
/* A symbol of mod by name (a hash index built after a few scans), or NULL */
const target_elfsym_t *target_module_find(target_module_t *mod, const char *name);
/* Appends n symbols to mod (names borrowed: they must live as long as the module) */
void target_module_add_symbols(target_module_t *mod, const target_elfsym_t *syms, size_t n);
/* v8_object.c: the module V8 is in, chosen once a module has V8's metadata (mods[0] until then; NULL: no modules) */
void target_v8_choose(target_t *t);
target_module_t *target_v8_module(target_t *t);
void target_elf_free_modules(target_t *t);
void target_symbol_cache_free(target_t *t);
/* files.c */
/* Opens the file path (as the target names it; mapped at [map_start, map_end) when known, 0
 * otherwise) from where the target's files are (see files.c), checked by build id against the
 * target's memory at map_start. The fd, *used the path opened (malloc'd); -1 when no file can be
 * opened, or (not required) none has the right build id: then warned. required: the executable. */
int target_open_file(target_t *t, const char *path, uint64_t map_start, uint64_t map_end, int required, char **used);
/* The first problem is kept (target_problem) */
void target_set_problem(target_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The GNU build id of an ELF (elf.c): in a file (fd >= 0) or mapped in the target at base (fd < 0). Its length or 0. */
size_t target_elf_build_id(target_t *t, int fd, uint64_t base, uint8_t *id, size_t cap);
/* A separate debug file's symbols for mod (debug.c): by build id, .gnu_debuglink, .gnu_debugdata,
 * debuginfod (only with DEBUGINFOD_URLS). e: the module's own Elf. */
void target_debug_symbols(target_t *t, target_module_t *mod, void *e);
int target_elf_has_symtab(void *elf); /* elf.c */
/* core.c: target_direct of a core file (its bytes mapped: track.c's target_direct asks) */
const void *target_core_direct(target_t *t, uint64_t addr, size_t n);
/* file-backed read fallback (core.c): bytes of a mapped file */
int target_read_mapped_file(target_t *t, const target_mapping_t *m, uint64_t addr, void *dst, size_t n);
#endif
