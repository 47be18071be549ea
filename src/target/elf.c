/* ELF symbol tables (.symtab and .dynsym, via libelf) of the executable and the shared libraries
 * mapped in the target, with the load bias each was mapped at. Names are not demangled yet
 * (libstdc++'s __cxa_demangle would need -lstdc++ in the Makefile). */
#include "target/target_internal.h"
#include "util/bigmem.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/radix.h"
#include "util/xalloc.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Lowest PT_LOAD vaddr rounded to a page: the address the mapping at file offset 0 corresponds to. */
static uint64_t first_load_vaddr(Elf *e)
{
    size_t n = 0;
    if (elf_getphdrnum(e, &n) != 0) return 0;
    uint64_t lo = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < lo) lo = ph.p_vaddr;
    }
    return lo == UINT64_MAX ? 0 : lo & ~(uint64_t)0xfff;
}

/* Symbols by address, sorted on first use (opening a core for the heap needs only names): keys
 * sorted by radix, then the records permuted (qsort's comparator calls were a tenth of opening
 * a core: node has ~185,000 symbols). The record past the last symbol holds the module's Elf
 * handle (name) and whether the symbols are sorted (addr). */
static void sort_syms(target_module_t *mod)
{
    size_t n = mod->nsyms;
    if (mod->syms[n].addr) return;
    mod->syms[n].addr = 1;
    if (n < 2) return;
    uint64_t *keys = xmalloc(n * sizeof *keys);
    uint32_t *idx = xmalloc(n * sizeof *idx);
    for (size_t i = 0; i < n; i++) keys[i] = mod->syms[i].addr, idx[i] = (uint32_t)i;
    radix_sort_u64(keys, idx, n); /* stable, as qsort's merge sort was for equal addresses */
    target_elfsym_t *sorted = big_malloc((n + 1) * sizeof *sorted);
    for (size_t i = 0; i < n; i++) sorted[i] = mod->syms[idx[i]];
    sorted[n] = mod->syms[n];
    free(mod->syms);
    mod->syms = sorted;
    free(keys);
    free(idx);
    /* the name index points into the records */
    free(mod->by_name);
    mod->by_name = NULL;
}

/* Room for every symbol of e's tables. */
static size_t count_symbols(Elf *e)
{
    size_t n = 0;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) && sh.sh_entsize)
            n += sh.sh_size / sh.sh_entsize;
    }
    return n;
}

int target_elf_has_symtab(void *elf)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn((Elf *)elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size) return 1;
    }
    return 0;
}

/* Appends e's function and object symbols to mod (room for cap, the handle's record included).
 * from_debug: a separate debug file, whose sections hold no contents (all read from the target). */
static void add_symbols(target_module_t *mod, Elf *e, size_t cap, int from_debug)
{
    /* the section headers, once (not one lookup per symbol) */
    size_t nsec = 0;
    if (elf_getshdrnum(e, &nsec) != 0) nsec = 0;
    GElf_Shdr *secs = xcalloc(nsec ? nsec : 1, sizeof *secs);
    for (size_t i = 0; i < nsec; i++) {
        Elf_Scn *sc = elf_getscn(e, i);
        if (!sc || !gelf_getshdr(sc, &secs[i])) memset(&secs[i], 0, sizeof secs[i]);
    }
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
            continue;
        if (from_debug && sh.sh_type == SHT_DYNSYM) continue; /* the module's own, loaded already */
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d) continue;
        size_t n = sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; i < n && mod->nsyms + 1 < cap; i++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || s.st_value == 0) continue;
            int type = GELF_ST_TYPE(s.st_info);
            if (type != STT_FUNC && type != STT_OBJECT) continue;
            const char *name = elf_strptr(e, sh.sh_link, s.st_name);
            if (!name || !*name) continue;
            target_elfsym_t *o = &mod->syms[mod->nsyms++];
            o->name = (char *)name;
            o->addr = s.st_value + mod->bias;
            o->size = s.st_size;
            o->is_func = type == STT_FUNC;
            o->in_bss = 1;
            o->file_off = 0;
            const GElf_Shdr *hs = s.st_shndx < SHN_LORESERVE && s.st_shndx < nsec ? &secs[s.st_shndx] : NULL;
            if (!from_debug && hs && hs->sh_type != SHT_NOBITS && hs->sh_type != SHT_NULL &&
                s.st_value >= hs->sh_addr) {
                o->in_bss = 0;
                o->file_off = hs->sh_offset + (s.st_value - hs->sh_addr);
            }
        }
    }
    free(secs);
}

/* The names point into the ELF file's string tables, mapped by libelf (ELF_C_READ_MMAP), not into
 * one copy each (a malloc per symbol was a third of opening a core): the Elf handle stays open,
 * kept in the record past the last symbol, syms[nsyms].name, and is ended with the module. A
 * module without .symtab (a library stripped for its package: libc) gets the symbols of its
 * separate debug file too, when there is one (debug.c): perf's names for its functions. */
void target_module_read_symbols(target_module_t *mod, void *elf)
{
    Elf *e = elf;
    /* room for every symbol of every table, and the handle */
    size_t cap = 1 + count_symbols(e);
    if (mod->debug_elf) cap += count_symbols(mod->debug_elf);
    mod->syms = big_malloc(cap * sizeof *mod->syms);
    add_symbols(mod, e, cap, 0);
    if (mod->debug_elf) add_symbols(mod, mod->debug_elf, cap, 1);
    memset(&mod->syms[mod->nsyms], 0, sizeof *mod->syms);
    mod->syms[mod->nsyms].name = (char *)e;
}

uint64_t target_elf_load_base(void *elf) { return first_load_vaddr(elf); }

/* Reads n bytes at an ELF "position": a file offset (fd >= 0) or a target address (fd < 0). */
static int pos_read(target_t *t, int fd, uint64_t pos, void *dst, size_t n)
{
    if (fd >= 0) return pread(fd, dst, n, (off_t)pos) == (ssize_t)n ? 0 : -1;
    return target_read(t, pos, dst, n);
}

/* The GNU build id of an ELF image, from its program headers' PT_NOTEs: in a file (fd >= 0, base 0)
 * or mapped in the target at base (fd < 0; notes at base + p_vaddr - first page). Returns its length or 0. */
size_t target_elf_build_id(target_t *t, int fd, uint64_t base, uint8_t *id, size_t cap)
{
    Elf64_Ehdr eh;
    if (pos_read(t, fd, base, &eh, sizeof eh) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64)
        return 0;
    Elf64_Phdr ph[64];
    if (pos_read(t, fd, base + eh.e_phoff, ph, eh.e_phnum * sizeof *ph) != 0) return 0;
    uint64_t first = UINT64_MAX;
    for (int i = 0; i < eh.e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr < first) first = ph[i].p_vaddr & ~(uint64_t)0xfff;
    for (int i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type != PT_NOTE || ph[i].p_filesz > 4096) continue;
        uint8_t note[4096];
        uint64_t pos = fd >= 0 ? ph[i].p_offset : base + ph[i].p_vaddr - first;
        if (pos_read(t, fd, pos, note, ph[i].p_filesz) != 0) continue;
        for (size_t off = 0; off + 12 <= ph[i].p_filesz;) {
            uint32_t nsz, dsz, type;
            memcpy(&nsz, note + off, 4);
            memcpy(&dsz, note + off + 4, 4);
            memcpy(&type, note + off + 8, 4);
            size_t nal = (nsz + 3u) & ~3u, dal = (dsz + 3u) & ~3u;
            if (nal > ph[i].p_filesz - off - 12 || dal > ph[i].p_filesz - off - 12 - nal) break;
            if (type == NT_GNU_BUILD_ID && nsz == 4 && memcmp(note + off + 12, "GNU", 4) == 0 && dsz <= cap) {
                memcpy(id, note + off + 12 + nal, dsz);
                return dsz;
            }
            off += 12 + nal + dal;
        }
    }
    return 0;
}

/* The executable must be the one the core was made from: its build id is compared with the one in
 * the core's copy of its first page (when the core lacks that page the read falls back to the
 * mapped file itself, and the check cannot tell). */
void target_elf_free_modules(target_t *t)
{
    for (size_t i = 0; i < t->nmods; i++) {
        if (t->mods[i].syms) elf_end((Elf *)t->mods[i].syms[t->mods[i].nsyms].name);
        free(t->mods[i].syms);
        free(t->mods[i].by_name);
        free(t->mods[i].path);
        free(t->mods[i].file);
        if (t->mods[i].fd >= 0) close(t->mods[i].fd);
        if (t->mods[i].debug_elf) elf_end(t->mods[i].debug_elf);
        if (t->mods[i].debug_fd >= 0) close(t->mods[i].debug_fd);
        free(t->mods[i].debug_bytes);
        free(t->mods[i].synth_names);
    }
    free(t->mods);
    t->mods = NULL;
    t->nmods = 0;
    t->v8_mod = 0;
    for (size_t i = 0; i < t->nunloadable; i++) free(t->unloadable[i]);
    free(t->unloadable);
    t->unloadable = NULL, t->nunloadable = 0;
    t->sym_generation++;
}

const char *target_base_name(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

int target_file_location(const target_t *t, uint64_t addr, const char **module, uint64_t *offset)
{
    const target_mapping_t *m = target_mapping_at(t, addr);
    if (!m || !m->path) return -1;
    *module = target_base_name(m->path);
    *offset = addr - m->start + m->file_offset;
    return 0;
}

static int nearest_symbol(target_t *t, uint64_t addr, int want_func, target_symbol_t *out);

int target_symbolize(target_t *t, uint64_t addr, target_symbol_t *out) { return nearest_symbol(t, addr, 1, out); }

int target_symbolize_data(target_t *t, uint64_t addr, target_symbol_t *out) { return nearest_symbol(t, addr, 0, out); }

/* Where a module's symbols say addr is. A file's pages mapped a second time elsewhere (Node 20
 * maps V8's embedded builtins again next to its code range: node's text at file offset 0x14c4000,
 * at 0x7f...) are looked up at the same file offset in the mapping the module was loaded with:
 * the mapping of the file whose start - file offset is the one of its offset-0 mapping. */
static uint64_t loaded_address(const target_t *t, const target_mapping_t *m, uint64_t addr)
{
    /* the usual case first: m follows its file's offset-0 mapping, at the same start - offset */
    for (size_t i = (size_t)(m - t->maps) + 1; i-- > 0 && t->maps[i].path && strcmp(t->maps[i].path, m->path) == 0;)
        if (t->maps[i].file_offset == 0) {
            if (m->start - m->file_offset == t->maps[i].start) return addr;
            break;
        }
    const target_mapping_t *first = NULL;
    for (size_t i = 0; i < t->nmaps && !first; i++)
        if (t->maps[i].path && t->maps[i].file_offset == 0 && strcmp(t->maps[i].path, m->path) == 0)
            first = &t->maps[i];
    if (!first || m->start - m->file_offset == first->start) return addr;
    uint64_t off = addr - m->start + m->file_offset;
    for (size_t i = 0; i < t->nmaps; i++) {
        const target_mapping_t *o = &t->maps[i];
        if (o->path && o->start - o->file_offset == first->start && off >= o->file_offset &&
            off - o->file_offset < o->end - o->start && strcmp(o->path, m->path) == 0)
            return o->start + (off - o->file_offset);
    }
    return addr;
}

/* The symbol of path's module (any module without a path) nearest at or below addr that covers
 * it; want_func: the nearest function (size 0 accepted); else the data object that covers addr. */
static int module_symbol(target_t *t, const char *path, uint64_t addr, int want_func, target_symbol_t *out)
{
    for (size_t i = 0; i < t->nmods; i++) {
        target_module_t *mod = &t->mods[i];
        if (path && strcmp(path, mod->path) != 0) continue;
        sort_syms(mod);
        size_t lo = 0, hi = mod->nsyms;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (mod->syms[mid].addr <= addr) lo = mid + 1;
            else hi = mid;
        }
        for (size_t k = lo; k > 0 && k + 64 > lo; k--) {
            const target_elfsym_t *s = &mod->syms[k - 1];
            if (s->is_func != want_func) continue;
            if (s->size ? addr >= s->addr + s->size : !want_func) continue;
            out->name = s->name;
            out->addr = s->addr;
            out->size = s->size;
            out->module = target_base_name(mod->path);
            return 0;
        }
    }
    return -1;
}

/* The address is translated to where its module was loaded once, and looked up there in that
 * module only: a second translation could lead back (a hostile core's overlapping mappings sent
 * the lookup round in a cycle until the stack ran out; fuzz_core). */
static int lookup_symbol(target_t *t, uint64_t addr, int want_func, target_symbol_t *out)
{
    const target_mapping_t *m = target_mapping_at(t, addr);
    if (m && !m->path) return -1; /* anonymous memory (V8's code): no module's symbols cover it */
    uint64_t at = m ? loaded_address(t, m, addr) : addr;
    if (module_symbol(t, m ? m->path : NULL, at, want_func, out) != 0) return -1;
    out->addr += addr - at; /* the symbol as mapped where addr is */
    return 0;
}

/* A sampler asks for the same few hundred return addresses in every sample (node::Start,
 * uv_run, V8's entry code, ...), each a binary search in ~185,000 symbols and a scan of the
 * modules by path: a tenth of a live sample's cost. So the answers (misses too) are kept in a
 * direct-mapped table by address, until the mappings or modules change (sym_generation). */
#define SYM_CACHE_BITS 12
typedef struct {
    uint64_t addr;
    uint32_t generation;
    int8_t want_func, state; /* state: 0 empty, 1 found, -1 not found */
    target_symbol_t sym;
} symbol_answer_t;
struct symbol_cache {
    symbol_answer_t slot[1 << SYM_CACHE_BITS];
};

void target_symbol_cache_free(target_t *t)
{
    free(t->sym_cache);
    t->sym_cache = NULL;
}

static int nearest_symbol(target_t *t, uint64_t addr, int want_func, target_symbol_t *out)
{
    if (!t->sym_cache) t->sym_cache = xcalloc(1, sizeof *t->sym_cache);
    symbol_answer_t *e = &t->sym_cache->slot[hash_slot(addr, SYM_CACHE_BITS)];
    if (e->state && e->addr == addr && e->want_func == want_func && e->generation == t->sym_generation) {
        if (e->state < 0) return -1;
        *out = e->sym;
        return 0;
    }
    int rc = lookup_symbol(t, addr, want_func, out);
    e->addr = addr, e->want_func = (int8_t)want_func, e->generation = t->sym_generation;
    e->state = rc == 0 ? 1 : -1;
    if (rc == 0) e->sym = *out;
    return rc;
}

/* By name through a hash table (open addressing, twice the symbols, rounded to a power of two),
 * built on first lookup: V8's metadata alone is ~500 lookups in ~185,000 symbols, and sorting
 * them by name cost more than the lookups. The first of equal names wins. */
static size_t name_slots(size_t nsyms)
{
    size_t cap = 16;
    while (cap < 2 * nsyms) cap *= 2;
    return cap;
}

const target_elfsym_t *target_module_find(target_module_t *mod, const char *name)
{
    if (!mod->nsyms) return NULL;
    /* a handful of lookups (V8's version, a few builtins) scan: building the index touches
       every name and a table of megabytes */
    static _Thread_local const void *scanned_syms;
    static _Thread_local unsigned scans;
    if (scanned_syms != mod->syms) scanned_syms = mod->syms, scans = 0;
    if (!mod->by_name && scans < 32) {
        scans++;
        for (size_t i = 0; i < mod->nsyms; i++)
            if (mod->syms[i].name[0] == name[0] && !strcmp(mod->syms[i].name, name)) return &mod->syms[i];
        return NULL;
    }
    size_t cap = name_slots(mod->nsyms);
    if (!mod->by_name) {
        mod->by_name = big_calloc(1, cap * sizeof *mod->by_name);
        for (size_t i = 0; i < mod->nsyms; i++) {
            const target_elfsym_t *s = &mod->syms[i];
            size_t h = (size_t)hash_bytes(s->name, strlen(s->name)) & (cap - 1);
            while (mod->by_name[h] && strcmp(mod->by_name[h]->name, s->name)) h = (h + 1) & (cap - 1);
            if (!mod->by_name[h]) mod->by_name[h] = s;
        }
    }
    for (size_t h = (size_t)hash_bytes(name, strlen(name)) & (cap - 1); mod->by_name[h]; h = (h + 1) & (cap - 1))
        if (!strcmp(mod->by_name[h]->name, name)) return mod->by_name[h];
    return NULL;
}

void target_module_add_symbols(target_module_t *mod, const target_elfsym_t *syms, size_t n)
{
    target_elfsym_t handle = mod->syms[mod->nsyms]; /* the Elf handle's record stays last */
    mod->syms = big_realloc(mod->syms, (mod->nsyms + n + 1) * sizeof *mod->syms);
    memcpy(&mod->syms[mod->nsyms], syms, n * sizeof *syms);
    mod->nsyms += n;
    mod->syms[mod->nsyms] = handle;
    mod->syms[mod->nsyms].addr = 0; /* to be sorted again */
    free(mod->by_name);
    mod->by_name = NULL;
}
