/* `perf script` callchain lines -> frames: the part of the perf script reader (perf_script.c)
 * that turns one distinct callchain line ("\tADDR SYMBOL+0xOFF (MODULE)") into the frames it
 * stands for. The symbol is tidied as stackcollapse-perf.pl's tidy_generic does, but bracket
 * aware and never cutting V8 names (JS:, Builtin:, RegExp: carry source text); "->" parts and
 * --inline's addr2line frames become several frames; JIT lines (a perf map, jitted-*.so,
 * [unknown]) are renamed by the resolver, remembered per (line, pid, address). Each distinct
 * line is done once: perf_add_line looks it up by its raw text in the frame cache first. */
#include "formats/perf_frames.h"
#include "formats/format.h"
#include "formats/perf_grammar.h"
#include "formats/perf_inline.h"
#include "formats/perf_opts.h"
#include "formats/perf_perl.h"
#include "symbols/resolver.h"
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/demangle.h"
#include "util/diag.h"
#include "util/options.h"
#include "util/strview.h"
#include "util/xalloc.h"
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pthread_mutex_t perf_resolver_mu = PTHREAD_MUTEX_INITIALIZER;

void perf_note_unrecognised(perf_reader_t *r, long line)
{
    if (!r->unrecognised++ || line < r->first_unrecognised) r->first_unrecognised = line;
}

/* ---- tidying one symbol (the Perl script's tidy_generic, bracket aware) ---- */

/* V8 names carry JS source text (RegExp sources, file paths): never cut them at a '('. */
static int is_v8_name(const char *s, size_t n)
{
    static const char *const prefixes[] = {"JS:",     "RegExp:",  "LazyCompile:",     "Function:", "Eval:",
                                           "Script:", "Builtin:", "BytecodeHandler:", "Stub:",     "Handler:"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (sv_starts(s, n, prefixes[i])) return 1;
    return 0;
}

/* Length of s without its parameter list: cut at the first '(' outside <>, {}, []
 * that is neither "(anonymous namespace)" nor a Go receiver ".(*T).". */
static size_t strip_params(const char *s, size_t n)
{
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '<' || c == '{' || c == '[') depth++;
        else if ((c == '>' || c == '}' || c == ']') && depth > 0) depth--;
        else if (c == '(' && depth == 0) {
            if (sv_starts(s + i, n - i, "(anonymous namespace)")) continue;
            if (i > 0 && s[i - 1] == '.') continue;
            return i;
        }
    }
    return n;
}

/* Appends the tidied form of one "->" part of a symbol to b. */
static void tidy_symbol(perf_reader_t *r, const char *s, size_t n, const char *pc, size_t pc_len, const char *mod,
                        size_t mod_len, buf_t *b)
{
    size_t b0 = b->len;
    if (n == 9 && !memcmp(s, "[unknown]", 9)) {
        /* perf could not name it: show the module, as the Perl script does */
        buf_putc(b, '[');
        if (mod_len > 0 && !(mod_len == 9 && !memcmp(mod, "[unknown]", 9))) {
            size_t bl;
            const char *base = perf_basename(mod, mod_len, &bl);
            buf_append(b, base, bl);
        } else {
            buf_puts(b, "unknown");
        }
        if (r->po->with_addrs) {
            buf_puts(b, " <");
            buf_append(b, pc, pc_len);
            buf_putc(b, '>');
        }
        buf_putc(b, ']');
        return;
    }
    size_t keep = r->po->perl_compat ? perf_perl_strip_params(s, n) : is_v8_name(s, n) ? n : strip_params(s, n);
    /* copied whole, then ';' (the folded separator) becomes ':' in place */
    size_t at = b->len;
    buf_append(b, s, keep);
    char *d = b->data + at, *end = b->data + b->len;
    for (char *q = d; (q = memchr(q, ';', (size_t)(end - q))) != NULL;) *q++ = ':';
    if (r->po->perl_compat) {
        /* The Perl script deletes quotes (for V8 RegExp names); inferno keeps them, and so do we:
         * they are Rust lifetimes ('a) and JavaScript source text. */
        char *w = d;
        for (const char *q = d; q < end; q++)
            if (*q != '"' && *q != '\'') *w++ = *q;
        b->len = (size_t)(w - b->data);
        b->data[b->len] = 0;
    }
    /* Java (perf-map-agent) in a process whose name starts with "java", as the Perl script and
     * inferno tidy it: "Lio/netty/Foo;.run(I)V" -> "io/netty/Foo:.run" */
    if (r->java && b->len > b0 && b->data[b0] == 'L' && memchr(b->data + b0, '/', b->len - b0)) {
        memmove(b->data + b0, b->data + b0 + 1, b->len - b0 - 1);
        b->len--;
        b->data[b->len] = 0;
    }
}

/* ---- building frames for a distinct callchain line ---- */

static frame_kind_t kind_for(const char *name, size_t n, perf_module_t mk)
{
    if (mk == PERF_MOD_KERNEL) return FRAME_KERNEL;
    frame_kind_t k = profile_classify_name(name, n);
    if (perf_module_is_jit(mk)) return k;
    if (mk == PERF_MOD_UNKNOWN) return k == FRAME_NATIVE ? FRAME_UNKNOWN : k;
    /* A symbol from an ELF file (node, libc, ...) is native code unless it is a V8 builtin or GC. */
    return k == FRAME_JS ? FRAME_NATIVE : k;
}

/* Interns a tidied name. A V8 name's definition site ("JS:*fib /app/fib.js:1:13") becomes the
 * frame's url, line and column; the folded label prints the same text back. Annotated names
 * ("..._[j]") keep their text: the label would put the annotation before the site. */
static uint32_t text_frame(perf_reader_t *r, const char *s, size_t n, frame_kind_t kind, int annotated)
{
    size_t name_len, url_len;
    const char *url;
    int32_t line, col;
    if (!annotated && profile_v8_location(s, n, &name_len, &url, &url_len, &line, &col)) {
        buf_t *u = &r->scratch2;
        buf_clear(u);
        buf_append(u, url, url_len);
        return profile_frame(r->p, s, name_len, u->data, line, col, kind);
    }
    return profile_frame(r->p, s, n, "", 0, 0, kind);
}

static void pool_push(perf_reader_t *r, uint32_t f)
{
    if (r->npool == r->pool_cap) XGROW(r->frame_pool, r->pool_cap, r->npool + 1);
    r->frame_pool[r->npool++] = f;
}

/* Tidies a callchain line's symbol into frames appended to the pool (root-most first). */
static void make_frames(perf_reader_t *r, const perf_frame_t *f, perf_module_t mk)
{
    const perf_read_opts_t *po = r->po;
    const char *pc = f->pc, *sym = f->sym, *mod = f->mod;
    size_t pc_len = f->pc_len, sym_len = f->sym_len, mod_len = f->mod_len;
    int jit = po->perl_compat ? perf_perl_jit_module(mod, mod_len) : perf_module_is_jit(mk);
    if (po->inline_frames && mod_len && !jit && mk != PERF_MOD_KERNEL && mod[0] != '[' &&
        !memmem(mod, mod_len, "perf-", 5)) {
        buf_t *a = &r->scratch2;
        buf_clear(a);
        perf_addr2line(pc, pc_len, mod, mod_len, po->inline_context, a);
        if (a->len && strcmp(a->data, "??") && strcmp(a->data, "??:??:0")) {
            size_t start = 0;
            for (size_t i = 0; i <= a->len; i++) {
                if (i < a->len && a->data[i] != ';') continue;
                if (i > start) pool_push(r, profile_frame(r->p, a->data + start, i - start, "", 0, 0, FRAME_NATIVE));
                start = i + 1;
            }
            return;
        }
    }
    /* strip a trailing "+0x1f" offset */
    size_t n = sym_len;
    {
        size_t i = n;
        while (i > 0 && perf_is_hex(sym[i - 1])) i--;
        if (i >= 3 && i < n && sym[i - 1] == 'x' && sym[i - 2] == '0' && sym[i - 3] == '+') n = i - 3;
    }
    /* The Perl script skips every symbol starting with '(' (meant for "(process name)" pseudo frames);
     * that also drops C++ "(anonymous namespace)::f" frames, which are kept here. */
    if (n > 0 && sym[0] == '(' && (po->perl_compat || !sv_starts(sym, n, "(anonymous namespace)"))) return;
    /* Rust names perf left mangled or half demangled (napi-rs addons), as inferno fixes them */
    if (!po->perl_compat) {
        buf_clear(&r->demangled);
        if (demangle_rust(&r->demangled, sym, n)) sym = r->demangled.data, n = r->demangled.len;
    }
    size_t part = 0, nparts = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !(sym[i] == '-' && i + 1 < n && sym[i + 1] == '>')) continue;
        buf_t *b = &r->scratch;
        buf_clear(b);
        tidy_symbol(r, sym + part, i - part, pc, pc_len, mod, mod_len, b);
        size_t plain_len = b->len;
        if (nparts > 0) {
            if (!memmem(b->data, b->len, "_[i]", 4)) buf_puts(b, "_[i]");
        } else if (po->annotate_kernel &&
                   (po->perl_compat ? perf_perl_kernel_module(mod, mod_len) : mk == PERF_MOD_KERNEL)) {
            buf_puts(b, "_[k]");
        } else if (po->annotate_jit && jit) {
            if (!memmem(b->data, b->len, "_[j]", 4)) buf_puts(b, "_[j]");
        }
        frame_kind_t k = kind_for(b->data, b->len, mk);
        pool_push(r, text_frame(r, b->data, b->len, k, b->len != plain_len));
        nparts++;
        part = i + 2;
        i++;
    }
}

static void grow_slots(perf_reader_t *r)
{
    size_t cap = (r->slot_mask + 1) * 2;
    struct line_slot *n = xcalloc(cap, sizeof *n);
    for (size_t i = 0; i <= r->slot_mask; i++) {
        if (!r->slots[i].entry) continue;
        size_t at = r->slots[i].hash & (cap - 1);
        while (n[at].entry) at = (at + 1) & (cap - 1);
        n[at] = r->slots[i];
    }
    free(r->slots);
    r->slots = n;
    r->slot_mask = cap - 1;
}

/* ---- JIT names from the resolver, remembered per (line, pid, address) ---- */

static void memo_grow(perf_reader_t *r)
{
    size_t cap = r->memo_mask ? (r->memo_mask + 1) * 2 : 1024;
    struct jit_memo *n = xcalloc(cap, sizeof *n);
    for (size_t i = 0; r->memo_mask && i <= r->memo_mask; i++) {
        if (!r->memo[i].used) continue;
        size_t at = r->memo[i].hash & (cap - 1);
        while (n[at].used) at = (at + 1) & (cap - 1);
        n[at] = r->memo[i];
    }
    free(r->memo);
    r->memo = n;
    r->memo_mask = cap - 1;
}

/* The resolver's name for a JIT line's address as a frame (1), or 0 to keep perf's frames.
 * Most samples repeat addresses: when the answer cannot depend on the sample's time (no
 * journal, no jitdump), it is remembered with what the lookup added to the resolver's
 * counts, so a repeat costs one probe here instead of the shared resolver under its mutex,
 * tidying and interning. The line entry is part of the key: its perf label, module and
 * comm (Java) shape the frame. */
static int jit_lookup(perf_reader_t *r, uint32_t entry, uint64_t addr, const char *pc, size_t pc_len, uint32_t *out)
{
    jit_resolver_t *res = r->o->resolver;
    uint64_t h = hash_u64(addr ^ ((uint64_t)entry << 32) ^ ((uint64_t)(uint32_t)r->pid * 0x9e3779b97f4a7c15ULL));
    size_t at = 0;
    if (r->memo_mask) {
        at = h & r->memo_mask;
        for (; r->memo[at].used; at = (at + 1) & r->memo_mask) {
            struct jit_memo *m = &r->memo[at];
            if (m->hash != h || m->addr != addr || m->entry != entry || m->pid != r->pid) continue;
            r->memo_stats.resolved += m->resolved;
            r->memo_stats.unresolved += m->unresolved;
            r->memo_stats.ambiguous += m->ambiguous;
            r->memo_stats.relabelled += m->relabelled;
            r->line_stats = (uint32_t)m->resolved | (uint32_t)m->unresolved << 8 | (uint32_t)m->ambiguous << 16 |
                            (uint32_t)m->relabelled << 24;
            *out = m->frame;
            return m->found;
        }
    }
    const line_entry_t *e = &r->entries[entry];
    const char *name;
    size_t len;
    uint32_t f = 0;
    /* the resolver loads maps lazily and counts: one caller at a time, for the lookup only (its
     * names live as long as it does; tidying and interning one are this reader's own work, and
     * done under the lock they kept the other threads waiting: tsc-big, 2 threads no faster) */
    if (r->parallel) pthread_mutex_lock(&perf_resolver_mu);
    jit_resolver_stats_t before = *jit_resolver_stats(res);
    int found = jit_resolver_lookup(res, r->pid, addr, r->time_ns, &name, &len);
    const jit_resolver_stats_t *after = jit_resolver_stats(res);
    jit_resolver_stats_t d = {after->relabelled - before.relabelled, after->ambiguous - before.ambiguous,
                              after->unresolved - before.unresolved, after->resolved - before.resolved};
    int timeless = jit_resolver_timeless(res, r->pid);
    if (r->parallel) pthread_mutex_unlock(&perf_resolver_mu);
    if (found) {
        /* the map's name, tidied and annotated like perf's label would have been */
        buf_t *b = &r->scratch;
        buf_clear(b);
        tidy_symbol(r, name, len, pc, pc_len, "", 0, b);
        size_t plain_len = b->len;
        if (r->po->annotate_jit && e->jit_module) buf_puts(b, "_[j]");
        f = text_frame(r, b->data, b->len, profile_classify_name(b->data, b->len), b->len != plain_len);
        /* count frames whose name differs from perf's own label (--stats) */
        if (e->count == 1 && r->frame_pool[e->first] != f) {
            buf_t *was = &r->scratch, *now = &r->scratch2;
            buf_clear(was), buf_clear(now);
            profile_frame_label(r->p, r->frame_pool[e->first], was);
            profile_frame_label(r->p, f, now);
            if (r->parallel) pthread_mutex_lock(&perf_resolver_mu);
            d.relabelled += (unsigned long)jit_resolver_note(res, was->data, was->len, now->data);
            if (r->parallel) pthread_mutex_unlock(&perf_resolver_mu);
        }
    }
    if (timeless && d.resolved <= 1 && d.unresolved <= 1 && d.ambiguous <= 1 && d.relabelled <= 1) {
        if (!r->memo_mask || (r->nmemo + 1) * 2 > r->memo_mask) {
            memo_grow(r);
            at = h & r->memo_mask;
            while (r->memo[at].used) at = (at + 1) & r->memo_mask;
        }
        r->memo[at] = (struct jit_memo){h,
                                        addr,
                                        entry,
                                        r->pid,
                                        f,
                                        1,
                                        (uint8_t)found,
                                        (uint8_t)d.resolved,
                                        (uint8_t)d.unresolved,
                                        (uint8_t)d.ambiguous,
                                        (uint8_t)d.relabelled};
        r->nmemo++;
        /* a repeat of this line in a later sample may stand for this lookup: its counts */
        r->line_stats = (uint32_t)d.resolved | (uint32_t)d.unresolved << 8 | (uint32_t)d.ambiguous << 16 |
                        (uint32_t)d.relabelled << 24;
    } else {
        r->line_reusable = 0; /* the answer may depend on the time: look it up every time */
    }
    *out = f;
    return found;
}

/* Frames of one callchain line (text after the leading blanks), appended leaf-first to the sample. */
void perf_add_line(perf_reader_t *r, const char *s, size_t n)
{
    r->line_bad = 0, r->line_reusable = 1, r->line_stats = 0;
    while (n > 0 && perf_is_space(s[n - 1])) n--;
    perf_frame_t fr;
    /* The cache key: the whole line (nearly every symbol is always seen at the same address: on
     * the tsc perf script 10,911 distinct lines, 10,788 distinct symbol and module pairs), so a
     * cached line is not parsed at all: its address is in its entry. The Perl grammar's lines
     * are parsed first, keyed on symbol and module unless the address matters. */
    const int perl = r->po->perl_compat;
    const char *key = s;
    size_t key_len = n;
    if (perl) {
        if (!perf_perl_frame(s, n, &fr)) {
            perf_note_unrecognised(r, r->line);
            r->line_bad = 1;
            return;
        }
        if (!(r->po->with_addrs || r->po->inline_frames)) key = fr.sym, key_len = n - (size_t)(fr.sym - s);
    }
    uint64_t h = perf_line_hash(key, key_len) ^ (uint64_t)r->java; /* Java tidying depends on the comm */
    size_t at = h & r->slot_mask;
    line_entry_t *e = NULL;
    while (r->slots[at].entry) {
        if (r->slots[at].hash == h) {
            line_entry_t *c = &r->entries[r->slots[at].entry - 1];
            if (c->key_len == key_len && c->java == r->java && !memcmp(r->keys.data + c->key_off, key, key_len)) {
                e = c;
                break;
            }
        }
        at = (at + 1) & r->slot_mask;
    }
    if (!e) {
        if (!perl && !perf_parse_frame(s, n, &fr)) {
            perf_note_unrecognised(r, r->line);
            r->line_bad = 1;
            return;
        }
        if (perl && !fr.has_mod) {
            /* the Perl script only knows lines that end in "(module)" */
            perf_note_unrecognised(r, r->line);
            r->line_bad = 1;
            return;
        }
        perf_module_t mk = perf_module_class(fr.mod, fr.mod_len);
        line_entry_t tmp;
        tmp.first = (uint32_t)r->npool;
        make_frames(r, &fr, mk);
        tmp.count = (uint32_t)(r->npool - tmp.first);
        tmp.jit_module = perf_module_is_jit(mk);
        tmp.jit_like = perf_module_is_jit_like(mk);
        tmp.java = (uint8_t)r->java;
        tmp.addr = fr.addr;
        tmp.pc_len = (uint32_t)fr.pc_len;
        tmp.key_off = r->keys.len;
        tmp.key_len = (uint32_t)key_len;
        buf_append(&r->keys, key, key_len);
        XGROW(r->entries, r->entries_cap, r->nentries + 1);
        r->entries[r->nentries++] = tmp;
        r->slots[at] = (struct line_slot){h, (uint32_t)r->nentries};
        e = &r->entries[r->nentries - 1];
        if (r->nentries * 2 > r->slot_mask) grow_slots(r);
    }
    if (r->o->resolver && e->jit_like && !perl) {
        uint32_t f;
        if (jit_lookup(r, (uint32_t)(e - r->entries), e->addr, s, e->pc_len, &f)) {
            if (r->nleaf == r->leaf_cap) XGROW(r->leaf_first, r->leaf_cap, r->nleaf + 1);
            r->leaf_first[r->nleaf++] = f;
            return;
        }
    }
    /* Pool frames are root-most first; the sample is collected leaf first. */
    if (r->nleaf + e->count > r->leaf_cap) XGROW(r->leaf_first, r->leaf_cap, r->nleaf + e->count);
    for (uint32_t k = e->count; k-- > 0;) r->leaf_first[r->nleaf++] = r->frame_pool[e->first + k];
}
