/* The object V8 is in: the node executable (official builds), or the shared library a distribution's
 * node links to (Debian 12: /usr/bin/node is 14 KB, V8 and node are in libnode.so.108), or any
 * library that embeds V8. Chosen once the modules are loaded (elf.c calls target_v8_choose): the
 * executable when it has V8's postmortem metadata (v8dbg_* symbols, in .symtab, .dynsym or a
 * separate debug file), else the first library that has it. Every lookup of "node's symbols"
 * (elf.c's target_exe_symbol_*) goes to it first, and every uprobe is placed in the file that
 * holds its address (target_probe_location).
 * A library stripped of .symtab lacks V8's Builtins_* symbols, and a pc in V8's embedded builtins
 * (in its .text) would be taken for native code. So they are named from V8's own tables, found
 * through functions the library exports: DefaultEmbeddedBlobCode/CodeSize/Data/DataSize
 * (x86-64: `lea VAR(%rip),%rax; mov (%rax),%rax|%eax; ret`) give the blob; its data section's layout
 * table gives each builtin's instructions (offset, length; the table's header and stride are
 * found, not assumed: V8 10.2 has 24 bytes of hashes, then 28 bytes a builtin); Builtins::name
 * (x86-64: `lea TABLE(%rip),%rax; ... (%rax,%rdi*24)`) gives the names. The code is read by the
 * target's arch (arch_t.getter, .name_table, .first_pcrel). */
#include "target/target_internal.h"
#include "util/xalloc.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int has_prefix(const target_module_t *mod, const char *prefix)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; i < mod->nsyms; i++)
        if (mod->syms[i].name[0] == prefix[0] && !strncmp(mod->syms[i].name, prefix, n)) return 1;
    return 0;
}

/* The value an exported getter returns, by the arch's reading of its code (arch_t.getter: on x86-64
 * `lea VAR(%rip),%rax; mov (%rax),%rax|%eax; ret` and its kin): VAR read from the target, or the
 * address itself. 0, or -1. */
static int getter_value(target_t *t, target_module_t *mod, const char *fn, uint64_t *value)
{
    const target_elfsym_t *s = target_module_find(mod, fn);
    uint8_t b[16];
    uint64_t var;
    size_t width;
    if (!s || !s->is_func || !t->arch->getter || target_read(t, s->addr, b, sizeof b) != 0 ||
        t->arch->getter(b, s->addr, mod->bias, &var, &width) != 0)
        return -1;
    if (!width) return *value = var, 0;
    *value = 0;
    return target_read(t, var, value, width);
}

/* Builtins::name's table (entries of 24 bytes, the name first), from its code (arch_t.name_table).
 * 0 when not found. */
static uint64_t name_table(target_t *t, target_module_t *mod)
{
    const target_elfsym_t *s = target_module_find(mod, "_ZN2v88internal8Builtins4nameENS0_7BuiltinE");
    uint8_t b[24];
    if (!s || !t->arch->name_table || target_read(t, s->addr, b, sizeof b) != 0) return 0;
    return t->arch->name_table(b, s->addr, mod->bias);
}

typedef struct {
    uint32_t off, len;
} span_t;
#define MAX_BUILTINS 16384 /* V8 10-13 have 2054-2400: a table read further is not V8's */

/* The embedded blob's layout table: after hdr bytes of hashes, stride bytes a builtin whose first
 * two words are its instructions' offset and length in the code. The (hdr, stride) that reads the
 * most builtins, every one inside the code, none overlapping the next, covering most of it. */
static size_t layout_table(const uint8_t *data, size_t dsize, uint64_t csize, span_t **out)
{
    size_t best = 0, best_hdr = 0, best_stride = 0;
    for (size_t hdr = 8; hdr <= 40; hdr += 8)
        for (size_t stride = 12; stride <= 40; stride += 4) {
            size_t n = 0;
            uint64_t end = 0, covered = 0;
            for (size_t p = hdr; p + 8 <= dsize && n < MAX_BUILTINS; p += stride, n++) {
                uint32_t off, len;
                memcpy(&off, data + p, 4);
                memcpy(&len, data + p + 4, 4);
                if (!len || off < end || (uint64_t)off + len > csize) break;
                end = (uint64_t)off + len, covered += len;
            }
            if (n > best && n >= 256 && covered >= csize / 2) best = n, best_hdr = hdr, best_stride = stride;
        }
    if (!best) return 0;
    *out = xmalloc(best * sizeof **out);
    for (size_t i = 0; i < best; i++) {
        memcpy(&(*out)[i].off, data + best_hdr + i * best_stride, 4);
        memcpy(&(*out)[i].len, data + best_hdr + i * best_stride + 4, 4);
    }
    return best;
}

/* V8's embedded builtins as symbols of mod, for a module without Builtins_* symbols. */
static void name_builtins(target_t *t, target_module_t *mod)
{
    target_v8_object_t *o = &t->v8obj;
    uint64_t code, csize, data, dsize;
    if (getter_value(t, mod, "_ZN2v88internal23DefaultEmbeddedBlobCodeEv", &code) != 0 ||
        getter_value(t, mod, "_ZN2v88internal27DefaultEmbeddedBlobCodeSizeEv", &csize) != 0 || !code || !csize ||
        csize > (1u << 30))
        return;
    o->blob_start = code, o->blob_end = code + csize;
    span_t *spans = NULL;
    size_t n = 0;
    uint8_t *bytes = NULL;
    if (getter_value(t, mod, "_ZN2v88internal23DefaultEmbeddedBlobDataEv", &data) == 0 &&
        getter_value(t, mod, "_ZN2v88internal27DefaultEmbeddedBlobDataSizeEv", &dsize) == 0 && dsize &&
        dsize < (64u << 20)) {
        bytes = xmalloc(dsize);
        if (target_read(t, data, bytes, dsize) == 0) n = layout_table(bytes, dsize, csize, &spans);
    }
    free(bytes);
    uint64_t names = n ? name_table(t, mod) : 0;
    /* the names, each "Builtins_" + V8's name ("Builtins_#N" when it cannot be read), in one buffer */
    size_t cap = 144 * (n + 1), used = 0;
    char *buf = xmalloc(cap);
    target_elfsym_t *syms = xcalloc(n + 1, sizeof *syms);
    size_t *at = xmalloc((n + 1) * sizeof *at);
    for (size_t i = 0; i < n; i++) {
        uint64_t p = 0;
        char name[128] = "";
        if (names && target_read_u64(t, names + 24 * i, &p) == 0 && p && target_read(t, p, name, sizeof name - 1) == 0)
            name[sizeof name - 1] = 0;
        else name[0] = 0;
        if (!name[0]) snprintf(name, sizeof name, "#%zu", i);
        else o->builtins_named++;
        at[i] = used;
        used += (size_t)snprintf(buf + used, cap - used, "Builtins_%s", name) + 1;
        syms[i] = (target_elfsym_t){NULL, code + spans[i].off, spans[i].len, 1, 0, 0};
    }
    if (!n) { /* no table: the blob as one */
        at[0] = 0;
        used = (size_t)snprintf(buf, cap, "Builtins_(embedded)") + 1;
        syms[0] = (target_elfsym_t){NULL, code, csize, 1, 0, 0};
    }
    for (size_t i = 0; i < (n ? n : 1); i++) syms[i].name = buf + at[i];
    mod->synth_names = buf;
    target_module_add_symbols(mod, syms, n ? n : 1);
    free(syms);
    free(at);
    free(spans);
}

/* libuv's default loop, which node's symbols name (default_loop_struct: pending's fds, timers, loop
 * time), when libuv is a library of its own (Debian's libuv.so.1, stripped: the symbol is static):
 * from the library's symbols (a debug file), else from uv_default_loop's code, whose first
 * pc-relative address (arch_t.first_pcrel; x86-64: `lea default_loop_struct(%rip),%rbp`, after the
 * load of default_loop_ptr) is its address. Added to mod's symbols, where target_exe_symbol_addr looks. */
static void libuv_loop(target_t *t, target_module_t *mod)
{
    if (target_module_find(mod, "default_loop_struct") || target_module_find(&t->mods[0], "default_loop_struct")) return;
    for (size_t i = 1; i < t->nmods; i++) {
        const char *b = strrchr(t->mods[i].path, '/');
        if (!b || strncmp(b + 1, "libuv.so", 8)) continue;
        const target_elfsym_t *s = target_module_find(&t->mods[i], "default_loop_struct");
        target_elfsym_t loop = {(char *)"default_loop_struct", s ? s->addr : 0, s ? s->size : 0, 0, 1, 0};
        const target_elfsym_t *f = s ? NULL : target_module_find(&t->mods[i], "uv_default_loop");
        uint8_t b8[64];
        if (f && t->arch->first_pcrel && target_read(t, f->addr, b8, sizeof b8) == 0)
            loop.addr = t->arch->first_pcrel(b8, sizeof b8, f->addr);
        if (loop.addr) target_module_add_symbols(mod, &loop, 1);
        return;
    }
}

static void hex_build_id(target_t *t, target_module_t *mod, char *out, size_t cap)
{
    uint8_t id[64];
    size_t n = mod->fd >= 0 ? target_elf_build_id(t, mod->fd, 0, id, sizeof id) : 0;
    out[0] = 0;
    for (size_t i = 0, k = 0; i < n && k + 3 <= cap; i++) k += (size_t)snprintf(out + k, cap - k, "%02x", id[i]);
}

/* The libraries the target maps whose files could not be read (elf.c's unloadable), "A, B": one of
 * them may hold V8 (libnode.so.108 of a core read where it is not installed). */
static void missing_libraries(const target_t *t, char *out, size_t cap)
{
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < t->nunloadable && k + 1 < cap; i++) {
        int n = snprintf(out + k, cap - k, "%s%s", k ? ", " : "", t->unloadable[i]);
        if (n < 0 || (size_t)n >= cap - k) break;
        k += (size_t)n;
    }
}

void target_v8_choose(target_t *t)
{
    if (!t->nmods || (t->v8_mod && t->v8obj.has_metadata)) return;
    size_t pick = 0; /* the modules loaded since the last look (a live process maps more as it runs) */
    for (size_t i = t->v8_mod ? t->v8_scanned : 0; i < t->nmods && !pick; i++)
        if (has_prefix(&t->mods[i], "v8dbg_")) pick = i + 1;
    t->v8_scanned = t->nmods;
    target_v8_object_t *o = &t->v8obj;
    if (!pick) missing_libraries(t, o->missing, sizeof o->missing);
    if (!pick && t->v8_mod) return; /* none yet: the executable stays the answer */
    t->v8_mod = pick ? pick : 1;
    target_module_t *mod = &t->mods[t->v8_mod - 1];
    memset(o, 0, sizeof *o);
    if (!pick) missing_libraries(t, o->missing, sizeof o->missing);
    o->is_exe = t->v8_mod == 1;
    o->has_metadata = pick != 0;
    if (pick && !has_prefix(mod, "Builtins_")) name_builtins(t, mod);
    if (pick) libuv_loop(t, mod);
    hex_build_id(t, mod, o->build_id, sizeof o->build_id);
    t->sym_generation++;
}

target_module_t *target_v8_module(target_t *t) { return t->nmods ? &t->mods[t->v8_mod ? t->v8_mod - 1 : 0] : NULL; }

const target_v8_object_t *target_v8_object(target_t *t)
{
    target_module_t *mod = target_v8_module(t);
    t->v8obj.path = mod ? mod->path : NULL; /* refreshed: the modules array moves as it grows */
    t->v8obj.file = mod ? mod->file : NULL;
    t->v8obj.bias = mod ? mod->bias : 0;
    return &t->v8obj;
}

int target_probe_location(int pid, uint64_t addr, char *path, size_t cap, uint64_t *offset)
{
    target_mapping_t *maps;
    size_t nmaps;
    if (target_live_read_maps(pid, &maps, &nmaps) != 0) return -1;
    char link[64], exe[4096];
    snprintf(link, sizeof link, "/proc/%d/exe", pid);
    ssize_t k = readlink(link, exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = 0;
    int rc = -1;
    for (size_t i = 0; i < nmaps; i++) {
        const target_mapping_t *m = &maps[i];
        if (rc != 0 && addr >= m->start && addr < m->end && (m->prot & 4) && m->path && m->path[0] == '/') {
            *offset = addr - m->start + m->file_offset;
            /* the executable by its link: the kernel resolves it to the file mapped, whatever its name here */
            int n = !strcmp(m->path, exe) ? snprintf(path, cap, "%s", link)
                                          : snprintf(path, cap, "/proc/%d/root%s", pid, m->path);
            rc = n > 0 && (size_t)n < cap ? 0 : -1;
        }
        free((char *)m->path);
    }
    free(maps);
    return rc;
}
