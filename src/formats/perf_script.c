/* `perf script` text -> profile, compatible with stackcollapse-perf.pl.
 *
 * A sample is an event line ("comm PID/TID [CPU] TIME: PERIOD EVENT:") followed
 * by callchain lines ("\tADDR SYMBOL+0xOFF (MODULE)", leaf first) and a blank
 * line; or, for `perf script -F ...` without callchains, one event line carrying
 * a single frame. Weight = period, like the Perl script.
 *
 * Speed: each callchain line is looked up, untouched, in a frame cache keyed on
 * its raw text (symbol+offset and module, plus the address when --addrs or
 * --inline need it); only a miss pays for tidying and interning. Each finished
 * stack is then looked up in a stack cache (hash of its frame ids -> leaf node),
 * so the call tree is walked only for new stacks. Memory grows with unique
 * lines and stacks, plus 24 bytes of timeline per timestamped sample. Large
 * inputs are folded on several threads (perf_parallel.c).
 *
 * Deliberate differences from stackcollapse-perf.pl (see README "Fold stacks");
 * read_opts_t.perl_compat restores the Perl behaviour for the compatibility test. */
#include "formats/format.h"
#include "formats/perf_script.h"
#include "symbols/resolver.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/strview.h"
#include "util/xalloc.h"
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t resolver_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- small text helpers ---- */

/* The hot path hashes every callchain line: two independent multiply lanes over
 * 16 bytes per step are about three times faster than hash_bytes here. */
static inline uint64_t line_hash(const char *s, size_t n)
{
    const uint64_t k1 = 0xff51afd7ed558ccdULL, k2 = 0xc4ceb9fe1a85ec53ULL;
    const size_t total = n;
    uint64_t a = 0x9e3779b97f4a7c15ULL ^ n, b = 0x2545f4914f6cdd1dULL, x, y;
    while (n >= 16) {
        memcpy(&x, s, 8);
        memcpy(&y, s + 8, 8);
        a = (a ^ x) * k1;
        b = (b ^ y) * k2;
        a ^= a >> 29;
        b ^= b >> 31;
        s += 16;
        n -= 16;
    }
    if (n >= 8) {
        memcpy(&x, s, 8);
        a = (a ^ x) * k1;
        a ^= a >> 29;
        s += 8;
        n -= 8;
    }
    /* the last 0..7 bytes: an overlapping fixed-size load when possible (no memcpy call) */
    y = 0;
    if (n && total >= 8) {
        memcpy(&y, s + n - 8, 8);
        y >>= 8 * (8 - n);
    } else {
        for (size_t i = 0; i < n; i++) y |= (uint64_t)(unsigned char)s[i] << (8 * i);
    }
    b = (b ^ y) * k2;
    return hash_u64(a ^ (b >> 1) ^ (b << 63));
}

static int is_hex(char c) { return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_space(char c) { return c == ' ' || c == '\t'; }
/* Perl's \w for ASCII: what the Perl script accepts as an address */
static int is_word(char c) { return is_digit(c) || ((c | 32) >= 'a' && (c | 32) <= 'z') || c == '_'; }

static const char *basename_of(const char *s, size_t n, size_t *out_len)
{
    size_t i = n;
    while (i > 0 && s[i - 1] != '/') i--;
    *out_len = n - i;
    return s + i;
}

/* Module classes, from the text perf prints in parentheses. */
static int module_is_unknown(const char *m, size_t n) { return n == 9 && !memcmp(m, "[unknown]", 9); }
static int module_is_perf_map(const char *m, size_t n)
{
    /* /tmp/perf-PID.map (the Perl script's test) */
    const char *p = memmem(m, n, "/tmp/perf-", 10);
    if (!p) return 0;
    size_t i = (size_t)(p - m) + 10, d = i;
    while (i < n && is_digit(m[i])) i++;
    return i > d && i + 4 <= n && !memcmp(m + i, ".map", 4);
}
static int module_is_jitted_so(const char *m, size_t n)
{
    size_t bl;
    const char *b = basename_of(m, n, &bl);
    return sv_starts(b, bl, "jitted-") && sv_ends(b, bl, ".so");
}
/* The Perl script's _[k] rule: "[...]" or ".../vmlinux", never "[unknown]". */
static int module_annotated_kernel(const char *m, size_t n)
{
    return ((n > 0 && m[0] == '[') || sv_ends(m, n, "vmlinux")) && !memmem(m, n, "unknown", 7);
}
/* For frame kinds, also kernel modules (*.ko) and versioned vmlinux files, as inferno does. */
static int module_is_kernel(const char *m, size_t n)
{
    if (module_annotated_kernel(m, n) || sv_ends(m, n, ".ko")) return 1;
    size_t bl;
    const char *b = basename_of(m, n, &bl);
    return sv_starts(b, bl, "vmlinux-") && !memmem(m, n, "unknown", 7);
}

/* ---- tidying one symbol (the Perl script's tidy_generic, bracket aware) ---- */

/* V8 names carry JS source text (RegExp sources, file paths): never cut them at a '('. */
static int is_v8_name(const char *s, size_t n)
{
    static const char *const prefixes[] = {"JS:", "RegExp:", "LazyCompile:", "Function:", "Eval:", "Script:",
                                           "Builtin:", "BytecodeHandler:", "Stub:", "Handler:"};
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

/* The Perl regexes: unless it looks like a Go method ".(...).", delete from the first '('
 * that does not start "(anonymous namespace)". */
static size_t strip_params_perl(const char *s, size_t n)
{
    const char *go = memmem(s, n, ".(", 2);
    if (go) {
        const char *close = NULL;
        for (const char *q = s + n; q > go + 2; q--)
            if (q[-1] == '.' && q - 2 > go + 1 && q[-2] == ')') { close = q; break; }
        if (close) return n;
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] == '(' && !sv_starts(s + i, n - i, "(anonymous namespace)")) return i;
    return n;
}

/* Appends the tidied form of one "->" part of a symbol to b. */
static void tidy_symbol(perf_reader_t *r, const char *s, size_t n, const char *pc, size_t pc_len, const char *mod,
                        size_t mod_len, buf_t *b)
{
    if (n == 9 && !memcmp(s, "[unknown]", 9)) {
        /* perf could not name it: show the module, as the Perl script does */
        buf_putc(b, '[');
        if (!module_is_unknown(mod, mod_len) && mod_len > 0) {
            size_t bl;
            const char *base = basename_of(mod, mod_len, &bl);
            buf_append(b, base, bl);
        } else {
            buf_puts(b, "unknown");
        }
        if (r->o->with_addrs) {
            buf_puts(b, " <");
            buf_append(b, pc, pc_len);
            buf_putc(b, '>');
        }
        buf_putc(b, ']');
        return;
    }
    size_t keep = r->o->perl_compat ? strip_params_perl(s, n) : is_v8_name(s, n) ? n : strip_params(s, n);
    for (size_t i = 0; i < keep; i++) {
        char c = s[i];
        if (c == '"' || c == '\'') continue;   /* the Perl script deletes quotes (V8 RegExp names) */
        buf_putc(b, c == ';' ? ':' : c);
    }
}

/* ---- --inline: addr2line, cached per (pc, module) ---- */

/* Appends "a;b;c" (root-most first) for pc in mod, or nothing when addr2line does not know. */
static void addr2line_frames(perf_reader_t *r, const char *pc, size_t pc_len, const char *mod, size_t mod_len, buf_t *out)
{
    buf_t cmd = {0};
    buf_puts(&cmd, "addr2line -a 0x");
    buf_append(&cmd, pc, pc_len);
    buf_puts(&cmd, " -i -f -s -C -e '");
    for (size_t i = 0; i < mod_len; i++) {
        if (mod[i] == '\'') buf_puts(&cmd, "'\\''");
        else buf_putc(&cmd, mod[i]);
    }
    buf_puts(&cmd, "' 2>/dev/null");
    FILE *f = popen(cmd.data, "r");
    buf_free(&cmd);
    if (!f) return;
    /* Output: the address, then (function, file:line) pairs, innermost first. */
    char line[4096];
    char **items = NULL;
    size_t nitems = 0, cap = 0;
    int first = 1;
    while (fgets(line, sizeof line, f)) {
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
        if (first) { first = 0; continue; }
        char *disc = strstr(line, " (discriminator ");
        if (disc) *disc = 0;
        XGROW(items, cap, nitems + 1);
        items[nitems++] = xstrdup(line);
    }
    pclose(f);
    int ok = nitems >= 2 && strcmp(items[0], "??") != 0;
    for (size_t k = nitems / 2; ok && k-- > 0;) {
        if (out->len) buf_putc(out, ';');
        for (const char *c = items[2 * k]; *c; c++) buf_putc(out, *c == ';' ? ':' : *c);
        if (r->o->inline_context) {
            buf_putc(out, ':');
            buf_puts(out, items[2 * k + 1]);
        }
    }
    for (size_t i = 0; i < nitems; i++) free(items[i]);
    free(items);
}

/* ---- building frames for a distinct callchain line ---- */

static frame_kind_t kind_for(const char *name, size_t n, const char *mod, size_t mod_len)
{
    if (module_is_kernel(mod, mod_len)) return FRAME_KERNEL;
    frame_kind_t k = profile_classify_name(name, n);
    if (module_is_perf_map(mod, mod_len) || module_is_jitted_so(mod, mod_len)) return k;
    if (module_is_unknown(mod, mod_len)) return k == FRAME_NATIVE ? FRAME_UNKNOWN : k;
    /* A symbol from an ELF file (node, libc, ...) is native code unless it is a V8 builtin or GC. */
    return k == FRAME_JS ? FRAME_NATIVE : k;
}

static void pool_push(perf_reader_t *r, uint32_t f)
{
    XGROW(r->frame_pool, r->pool_cap, r->npool + 1);
    r->frame_pool[r->npool++] = f;
}

/* Tidies pc/symbol/module into frames appended to the pool (root-most first). */
static void make_frames(perf_reader_t *r, const char *pc, size_t pc_len, const char *sym, size_t sym_len, const char *mod,
                        size_t mod_len)
{
    const read_opts_t *o = r->o;
    int jit = module_is_perf_map(mod, mod_len) || (!o->perl_compat && module_is_jitted_so(mod, mod_len));
    if (o->inline_frames && mod_len && !jit && !module_is_kernel(mod, mod_len) && mod[0] != '[' &&
        !memmem(mod, mod_len, "perf-", 5)) {
        buf_t *a = &r->scratch2;
        buf_clear(a);
        addr2line_frames(r, pc, pc_len, mod, mod_len, a);
        if (a->len && strcmp(a->data, "??") && strcmp(a->data, "??:??:0")) {
            size_t start = 0;
            for (size_t i = 0; i <= a->len; i++) {
                if (i < a->len && a->data[i] != ';') continue;
                if (i > start)
                    pool_push(r, profile_frame(r->p, a->data + start, i - start, "", 0, 0, FRAME_NATIVE));
                start = i + 1;
            }
            return;
        }
    }
    /* strip a trailing "+0x1f" offset */
    size_t n = sym_len;
    {
        size_t i = n;
        while (i > 0 && is_hex(sym[i - 1])) i--;
        if (i >= 3 && i < n && sym[i - 1] == 'x' && sym[i - 2] == '0' && sym[i - 3] == '+') n = i - 3;
    }
    /* The Perl script skips every symbol starting with '(' (meant for "(process name)" pseudo frames);
     * that also drops C++ "(anonymous namespace)::f" frames, which are kept here. */
    if (n > 0 && sym[0] == '(' && (o->perl_compat || !sv_starts(sym, n, "(anonymous namespace)"))) return;
    size_t part = 0, nparts = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !(sym[i] == '-' && i + 1 < n && sym[i + 1] == '>')) continue;
        buf_t *b = &r->scratch;
        buf_clear(b);
        tidy_symbol(r, sym + part, i - part, pc, pc_len, mod, mod_len, b);
        if (nparts > 0) {
            if (!memmem(b->data, b->len, "_[i]", 4)) buf_puts(b, "_[i]");
        } else if (o->annotate_kernel && module_annotated_kernel(mod, mod_len)) {
            buf_puts(b, "_[k]");
        } else if (o->annotate_jit && jit) {
            if (!memmem(b->data, b->len, "_[j]", 4)) buf_puts(b, "_[j]");
        }
        frame_kind_t k = kind_for(b->data, b->len, mod, mod_len);
        pool_push(r, profile_frame(r->p, b->data, b->len, "", 0, 0, k));
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

/* Frames of one callchain line (text after the leading blanks), appended leaf-first to the sample. */
static void add_line(perf_reader_t *r, const char *s, size_t n)
{
    while (n > 0 && is_space(s[n - 1])) n--;
    const char *pc = s;
    size_t pc_len = 0;
    while (pc_len < n && is_word(s[pc_len])) pc_len++;
    size_t rest = pc_len;
    while (rest < n && is_space(s[rest])) rest++;
    if (pc_len == 0 || rest == n) {
        if (!r->unrecognised++) r->first_unrecognised = r->line;
        return;
    }
    /* The cache key: the whole line when the address matters, else symbol and module only. */
    int key_pc = r->o->with_addrs || r->o->inline_frames;
    const char *key = key_pc ? s : s + rest;
    size_t key_len = key_pc ? n : n - rest;
    uint64_t h = line_hash(key, key_len);
    size_t at = h & r->slot_mask;
    line_entry_t *e = NULL;
    while (r->slots[at].entry) {
        if (r->slots[at].hash == h) {
            line_entry_t *c = &r->entries[r->slots[at].entry - 1];
            if (c->key_len == key_len && !memcmp(r->keys.data + c->key_off, key, key_len)) {
                e = c;
                break;
            }
        }
        at = (at + 1) & r->slot_mask;
    }
    if (!e) {
        /* New line: split "SYMBOL (MODULE)" at the last " (". */
        const char *sym = s + rest, *mod = "";
        size_t sym_len = n - rest, mod_len = 0;
        if (sym_len >= 2 && sym[sym_len - 1] == ')') {
            for (size_t i = sym_len - 1; i-- > 0;) {
                if (sym[i] == '(' && i > 0 && sym[i - 1] == ' ') {
                    mod = sym + i + 1;
                    mod_len = sym_len - i - 2;
                    sym_len = i - 1;
                    break;
                }
            }
        }
        if (r->o->perl_compat && mod_len == 0 && *mod == 0) {
            /* the Perl script only knows lines that end in "(module)" */
            if (!r->unrecognised++) r->first_unrecognised = r->line;
            return;
        }
        line_entry_t tmp;
        tmp.first = (uint32_t)r->npool;
        make_frames(r, pc, pc_len, sym, sym_len, mod, mod_len);
        tmp.count = (uint32_t)(r->npool - tmp.first);
        tmp.jit_module = module_is_perf_map(mod, mod_len) || module_is_jitted_so(mod, mod_len);
        tmp.jit_like = module_is_perf_map(mod, mod_len) || module_is_jitted_so(mod, mod_len) ||
                       module_is_unknown(mod, mod_len);
        tmp.key_off = r->keys.len;
        tmp.key_len = (uint32_t)key_len;
        buf_append(&r->keys, key, key_len);
        XGROW(r->entries, r->entries_cap, r->nentries + 1);
        r->entries[r->nentries++] = tmp;
        r->slots[at] = (struct line_slot){h, (uint32_t)r->nentries};
        e = &r->entries[r->nentries - 1];
        if (r->nentries * 2 > r->slot_mask) grow_slots(r);
    }
    if (r->o->resolver && e->jit_like && !r->o->perl_compat) {
        uint64_t addr = 0;
        for (size_t k = 0; k < pc_len && is_hex(pc[k]); k++) addr = addr * 16 + (uint64_t)(is_digit(pc[k]) ? pc[k] - '0' : (pc[k] | 32) - 'a' + 10);
        const char *name;
        size_t len;
        /* the resolver loads maps lazily and counts: one caller at a time */
        if (r->parallel) pthread_mutex_lock(&resolver_mu);
        int found_name = jit_resolver_lookup(r->o->resolver, r->pid, addr, r->time_ns, &name, &len);
        if (r->parallel) pthread_mutex_unlock(&resolver_mu);
        if (found_name) {
            /* the map's name, tidied and annotated like perf's label would have been */
            buf_t *b = &r->scratch;
            buf_clear(b);
            tidy_symbol(r, name, len, pc, pc_len, "", 0, b);
            if (r->o->annotate_jit && e->jit_module) buf_puts(b, "_[j]");
            uint32_t f = profile_frame(r->p, b->data, b->len, "", 0, 0, profile_classify_name(b->data, b->len));
            /* count frames whose name differs from perf's own label (--stats) */
            if (e->count == 1 && r->frame_pool[e->first] != f) {
                const char *perf_name = r->p->frames[r->frame_pool[e->first]].name;
                if (r->parallel) pthread_mutex_lock(&resolver_mu);
                jit_resolver_note(r->o->resolver, perf_name, strlen(perf_name), r->p->frames[f].name);
                if (r->parallel) pthread_mutex_unlock(&resolver_mu);
            }
            XGROW(r->leaf_first, r->leaf_cap, r->nleaf + 1);
            r->leaf_first[r->nleaf++] = f;
            return;
        }
    }
    /* Pool frames are root-most first; the sample is collected leaf first. */
    XGROW(r->leaf_first, r->leaf_cap, r->nleaf + e->count);
    for (uint32_t k = e->count; k-- > 0;) r->leaf_first[r->nleaf++] = r->frame_pool[e->first + k];
}

/* ---- samples ---- */

static uint32_t leaf_for_stack(perf_reader_t *r, const uint32_t *frames, size_t n)
{
    uint64_t h = line_hash((const char *)frames, n * sizeof *frames);
    int found;
    uint32_t *slot = u64map_upsert(&r->stack_index, h, &found);
    if (found) {
        /* verify: walk up from the cached leaf */
        uint32_t node = *slot;
        size_t i = n;
        while (i > 0 && node && r->p->nodes[node].frame == frames[i - 1]) node = r->p->nodes[node].parent, i--;
        if (i == 0 && node == 0) return *slot;
        uint32_t leaf = 0;
        for (size_t k = 0; k < n; k++) leaf = profile_child(r->p, leaf, frames[k]);
        return leaf;   /* collision: not cached */
    }
    uint32_t leaf = 0;
    for (size_t k = 0; k < n; k++) leaf = profile_child(r->p, leaf, frames[k]);
    slot = u64map_upsert(&r->stack_index, h, &found);
    *slot = leaf;
    return leaf;
}

void perf_end_sample(perf_reader_t *r)
{
    if (!r->in_sample) return;
    r->in_sample = 0;
    size_t n = 0;
    int with_proc = !r->o->no_process_frame;
    XGROW(r->stack, r->stack_cap, r->nleaf + 1);
    if (with_proc) r->stack[n++] = r->proc_frame;
    for (size_t k = r->nleaf; k-- > 0;) r->stack[n++] = r->leaf_first[k];
    r->nleaf = 0;
    if (n == 0) return;
    if (r->has_time && r->o->has_time_range) {
        double rel_ms = (r->time_us - r->start_us) / 1000.0;
        if (rel_ms < r->o->from_ms || rel_ms > r->o->to_ms) return;
    }
    uint32_t leaf = leaf_for_stack(r, r->stack, n);
    profile_add_self(r->p, leaf, r->period);
    if (r->has_time && !r->o->no_timeline) {
        profile_t *p = r->p;
        if (p->nsamples == 0 || r->time_us < p->start_us) p->start_us = r->time_us;
        if (p->nsamples == 0 || r->time_us > p->end_us) p->end_us = r->time_us;
        profile_add_sample(p, r->time_us, leaf, r->period);
    }
    r->samples++;
}

/* "2146.055772:" -> seconds as µs and ns; 1 when it is a timestamp. */
static int parse_time(const char *t, size_t n, double *us, uint64_t *ns)
{
    if (n < 2 || t[n - 1] != ':') return 0;
    uint64_t sec = 0, frac = 0;
    size_t i = 0, fd = 0;
    while (i < n - 1 && is_digit(t[i])) sec = sec * 10 + (uint64_t)(t[i++] - '0');
    if (i == 0 || i >= n - 1 || t[i] != '.') return 0;
    i++;
    while (i < n - 1 && is_digit(t[i])) {
        if (fd < 9) frac = frac * 10 + (uint64_t)(t[i] - '0'), fd++;
        i++;
    }
    if (i != n - 1 || fd == 0) return 0;
    while (fd < 9) frac *= 10, fd++;
    *ns = sec * 1000000000ULL + frac;
    *us = (double)sec * 1e6 + (double)frac / 1e3;
    return 1;
}

/* Bounded decimal parse: block text has no terminator after its last line. */
static uint64_t parse_u64(const char *s, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && is_digit(s[i]); i++) v = v * 10 + (uint64_t)(s[i] - '0');
    return v;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_digit(s[i])) return 0;
    return 1;
}

/* "PID/TID" or "TID": 1 when the token is one. */
static int parse_pid_tid(const char *s, size_t n, const char **pid, size_t *pid_len, const char **tid,
                         size_t *tid_len)
{
    const char *slash = memchr(s, '/', n);
    if (!slash) {
        if (!all_digits(s, n)) return 0;
        *pid = NULL, *pid_len = 0, *tid = s, *tid_len = n;
        return 1;
    }
    size_t a = (size_t)(slash - s);
    if (!all_digits(s, a) || !all_digits(slash + 1, n - a - 1)) return 0;
    *pid = s, *pid_len = a, *tid = slash + 1, *tid_len = n - a - 1;
    return 1;
}

/* The Perl event regex "^(\S.+?)\s+(\d+)\/ *(\d+)*\s+" (without the blank): the comm needs two characters. Returns the
 * comm length and the pid/tid token bounds, or 0. */
static size_t perl_comm(const char *s, size_t n, size_t *tok, size_t *tok_end)
{
    if (n == 0 || is_space(s[0])) return 0;
    for (size_t c = 2; c < n; c++) {
        size_t i = c;
        if (!is_space(s[i])) continue;
        while (i < n && is_space(s[i])) i++;
        size_t t = i;
        while (i < n && is_digit(s[i])) i++;
        if (i == t) continue;
        while (i < n && s[i] == '/') i++;
        while (i < n && is_digit(s[i])) i++;
        if (i < n && is_space(s[i])) {
            *tok = t;
            *tok_end = i;
            return c;
        }
    }
    return 0;
}

static void set_process_frame(perf_reader_t *r, const char *comm, size_t comm_len, const char *pid, size_t pid_len,
                              const char *tid, size_t tid_len)
{
    buf_t *b = &r->scratch;
    buf_clear(b);
    for (size_t i = 0; i < comm_len; i++) buf_putc(b, comm[i] == ' ' ? '_' : comm[i] == ';' ? ':' : comm[i]);
    if (r->o->with_pid || r->o->with_tid) {
        buf_putc(b, '-');
        if (pid) buf_append(b, pid, pid_len);
        else buf_putc(b, '?');
        if (r->o->with_tid) {
            buf_putc(b, '/');
            buf_append(b, tid, tid_len);
        }
    }
    r->proc_frame = profile_frame(r->p, b->data, b->len, "", 0, 0, FRAME_PROCESS);
}

/* An event line. Returns 0, or 1 when it is not one. */
static int event_line(perf_reader_t *r, const char *s, size_t n)
{
    const read_opts_t *o = r->o;
    while (n > 0 && is_space(s[n - 1])) n--;
    size_t comm_len = 0, tok = 0, tok_end = 0;
    if (o->perl_compat) {
        comm_len = perl_comm(s, n, &tok, &tok_end);
        if (!comm_len) return 1;   /* (Perl keeps a blank the lazy match took: comm "t " -> "t_") */
    } else {
        /* The comm is everything before the first "PID", "PID/TID" word after the first word. */
        size_t i = 0;
        while (i < n && !is_space(s[i])) i++;
        for (;;) {
            while (i < n && is_space(s[i])) i++;
            if (i >= n) return 1;
            size_t t = i;
            while (i < n && !is_space(s[i])) i++;
            const char *a, *b;
            size_t al, bl;
            if (parse_pid_tid(s + t, i - t, &a, &al, &b, &bl)) {
                tok = t, tok_end = i;
                break;
            }
        }
        comm_len = tok;
        while (comm_len > 0 && is_space(s[comm_len - 1])) comm_len--;
    }
    const char *pid, *tid;
    size_t pid_len, tid_len;
    if (!parse_pid_tid(s + tok, tok_end - tok, &pid, &pid_len, &tid, &tid_len)) {
        /* Perl's PID//TID-ish forms: take the leading digits as the tid */
        pid = NULL, pid_len = 0, tid = s + tok, tid_len = 0;
        while (tok + tid_len < tok_end && is_digit(s[tok + tid_len])) tid_len++;
    }

    /* The rest, word by word: [CPU], TIME:, PERIOD, EVENT:, then maybe a frame. */
    double period = 1, time_us = 0;
    uint64_t time_ns = 0;
    int has_time = 0;
    const char *ev = NULL, *frame = NULL;
    size_t ev_len = 0;
    size_t i = tok_end;
    const char *last_num = NULL;
    size_t last_num_len = 0;
    while (i < n) {
        while (i < n && is_space(s[i])) i++;
        if (i >= n) break;
        size_t t = i;
        while (i < n && !is_space(s[i])) i++;
        const char *w = s + t;
        size_t wl = i - t;
        if (ev) {
            frame = w;
            break;
        }
        if (w[0] == '[' && w[wl - 1] == ']') continue;
        if (parse_time(w, wl, &time_us, &time_ns)) {
            has_time = 1;
            continue;
        }
        if (all_digits(w, wl)) {
            /* a period, unless the next word is not an event: then it is a frame address */
            size_t j = i;
            while (j < n && is_space(s[j])) j++;
            size_t k = j;
            while (k < n && !is_space(s[k])) k++;
            if (k > j && s[k - 1] == ':') {
                last_num = w, last_num_len = wl;
                continue;
            }
            frame = w;
            break;
        }
        if (w[wl - 1] == ':' && wl > 1) {
            ev = w;
            ev_len = wl - 1;
            continue;
        }
        frame = w;
        break;
    }
    if (o->perl_compat) {
        /* Perl matches ":\s*(\d+)*\s+(\S+):\s*$" on the whole line, and ignores any frame on it. */
        ev = NULL, last_num = NULL, frame = NULL;
        if (n > 1 && s[n - 1] == ':') {
            size_t e = n - 1, b = e;
            while (b > 0 && !is_space(s[b - 1])) b--;
            size_t j = b;
            while (j > 0 && is_space(s[j - 1])) j--;
            if (b > e || j == b) goto no_event;
            size_t d = j;
            while (d > 0 && is_digit(s[d - 1])) d--;
            size_t c = d;
            while (c > 0 && is_space(s[c - 1])) c--;
            if (c > 0 && s[c - 1] == ':') {
                if (d < j) last_num = s + d, last_num_len = j - d;
            } else if (j > 0 && s[j - 1] == ':') {
                d = j;   /* no period */
            } else {
                goto no_event;
            }
            ev = s + b, ev_len = e - b;
            /* the event name is \S+ up to the last ':' */
        }
    no_event:;
    }
    if (last_num) period = (double)parse_u64(last_num, last_num_len);
    if (period <= 0) period = 1;

    if (!o->perl_compat) perf_end_sample(r);
    r->skipping = 0;
    if (ev) {
        if (!r->event[0]) {
            const char *want = o->event_filter;
            if (want) snprintf(r->event, sizeof r->event, "%s", want);
            else {
                snprintf(r->event, sizeof r->event, "%.*s", (int)(ev_len < 127 ? ev_len : 127), ev);
                r->event_defaulted = 1;
            }
        }
        if (strlen(r->event) != ev_len || memcmp(r->event, ev, ev_len)) {
            if (r->event_defaulted && !r->skipped_line) {   /* reported once the input is read */
                r->skipped_line = r->line;
                snprintf(r->skipped_event, sizeof r->skipped_event, "%.*s", (int)(ev_len < 127 ? ev_len : 127), ev);
            }
            r->skipping = 1;
            r->in_sample = 0;
            if (!o->perl_compat) r->nleaf = 0;
            return 0;
        }
    }
    if (o->perl_compat && r->in_sample) {
        /* Perl keeps accumulating frames when no blank line separates samples */
    } else {
        r->nleaf = 0;
    }
    r->in_sample = 1;
    r->period = period;
    r->has_time = has_time;
    r->time_us = time_us;
    r->time_ns = time_ns;
    r->pid = (int)(pid ? parse_u64(pid, pid_len) : parse_u64(tid, tid_len));
    if (has_time && !r->have_start) r->have_start = 1, r->start_us = time_us;
    set_process_frame(r, s, comm_len, pid, pid_len, tid, tid_len);
    if (frame) add_line(r, frame, (size_t)(s + n - frame));
    return 0;
}

/* "HEX SYMBOL..." where SYMBOL is not a PID word: a callchain line rather than a padded event line. */
static int looks_like_frame(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && is_hex(s[i])) i++;
    if (i == 0 || i >= n || !is_space(s[i])) return 0;
    while (i < n && is_space(s[i])) i++;
    size_t t = i;
    while (i < n && !is_space(s[i])) i++;
    const char *a, *b;
    size_t al, bl;
    return !parse_pid_tid(s + t, i - t, &a, &al, &b, &bl);
}

void perf_reader_free(perf_reader_t *r)
{
    free(r->slots);
    u64map_free(&r->stack_index);
    free(r->entries);
    free(r->frame_pool);
    free(r->leaf_first);
    free(r->stack);
    buf_free(&r->keys);
    buf_free(&r->scratch);
    buf_free(&r->scratch2);
}

/* One line of perf script (without its '\n'); the loop body of both reading paths. */
void perf_line(perf_reader_t *r, char *line, size_t len)
{
    const read_opts_t *o = r->o;
    if (len > 0 && line[len - 1] == '\r') len--;
    if (len == 0) {
        if (r->in_sample || o->perl_compat) perf_end_sample(r);
        r->in_sample = 0;
        r->nleaf = 0;
        r->skipping = 0;
        return;
    }
    char c = line[0];
    if (c == '#') return;
    size_t i = 0;
    if (c == ' ' || c == '\t') {
        i = 1;
        while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
        if (i == len) {   /* a line of blanks ends a sample too */
            perf_end_sample(r);
            r->nleaf = 0;
            return;
        }
        /* Indented: a callchain line (perf indents those with a tab), or an event
         * line whose comm perf padded with blanks (-F). */
        if (c == '\t' || o->perl_compat || looks_like_frame(line + i, len - i)) {
            if (r->in_sample) add_line(r, line + i, len - i);
            else if (!r->skipping && !r->unrecognised++) r->first_unrecognised = r->line;
            return;
        }
    }
    if (event_line(r, line + i, len - i) == 0) {
        r->event_lines++;
    } else if (!r->unrecognised++) {
        r->first_unrecognised = r->line;
    }
}

void perf_reader_init(perf_reader_t *r, profile_t *p, const read_opts_t *o, input_t *in)
{
    memset(r, 0, sizeof *r);
    r->p = p, r->o = o, r->in = in;
    r->slot_mask = 1023;
    r->slots = xcalloc(r->slot_mask + 1, sizeof *r->slots);
    u64map_init(&r->stack_index);
}

/* Messages after reading; returns 0 or -1. */
int perf_report(input_t *in, const perf_reader_t *r, int rc)
{
    if (rc < 0) return -1;
    if (r->event_lines == 0) {
        diag_error(in->name, r->first_unrecognised ? r->first_unrecognised : 1,
                   "no perf script samples found (expected lines like 'comm PID TIME: PERIOD EVENT:')");
        return -1;
    }
    if (r->skipped_line)
        diag_warn(in->name, r->skipped_line,
                  "several event types; keeping only '%s' (the first seen), skipping '%s' and others; "
                  "choose with --event-filter",
                  r->event, r->skipped_event);
    if (r->unrecognised)
        diag_warn(in->name, r->first_unrecognised, "ignored %ld unrecognised line%s", r->unrecognised,
                  r->unrecognised == 1 ? "" : "s");
    diag_info("%s: %ld samples, %zu distinct callchain lines", in->name, r->samples, r->nentries);
    return 0;
}

static int perf_read_serial(input_t *in, profile_t *p, const read_opts_t *o)
{
    perf_reader_t r;
    perf_reader_init(&r, p, o, in);
    char *line;
    size_t len;
    int rc;
    while ((rc = input_getline(in, &line, &len)) > 0) {
        r.line = in->line;
        perf_line(&r, line, len);
    }
    if (rc == 0 && !o->perl_compat) perf_end_sample(&r);   /* the last sample needs no trailing blank line */
    input_progress_done(in);
    int result = perf_report(in, &r, rc);
    perf_reader_free(&r);
    return result;
}

static int perf_read(input_t *in, profile_t *p, const read_opts_t *o)
{
    /* Threads in all: the reading thread plus one folding worker per cpu (measured on 2 cores:
     * 2 workers 0.16 s, 1 worker 0.20 s, serial 0.20 s for 234 MB).
     * NODESCOPE_PERF_THREADS=N forces N threads in all (tests, benchmarks); 1 = serial. */
    const char *env = getenv("NODESCOPE_PERF_THREADS");
    long forced = env ? strtol(env, NULL, 10) : 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long threads = forced > 0 ? forced : (cpus > 8 ? 8 : cpus) + 1;
    int big = in->size < 0 || in->size >= (16 << 20);
    if (threads < 2 || cpus < 2 || (!forced && !big) || o->perl_compat || o->inline_frames)
        return perf_read_serial(in, p, o);
    return perf_read_parallel(in, p, o, (int)(threads - 1), forced ? 64 * 1024 : 128 * 1024);
}

/* ---- detection ---- */

/* An event line with a PID word and a "TIME:" or "EVENT:" word, and/or callchain lines
 * "\tHEX SYMBOL (MODULE)". */
static int perf_sniff(const char *head, size_t n)
{
    size_t pos = 0;
    int events = 0, frames = 0, other = 0;
    for (int lines = 0; pos < n && lines < 200; lines++) {
        const char *s = head + pos;
        const char *nl = memchr(s, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - s) : n - pos;
        pos += len + 1;
        if (!nl && pos < n) break;
        if (len == 0 || s[0] == '#') continue;
        size_t i = 0;
        while (i < len && is_space(s[i])) i++;
        if (i > 0 && looks_like_frame(s + i, len - i)) {
            frames++;
        } else {
            /* comm words, then a pid word, then a word ending in ':' */
            size_t start = i;
            int pid_seen = 0, colon_after_pid = 0, hex_after_pid = 0, words_after_pid = 0;
            while (i < len) {
                size_t t = i;
                while (i < len && !is_space(s[i])) i++;
                const char *a, *b;
                size_t al, bl;
                if (t > start && !pid_seen && parse_pid_tid(s + t, i - t, &a, &al, &b, &bl)) {
                    pid_seen = 1;
                } else if (pid_seen) {
                    if (i > t && s[i - 1] == ':') colon_after_pid = 1;
                    if (words_after_pid++ == 0) {
                        size_t k = t;
                        while (k < i && is_hex(s[k])) k++;
                        hex_after_pid = k == i && i > t;
                    }
                }
                while (i < len && is_space(s[i])) i++;
            }
            /* "comm PID TIME: PERIOD EVENT:", or "-F comm,pid,ip,sym" single-line samples "comm PID ADDR SYM" */
            if (pid_seen && (colon_after_pid || (hex_after_pid && words_after_pid >= 2))) events++;
            else other++;
        }
    }
    if (events == 0 || memchr(head, 0, n)) return 0;
    if (other > (events + frames) / 4 + 1) return 0;
    return frames ? 90 : 70;
}

const format_reader_t format_perf_reader = {
    .name = "perf",
    .description = "perf script output (stackcollapse-perf.pl compatible)",
    .sniff = perf_sniff,
    .read = perf_read,
};
