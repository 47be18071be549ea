/* A target made of a node executable alone, no process and no core (`nodescope --version --node
 * BIN`): its PT_LOAD segments as the dynamic linker would map them, read from the file, and the
 * libnode library it needs (a distribution's node: Debian's libnode.so.108), found where the
 * dynamic linker looks by default, under root when one is given. Enough for V8's metadata, its
 * version and the symbols; there is no heap, no thread. */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The PT_LOAD segments of the ELF file fd as mappings at bias, named path; the libnode* names it
 * needs (DT_NEEDED) appended to needed (NUL-separated, at most cap bytes). -1 when not a 64-bit ELF of
 * an architecture nodescope knows (arch_for_elf_machine), or not the executable's (t->arch, set by the first). */
static int map_elf(target_t *t, int fd, const char *path, uint64_t bias, char *needed, size_t cap)
{
    Elf64_Ehdr eh;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || !arch_for_elf_machine(eh.e_machine) ||
        (t->arch && t->arch != arch_for_elf_machine(eh.e_machine)) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
        eh.e_phnum == 0 || eh.e_phnum > 256)
        return -1;
    t->arch = arch_for_elf_machine(eh.e_machine);
    Elf64_Phdr ph[256];
    if (pread(fd, ph, eh.e_phnum * sizeof *ph, (off_t)eh.e_phoff) != (ssize_t)(eh.e_phnum * sizeof *ph)) return -1;
    if (eh.e_type == ET_EXEC) bias = 0;
    uint64_t dyn_off = 0, dyn_size = 0;
    for (size_t i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type == PT_DYNAMIC) dyn_off = ph[i].p_offset, dyn_size = ph[i].p_filesz;
        if (ph[i].p_type != PT_LOAD || !ph[i].p_memsz) continue;
        uint64_t start = (bias + ph[i].p_vaddr) & ~0xfffULL, off = ph[i].p_offset & ~0xfffULL;
        t->maps = xrealloc(t->maps, (t->nmaps + 1) * sizeof *t->maps);
        t->maps[t->nmaps++] = (target_mapping_t){
            start,
            (bias + ph[i].p_vaddr + ph[i].p_memsz + 0xfff) & ~0xfffULL,
            off,
            (ph[i].p_flags & PF_R ? 1 : 0) | (ph[i].p_flags & PF_W ? 2 : 0) | (ph[i].p_flags & PF_X ? 4 : 0),
            xstrdup(path),
            0};
    }
    if (!dyn_off || !needed || dyn_size > (1 << 20)) return 0;
    /* DT_NEEDED names are offsets in DT_STRTAB, an address: its file offset through the segments */
    Elf64_Dyn *dyn = xmalloc(dyn_size + sizeof *dyn);
    size_t nd = pread(fd, dyn, dyn_size, (off_t)dyn_off) == (ssize_t)dyn_size ? dyn_size / sizeof *dyn : 0;
    uint64_t strtab = 0, stroff = 0;
    for (size_t i = 0; i < nd; i++)
        if (dyn[i].d_tag == DT_STRTAB) strtab = dyn[i].d_un.d_ptr;
    for (size_t i = 0; i < eh.e_phnum && strtab; i++)
        if (ph[i].p_type == PT_LOAD && strtab >= ph[i].p_vaddr && strtab < ph[i].p_vaddr + ph[i].p_filesz)
            stroff = ph[i].p_offset + (strtab - ph[i].p_vaddr);
    size_t used = 0;
    for (size_t i = 0; i < nd && stroff; i++) {
        char name[256] = {0};
        if (dyn[i].d_tag != DT_NEEDED || pread(fd, name, sizeof name - 1, (off_t)(stroff + dyn[i].d_un.d_val)) <= 0)
            continue;
        size_t n = strlen(name);
        if (strncmp(name, "libnode", 7) || strchr(name, '/') || used + n + 1 >= cap) continue;
        memcpy(needed + used, name, n + 1);
        used += n + 1;
    }
    needed[used] = 0;
    free(dyn);
    return 0;
}

target_t *target_open_executable(const char *exe, const char *root)
{
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag_error(exe, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    target_t *t = xcalloc(1, sizeof *t);
    static target_ops_t exe_ops; /* a core's reads (the file's pages), named for messages */
    exe_ops = target_core_ops, exe_ops.kind = "executable";
    t->ops = &exe_ops;
    t->name = xstrdup(exe);
    t->exe_path = xstrdup(exe);
    t->exe_given = 1;
    if (root && *root && strcmp(root, "/")) t->root = xstrdup(root);
    char needed[1024] = {0};
    int rc = map_elf(t, fd, exe, 0x555555554000ULL, needed, sizeof needed - 1);
    close(fd);
    if (rc != 0) {
        diag_error(exe, 0, "not an ELF executable of an architecture nodescope reads (x86-64, aarch64)");
        target_close(t);
        return NULL;
    }
    static const char *const dirs[] = {
        "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/usr/lib", "/lib"};
    uint64_t bias = 0x7f0000000000ULL;
    for (const char *n = needed; *n; n += strlen(n) + 1)
        for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
            char path[4200], file[4200];
            snprintf(path, sizeof path, "%s/%s", dirs[d], n);
            snprintf(file, sizeof file, "%s%s", t->root ? t->root : "", path);
            int lfd = open(file, O_RDONLY | O_CLOEXEC);
            if (lfd < 0) continue;
            map_elf(t, lfd, path, bias, NULL, 0);
            close(lfd);
            bias += 1ULL << 32;
            break;
        }
    if (target_elf_load_modules(t) != 0) {
        target_close(t);
        return NULL;
    }
    return t;
}
