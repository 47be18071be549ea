/* The system libraries only some commands need (libdw and libelf: core files, live
 * processes, unwinding; libedit: the core prompt; liblzma and libdebuginfod: debug files, when a
 * file or DEBUGINFOD_URLS asks), loaded on first use instead of at every start; or, in the static
 * build, linked in. The callers are the same in both builds (lazylib.h).
 *
 * Why: loading and relocating them (and liblzma, libbz2, libtinfo, libbsd, libmd they
 * pull in) cost every run ~5 ms of CPU, measured with perf stat: `collapse --help` 8.8 ms
 * against 3.5 ms for an empty C program, and about the same extra for an empty program
 * linked with them. collapse, flame, convert and top need none of them.
 *
 * How: the binary is not linked with them (Makefile: LAZY_PKGS); this file defines each
 * function the code calls, with the library's own prototype from its header, as a
 * forwarder that dlopen()s the library once and calls its function. The libraries keep
 * their own symbol scope (RTLD_LOCAL): their calls among themselves do not come here.
 * A library that cannot be loaded is an error naming it, and the command exits 1 (the
 * old binary did not start at all). An optional library (lazylib_optional) that cannot be
 * loaded is done without.
 *
 * The static build (`make static`: -DNODESCOPE_STATIC, docs/install.md) links libdw, libelf,
 * zlib, liblzma and libedit from their .a files: the forwarders are left out, the code calls the
 * libraries themselves, and the binary loads no library at all. libdebuginfod is not in it (it
 * needs libcurl, which is not built static): libdw's own debuginfod client dlopen()s it in a
 * constructor when DEBUGINFOD_URLS is set, which in a static binary would load the host's libc
 * beside the one linked in; the static link wraps dlopen (-Wl,--wrap=dlopen) so that every call
 * fails here instead, and the user database libedit asks (NSS, which would load the host's
 * modules the same way) so that it finds no user. */
#include "util/lazylib.h"
#include "util/diag.h"
#include "util/privilege.h"
#include <dlfcn.h>
#include <editline/readline.h>
#include <elfutils/libdwfl.h>
#include <elfutils/version.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define LAZY_STR_(x) #x
#define LAZY_STR(x) LAZY_STR_(x)
#define LAZY_ELFUTILS "elfutils 0." LAZY_STR(_ELFUTILS_VERSION)
#define LAZY_GLIBC "glibc " LAZY_STR(__GLIBC__) "." LAZY_STR(__GLIBC_MINOR__)

#ifdef NODESCOPE_STATIC
#include <lzma.h>
#include <zlib.h>

const char *lazylib_build(void)
{
    return "static (" LAZY_GLIBC "); has libdw and libelf (" LAZY_ELFUTILS "), zlib " ZLIB_VERSION
           ", liblzma " LZMA_VERSION_STRING ", libedit; lacks libdebuginfod (it needs libcurl: DEBUGINFOD_URLS "
           "is ignored)";
}

void *lazylib_optional(const char *soname, const char *symbol)
{
    if (!strcmp(soname, "liblzma.so.5") && !strcmp(symbol, "lzma_stream_buffer_decode"))
        return (void *)lzma_stream_buffer_decode;
    return NULL;
}

/* Every dlopen of the static binary, libdw's included (-Wl,--wrap=dlopen): none is made. */
void *__wrap_dlopen(const char *file, int mode);
void *__wrap_dlopen(const char *file, int mode) { return NULL; }

/* The user database (NSS), which only libedit asks (a prompt's `~user` completed or expanded; the
 * history file's name is nodescope's own, from $HOME): a static glibc would dlopen the host's NSS
 * modules (nsswitch.conf: systemd, sss, ldap), built for another libc. Wrapped (-Wl,--wrap=...):
 * no user is found, and `~` is left as typed. */
void *__wrap_getpwnam(const char *name);
void *__wrap_getpwnam(const char *name) { return NULL; }
void *__wrap_getpwuid(unsigned uid);
void *__wrap_getpwuid(unsigned uid) { return NULL; }
void *__wrap_getpwent(void);
void *__wrap_getpwent(void) { return NULL; }
void __wrap_setpwent(void);
void __wrap_setpwent(void) {}
void __wrap_endpwent(void);
void __wrap_endpwent(void) {}
int __wrap_getpwnam_r(const char *name, void *pwd, char *buf, size_t len, void **result);
int __wrap_getpwnam_r(const char *name, void *pwd, char *buf, size_t len, void **result)
{
    *result = NULL;
    return 0;
}
int __wrap_getpwuid_r(unsigned uid, void *pwd, char *buf, size_t len, void **result);
int __wrap_getpwuid_r(unsigned uid, void *pwd, char *buf, size_t len, void **result)
{
    *result = NULL;
    return 0;
}

#else /* the normal build: each library loaded on first use */

const char *lazylib_build(void)
{
    return "dynamic; has libdw and libelf (built with " LAZY_ELFUTILS "), libedit, liblzma and libdebuginfod "
           "(with DEBUGINFOD_URLS), each loaded when a command needs it; lacks those this machine has not installed";
}

typedef enum { LIB_DW, LIB_ELF, LIB_EDIT, NLIBS } lazy_lib_t;

static const char *const lib_names[NLIBS] = {"libdw.so.1", "libelf.so.1", "libedit.so.2"};
static void *handles[NLIBS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* The address of name in lib, loading lib the first time; exits after an error otherwise. */
static void *lazy_sym(lazy_lib_t lib, const char *name)
{
    pthread_mutex_lock(&mu);
    if (!handles[lib]) handles[lib] = priv_dlopen(lib_names[lib], RTLD_NOW | RTLD_LOCAL);
    void *h = handles[lib];
    void *f = h ? dlsym(h, name) : NULL;
    pthread_mutex_unlock(&mu);
    if (!f) {
        const char *why = dlerror();
        diag_error(NULL, 0,
                   "cannot load %s from the system library %s: %s (install elfutils' libdw/libelf or "
                   "libedit)",
                   name, lib_names[lib], why ? why : "not found");
        exit(1);
    }
    return f;
}

/* The optional libraries: loaded once each (a failure too is kept), looked up without a word. */
enum { NOPTIONAL = 2 };
static const char *const optional_names[NOPTIONAL] = {"liblzma.so.5", "libdebuginfod.so.1"};
static void *optional_handles[NOPTIONAL];
static int optional_tried[NOPTIONAL];

void *lazylib_optional(const char *soname, const char *symbol)
{
    for (size_t i = 0; i < NOPTIONAL; i++) {
        if (strcmp(soname, optional_names[i])) continue;
        pthread_mutex_lock(&mu);
        if (!optional_tried[i]) optional_handles[i] = priv_dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        optional_tried[i] = 1;
        void *h = optional_handles[i];
        pthread_mutex_unlock(&mu);
        return h ? dlsym(h, symbol) : NULL;
    }
    return NULL;
}

/* Each function: its real address, looked up once (a racing second lookup gets the same). */
#define REAL(lib, name)                                                                                                \
    static __typeof__(&name) real;                                                                                     \
    __typeof__(&name) fn = __atomic_load_n(&real, __ATOMIC_ACQUIRE);                                                   \
    if (!fn) {                                                                                                         \
        fn = (__typeof__(&name))lazy_sym(lib, #name);                                                                  \
        __atomic_store_n(&real, fn, __ATOMIC_RELEASE);                                                                 \
    }

/* ---- libdw (target/unwind.c) ---- */

Dwfl *dwfl_begin(const Dwfl_Callbacks *callbacks)
{
    REAL(LIB_DW, dwfl_begin);
    return fn(callbacks);
}

void dwfl_end(Dwfl *dwfl)
{
    REAL(LIB_DW, dwfl_end);
    fn(dwfl);
}

void dwfl_report_begin(Dwfl *dwfl)
{
    REAL(LIB_DW, dwfl_report_begin);
    fn(dwfl);
}

Dwfl_Module *dwfl_report_elf(Dwfl *dwfl, const char *name, const char *file_name, int fd, GElf_Addr base,
                             bool add_p_vaddr)
{
    REAL(LIB_DW, dwfl_report_elf);
    return fn(dwfl, name, file_name, fd, base, add_p_vaddr);
}

int dwfl_report_end(Dwfl *dwfl, int (*removed)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *arg), void *arg)
{
    REAL(LIB_DW, dwfl_report_end);
    return fn(dwfl, removed, arg);
}

int dwfl_build_id_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
                           Elf **elfp)
{
    REAL(LIB_DW, dwfl_build_id_find_elf);
    return fn(mod, userdata, modname, base, file_name, elfp);
}

int dwfl_standard_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                                 const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                                 char **debuginfo_file_name)
{
    REAL(LIB_DW, dwfl_standard_find_debuginfo);
    return fn(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc, debuginfo_file_name);
}

bool dwfl_attach_state(Dwfl *dwfl, Elf *elf, pid_t pid, const Dwfl_Thread_Callbacks *thread_callbacks, void *dwfl_arg)
{
    REAL(LIB_DW, dwfl_attach_state);
    return fn(dwfl, elf, pid, thread_callbacks, dwfl_arg);
}

bool dwfl_thread_state_registers(Dwfl_Thread *thread, int firstreg, unsigned nregs, const Dwarf_Word *regs)
{
    REAL(LIB_DW, dwfl_thread_state_registers);
    return fn(thread, firstreg, nregs, regs);
}

void dwfl_thread_state_register_pc(Dwfl_Thread *thread, Dwarf_Word pc)
{
    REAL(LIB_DW, dwfl_thread_state_register_pc);
    fn(thread, pc);
}

int dwfl_getthread_frames(Dwfl *dwfl, pid_t tid, int (*callback)(Dwfl_Frame *thread, void *arg), void *arg)
{
    REAL(LIB_DW, dwfl_getthread_frames);
    return fn(dwfl, tid, callback, arg);
}

bool dwfl_frame_pc(Dwfl_Frame *state, Dwarf_Addr *pc, bool *isactivation)
{
    REAL(LIB_DW, dwfl_frame_pc);
    return fn(state, pc, isactivation);
}

int dwfl_frame_reg(Dwfl_Frame *state, unsigned regno, Dwarf_Word *val)
{
    REAL(LIB_DW, dwfl_frame_reg);
    return fn(state, regno, val);
}

Dwfl_Module *dwfl_addrmodule(Dwfl *dwfl, Dwarf_Addr address)
{
    REAL(LIB_DW, dwfl_addrmodule);
    return fn(dwfl, address);
}

Dwarf_CFI *dwfl_module_eh_cfi(Dwfl_Module *mod, Dwarf_Addr *bias)
{
    REAL(LIB_DW, dwfl_module_eh_cfi);
    return fn(mod, bias);
}

Dwarf_CFI *dwfl_module_dwarf_cfi(Dwfl_Module *mod, Dwarf_Addr *bias)
{
    REAL(LIB_DW, dwfl_module_dwarf_cfi);
    return fn(mod, bias);
}

int dwarf_cfi_addrframe(Dwarf_CFI *cache, Dwarf_Addr address, Dwarf_Frame **frame)
{
    REAL(LIB_DW, dwarf_cfi_addrframe);
    return fn(cache, address, frame);
}

int dwarf_frame_cfa(Dwarf_Frame *frame, Dwarf_Op **ops, size_t *nops)
{
    REAL(LIB_DW, dwarf_frame_cfa);
    return fn(frame, ops, nops);
}

int dwarf_frame_register(Dwarf_Frame *frame, int regno, Dwarf_Op ops_mem[3], Dwarf_Op **ops, size_t *nops)
{
    REAL(LIB_DW, dwarf_frame_register);
    return fn(frame, regno, ops_mem, ops, nops);
}

/* ---- libelf (target/elf.c) ---- */

unsigned int elf_version(unsigned int version)
{
    REAL(LIB_ELF, elf_version);
    return fn(version);
}

Elf *elf_begin(int fildes, Elf_Cmd cmd, Elf *ref)
{
    REAL(LIB_ELF, elf_begin);
    return fn(fildes, cmd, ref);
}

int elf_end(Elf *elf)
{
    REAL(LIB_ELF, elf_end);
    return fn(elf);
}

Elf_Kind elf_kind(Elf *elf)
{
    REAL(LIB_ELF, elf_kind);
    return fn(elf);
}

Elf_Data *elf_getdata(Elf_Scn *scn, Elf_Data *data)
{
    REAL(LIB_ELF, elf_getdata);
    return fn(scn, data);
}

int elf_getphdrnum(Elf *elf, size_t *dst)
{
    REAL(LIB_ELF, elf_getphdrnum);
    return fn(elf, dst);
}

Elf_Scn *elf_getscn(Elf *elf, size_t index)
{
    REAL(LIB_ELF, elf_getscn);
    return fn(elf, index);
}

int elf_getshdrnum(Elf *elf, size_t *dst)
{
    REAL(LIB_ELF, elf_getshdrnum);
    return fn(elf, dst);
}

int elf_getshdrstrndx(Elf *elf, size_t *dst)
{
    REAL(LIB_ELF, elf_getshdrstrndx);
    return fn(elf, dst);
}

Elf *elf_memory(char *image, size_t size)
{
    REAL(LIB_ELF, elf_memory);
    return fn(image, size);
}

Elf_Scn *elf_nextscn(Elf *elf, Elf_Scn *scn)
{
    REAL(LIB_ELF, elf_nextscn);
    return fn(elf, scn);
}

char *elf_strptr(Elf *elf, size_t index, size_t offset)
{
    REAL(LIB_ELF, elf_strptr);
    return fn(elf, index, offset);
}

GElf_Phdr *gelf_getphdr(Elf *elf, int ndx, GElf_Phdr *dst)
{
    REAL(LIB_ELF, gelf_getphdr);
    return fn(elf, ndx, dst);
}

GElf_Shdr *gelf_getshdr(Elf_Scn *scn, GElf_Shdr *dst)
{
    REAL(LIB_ELF, gelf_getshdr);
    return fn(scn, dst);
}

GElf_Sym *gelf_getsym(Elf_Data *data, int ndx, GElf_Sym *dst)
{
    REAL(LIB_ELF, gelf_getsym);
    return fn(data, ndx, dst);
}

/* ---- libedit (cli/core_prompt.c) ---- */

char *readline(const char *prompt)
{
    REAL(LIB_EDIT, readline);
    return fn(prompt);
}

int add_history(const char *line)
{
    REAL(LIB_EDIT, add_history);
    return fn(line);
}

int read_history(const char *file)
{
    REAL(LIB_EDIT, read_history);
    return fn(file);
}

int write_history(const char *file)
{
    REAL(LIB_EDIT, write_history);
    return fn(file);
}

void using_history(void)
{
    REAL(LIB_EDIT, using_history);
    fn();
}

#endif /* NODESCOPE_STATIC */
