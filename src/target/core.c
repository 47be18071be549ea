/* ELF core files: the core is mmap'ed (never read whole), PT_LOADs give memory, NT_FILE names the
 * mapped files (memory not dumped, e.g. file-backed text, is read from them), NT_PRSTATUS gives
 * threads and registers. Every header and note is bounds-checked against the file size. */
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
#include <sys/stat.h>
#include <unistd.h>

static int seg_cmp(const void *a, const void *b)
{
    const target_seg_t *x = a, *y = b;
    return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int map_cmp(const void *a, const void *b)
{
    const target_mapping_t *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void parse_nt_file(target_t *t, const uint8_t *d, size_t n)
{
    if (n < 16) return;
    uint64_t count, page;
    memcpy(&count, d, 8);
    memcpy(&page, d + 8, 8);
    if (count > (n - 16) / 24) {
        diag_warn(t->name, 0, "NT_FILE note: %llu entries do not fit; ignored", (unsigned long long)count);
        return;
    }
    const char *names = (const char *)d + 16 + count * 24, *end = (const char *)d + n;
    t->maps = xcalloc(count ? count : 1, sizeof *t->maps);
    for (uint64_t i = 0; i < count && names < end; i++) {
        uint64_t e[3];
        memcpy(e, d + 16 + i * 24, 24);
        size_t len = strnlen(names, (size_t)(end - names));
        if (e[1] <= e[0]) {
            names += len + 1;
            continue;
        }
        target_mapping_t *m = &t->maps[t->nmaps++];
        m->start = e[0];
        m->end = e[1];
        m->file_offset = e[2] * page;
        m->path = xstrndup(names, len);
        names += len + 1;
    }
}

/* A thread: its id (pr_pid) and registers (pr_reg) where the core's arch puts them */
static void parse_prstatus(target_t *t, const uint8_t *d, size_t n)
{
    const arch_t *a = t->arch;
    if (n < a->prstatus_reg_off + a->nregs * 8) return;
    t->threads = xrealloc(t->threads, (t->nthreads + 1) * sizeof *t->threads);
    target_thread_t *th = &t->threads[t->nthreads++];
    memset(th, 0, sizeof *th);
    int32_t pid;
    memcpy(&pid, d + a->prstatus_pid_off, 4);
    th->tid = pid;
    memcpy(th->regs, d + a->prstatus_reg_off, a->nregs * 8);
    target_thread_set_regs(t, th);
}

static void parse_auxv(target_t *t, const uint8_t *d, size_t n)
{
    for (size_t off = 0; off + 16 <= n; off += 16) {
        uint64_t k, v;
        memcpy(&k, d + off, 8);
        memcpy(&v, d + off + 8, 8);
        if (k == AT_ENTRY) t->at_entry = v;
    }
    t->auxv = d, t->auxv_len = n; /* the rest for link_map.c */
}

static void parse_notes(target_t *t, const uint8_t *d, size_t n)
{
    size_t off = 0;
    while (off + 12 <= n) {
        uint32_t namesz, descsz, type;
        memcpy(&namesz, d + off, 4);
        memcpy(&descsz, d + off + 4, 4);
        memcpy(&type, d + off + 8, 4);
        size_t name_al = ((size_t)namesz + 3) & ~(size_t)3, desc_al = ((size_t)descsz + 3) & ~(size_t)3;
        if (name_al > n - off - 12 || desc_al > n - off - 12 - name_al) {
            diag_warn(t->name, 0, "truncated note at offset %zu; later notes ignored", off);
            return;
        }
        const uint8_t *desc = d + off + 12 + name_al;
        if (type == NT_PRSTATUS) parse_prstatus(t, desc, descsz);
        else if (type == NT_FILE && !t->maps) parse_nt_file(t, desc, descsz);
        else if (type == NT_AUXV) parse_auxv(t, desc, descsz);
        off += 12 + name_al + desc_al;
    }
}

/* Marks mappings present/prot from the PT_LOADs; adds anonymous mappings for what of a PT_LOAD no
 * mapping covers: all of it when NT_FILE lacks it, or the rest of one that also holds a file's
 * (qemu-user writes one PT_LOAD per run of equal flags: the executable's .bss and the brk heap
 * after it are one, and the heap was not a mapping: no roots were scanned there) */
static void merge_segments(target_t *t, const Elf64_Phdr *ph, size_t phnum)
{
    if (t->nmaps > 1) qsort(t->maps, t->nmaps, sizeof *t->maps, map_cmp);
    size_t nfile = t->nmaps; /* sorted; the anonymous ones added after them cover no PT_LOAD of another */
    for (size_t i = 0; i < phnum; i++) {
        if (ph[i].p_type != PT_LOAD) continue;
        int prot =
            ((ph[i].p_flags & PF_R) ? 1 : 0) | ((ph[i].p_flags & PF_W) ? 2 : 0) | ((ph[i].p_flags & PF_X) ? 4 : 0);
        uint64_t s = ph[i].p_vaddr, e = ph[i].p_vaddr + ph[i].p_memsz, at = s;
        for (size_t j = 0; j <= nfile && at < e; j++) {
            /* the file mapping's range (copied: adding a gap moves t->maps), or none: the end */
            uint64_t ms = j < nfile ? t->maps[j].start : e, me = j < nfile ? t->maps[j].end : e;
            if (j < nfile && (me <= at || ms >= e)) continue;
            uint64_t gap_end = ms < e ? ms : e;
            if (gap_end > at) {
                t->maps = xrealloc(t->maps, (t->nmaps + 1) * sizeof *t->maps);
                t->sym_generation++;
                t->maps[t->nmaps++] = (target_mapping_t){at, gap_end, 0, prot, NULL, ph[i].p_filesz > 0};
            }
            if (me > at) at = me;
        }
        for (size_t j = 0; j < nfile; j++) {
            target_mapping_t *m = &t->maps[j];
            if (m->start >= s && m->start < e) {
                m->prot = prot;
                m->present = ph[i].p_filesz > 0;
            }
        }
    }
    if (t->nmaps > 1) qsort(t->maps, t->nmaps, sizeof *t->maps, map_cmp);
}

static void find_exe(target_t *t)
{
    const target_mapping_t *m = t->at_entry ? target_mapping_at(t, t->at_entry) : NULL;
    if (m && m->path) t->exe_path = xstrdup(m->path);
}

target_t *target_open_core(const char *core_path, const char *exe)
{
    return target_open_core_root(core_path, exe, NULL);
}

target_t *target_open_core_root(const char *core_path, const char *exe, const char *root)
{
    int fd = open(core_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag_error(core_path, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        diag_error(core_path, 0, "not an ELF core file (too small or not a regular file)");
        close(fd);
        return NULL;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        diag_error(core_path, 0, "cannot map: %s", strerror(errno));
        return NULL;
    }
    const uint8_t *core = p;
    size_t size = (size_t)st.st_size;
    const Elf64_Ehdr *eh = p;
    const arch_t *arch = arch_for_elf_machine(eh->e_machine);
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_type != ET_CORE ||
        !arch) {
        diag_error(core_path, 0, "not an ELF core file of an architecture nodescope reads (x86-64, aarch64)");
        munmap(p, size);
        return NULL;
    }
    if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > size ||
        eh->e_phnum > (size - eh->e_phoff) / sizeof(Elf64_Phdr)) {
        diag_error(core_path, 0,
                   "program headers out of the file (%u headers at offset %llu; truncated or corrupt core)",
                   eh->e_phnum, (unsigned long long)eh->e_phoff);
        munmap(p, size);
        return NULL;
    }
    target_t *t = xcalloc(1, sizeof *t);
    t->ops = &target_core_ops;
    t->arch = arch;
    t->name = xstrdup(core_path);
    t->core = core;
    t->core_size = size;
    /* copied out: e_phoff in a corrupt core need not be aligned */
    Elf64_Phdr *ph = xcalloc(eh->e_phnum ? eh->e_phnum : 1, sizeof *ph);
    memcpy(ph, core + eh->e_phoff, eh->e_phnum * sizeof *ph);
    size_t truncated = 0;
    uint64_t whole = 0; /* where the segments end in a whole core */
    t->segs = xcalloc(eh->e_phnum ? eh->e_phnum : 1, sizeof *t->segs);
    for (size_t i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_NOTE) {
            if (ph[i].p_offset <= size && ph[i].p_filesz <= size - ph[i].p_offset)
                parse_notes(t, core + ph[i].p_offset, ph[i].p_filesz);
            else diag_warn(core_path, 0, "note segment out of the file; ignored");
        } else if (ph[i].p_type == PT_LOAD && ph[i].p_memsz > 0 && ph[i].p_vaddr + ph[i].p_memsz > ph[i].p_vaddr) {
            target_seg_t s = {ph[i].p_vaddr, ph[i].p_memsz, ph[i].p_filesz, ph[i].p_offset};
            if (s.filesz > s.memsz) s.filesz = s.memsz;
            if (s.offset + s.filesz > whole && s.offset + s.filesz > s.offset) whole = s.offset + s.filesz;
            /* a truncated core keeps what is there: the rest reads as unavailable */
            if (s.offset > size) {
                s.filesz = 0;
                truncated++;
            } else if (s.filesz > size - s.offset) {
                s.filesz = size - s.offset;
                truncated++;
            }
            t->segs[t->nsegs++] = s;
        }
    }
    if (truncated)
        diag_warn(core_path, 0,
                  "core is truncated (%llu of its %llu bytes): %zu segments are incomplete; their memory reads as "
                  "unavailable, and what is there may be partial: copy the whole core (or raise the core size "
                  "limit, ulimit -c, where it was written)",
                  (unsigned long long)size, (unsigned long long)whole, truncated);
    qsort(t->segs, t->nsegs, sizeof *t->segs, seg_cmp);
    if (root && *root) {
        size_t n = strlen(root);
        while (n > 1 && root[n - 1] == '/') n--; /* paths in the core begin with '/' */
        t->root = n == 1 && root[0] == '/' ? NULL : xstrndup(root, n);
    }
    char *found = NULL; /* the executable at AT_EXECFN's host path (link_map.c) */
    if (!t->maps && target_link_map_files(t, exe, &found) != 0) { /* no NT_FILE (qemu-user's): link_map.c */
        free(ph);
        target_close(t);
        return NULL;
    }
    merge_segments(t, ph, eh->e_phnum);
    free(ph);
    if (exe) t->exe_path = xstrdup(exe), t->exe_given = 1;
    else if (found) t->exe_path = found, t->exe_given = 1;
    else find_exe(t);
    if (!t->exe_path) {
        diag_error(core_path, 0, "cannot find the executable in the core's NT_FILE note; give it with --node PATH");
        target_close(t);
        return NULL;
    }
    char exe_file[4200];
    snprintf(exe_file, sizeof exe_file, "%s%s", t->root && !t->exe_given ? t->root : "", t->exe_path);
    if (access(exe_file, R_OK) != 0) {
        diag_error(core_path, 0, "executable %s: %s (give the right one with --node PATH%s)", exe_file, strerror(errno),
                   t->root ? "" : ", or the container's root with --root DIR");
        target_close(t);
        return NULL;
    }
    if (target_elf_load_modules(t) != 0) {
        target_close(t);
        return NULL;
    }
    return t;
}

/* The PT_LOAD containing addr, by binary search (segments are sorted), after a look in a small
 * cache of the segments found last, by 256 KiB block: gcore writes a segment per mapping,
 * thousands for V8's heap pages, and the search was a quarter of writing a heap snapshot (whose
 * reads go back and forth between objects, maps and strings). The cache is a hint: an entry is
 * used only when its segment (of this target) holds addr. */
#define SEG_CACHE 256
static _Thread_local const target_t *seg_cache_target;
static _Thread_local uint32_t seg_cache[SEG_CACHE];

static const target_seg_t *seg_at(const target_t *t, uint64_t addr)
{
    size_t slot = (size_t)(addr >> 18) & (SEG_CACHE - 1);
    if (seg_cache_target == t && seg_cache[slot] < t->nsegs) {
        const target_seg_t *s = &t->segs[seg_cache[slot]];
        if (addr - s->vaddr < s->memsz) return s;
    }
    size_t lo = 0, hi = t->nsegs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->segs[mid].vaddr <= addr) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return NULL;
    const target_seg_t *s = &t->segs[lo - 1];
    if (addr - s->vaddr >= s->memsz) return NULL;
    if (seg_cache_target != t) {
        seg_cache_target = t;
        memset(seg_cache, 0xff, sizeof seg_cache);
    }
    seg_cache[slot] = (uint32_t)(lo - 1);
    return s;
}

const void *target_core_direct(target_t *t, uint64_t addr, size_t n)
{
    const target_seg_t *s = seg_at(t, addr);
    if (!s || addr - s->vaddr > s->filesz || n > s->filesz - (addr - s->vaddr)) return NULL;
    return t->core + s->offset + (addr - s->vaddr);
}

int target_read_mapped_file(target_t *t, const target_mapping_t *m, uint64_t addr, void *dst, size_t n)
{
    if (!m->path || m->path[0] != '/') return -1;
    char file[4200];
    if (t->exe_given && t->exe_map_path && strcmp(m->path, t->exe_map_path) == 0)
        snprintf(file, sizeof file, "%s", t->exe_path); /* --node: the executable's pages from it */
    else snprintf(file, sizeof file, "%s%s", t->root ? t->root : "", m->path);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    uint64_t off = m->file_offset + (addr - m->start);
    ssize_t got = pread(fd, dst, n, (off_t)off);
    close(fd);
    if (got < 0) return -1;
    if ((size_t)got < n) memset((char *)dst + got, 0, n - (size_t)got); /* past the file's end: zero pages */
    return 0;
}


/* Core memory: the PT_LOADs' bytes, else the mapped file's (text not dumped). */
static int core_read(target_t *t, uint64_t addr, void *dst, size_t n)
{
    uint8_t *out = dst;
    if (n == 8) { /* one field: most reads (a constant-size copy is one load) */
        const target_seg_t *s = seg_at(t, addr);
        if (s && addr - s->vaddr < s->filesz && s->filesz - (addr - s->vaddr) >= 8) {
            memcpy(out, t->core + s->offset + (addr - s->vaddr), 8);
            return 0;
        }
    }
    while (n > 0) {
        const target_seg_t *s = seg_at(t, addr);
        const target_mapping_t *m;
        uint64_t in_seg = s ? addr - s->vaddr : 0;
        size_t chunk;
        if (s && in_seg < s->filesz) {
            chunk = (size_t)(s->filesz - in_seg) < n ? (size_t)(s->filesz - in_seg) : n;
            memcpy(out, t->core + s->offset + in_seg, chunk);
        } else if ((m = target_mapping_at(t, addr)) != NULL) {
            uint64_t left = m->end - addr;
            if (s && s->memsz - in_seg < left) left = s->memsz - in_seg;
            chunk = left < n ? (size_t)left : n;
            if (target_read_mapped_file(t, m, addr, out, chunk) != 0) return -1;
        } else {
            return -1;
        }
        out += chunk;
        addr += chunk;
        n -= chunk;
    }
    return 0;
}

const target_ops_t target_core_ops = {"core", core_read, NULL};
