#include "sourcemap/stage.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

static const char *const js_prefixes[] = {"JS:", "LazyCompile:", "Function:", "Eval:", "Script:"};

/* Length of a V8 code name's prefix and tier marker ("JS:*"), kept on the mapped name. */
static size_t prefix_len(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof js_prefixes / sizeof *js_prefixes; i++) {
        size_t k = strlen(js_prefixes[i]);
        if (n >= k && !memcmp(s, js_prefixes[i], k)) return k + (n > k && strchr("*+^~", s[k]) ? 1 : 0);
    }
    return 0;
}

typedef struct {
    uint32_t frame; /* in the new profile */
    int ignored;
    smap_t *map; /* NULL: not mapped */
    const char *source;
    int32_t line;     /* original definition line (1-based) */
    int32_t gen_line; /* generated definition line (1-based) */
} fmap_t;

/* The new frame of old frame f. */
static void map_frame(profile_t *dst, const profile_frame_t *f, smap_cache_t *c, int hide_ignored, fmap_t *out,
                      smap_stage_stats_t *st, buf_t *name)
{
    memset(out, 0, sizeof *out);
    const char *url = f->url;
    size_t url_len = strlen(f->url), name_len = strlen(f->name);
    int32_t line = f->line, col = f->column;
    if (!*url && !line) {
        /* perf's text names carry the position: "JS:*fib /app/fib.js:1:13" */
        if (!profile_v8_location(f->name, name_len, &name_len, &url, &url_len, &line, &col)) goto keep;
    }
    if (!url_len || line <= 0 || !(frame_kind_is_js(f->kind) || f->kind == FRAME_UNKNOWN)) goto keep;
    char *u = xstrndup(url, url_len);
    smap_frame_t m;
    int rc = smap_cache_map(c, u, line, col > 0 ? col : 1, &m);
    st->frames++;
    buf_clear(name);
    size_t k = prefix_len(f->name, name_len);
    buf_append(name, f->name, k);
    if (rc == 1) {
        st->mapped++;
        if (m.name && *m.name) buf_puts(name, m.name);
        else buf_append(name, f->name + k, name_len - k);
        out->frame = profile_frame(dst, name->data, name->len, m.url, m.line, m.column, f->kind);
        out->ignored = hide_ignored && m.ignored;
        st->ignored += (size_t)out->ignored;
        out->map = m.map, out->source = m.source, out->line = m.line, out->gen_line = line;
    } else if (rc == 0) {
        /* the script's map does not cover this position: say so, keep the generated one */
        static const char mark[] = " [unmapped]";
        const size_t mlen = sizeof mark - 1;
        st->unmapped++;
        if (name_len > k) buf_append(name, f->name + k, name_len - k);
        else buf_puts(name, "(anonymous)"); /* a script's top level: " [unmapped]" alone says nothing */
        /* once: a profile written mapped (record's) is mapped again when read */
        if (name->len < mlen || memcmp(name->data + name->len - mlen, mark, mlen)) buf_puts(name, mark);
        out->frame = profile_frame(dst, name->data, name->len, u, line, col, f->kind);
    } else {
        free(u);
        goto keep;
    }
    free(u);
    return;
keep:
    out->frame = profile_frame(dst, f->name, strlen(f->name), f->url, f->line, f->column, f->kind);
}

/* Whether some JS frame's script has a map (loading the maps): else p stays as it is. */
static int any_map(const profile_t *p, smap_cache_t *c)
{
    int found = 0;
    for (size_t i = 0; i < p->nframes; i++) {
        const profile_frame_t *f = &p->frames[i];
        const char *url = f->url;
        size_t url_len = strlen(url), name_len;
        int32_t line = f->line, col;
        if (!*url && !line && !profile_v8_location(f->name, strlen(f->name), &name_len, &url, &url_len, &line, &col))
            continue;
        if (!url_len) continue;
        char *u = xstrndup(url, url_len);
        found |= smap_cache_get(c, u) != NULL;
        free(u);
    }
    return found;
}

void smap_stage_apply(profile_t *p, smap_cache_t *c, int hide_ignored, smap_stage_stats_t *stats)
{
    smap_stage_stats_t st = {0};
    if (stats) *stats = st;
    if (!any_map(p, c)) return;
    profile_t *dst = profile_new();
    dst->weight_unit = strpool_cstr(dst->strings, p->weight_unit);
    dst->start_us = p->start_us, dst->end_us = p->end_us;
    fmap_t *fm = xcalloc(p->nframes + 1, sizeof *fm);
    buf_t name = {0};
    for (size_t i = 0; i < p->nframes; i++) map_frame(dst, &p->frames[i], c, hide_ignored, &fm[i], &st, &name);
    buf_free(&name);
    for (size_t t = 0; t < p->nthreads; t++) {
        const profile_thread_t *th = &p->threads[t];
        uint32_t d = profile_thread(dst, th->pid, th->tid, th->name, strlen(th->name));
        if (th->role_known) profile_thread_set_role(dst, d, th->role);
        else dst->threads[d].role = th->role;
        fm[th->frame].frame = dst->threads[d].frame;
        fm[th->frame].ignored = 0;
    }
    uint32_t *nmap = xmalloc(p->nnodes * sizeof *nmap);
    nmap[0] = 0;
    for (size_t i = 1; i < p->nnodes; i++) {
        const profile_node_t *n = &p->nodes[i];
        /* parents come before their children (nodes are created top-down) */
        const fmap_t *f = &fm[n->frame];
        nmap[i] = f->ignored && n->parent ? nmap[n->parent] : profile_child(dst, nmap[n->parent], f->frame);
        if (n->self != 0) profile_add_self(dst, nmap[i], n->self);
    }
    if (p->nodes[0].self != 0) profile_add_self(dst, 0, p->nodes[0].self);
    for (size_t i = 0; i < p->nsamples; i++)
        profile_add_sample(dst, p->samples[i].time_us, nmap[p->samples[i].node], p->samples[i].weight);
    for (size_t i = 0; i < p->nticks; i++) {
        const profile_line_tick_t *t = &p->ticks[i];
        const fmap_t *f = &fm[p->nodes[t->node].frame];
        int32_t line = t->line;
        if (f->map) {
            int32_t orig;
            /* Ticks have no column: a generated line maps to the first mapping on it into the
             * function's own source; the line of the definition (all of a minified bundle's
             * lines are that one) maps to the original definition line. */
            if (t->line == f->gen_line) line = f->line;
            else line = smap_line(f->map, t->line - 1, f->source, &orig) ? orig + 1 : f->line;
        }
        if (f->ignored) continue; /* the caller's lines are not the ignored frame's */
        profile_add_line_ticks(dst, nmap[t->node], line, t->ticks);
    }
    free(nmap);
    free(fm);
    profile_t tmp = *p;
    *p = *dst;
    *dst = tmp;
    profile_free(dst);
    if (stats) *stats = st;
}

int smap_stage_default(profile_t *p)
{
    smap_cache_t *c = smap_cache_new();
    smap_stage_apply(p, c, 0, NULL);
    smap_cache_free(c);
    return 0;
}
