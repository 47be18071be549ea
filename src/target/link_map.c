/* The files of a core that does not list them. A kernel's core names every mapped file in its
 * NT_FILE note; qemu-user's (qemu_PROG_TIME_PID.core: NT_PRSTATUS per thread, NT_PRPSINFO, NT_AUXV,
 * and all readable memory) does not, and every native frame was "(no symbol)". So they are found
 * as a debugger finds them: the executable from the auxiliary vector (its program headers at
 * AT_PHDR, its load bias AT_PHDR - PT_PHDR's p_vaddr, as the dynamic linker computes it; its name
 * AT_EXECFN, or --node's path when that is not absolute; qemu's AT_EXECFN is a host path, taken as
 * it is when --root holds nothing there; --node's file must have AT_ENTRY as its biased entry point,
 * or the core is refused: another node's symbols would name garbage), the libraries from the dynamic linker's
 * list in the core's memory (PT_DYNAMIC's DT_DEBUG -> struct r_debug -> r_map -> link_map: l_addr,
 * l_name, l_ld, l_next), each library's program headers read at its ELF header in memory and
 * checked against l_ld. Every PT_LOAD of each file becomes a mapping as the kernel would have
 * made it (file-backed up to p_filesz, anonymous to p_memsz), so the rest of the core reader
 * loads modules and reads text as it does for NT_FILE's entries (a --root prefix applies).
 * The core's memory is untrusted: every read checked, counts bounded, the list walked at most
 * LM_MAX entries and a revisited entry ends it; a corrupt list gives fewer files, never a crash.
 * 64-bit little-endian layouts (x86-64, aarch64). Memory is read through t->ops (core.c's reader). */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LM_MAX 1024   /* link_map entries walked */
#define LM_PHMAX 64   /* program headers per file */
#define LM_DYNMAX 512 /* dynamic entries looked at for DT_DEBUG */
#define LM_PAGE 4096ull

static int map_cmp(const void *a, const void *b)
{
    const target_mapping_t *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int rd(target_t *t, uint64_t addr, void *dst, size_t n) { return t->ops->read(t, addr, dst, n); }

/* A NUL-terminated string at addr (at most cap - 1 bytes, read in pieces: it may end near the
 * end of its mapping); 0, or -1 when unreadable, empty or unterminated. */
static int rd_string(target_t *t, uint64_t addr, char *out, size_t cap)
{
    size_t got = 0;
    while (got + 1 < cap) {
        size_t n = 64 - (size_t)((addr + got) & 63); /* to the next 64-byte boundary */
        if (n > cap - 1 - got) n = cap - 1 - got;
        if (rd(t, addr + got, out + got, n) != 0) return -1;
        char *z = memchr(out + got, 0, n);
        if (z) return z == out ? -1 : 0;
        got += n;
    }
    return -1;
}

static void add_map(target_t *t, uint64_t start, uint64_t end, uint64_t off, const char *path)
{
    if (end <= start) return;
    t->maps = xrealloc(t->maps, (t->nmaps + 1) * sizeof *t->maps);
    t->maps[t->nmaps++] = (target_mapping_t){start, end, off, 0, path ? xstrdup(path) : NULL, 0};
}

/* The mappings of one ELF file loaded with bias, from its program headers ph[0, n). */
static void add_file(target_t *t, const Elf64_Phdr *ph, size_t n, uint64_t bias, const char *path)
{
    for (size_t i = 0; i < n; i++) {
        if (ph[i].p_type != PT_LOAD || !ph[i].p_memsz || ph[i].p_filesz > ph[i].p_memsz) continue;
        uint64_t va = bias + ph[i].p_vaddr, start = va & ~(LM_PAGE - 1);
        uint64_t file_end = va + ph[i].p_filesz, mem_end = va + ph[i].p_memsz;
        if (va < bias || mem_end < va || mem_end > UINT64_MAX - LM_PAGE) continue; /* wraps: corrupt */
        file_end = (file_end + LM_PAGE - 1) & ~(LM_PAGE - 1);
        mem_end = (mem_end + LM_PAGE - 1) & ~(LM_PAGE - 1);
        add_map(t, start, file_end, ph[i].p_offset & ~(LM_PAGE - 1), path);
        add_map(t, file_end, mem_end, 0, NULL); /* .bss beyond the file's last page */
    }
    /* sorted for core.c's lookups of the walk's next reads: the dynamic linker's own l_name is the
       executable's PT_INTERP string, in a page qemu leaves out on aarch64, read from the file */
    if (t->nmaps > 1) qsort(t->maps, t->nmaps, sizeof *t->maps, map_cmp);
}

/* n bytes at addr of the file path whose offset 0 is at base, read from the file (through core.c's
 * reader, as the mapping would be: under --root; host: --node's path, which names the executable
 * as given): qemu does not dump a segment that begins with an ELF header and is executable (the
 * first of every aarch64 library, and of node's arm64 executable), and there are no mappings yet.
 * The target's mappings and executable are this one file's for the one read, and put back. */
static int rd_file(target_t *t, const char *path, const char *host, uint64_t base, uint64_t addr, void *dst, size_t n)
{
    if (addr < base || addr + n < addr) return -1;
    target_mapping_t one = {base, addr + n, 0, 0, path, 0}, *maps = t->maps;
    size_t nmaps = t->nmaps;
    char *exe_path = t->exe_path, *exe_map_path = t->exe_map_path;
    int given = t->exe_given;
    t->maps = &one, t->nmaps = 1;
    if (host) t->exe_path = (char *)host, t->exe_map_path = (char *)path, t->exe_given = 1;
    int r = rd(t, addr, dst, n);
    t->maps = maps, t->nmaps = nmaps;
    t->exe_path = exe_path, t->exe_map_path = exe_map_path, t->exe_given = given;
    return r;
}

/* The program headers of the ELF image whose header (file offset 0) is at base: from the core's
 * memory, else (path not NULL) from the file; their count, 0 if none. */
static size_t image_phdrs(target_t *t, uint64_t base, Elf64_Phdr *ph, const char *path, const char *host)
{
    for (int from_file = 0; from_file < 2; from_file++) {
        if (from_file && !path) break;
        Elf64_Ehdr eh;
        int ok = from_file ? rd_file(t, path, host, base, base, &eh, sizeof eh) : rd(t, base, &eh, sizeof eh);
        if (ok != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
            eh.e_phentsize != sizeof *ph || eh.e_phnum == 0 || eh.e_phnum > LM_PHMAX || eh.e_phoff > UINT64_MAX / 2 ||
            base > UINT64_MAX / 2)
            continue;
        size_t len = eh.e_phnum * sizeof *ph;
        ok = from_file ? rd_file(t, path, host, base, base + eh.e_phoff, ph, len) : rd(t, base + eh.e_phoff, ph, len);
        if (ok == 0) return eh.e_phnum;
    }
    return 0;
}

static uint64_t lowest_load(const Elf64_Phdr *ph, size_t n)
{
    uint64_t lo = UINT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr < lo) lo = ph[i].p_vaddr;
    return lo == UINT64_MAX ? 0 : lo & ~(LM_PAGE - 1);
}

static const Elf64_Phdr *find_ph(const Elf64_Phdr *ph, size_t n, uint32_t type)
{
    for (size_t i = 0; i < n; i++)
        if (ph[i].p_type == type) return &ph[i];
    return NULL;
}

/* DT_DEBUG's value in the dynamic section at addr (memsz bytes), 0 if none. */
static uint64_t dt_debug(target_t *t, uint64_t addr, uint64_t memsz)
{
    uint64_t n = memsz / 16 < LM_DYNMAX ? memsz / 16 : LM_DYNMAX;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d[2];
        if (rd(t, addr + i * 16, d, sizeof d) != 0 || d[0] == DT_NULL) return 0;
        if (d[0] == DT_DEBUG) return d[1];
    }
    return 0;
}

/* One library of the list: its program headers at l_addr + its lowest PT_LOAD (0 for a shared
 * library), checked by l_ld (its PT_DYNAMIC there); 0, or -1 when memory does not agree. */
static int add_library(target_t *t, uint64_t l_addr, uint64_t l_ld, const char *name)
{
    Elf64_Phdr ph[LM_PHMAX];
    size_t n = image_phdrs(t, l_addr, ph, name, NULL);
    if (!n) return -1;
    uint64_t lo = lowest_load(ph, n);
    if (lo) return -1; /* a library linked at an address of its own: the header is not at l_addr */
    const Elf64_Phdr *dyn = find_ph(ph, n, PT_DYNAMIC);
    if (!dyn || l_addr + dyn->p_vaddr != l_ld) return -1;
    add_file(t, ph, n, l_addr, name);
    return 0;
}

/* The libraries on the dynamic linker's list at r_debug; the count named. */
static size_t walk_r_debug(target_t *t, uint64_t r_debug)
{
    uint64_t lm = 0, seen[LM_MAX];
    size_t nseen = 0, named = 0, bad = 0;
    char first[4200] = "";
    if (rd(t, r_debug + 8, &lm, 8) != 0) return 0; /* r_map, after int r_version and its padding */
    while (lm && nseen < LM_MAX) {
        for (size_t i = 0; i < nseen; i++)
            if (seen[i] == lm) return named; /* a cycle: each entry once */
        seen[nseen++] = lm;
        uint64_t e[4]; /* l_addr, l_name, l_ld, l_next */
        if (rd(t, lm, e, sizeof e) != 0) {
            bad++;
            break;
        }
        char name[4096];
        /* the executable (l_name ""), and names that are no path (linux-vdso.so.1) are not files */
        if (rd_string(t, e[1], name, sizeof name) == 0 && name[0] == '/') {
            int dup = 0;
            for (size_t i = 0; i < t->nmaps && !dup; i++) dup = t->maps[i].path && strcmp(t->maps[i].path, name) == 0;
            if (!dup && add_library(t, e[0], e[2], name) == 0) named++;
            else if (!dup && !bad++) snprintf(first, sizeof first, "%s%s", t->root ? t->root : "", name);
        }
        lm = e[3];
    }
    if (bad)
        diag_warn(
            t->name, 0,
            "the dynamic linker's list: %zu entries unreadable, missing or not the files mapped (%s%s): their frames "
            "are unnamed; give the root the target's libraries are under with --root DIR%s",
            bad, first[0] ? "the first: " : "an entry unreadable", first,
            t->arch == &arch_aarch64 && arch_host() != &arch_aarch64
                ? " (an aarch64 core on this host: --root /usr/aarch64-linux-gnu, of libc6-arm64-cross)"
                : "");
    return named;
}

int target_link_map_files(target_t *t, const char *exe, char **exe_found)
{
    *exe_found = NULL;
    uint64_t at_phdr = 0, at_phnum = 0, at_execfn = 0;
    for (size_t off = 0; t->auxv && off + 16 <= t->auxv_len; off += 16) {
        uint64_t k, v;
        memcpy(&k, t->auxv + off, 8);
        memcpy(&v, t->auxv + off + 8, 8);
        if (k == AT_NULL) break;
        if (k == AT_PHDR) at_phdr = v;
        else if (k == AT_PHNUM) at_phnum = v;
        else if (k == AT_EXECFN) at_execfn = v;
    }
    char path[4096];
    const char *host = NULL; /* --node's path, when it names the executable */
    if (!(at_execfn && rd_string(t, at_execfn, path, sizeof path) == 0 && path[0] == '/')) {
        if (!exe) {
            diag_warn(t->name, 0,
                      "no NT_FILE note, and AT_EXECFN names no absolute path: give the executable with --node PATH");
            return 0;
        }
        snprintf(path, sizeof path, "%s", exe);
    }
    if (exe) host = exe;
    else if (t->root) {
        /* qemu-user's AT_EXECFN is the path qemu was given, on the host: --root does not apply
           to it when nothing is there under the root but the host has it */
        char under[4200];
        snprintf(under, sizeof under, "%s%s", t->root, path);
        if (access(under, R_OK) != 0 && access(path, R_OK) == 0) host = *exe_found = xstrdup(path);
    }
    /* the executable's program headers at AT_PHDR, in memory or (not dumped) in its file, whose
       first page holds them (AT_PHDR - its page is e_phoff) */
    Elf64_Phdr ph[LM_PHMAX];
    size_t n = 0;
    if (at_phdr && at_phnum && at_phnum <= LM_PHMAX) {
        if (rd(t, at_phdr, ph, at_phnum * sizeof *ph) == 0) n = (size_t)at_phnum;
        else if (image_phdrs(t, at_phdr & ~(LM_PAGE - 1), ph, path, host) == at_phnum) n = (size_t)at_phnum;
    }
    if (!n) {
        diag_warn(t->name, 0,
                  "no NT_FILE note, and the executable's program headers (AT_PHDR in NT_AUXV) "
                  "cannot be read: no file is named, native frames stay unnamed");
        return 0;
    }
    /* the bias as the dynamic linker computes it: AT_PHDR - PT_PHDR's p_vaddr (no PT_PHDR: 0) */
    const Elf64_Phdr *php = find_ph(ph, n, PT_PHDR);
    uint64_t bias = php ? at_phdr - php->p_vaddr : 0;
    /* the file must be the executable the core ran: its entry point, biased, is AT_ENTRY (a node
       of another build or major has its own; its symbols would name garbage) */
    Elf64_Ehdr eh;
    uint64_t page = at_phdr & ~(LM_PAGE - 1);
    if (t->at_entry && rd_file(t, path, host, page, page, &eh, sizeof eh) == 0 &&
        memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_entry + bias != t->at_entry) {
        diag_error(t->name, 0,
                   "%s is not the executable this core ran: its entry point 0x%llx is not the core's AT_ENTRY "
                   "0x%llx (another build or major of node?): give the node that wrote the core with --node PATH",
                   host ? host : path, (unsigned long long)(eh.e_entry + bias), (unsigned long long)t->at_entry);
        return -1;
    }
    add_file(t, ph, n, bias, path);
    const Elf64_Phdr *dyn = find_ph(ph, n, PT_DYNAMIC);
    uint64_t r_debug = dyn ? dt_debug(t, bias + dyn->p_vaddr, dyn->p_memsz) : 0;
    /* while the list is walked, the executable's pages the core lacks (ld.so's l_name is its
       PT_INTERP string) come from --node's file, as they will once core.c has set it */
    char *exe_path = t->exe_path, *exe_map_path = t->exe_map_path;
    int given = t->exe_given;
    if (host) t->exe_path = (char *)host, t->exe_map_path = path, t->exe_given = 1;
    if (r_debug) walk_r_debug(t, r_debug);
    t->exe_path = exe_path, t->exe_map_path = exe_map_path, t->exe_given = given;
    if (!r_debug)
        diag_warn(t->name, 0,
                  "no NT_FILE note, and no DT_DEBUG in the executable's dynamic section: "
                  "only the executable is named (a static executable, or a corrupt core)");
    /* sorted and apart: a corrupt list may give files that overlap (the later one is cut) */
    if (t->nmaps > 1) qsort(t->maps, t->nmaps, sizeof *t->maps, map_cmp);
    size_t k = 0;
    for (size_t i = 0; i < t->nmaps; i++) {
        target_mapping_t *m = &t->maps[i];
        if (k && m->start < t->maps[k - 1].end) {
            uint64_t cut = t->maps[k - 1].end - m->start;
            if (cut >= m->end - m->start) {
                free((char *)m->path);
                continue;
            }
            m->start += cut;
            m->file_offset += cut;
        }
        t->maps[k++] = *m;
    }
    t->nmaps = k;
    return 0;
}
