/* nodescope map's computations over perf-PID.map files (symbols/perfmap.h) and perf script text
 * (the reader's grammar, formats/perf_grammar.h): the entries a later one does not overlap, the
 * map's counts by kind, and perf script text relabelled through a JIT resolver. Nothing here
 * prints: cli/map.c does. Output is streamed (a map or a script may be large). */
#include "formats/perfmap_tools.h"
#include "formats/perf_grammar.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

size_t perfmap_tidy_write(const perfmap_t *m, FILE *f)
{
    uint8_t *over = xmalloc(m->n + 1);
    perfmap_overlapped_by_later(m, over);
    size_t nkeep = 0;
    buf_t b = {0};
    /* the map's index is already sorted by start */
    for (size_t i = 0; i < m->n; i++) {
        if (over[m->by_start[i]]) continue;
        const perfmap_entry_t *e = &m->entries[m->by_start[i]];
        nkeep++;
        buf_put_hex(&b, e->start);
        buf_putc(&b, ' ');
        buf_put_hex(&b, e->size);
        buf_putc(&b, ' ');
        buf_append(&b, perfmap_name(m, e), e->name_len);
        buf_putc(&b, '\n');
        if (b.len > (1 << 20)) fwrite(b.data, 1, b.len, f), buf_clear(&b);
    }
    fwrite(b.data ? b.data : "", 1, b.len, f);
    buf_free(&b);
    free(over);
    return nkeep;
}

void perfmap_stats(const perfmap_t *m, perfmap_stats_t *st)
{
    memset(st, 0, sizeof *st);
    uint8_t *over = xmalloc(m->n + 1);
    perfmap_overlapped_by_later(m, over);
    for (size_t i = 0; i < m->n; i++) st->overlapped += over[i];
    free(over);
    /* reused ranges: entries whose exact (start, size) appeared before */
    u64map_t seen;
    u64map_init(&seen);
    unsigned long kinds[FRAME_KIND_COUNT] = {0};
    st->lo = UINT64_MAX;
    for (size_t i = 0; i < m->n; i++) {
        const perfmap_entry_t *e = &m->entries[i];
        int found;
        u64map_upsert(&seen, hash_u64(e->start) ^ e->size, &found);
        st->reused += found;
        const char *name = perfmap_name(m, e);
        kinds[profile_classify_name(name, e->name_len)]++;
        st->regexp += !strncmp(name, "RegExp:", 7);
        st->bytecode += !strncmp(name, "BytecodeHandler:", 16);
        st->builtin += !strncmp(name, "Builtin:", 8);
        st->eval += !strncmp(name, "Eval:", 5);
        if (e->start < st->lo) st->lo = e->start;
        if (e->start + e->size > st->hi) st->hi = e->start + e->size;
    }
    u64map_free(&seen);
    st->js_turbofan = kinds[FRAME_JS_TURBOFAN];
    st->js_maglev = kinds[FRAME_JS_MAGLEV];
    st->js_sparkplug = kinds[FRAME_JS_BASELINE];
    st->js_interpreted = kinds[FRAME_JS_INTERPRETED];
    st->js_other = kinds[FRAME_JS];
    st->other =
        kinds[FRAME_NATIVE] + kinds[FRAME_UNKNOWN] + kinds[FRAME_BUILTIN] - st->builtin - st->bytecode - st->regexp;
}

/* A perf script callchain line "\t  ADDR SYM+0xOFF (MODULE)" whose module a JIT symbol source may
 * rename (the reader's rule, perf_module_is_jit_like): its address and symbol. */
static int jit_frame_line(const char *s, size_t n, perf_frame_t *f)
{
    size_t i = 0;
    while (i < n && perf_is_space(s[i])) i++;
    if (i == 0 || i == n) return 0;
    return perf_parse_frame(s + i, n - i, f) && f->has_mod &&
           perf_module_is_jit_like(perf_module_class(f->mod, f->mod_len));
}

int perf_script_relabel(jit_resolver_t *r, input_t *in, FILE *out)
{
    uint64_t now = 0;
    char *line;
    size_t len;
    int rc;
    while ((rc = input_getline(in, &line, &len)) > 0) {
        perf_frame_t f;
        perf_event_t ev;
        const char *name;
        size_t nl;
        if (len && line[0] != ' ' && line[0] != '\t' && line[0] != '#')
            now = perf_parse_event(line, len, &ev) && ev.has_time ? ev.time_ns : 0;
        if (jit_frame_line(line, len, &f) && jit_resolver_lookup(r, 0, f.addr, now, &name, &nl)) {
            /* the symbol's text is replaced; the address, the blanks and " (MODULE)" pass through */
            size_t sym = (size_t)(f.sym - line), sym_end = sym + f.sym_len;
            jit_resolver_note(r, f.sym, f.sym_len, name);
            fwrite(line, 1, sym, out);
            fwrite(name, 1, nl, out);
            fwrite(line + sym_end, 1, len - sym_end, out);
            fputc('\n', out);
            continue;
        }
        fwrite(line, 1, len, out);
        fputc('\n', out);
    }
    return rc;
}
