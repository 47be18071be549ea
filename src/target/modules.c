/* The target's modules: the executable and every library it maps, loaded (elf.c reads each one's
 * symbol tables; files.c finds its file, checked by build id; debug.c a separate debug file when
 * it has no .symtab), the executable checked against a core, the object V8 is in chosen once all
 * are (v8_object.c); and the symbols looked up by name in that object first, then in the
 * executable (target_exe_symbol_*, target_module_symbol_addr). Above elf.c, files.c, debug.c and
 * v8_object.c, which it calls. */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One module: path as the target maps it at [map_start, map_end), its file (given_file: --node's)
 * found and opened (files.c), its symbols read; required: the executable (an error, else a
 * warning). 0, or -1. */
static int load_module(target_t *t, const char *path, const char *given_file, uint64_t map_start, uint64_t map_end,
                       int required)
{
    char *file = NULL;
    int fd = target_open_file(t, given_file ? given_file : path, map_start, map_end, required, &file);
    if (fd < 0) return -1;
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        if (required) diag_error(target_name(t), 0, "%s is not an ELF file", file);
        if (e) elf_end(e);
        close(fd);
        free(file);
        return -1;
    }
    /* a file of another machine than the target's (an x86-64 node given for an aarch64 core, a
       library of the host's under a missing --root): its symbols would name the wrong code */
    uint16_t machine = 0;
    if (t->arch && (pread(fd, &machine, 2, 18) != 2 || machine != t->arch->elf_machine)) {
        const arch_t *fa = arch_for_elf_machine(machine);
        if (required)
            diag_error(target_name(t), 0, "%s is an ELF file for %s, the target is %s: give its node with --node PATH%s",
                       file, fa ? fa->name : "another machine", t->arch->name, t->root ? "" : " (and --root DIR)");
        else diag_warn(target_name(t), 0, "%s is an ELF file for %s, the target is %s: its symbols are left out%s", file,
                       fa ? fa->name : "another machine", t->arch->name, t->root ? "" : " (give --root DIR)");
        elf_end(e);
        close(fd);
        free(file);
        return -1;
    }
    t->mods = xrealloc(t->mods, (t->nmods + 1) * sizeof *t->mods);
    t->sym_generation++;
    target_module_t *mod = &t->mods[t->nmods++];
    memset(mod, 0, sizeof *mod);
    mod->path = xstrdup(path);
    mod->file = file;
    mod->fd = fd;
    mod->debug_fd = -1;
    mod->bias = map_start - target_elf_load_base(e);
    if (!target_elf_has_symtab(e)) target_debug_symbols(t, mod, e);
    target_module_read_symbols(mod, e);
    return 0;
}

static int check_build_id(target_t *t, uint64_t exe_start)
{
    if (!exe_start || !t->core) return 0;
    /* without the core's own copy of that page, the file at the core's path (under --root) is read,
       not --node's */
    int given = t->exe_given;
    t->exe_given = 0;
    uint8_t a[64], b[64];
    size_t na = target_elf_build_id(t, t->mods[0].fd, 0, a, sizeof a),
           nb = target_elf_build_id(t, -1, exe_start, b, sizeof b);
    t->exe_given = given;
    if (na && nb && (na != nb || memcmp(a, b, na) != 0)) {
        diag_error(target_name(t), 0,
                   "executable %s does not match the core (build ids differ); give the right one with --node PATH%s",
                   t->mods[0].file, !t->root && !t->exe_given ? " (a core from a container: --root DIR)" : "");
        return -1;
    }
    return 0;
}

int target_elf_load_modules(target_t *t)
{
    elf_version(EV_CURRENT);
    if (t->mods_loaded && t->nmods) goto libraries; /* again (live.c, maps read again): the files new since */
    /* the executable: its mapping at file offset 0 gives the bias (0 if not mapped, e.g. --node on a stripped core) */
    uint64_t exe_start = 0, exe_end = 0;
    for (size_t i = 0; i < t->nmaps; i++)
        if (t->maps[i].path && t->maps[i].file_offset == 0 && strcmp(t->maps[i].path, t->exe_path) == 0) {
            exe_start = t->maps[i].start, exe_end = t->maps[i].end;
            break;
        }
    if (!exe_start) {
        /* --node with another path: take the mapping of the same basename */
        const char *base = strrchr(t->exe_path, '/');
        base = base ? base + 1 : t->exe_path;
        for (size_t i = 0; i < t->nmaps && !exe_start; i++) {
            const char *p = t->maps[i].path, *b = p ? strrchr(p, '/') : NULL;
            if (b && t->maps[i].file_offset == 0 && strcmp(b + 1, base) == 0)
                exe_start = t->maps[i].start, exe_end = t->maps[i].end;
        }
    }
    for (size_t i = 0; i < t->nmaps && !t->exe_map_path; i++)
        if (exe_start && t->maps[i].start == exe_start && t->maps[i].path) t->exe_map_path = xstrdup(t->maps[i].path);
    /* --node: the module keeps the name the core maps it by (its frames are looked up by it) */
    if (t->exe_given && t->exe_map_path) {
        if (load_module(t, t->exe_map_path, t->exe_path, exe_start, exe_end, 1) != 0) return -1;
    } else if (load_module(t, t->exe_path, NULL, exe_start, exe_end, 1) != 0) {
        return -1;
    }
    if (check_build_id(t, exe_start) != 0) return -1;
libraries:
    for (size_t i = 0; i < t->nmaps; i++) {
        const target_mapping_t *m = &t->maps[i];
        if (!m->path || m->file_offset != 0 || m->path[0] != '/' || strcmp(m->path, t->exe_path) == 0 ||
            (t->exe_map_path && strcmp(m->path, t->exe_map_path) == 0))
            continue;
        int seen = 0;
        for (size_t j = 0; j < t->nmods; j++) seen |= strcmp(t->mods[j].path, m->path) == 0;
        for (size_t j = 0; j < t->nunloadable && !seen; j++) seen |= strcmp(t->unloadable[j], m->path) == 0;
        if (!seen && load_module(t, m->path, NULL, m->start, m->end, 0) != 0) { /* once: its warning too */
            t->unloadable = xrealloc(t->unloadable, (t->nunloadable + 1) * sizeof *t->unloadable);
            t->unloadable[t->nunloadable++] = xstrdup(m->path);
        }
    }
    t->mods_loaded = 1;
    target_v8_choose(t);
    return 0;
}

/* The symbol target_exe_symbols is visiting: V8's metadata reads each v8dbg_ value from its
 * callback, by the very name it was given, and needs no index then. */
static _Thread_local const target_elfsym_t *visiting;
static _Thread_local target_module_t *visiting_mod;

/* A symbol by name in the object V8 is in, then in the executable (v8_object.c); *mod_out its module. */
static const target_elfsym_t *exe_sym(target_t *t, const char *name, target_module_t **mod_out)
{
    if (visiting && name == visiting->name) {
        *mod_out = visiting_mod;
        return visiting;
    }
    target_module_t *v8 = target_v8_module(t);
    if (!v8) return NULL;
    const target_elfsym_t *s = target_module_find(v8, name);
    *mod_out = v8;
    if (!s && v8 != &t->mods[0]) s = target_module_find(*mod_out = &t->mods[0], name);
    return s;
}

int target_exe_symbol_value(target_t *t, const char *name, uint64_t *value_out, uint64_t *size_out)
{
    target_module_t *mod;
    const target_elfsym_t *s = exe_sym(t, name, &mod);
    if (!s) return -1;
    uint64_t v = 0;
    size_t n = s->size && s->size <= 8 ? (size_t)s->size : 8;
    if (s->in_bss) {
        if (target_read(t, s->addr, &v, n) != 0) return -1;
    } else if (pread(mod->fd, &v, n, (off_t)s->file_off) != (ssize_t)n) {
        return -1;
    }
    if (value_out) *value_out = v;
    if (size_out) *size_out = s->size;
    return 0;
}

int target_exe_symbol_addr(target_t *t, const char *name, uint64_t *addr_out, uint64_t *size_out)
{
    target_module_t *mod;
    const target_elfsym_t *s = exe_sym(t, name, &mod);
    if (!s) return -1;
    if (addr_out) *addr_out = s->addr;
    if (size_out) *size_out = s->size;
    return 0;
}

void target_exe_symbols(target_t *t, const char *prefix, target_symbol_cb cb, void *ctx)
{
    target_module_t *mod = target_v8_module(t);
    if (!mod) return;
    size_t plen = strlen(prefix);
    for (size_t i = 0; i < mod->nsyms; i++)
        if (strncmp(mod->syms[i].name, prefix, plen) == 0) {
            visiting = &mod->syms[i];
            visiting_mod = mod;
            cb(ctx, mod->syms[i].name, mod->syms[i].addr, mod->syms[i].size);
            visiting = NULL;
        }
}

int target_module_symbol_addr(target_t *t, const char *lib, const char *name, uint64_t *addr_out, const char **path)
{
    size_t n = strlen(lib);
    *path = NULL;
    if (!strcmp(lib, "node")) { /* node's own functions: in the executable or in the library V8 is in */
        target_module_t *mod;
        const target_elfsym_t *s = exe_sym(t, name, &mod);
        if (!s) return -1;
        *addr_out = s->addr;
        if (mod != &t->mods[0]) *path = mod->path;
        return 0;
    }
    for (size_t m = 1; m < t->nmods; m++) {
        const target_module_t *mod = &t->mods[m];
        const char *base = target_base_name(mod->path);
        if (strchr(lib, '/') ? strcmp(mod->path, lib) != 0
                             : strncmp(base, lib, n) != 0 || (base[n] && base[n] != '.' && base[n] != '-'))
            continue;
        for (size_t i = 0; i < mod->nsyms; i++)
            if (mod->syms[i].is_func && mod->syms[i].name[0] == name[0] && !strcmp(mod->syms[i].name, name)) {
                *addr_out = mod->syms[i].addr;
                *path = mod->path;
                return 0;
            }
    }
    return -1;
}
