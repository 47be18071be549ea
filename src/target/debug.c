/* Separate debug files: the full symbol table of a binary its package stripped (libc's static
 * functions: __libc_start_call_main), so native frames are named as perf names them. Looked for
 * the way gdb and perf look, first found wins, each checked against the binary:
 *   1. by build id: /usr/lib/debug/.build-id/xx/yyyy.debug (the host's, then under the target's root)
 *   2. by .gnu_debuglink NAME (CRC-32 checked): /usr/lib/debug/DIR/NAME, DIR/.debug/NAME, DIR/NAME
 *      (DIR: the binary's directory; under the target's root too)
 *   3. MiniDebugInfo: the xz-compressed ELF in .gnu_debugdata (liblzma, loaded when needed; without
 *      it this step is skipped)
 *   4. debuginfod, only when DEBUGINFOD_URLS is set (libdebuginfod, loaded when needed; not in the
 *      static build): never contacted otherwise.
 * A debug file's symbols are read from its .symtab; everything else stays the binary's. */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/lazylib.h"
#include "util/privilege.h"
#include "util/xalloc.h"
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define DEBUG_DIR "/usr/lib/debug"

/* The prefix under which the target's own files are: "/proc/PID/root" (a live process), a core's
 * --root, or "" (this machine's). */
static void target_root(const target_t *t, char *buf, size_t cap)
{
    if (t->pid) snprintf(buf, cap, "/proc/%d/root", t->pid); /* (only a live target has a pid) */
    else snprintf(buf, cap, "%s", t->root ? t->root : "");
}

/* A debug file at path: an ELF with a .symtab and, when both have one, the build id of the
 * binary (id, n). Its Elf and fd kept in mod; 1 when taken. */
static int take_file(target_t *t, target_module_t *mod, const char *path, const uint8_t *id, size_t n, int check_crc,
                     uint32_t crc)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    if (check_crc) {
        uLong c = crc32(0, Z_NULL, 0);
        unsigned char buf[65536];
        ssize_t k;
        while ((k = read(fd, buf, sizeof buf)) > 0) c = crc32(c, buf, (uInt)k);
        if ((uint32_t)c != crc) {
            close(fd);
            return 0;
        }
    }
    uint8_t got[64];
    size_t ng = target_elf_build_id(t, fd, 0, got, sizeof got);
    if (n && ng && (ng != n || memcmp(got, id, n) != 0)) {
        close(fd);
        return 0;
    }
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF || !target_elf_has_symtab(e)) {
        if (e) elf_end(e);
        close(fd);
        return 0;
    }
    mod->debug_elf = e;
    mod->debug_fd = fd;
    return 1;
}

/* The contents of e's section called name (libelf's copy), or NULL. */
static Elf_Data *section(Elf *e, const char *name)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(e, &shstrndx) != 0) return NULL;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        const char *n;
        if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && (n = elf_strptr(e, shstrndx, sh.sh_name)) &&
            !strcmp(n, name))
            return elf_getdata(scn, NULL);
    }
    return NULL;
}

/* liblzma's one-call decoder, loaded on first use (util/lazylib.h; no header needed). */
typedef int (*lzma_buffer_decode_fn)(uint64_t *memlimit, uint32_t flags, const void *allocator, const uint8_t *in,
                                     size_t *in_pos, size_t in_size, uint8_t *out, size_t *out_pos, size_t out_size);

static int mini_debuginfo(target_module_t *mod, Elf *e)
{
    Elf_Data *d = section(e, ".gnu_debugdata");
    if (!d || !d->d_buf || d->d_size < 16) return 0;
    lzma_buffer_decode_fn decode = (lzma_buffer_decode_fn)lazylib_optional("liblzma.so.5", "lzma_stream_buffer_decode");
    if (!decode) return 0;
    for (size_t cap = d->d_size * 4; cap <= (64u << 20); cap *= 2) {
        uint8_t *out = xmalloc(cap);
        uint64_t limit = 256u << 20;
        size_t in_pos = 0, out_pos = 0;
        int rc = decode(&limit, 0, NULL, d->d_buf, &in_pos, d->d_size, out, &out_pos, cap);
        if (rc == 0 /* LZMA_OK */ || rc == 1 /* LZMA_STREAM_END */) {
            Elf *m = elf_memory((char *)out, out_pos);
            if (m && elf_kind(m) == ELF_K_ELF && target_elf_has_symtab(m)) {
                mod->debug_elf = m;
                mod->debug_bytes = out;
                return 1;
            }
            if (m) elf_end(m);
            free(out);
            return 0;
        }
        free(out);
        if (rc != 10 /* LZMA_BUF_ERROR: out too small */) return 0;
    }
    return 0;
}

/* libdebuginfod, only when DEBUGINFOD_URLS is set. */
typedef void *(*dbgi_begin_fn)(void);
typedef int (*dbgi_find_fn)(void *client, const unsigned char *build_id, int len, char **path);
typedef void (*dbgi_end_fn)(void *client);

static int from_debuginfod(target_t *t, target_module_t *mod, const uint8_t *id, size_t n)
{
    const char *urls = priv_env("DEBUGINFOD_URLS"); /* downloads into the user's cache */
    if (!urls || !*urls || !n) return 0;
    dbgi_begin_fn begin = (dbgi_begin_fn)lazylib_optional("libdebuginfod.so.1", "debuginfod_begin");
    dbgi_find_fn find = (dbgi_find_fn)lazylib_optional("libdebuginfod.so.1", "debuginfod_find_debuginfo");
    dbgi_end_fn end = (dbgi_end_fn)lazylib_optional("libdebuginfod.so.1", "debuginfod_end");
    int taken = 0;
    void *c = begin && find && end ? begin() : NULL;
    if (c) {
        char *path = NULL;
        int fd = find(c, id, (int)n, &path);
        if (fd >= 0) {
            close(fd);
            if (path) taken = take_file(t, mod, path, id, n, 0, 0);
        }
        free(path);
        end(c);
    }
    return taken;
}

void target_debug_symbols(target_t *t, target_module_t *mod, void *elf)
{
    Elf *e = elf;
    char root[64], path[4600];
    target_root(t, root, sizeof root);
    const char *roots[2] = {"", root};
    int nroots = root[0] ? 2 : 1;
    uint8_t id[64];
    size_t n = target_elf_build_id(t, mod->fd, 0, id, sizeof id);
    if (n >= 2) {
        char hex[130];
        for (size_t i = 0; i < n; i++) snprintf(hex + 2 * i, 3, "%02x", id[i]);
        for (int r = 0; r < nroots; r++) {
            snprintf(path, sizeof path, "%s" DEBUG_DIR "/.build-id/%.2s/%s.debug", roots[r], hex, hex + 2);
            if (take_file(t, mod, path, id, n, 0, 0)) return;
        }
    }
    Elf_Data *link = section(e, ".gnu_debuglink");
    if (link && link->d_buf && link->d_size >= 8) {
        const char *name = link->d_buf;
        size_t len = strnlen(name, link->d_size);
        size_t at = (len + 4) & ~(size_t)3; /* the CRC follows the name's NUL, 4-aligned */
        if (len && len < link->d_size && at + 4 <= link->d_size && !strchr(name, '/')) {
            uint32_t crc;
            memcpy(&crc, (const char *)link->d_buf + at, 4);
            char dir[4096];
            snprintf(dir, sizeof dir, "%s", mod->path);
            char *slash = strrchr(dir, '/');
            if (slash) *slash = 0;
            else dir[0] = 0;
            for (int r = 0; r < nroots; r++) {
                const char *fmts[3] = {"%s" DEBUG_DIR "%s/%.*s", "%s%s/.debug/%.*s", "%s%s/%.*s"};
                for (int k = 0; k < 3; k++) {
                    snprintf(path, sizeof path, fmts[k], roots[r], dir, (int)len, name);
                    if (k == 2 && !strcmp(path, mod->file)) continue; /* the binary itself */
                    if (take_file(t, mod, path, id, n, 1, crc)) return;
                }
            }
        }
    }
    if (mini_debuginfo(mod, e)) return;
    from_debuginfod(t, mod, id, n);
}
