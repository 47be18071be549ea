/* A process image, whatever its origin: an ELF core file (+ the executable it
 * came from) or a live process. One small interface used by v8/ and the CLI.
 * Every read is checked: a read of unmapped or missing memory fails (returns -1),
 * it never crashes. Implementations: target/core.c, target/live.c.
 * CONTRACT (stable; owned by target/, consumed by v8/ and cli/). */
#ifndef TARGET_TARGET_H
#define TARGET_TARGET_H
#include "arch/arch.h"
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct target target_t;

typedef struct {
    uint64_t start, end;  /* [start, end) */
    uint64_t file_offset; /* offset in the mapped file, when there is one */
    int prot;             /* PROT_READ | PROT_WRITE | PROT_EXEC */
    const char *path;     /* mapped file, or NULL for anonymous memory */
    int present;          /* 1 if the contents are in the core (or live) */
} target_mapping_t;

typedef struct {
    int tid;
    const char *name; /* thread name when known, or NULL */
    uint64_t pc, sp, fp;            /* regs[arch->pc], [arch->sp], [arch->fp] */
    uint64_t regs[ARCH_MAX_REGS];   /* in the target's arch order (target_arch: its NT_PRSTATUS pr_reg) */
} target_thread_t;

typedef struct {
    const char *name;    /* demangled when possible */
    uint64_t addr, size; /* symbol start (runtime address) and size */
    const char *module;  /* basename of the ELF it came from */
} target_symbol_t;

/* Opens a core file. exe = the executable to use (NULL: found from the core's
 * NT_FILE note). Errors are printed (naming the file and the problem) and NULL returned:
 * missing or mismatched executable (build id differs), not a core, truncated headers. */
target_t *target_open_core(const char *core_path, const char *exe);
/* The same for a core from another mount namespace (a container): root (may be NULL) is prefixed to
 * every path the core maps (e.g. /proc/PID/root of a container's process, or its image unpacked);
 * exe, when given, is a path of this machine's. */
target_t *target_open_core_root(const char *core_path, const char *exe, const char *root);
/* A node executable alone (target/exe_file.c): its segments read from the file, and the libnode*
 * library it needs, looked for in the dynamic linker's default directories under root (NULL: /).
 * No threads, no heap: for V8's metadata, version and symbols; target_kind "executable". NULL and a
 * message when unreadable. */
target_t *target_open_executable(const char *exe, const char *root);
/* Live processes come in two states, one target each way: a "running process" (never stopped: no
 * ptrace, no signal handler, memory read with process_vm_readv; threads listed without registers)
 * and a "stopped process" (every thread held with ptrace, registers read). Opening a running
 * process loads the mappings and every binary's symbols while it runs (the slow part); do all such
 * loading (v8_open too) before stopping it. Signals stay the caller's: if nodescope dies while
 * threads are held, the kernel detaches them and they run on.
 * A running process, read-only. NULL and a message when it does not exist or cannot be read. */
target_t *target_open_running(int pid);
/* Stops every thread (PTRACE_SEIZE + PTRACE_INTERRUPT) and reads its registers: the target becomes
 * a stopped process until target_resume or target_close. -1 (message printed, errno set) when a
 * thread cannot be attached. */
int target_stop(target_t *t);
void target_resume(target_t *t);
/* Stops the process only to read every thread's registers and copy the used part of its stack,
 * then resumes it: stack reads that follow come from the copies (consistent with the registers),
 * other memory from the running process. *stopped_ms (may be NULL) receives how long the process
 * was stopped. SIGINT, SIGTERM and SIGHUP are held back for that time. 0, or -1 as target_stop. */
int target_snapshot(target_t *t, double *stopped_ms);
/* Stops every thread only to read its registers and fork a frozen copy of the process (the main
 * thread is made to call clone(): a copy-on-write image of its memory at that instant, traced from
 * birth, never run), then resumes it: every read from now on comes from the copy, consistent with
 * the registers, while the process runs on; the kind stays "stopped process". target_close kills
 * and reaps the copy. *stopped_ms (may be NULL) receives how long the process was stopped. Warns
 * when free memory is less than the process's anonymous memory. 0, or -1 (message printed). The
 * host's architecture (arch_host: its system call instruction and registers). */
int target_freeze(target_t *t, double *stopped_ms);
/* Ends target_freeze: the copy is killed and reaped, and the target is a running process again,
 * its mappings and loaded symbols kept; target_freeze may then take another copy (watch --heap:
 * one target for every census, node's symbols loaded once). target_close does it too. */
void target_unfreeze(target_t *t);
/* Of that stop, how long the fork itself took (the kernel copying the page tables: the floor). */
double target_fork_ms(const target_t *t);
/* Freezes of this process keep an image of its memory, brought up to date from the pages it wrote
 * since the last freeze (track.c), where the kernel and the process allow it; else a fork. */
void target_track_want(target_t *t, int on);
/* "tracked" or "fork": how the last freeze copied; *why (may be NULL): why not tracked, or NULL */
const char *target_copy_kind(const target_t *t, const char **why);
/* Bytes the last tracked freeze read from the process (0 for a fork) */
uint64_t target_copy_read_bytes(const target_t *t);
/* The tracked copy's freezes, numbered from 1 (the number of the last one that succeeded; 0 for a
 * fork or before the first). A reader that kept what it learned of the copy at freeze N may reuse
 * it at freeze N + 1 where target_copy_unchanged says so. */
uint64_t target_copy_generation(const target_t *t);
/* 1 when no byte of [addr, addr + n) of a tracked copy changed at its last freeze (what the process
 * wrote meanwhile, or gave back, was read or dropped: their pages are changed), and the range was
 * in the image before and after; else 0. */
int target_copy_unchanged(const target_t *t, uint64_t addr, uint64_t n);
/* Writes an ELF core of a frozen process (target_freeze) to fd: NT_PRSTATUS per thread (the
 * registers of the stop), NT_PRPSINFO, NT_AUXV, NT_FILE, and its memory except file-backed code
 * (read from the files, as the kernel's cores do). 0, or -1 (message printed). (target/gcore.c) */
int target_write_core(target_t *t, int fd, const char *name);
/* Reads of [addr, addr + n) come from bytes (borrowed until the next call; n = 0 ends it) instead
 * of the process: a perf_event sample's copy of the stack, decoded after the process moved on. */
void target_set_stack_copy(target_t *t, uint64_t addr, const void *bytes, size_t n);
/* A running process: reads from now on must show memory as of monotonic_ns (CLOCK_MONOTONIC) or
 * later; what was read before that is read again. A sampler passes each sample's time. */
void target_fresh_after(target_t *t, uint64_t monotonic_ns);
/* A sampled process that has exited: its memory is gone, and reads are answered from what was
 * read last (before the exit) or fail. A sampler may count the samples it names then apart. */
int target_memory_gone(const target_t *t);
/* target_open_running + target_stop: the process stays stopped until target_close. */
target_t *target_open_pid(int pid);
/* "core", "running process" or "stopped process". */
const char *target_kind(const target_t *t);
void target_close(target_t *t);
/* A target that is just n bytes of memory at base (no threads, no modules): for fuzzing the
 * decoders. The bytes are borrowed and must outlive the target. */
target_t *target_open_memory(uint64_t base, const void *bytes, size_t n);

/* Reads n bytes at addr into dst; 0 on success, -1 if any byte is unavailable. */
int target_read(target_t *t, uint64_t addr, void *dst, size_t n);
/* Convenience readers; -1 when unreadable. */
int target_read_u64(target_t *t, uint64_t addr, uint64_t *out);
int target_read_u32(target_t *t, uint64_t addr, uint32_t *out);
int target_read_u16(target_t *t, uint64_t addr, uint16_t *out);
int target_read_u8(target_t *t, uint64_t addr, uint8_t *out);
/* Direct pointer into the core's mapped bytes for [addr, addr+n) when contiguous and present,
 * else NULL (live targets: NULL). Lets heap scans avoid copies. */
const void *target_direct(target_t *t, uint64_t addr, size_t n);
/* Hands back the resident pages of a core file's mapping (they are read again when touched): for
 * long walks, to bound memory. A no-op for other targets. (target/memory.c) */
void target_release_pages(target_t *t);

size_t target_mapping_count(const target_t *t);
const target_mapping_t *target_mapping(const target_t *t, size_t i);
const target_mapping_t *target_mapping_at(const target_t *t, uint64_t addr);
/* target_mapping_at, and when addr is in no known mapping of a live process, the mappings read
 * again (at most every 100 ms) with the symbols of files mapped since: node maps and unmaps as it
 * runs (Node 20 maps V8's embedded builtins a second time next to its code range after start;
 * addons are dlopen'ed). Pointers into the old mappings stay valid until target_close. */
const target_mapping_t *target_mapping_refresh(target_t *t, uint64_t addr);

/* The architecture of the target's code and registers: a core's or executable's ELF machine, a live
 * process's the host's (arch/arch.h). */
const arch_t *target_arch(const target_t *t);

size_t target_thread_count(const target_t *t);
const target_thread_t *target_thread(const target_t *t, size_t i);

/* Native symbol lookup across the executable and shared libraries (by address). */
int target_symbolize(target_t *t, uint64_t addr, target_symbol_t *out);
/* The same for data: the object symbol (a vtable, a static variable) whose extent covers addr. */
int target_symbolize_data(target_t *t, uint64_t addr, target_symbol_t *out);
/* The mapped file addr lies in, by base name, and addr's offset in that file (what addr2line
 * takes for a library without symbols); -1 for anonymous memory. */
int target_file_location(const target_t *t, uint64_t addr, const char **module, uint64_t *offset);
/* Value of a symbol of node (e.g. "v8dbg_type_JSFunction__JS_FUNCTION_TYPE"): of the object V8 is in
 * (target_v8_object: the executable, or libnode.so), else of the executable; read from the file's
 * data (.data/.rodata) or the target's memory (.bss); 0 on success. Looks in .dynsym and .symtab.
 * size_out receives the symbol size (may be NULL). */
int target_exe_symbol_value(target_t *t, const char *name, uint64_t *addr_out, uint64_t *size_out);
/* Iterate the symbols of the object V8 is in whose names start with prefix (e.g. "v8dbg_"). */
typedef void (*target_symbol_cb)(void *ctx, const char *name, uint64_t addr, uint64_t size);
void target_exe_symbols(target_t *t, const char *prefix, target_symbol_cb cb, void *ctx);
/* NOTE for v8/ (added by target/): target_exe_symbol_value's addr_out receives the symbol's CONTENTS
 * (its first min(size, 8) bytes, zero-extended: e.g. v8dbg_HeapObjectTag -> 1), not its address;
 * sign-extend 4-byte ones yourself. target_exe_symbols' callback gets the runtime ADDRESS (bias applied).
 * For the address of one symbol by name use target_exe_symbol_addr. */
int target_exe_symbol_addr(target_t *t, const char *name, uint64_t *addr_out, uint64_t *size_out);
/* The address of function name in the executable (lib "node") or in the first library whose file
 * name is lib followed by '.', '-' or nothing ("libc": libc.so.6; or lib is the mapped path);
 * *path: that library's path as the target maps it (NULL for the executable). 0, or -1. */
int target_module_symbol_addr(target_t *t, const char *lib, const char *name, uint64_t *addr_out, const char **path);

/* Native unwind of a thread: fills pcs (and frame pointers, CFA-based where CFI was used) up to max
 * frames; uses the ELF CFI (libdwfl) where frame pointers are missing, frame pointers through JIT code.
 * Returns the number of frames. */
typedef struct {
    uint64_t pc, sp, fp;
} target_frame_t;
size_t target_unwind(target_t *t, size_t thread_index, target_frame_t *frames, size_t max);
/* The frame-pointer chain from given registers (a perf_event sample's): frame 0 is (pc, sp, fp). */
size_t target_unwind_regs(target_t *t, uint64_t pc, uint64_t sp, uint64_t fp, target_frame_t *frames, size_t max);
/* A sample's native frames by CFI (libdwfl: code without frame pointers, libc's among it), then
 * the frame-pointer chain where CFI stops (JIT code): regs in the target's arch order (target_arch),
 * memory read through the target (the sample's stack copy, target_set_stack_copy). 0 when CFI
 * gives nothing. The Dwfl is kept with the target (freed by target_close). */
size_t target_unwind_sample(target_t *t, int tid, const uint64_t regs[ARCH_MAX_REGS], target_frame_t *frames, size_t max);
/* Has the function at pc (a sample's leaf) set up its frame pointer there, by its module's CFI?
 * 1 yes: the frame-pointer chain from the sample's fp starts at its caller, complete; 0 no (built
 * without frame pointers, like libc, or caught in a prologue): that chain misses its caller; -1
 * no CFI covers pc (V8's code: its frames are decoded as V8's). */
int target_leaf_framed(target_t *t, uint64_t pc);

/* The object V8 is in (target/v8_object.c): the executable of an official node, or the library a
 * distribution's node links to (Debian's /usr/lib/x86_64-linux-gnu/libnode.so.108), or any mapped
 * object with V8's postmortem metadata (v8dbg_* symbols). Chosen once, when the modules are loaded:
 * the executable when it has the metadata, else the first library that has it, else the executable.
 * Every "executable symbol" above (target_exe_symbol_value, _addr, target_exe_symbols, and lib
 * "node" of target_module_symbol_addr) is looked up in this object first, then in the executable.
 * When its .symtab was stripped, V8's embedded builtins are named from V8's own tables
 * (Builtins::name and the embedded blob's layout, found through exported functions) as symbols
 * "Builtins_NAME" of the object, so frames in them are decoded as V8's. */
typedef struct {
    const char *path;              /* as the target maps it; NULL when the target has no modules */
    const char *file;              /* the file read for it (through the process's root, --root, --node) */
    uint64_t bias;                 /* its load bias */
    char build_id[129];            /* its GNU build id in hex, "" when it has none */
    int is_exe;                    /* 1: the executable itself */
    int has_metadata;              /* 1: it has v8dbg_* symbols */
    uint64_t blob_start, blob_end; /* V8's embedded builtins' code as mapped, when found in V8's tables */
    size_t builtins_named;         /* how many builtins were named from V8's tables (0: from .symtab, or none) */
    char missing[1024];            /* no object has the metadata, and these libraries it maps could not be
                                      read (missing, or another build): where it may be; "" otherwise */
} target_v8_object_t;
const target_v8_object_t *target_v8_object(target_t *t);
/* Where a uprobe at addr (code of a file that live process pid maps) is placed: *offset, addr's offset
 * in the file; path (cap bytes), the file as the kernel can open it from here: /proc/PID/exe for the
 * executable, else /proc/PID/root + the path the process maps it by (a library: libnode.so.108).
 * 0, or -1 (addr in no file's code, or the path too long). */
int target_probe_location(int pid, uint64_t addr, char *path, size_t cap, uint64_t *offset);

const char *target_exe_path(const target_t *t);
/* Why the target's executable may not be the one it runs, or NULL: it could not be read through
 * the process's mount namespace (/proc/PID/root), or its build id differs (target/files.c).
 * For the messages of commands that find no JavaScript to name. */
const char *target_problem(const target_t *t);
const char *target_name(const target_t *t); /* the core's path or "pid N" */

/* A live process's socket behind file descriptor fd, from /proc (target/proc_net.c): its local and
 * remote addresses as "127.0.0.1:8080" or "[::1]:8080". 0, or -1 when fd is not a TCP or UDP
 * socket the process's /proc/net tables list. */
typedef struct {
    char local[64], remote[64];
    int ok;
} target_socket_t;
int target_proc_socket(int pid, int fd, target_socket_t *a);
/* After attaching to pid failed: a diag_hint saying why it may have (another tracer, Yama's
   ptrace_scope, another user's process, no CAP_SYS_PTRACE) and what to do (target/ptrace_hint.c);
   nothing when pid does not exist. */
void target_ptrace_hint(int pid);

#endif
