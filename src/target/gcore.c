/* An ELF core of a frozen process (target_freeze), written while the process runs on: the notes
 * gdb and nodescope read (NT_PRSTATUS per thread with the registers saved at the stop, main
 * thread first; NT_PRPSINFO; NT_AUXV; NT_FILE: each from the copy's /proc files, which the fork
 * copied: the process may have exited by then, as after a watch's uncaught exception), then one
 * PT_LOAD per mapping of the copy (/proc/COPY/maps). What the kernel's cores leave out is left out: unreadable
 * mappings, [vvar], and file-backed code, whose bytes are the file's (only the first page of a
 * file's offset-0 mapping is kept, for its ELF headers and build id). Memory comes from the copy
 * in 1 MiB reads; pages that read as zeros, or not at all, are holes of the file. The machine and
 * NT_PRSTATUS's layout are the target's arch's (arch/arch.h). */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/procfs.h"
#include "util/xalloc.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <sys/uio.h>
#include <unistd.h>

#define PAGE 4096u
#define CHUNK (1u << 20)
#define AUXV_MAX (64u << 10)

typedef struct {
    uint8_t *d;
    size_t n, cap;
} nbuf_t;

static void put(nbuf_t *b, const void *p, size_t n)
{
    xgrow((void **)&b->d, &b->cap, b->n + n + 8, 1);
    memcpy(b->d + b->n, p, n);
    b->n += n;
    while (b->n % 4) b->d[b->n++] = 0;
}

static void note(nbuf_t *b, uint32_t type, const void *desc, size_t n)
{
    Elf64_Nhdr h = {5, (uint32_t)n, type};
    put(b, &h, sizeof h);
    put(b, "CORE", 5);
    put(b, desc, n);
}

/* The whole of a small /proc file, bounded by max; its length (0 when unreadable). */
static size_t slurp(const char *path, uint8_t *buf, size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t n = 0;
    ssize_t k;
    while (n < max && (k = read(fd, buf + n, max - n)) > 0) n += (size_t)k;
    close(fd);
    return n;
}

static int is_file(const target_mapping_t *m) { return m->path && m->path[0] == '/'; }

/* How many bytes of m the core holds (from its start). */
static uint64_t dumped(const target_mapping_t *m)
{
    if (!(m->prot & 1) || m->start >= 0x800000000000ull) return 0;
    if (m->path && (!strcmp(m->path, "[vvar]") || !strcmp(m->path, "[vvar_vclock]"))) return 0;
    if (is_file(m) && (m->prot & 4) && !(m->prot & 2)) return m->file_offset == 0 ? PAGE : 0;
    return m->end - m->start;
}

/* The auxiliary vector as exec left it on the initial stack (argc, argv[], NULL, envp[], NULL, then
 * (type, value) pairs to AT_NULL), read from memory: for a caller with capabilities, not the
 * process's owner, /proc/PID/auxv (mode 0400) cannot be opened, while /proc/PID/stat's startstack
 * and the memory can be read (ptrace access). Its length, 0 when not found. */
static size_t auxv_from_stack(int pid, uint8_t *buf, size_t max)
{
    unsigned long long start = proc_stat_field(pid, 28); /* startstack */
    if (!start) return 0;
    uint64_t w[512];
    uint64_t at = start, argc;
    int in_envp = 1;
    struct iovec l = {&argc, 8}, r = {(void *)(uintptr_t)at, 8};
    if (process_vm_readv(pid, &l, 1, &r, 1, 0) != 8 || argc > (1u << 20)) return 0;
    at += 8 * (argc + 2); /* past argc, argv[] and its NULL */
    size_t len = 0;
    for (int rounds = 0; rounds < 4096 && len < max; rounds++) { /* envp[] to its NULL, then the pairs */
        l = (struct iovec){w, sizeof w};
        r = (struct iovec){(void *)(uintptr_t)at, sizeof w};
        ssize_t got = process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (got < 16) return 0;
        size_t i = 0, words = (size_t)got / 8;
        for (; in_envp && i < words; i++)
            if (!w[i]) in_envp = 0;
        for (; i + 1 < words && len + 16 <= max; i += 2) {
            memcpy(buf + len, &w[i], 16);
            len += 16;
            if (w[i] == AT_NULL) return len;
        }
        at += 8 * i;
    }
    return 0;
}

static int all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

int target_write_core(target_t *t, int fd, const char *name)
{
    if (!t->frozen_pid) {
        diag_error(name, 0, "no frozen copy of the process to write a core from");
        return -1;
    }
    target_mapping_t *maps;
    size_t nmaps;
    if (target_live_read_maps(t->frozen_pid, &maps, &nmaps) != 0) {
        diag_error(name, 0, "cannot read the maps of the copy (pid %d): %s", t->frozen_pid, strerror(errno));
        return -1;
    }
    nbuf_t notes = {0};
    const arch_t *arch = t->arch;
    uint8_t *ps = xcalloc(1, arch->prstatus_size);
    for (size_t i = 0; i < t->nthreads; i++) { /* pr_pid, pr_ppid 0, pr_pgrp, pr_sid; pr_reg */
        int32_t ids[4] = {t->threads[i].tid, 0, t->pid, t->pid};
        memset(ps, 0, arch->prstatus_size);
        memcpy(ps + arch->prstatus_pid_off, ids, sizeof ids);
        memcpy(ps + arch->prstatus_reg_off, t->threads[i].regs, arch->nregs * 8);
        note(&notes, NT_PRSTATUS, ps, arch->prstatus_size);
    }
    free(ps);
    char path[64];
    struct elf_prpsinfo pi;
    memset(&pi, 0, sizeof pi);
    pi.pr_pid = t->pid;
    pi.pr_sname = 'R';
    snprintf(path, sizeof path, "/proc/%d/comm", t->frozen_pid);
    size_t k = slurp(path, (uint8_t *)pi.pr_fname, sizeof pi.pr_fname - 1);
    if (k && pi.pr_fname[k - 1] == '\n') pi.pr_fname[k - 1] = 0;
    snprintf(path, sizeof path, "/proc/%d/cmdline", t->frozen_pid);
    k = slurp(path, (uint8_t *)pi.pr_psargs, sizeof pi.pr_psargs - 1);
    for (size_t i = 0; k && i < k - 1; i++)
        if (!pi.pr_psargs[i]) pi.pr_psargs[i] = ' ';
    note(&notes, NT_PRPSINFO, &pi, sizeof pi);
    uint8_t *auxv = xmalloc(AUXV_MAX);
    snprintf(path, sizeof path, "/proc/%d/auxv", t->frozen_pid);
    k = slurp(path, auxv, AUXV_MAX);
    if (!k) k = auxv_from_stack(t->frozen_pid, auxv, AUXV_MAX);
    if (k) note(&notes, NT_AUXV, auxv, k);
    free(auxv);
    /* NT_FILE: count, page size, (start, end, page offset) per file mapping, then the names */
    nbuf_t nf = {0};
    uint64_t count = 0, page = PAGE;
    for (size_t i = 0; i < nmaps; i++) count += is_file(&maps[i]);
    xgrow((void **)&nf.d, &nf.cap, 16 + count * 24, 1);
    memcpy(nf.d, &count, 8);
    memcpy(nf.d + 8, &page, 8);
    nf.n = 16;
    for (size_t i = 0; i < nmaps; i++) {
        if (!is_file(&maps[i])) continue;
        uint64_t e[3] = {maps[i].start, maps[i].end, maps[i].file_offset / PAGE};
        memcpy(nf.d + nf.n, e, 24);
        nf.n += 24;
    }
    for (size_t i = 0; i < nmaps; i++) {
        if (!is_file(&maps[i])) continue;
        size_t len = strlen(maps[i].path) + 1;
        xgrow((void **)&nf.d, &nf.cap, nf.n + len, 1);
        memcpy(nf.d + nf.n, maps[i].path, len);
        nf.n += len;
    }
    note(&notes, NT_FILE, nf.d, nf.n);
    free(nf.d);

    size_t nph = 1 + nmaps;
    Elf64_Phdr *ph = xcalloc(nph, sizeof *ph);
    uint64_t off = sizeof(Elf64_Ehdr) + nph * sizeof(Elf64_Phdr);
    ph[0] = (Elf64_Phdr){.p_type = PT_NOTE, .p_offset = off, .p_filesz = notes.n, .p_align = 4};
    off = (off + notes.n + PAGE - 1) & ~(uint64_t)(PAGE - 1);
    for (size_t i = 0; i < nmaps; i++) {
        const target_mapping_t *m = &maps[i];
        uint64_t fs = dumped(m);
        ph[1 + i] =
            (Elf64_Phdr){.p_type = PT_LOAD,
                         .p_offset = off,
                         .p_vaddr = m->start,
                         .p_memsz = m->end - m->start,
                         .p_filesz = fs,
                         .p_align = PAGE,
                         .p_flags = (m->prot & 1 ? PF_R : 0) | (m->prot & 2 ? PF_W : 0) | (m->prot & 4 ? PF_X : 0)};
        off += fs;
    }
    Elf64_Ehdr eh;
    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
    eh.e_type = ET_CORE;
    eh.e_machine = (Elf64_Half)arch->elf_machine;
    eh.e_version = EV_CURRENT;
    eh.e_phoff = sizeof eh;
    eh.e_ehsize = sizeof eh;
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = nph < PN_XNUM ? (Elf64_Half)nph : PN_XNUM;
    int rc = -1;
    if (nph >= PN_XNUM) {
        diag_error(name, 0, "%zu mappings: too many for a core's program headers", nmaps);
        goto out;
    }
    if (pwrite(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        pwrite(fd, ph, nph * sizeof *ph, sizeof eh) != (ssize_t)(nph * sizeof *ph) ||
        pwrite(fd, notes.d, notes.n, (off_t)ph[0].p_offset) != (ssize_t)notes.n)
        goto werr;
    uint8_t *buf = xmalloc(CHUNK);
    for (size_t i = 0; i < nmaps; i++) {
        const Elf64_Phdr *p = &ph[1 + i];
        for (uint64_t done = 0; done < p->p_filesz;) {
            size_t n = p->p_filesz - done < CHUNK ? (size_t)(p->p_filesz - done) : CHUNK;
            struct iovec l = {buf, n}, r = {(void *)(uintptr_t)(p->p_vaddr + done), n};
            ssize_t got = process_vm_readv(t->frozen_pid, &l, 1, &r, 1, 0);
            if (got <= 0) {
                done += PAGE;
                continue;
            } /* unreadable page: a hole */
            for (size_t a = 0; a < (size_t)got; a += PAGE) {
                size_t len = (size_t)got - a < PAGE ? (size_t)got - a : PAGE;
                if (all_zero(buf + a, len)) continue;
                if (pwrite(fd, buf + a, len, (off_t)(p->p_offset + done + a)) != (ssize_t)len) {
                    free(buf);
                    goto werr;
                }
            }
            done += (uint64_t)got;
        }
    }
    free(buf);
    if (ftruncate(fd, (off_t)off) != 0) goto werr;
    rc = 0;
    goto out;
werr:
    diag_error(name, 0, "cannot write the core: %s", strerror(errno));
out:
    free(ph);
    free(notes.d);
    for (size_t i = 0; i < nmaps; i++) free((char *)maps[i].path);
    free(maps);
    return rc;
}
