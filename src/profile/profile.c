#include "profile/profile.h"
#include "util/xalloc.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[FRAME_KIND_COUNT] = {
    [FRAME_UNKNOWN] = "unknown",
    [FRAME_PROCESS] = "process",
    [FRAME_JS_TURBOFAN] = "turbofan",
    [FRAME_JS_MAGLEV] = "maglev",
    [FRAME_JS_BASELINE] = "baseline",
    [FRAME_JS_INTERPRETED] = "interpreted",
    [FRAME_JS] = "js",
    [FRAME_BUILTIN] = "builtin",
    [FRAME_NATIVE] = "native",
    [FRAME_KERNEL] = "kernel",
    [FRAME_GC] = "gc",
    [FRAME_IDLE] = "idle",
    [FRAME_PROGRAM] = "program",
    [FRAME_ROOT] = "root",
    [FRAME_THREAD] = "thread",
};

double profile_unit_seconds(const char *u)
{
    static const struct {
        const char *name;
        double s;
    } units[] = {
        {"ns", 1e-9}, {"nanoseconds", 1e-9},  {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"microseconds", 1e-6},
        {"ms", 1e-3}, {"milliseconds", 1e-3}, {"s", 1},     {"seconds", 1},
    };
    for (size_t i = 0; u && i < sizeof units / sizeof *units; i++)
        if (!strcmp(u, units[i].name)) return units[i].s;
    return 0;
}

const char *frame_kind_name(frame_kind_t k) { return k < FRAME_KIND_COUNT ? kind_names[k] : "unknown"; }

int frame_kind_is_js(frame_kind_t k)
{
    return k == FRAME_JS || k == FRAME_JS_TURBOFAN || k == FRAME_JS_MAGLEV || k == FRAME_JS_BASELINE ||
           k == FRAME_JS_INTERPRETED;
}

profile_t *profile_new(void)
{
    profile_t *p = xcalloc(1, sizeof *p);
    p->strings = strpool_new();
    u64map_init(&p->frame_index);
    u64map_init(&p->child_index);
    u64map_init(&p->tick_index);
    u64map_init(&p->thread_index);
    u64map_init(&p->thread_of_frame);
    p->weight_unit = strpool_cstr(p->strings, "samples");
    XGROW(p->nodes, p->nodes_cap, 1);
    memset(&p->nodes[0], 0, sizeof p->nodes[0]);
    p->nnodes = 1;
    return p;
}

void profile_free(profile_t *p)
{
    if (!p) return;
    strpool_free(p->strings);
    free(p->frames);
    free(p->frame_next);
    u64map_free(&p->frame_index);
    free(p->nodes);
    u64map_free(&p->child_index);
    free(p->samples);
    free(p->ticks);
    u64map_free(&p->tick_index);
    free(p->threads);
    u64map_free(&p->thread_index);
    u64map_free(&p->thread_of_frame);
    free(p);
}

static uint64_t frame_key(const char *name, const char *url, int32_t line, int32_t column, frame_kind_t kind)
{
    /* name and url are interned, so their addresses identify them. */
    uint64_t h = hash_u64((uint64_t)(uintptr_t)name);
    h = hash_u64(h ^ (uint64_t)(uintptr_t)url);
    h = hash_u64(h ^ ((uint64_t)(uint32_t)line << 32 | (uint32_t)column));
    return hash_u64(h ^ (uint64_t)kind);
}

uint32_t profile_frame(profile_t *p, const char *name, size_t name_len, const char *url, int32_t line, int32_t column,
                       frame_kind_t kind)
{
    const char *iname = strpool_intern(p->strings, name, name_len);
    const char *iurl = strpool_cstr(p->strings, url ? url : "");
    uint64_t key = frame_key(iname, iurl, line, column, kind);
    int found;
    uint32_t *head = u64map_upsert(&p->frame_index, key, &found);
    if (found) {
        for (uint32_t id = *head; id != UINT32_MAX; id = p->frame_next[id]) {
            const profile_frame_t *f = &p->frames[id];
            if (f->name == iname && f->url == iurl && f->line == line && f->column == column && f->kind == kind)
                return id;
        }
    }
    uint32_t id = (uint32_t)p->nframes;
    uint32_t prev = found ? *head : UINT32_MAX;
    *head = id;
    size_t cap = p->frames_cap;
    XGROW(p->frames, p->frames_cap, p->nframes + 1);
    if (p->frames_cap != cap) p->frame_next = xrealloc(p->frame_next, p->frames_cap * sizeof *p->frame_next);
    p->frames[id] = (profile_frame_t){iname, iurl, line, column, kind};
    p->frame_next[id] = prev;
    p->nframes++;
    return id;
}

uint32_t profile_frame_simple(profile_t *p, const char *name, frame_kind_t kind)
{
    return profile_frame(p, name, strlen(name), "", 0, 0, kind);
}

uint32_t profile_child(profile_t *p, uint32_t parent, uint32_t frame)
{
    assert(parent < p->nnodes && frame < p->nframes);
    int found;
    uint32_t *slot = u64map_upsert(&p->child_index, (uint64_t)parent << 32 | frame, &found);
    if (found) return *slot;
    uint32_t id = (uint32_t)p->nnodes;
    *slot = id;
    XGROW(p->nodes, p->nodes_cap, p->nnodes + 1);
    profile_node_t *n = &p->nodes[id];
    n->frame = frame;
    n->parent = parent;
    n->first_child = 0;
    n->self = 0;
    n->next_sibling = p->nodes[parent].first_child;
    p->nodes[parent].first_child = id;
    p->nnodes++;
    return id;
}

uint32_t profile_add_stack(profile_t *p, const uint32_t *frames, size_t n, double weight)
{
    uint32_t node = 0;
    for (size_t i = 0; i < n; i++) node = profile_child(p, node, frames[i]);
    profile_add_self(p, node, weight);
    return node;
}

void profile_add_self(profile_t *p, uint32_t node, double weight)
{
    p->nodes[node].self += weight;
    p->total += weight;
}

static int sample_time_cmp(const void *a, const void *b)
{
    double x = ((const profile_sample_t *)a)->time_us, y = ((const profile_sample_t *)b)->time_us;
    return x < y ? -1 : x > y;
}

void profile_sort_samples(profile_sample_t *s, size_t n)
{
    if (n > 1) qsort(s, n, sizeof *s, sample_time_cmp);
}

void profile_add_sample(profile_t *p, double time_us, uint32_t node, double weight)
{
    XGROW(p->samples, p->samples_cap, p->nsamples + 1);
    p->samples[p->nsamples++] = (profile_sample_t){time_us, node, weight};
}

void profile_add_line_ticks(profile_t *p, uint32_t node, int32_t line, double ticks)
{
    int found;
    uint32_t *slot = u64map_upsert(&p->tick_index, (uint64_t)node << 32 | (uint32_t)line, &found);
    if (!found) {
        *slot = (uint32_t)p->nticks;
        XGROW(p->ticks, p->ticks_cap, p->nticks + 1);
        p->ticks[p->nticks++] = (profile_line_tick_t){node, line, 0};
    }
    p->ticks[*slot].ticks += ticks;
}

void profile_totals(const profile_t *p, double *out)
{
    /* Children always have larger ids than their parents, so one backward pass suffices. */
    for (size_t i = 0; i < p->nnodes; i++) out[i] = p->nodes[i].self;
    for (size_t i = p->nnodes; i-- > 1;) out[p->nodes[i].parent] += out[i];
}

void profile_depths(const profile_t *p, uint32_t *out)
{
    out[0] = 0;
    for (size_t i = 1; i < p->nnodes; i++) out[i] = out[p->nodes[i].parent] + 1;
}

size_t profile_stack_of(const profile_t *p, uint32_t node, uint32_t *out, size_t max)
{
    size_t n = 0;
    for (uint32_t x = node; x != 0; x = p->nodes[x].parent) n++;
    if (n > max) n = max;
    size_t i = n;
    for (uint32_t x = node; x != 0 && i > 0; x = p->nodes[x].parent) out[--i] = p->nodes[x].frame;
    return n;
}

/* What follows rest (the end of a frame's name) in the frame's label (profile_frame_label):
 * rest, then " URL:LINE:COL" or " URL" when the frame has a url. */
static size_t label_rest(const char *rest, const profile_frame_t *f, char *out, size_t cap)
{
    int n;
    if (!f->url[0]) n = snprintf(out, cap, "%s", rest);
    else if (f->line > 0) n = snprintf(out, cap, "%s %s:%d:%d", rest, f->url, f->line, f->column > 0 ? f->column : 0);
    else n = snprintf(out, cap, "%s %s", rest, f->url);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Byte order of two frames' labels, as flame graph tools sort folded text: frames with their
 * position as fields sort as their text would ("f /a.js:12:1" before "f /a.js:9:1"). */
static int cmp_labels(const profile_frame_t *fa, const profile_frame_t *fb)
{
    const unsigned char *a = (const unsigned char *)fa->name, *b = (const unsigned char *)fb->name;
    while (*a && *a == *b) a++, b++;
    if (*a && *b) return *a < *b ? -1 : 1;
    if (!fa->url[0] && !fb->url[0]) return *a ? 1 : *b ? -1 : 0;
    /* one name is the other's start: compare the rest of both labels */
    char ta[1024], tb[1024];
    size_t la = label_rest((const char *)a, fa, ta, sizeof ta), lb = label_rest((const char *)b, fb, tb, sizeof tb);
    int c = memcmp(ta, tb, la < lb ? la : lb);
    if (c) return c < 0 ? -1 : 1;
    return la < lb ? -1 : la > lb;
}

static const profile_t *sort_profile;
static int cmp_by_name(const void *a, const void *b)
{
    const profile_frame_t *fa = &sort_profile->frames[sort_profile->nodes[*(const uint32_t *)a].frame];
    const profile_frame_t *fb = &sort_profile->frames[sort_profile->nodes[*(const uint32_t *)b].frame];
    int c = cmp_labels(fa, fb);
    if (c) return c;
    c = strcmp(fa->name, fb->name);
    if (c) return c;
    c = strcmp(fa->url, fb->url);
    if (c) return c;
    if (fa->line != fb->line) return fa->line < fb->line ? -1 : 1;
    if (fa->column != fb->column) return fa->column < fb->column ? -1 : 1;
    return (int)fa->kind - (int)fb->kind;
}

uint32_t *profile_sorted_children(const profile_t *p, uint32_t node, size_t *n)
{
    size_t count = 0;
    for (uint32_t c = p->nodes[node].first_child; c; c = p->nodes[c].next_sibling) count++;
    uint32_t *out = xmalloc((count ? count : 1) * sizeof *out);
    size_t i = 0;
    for (uint32_t c = p->nodes[node].first_child; c; c = p->nodes[c].next_sibling) out[i++] = c;
    sort_profile = p;
    qsort(out, count, sizeof *out, cmp_by_name);
    *n = count;
    return out;
}

void profile_frame_label(const profile_t *p, uint32_t frame, buf_t *b)
{
    const profile_frame_t *f = &p->frames[frame];
    buf_puts(b, f->name);
    if (f->url[0]) {
        buf_putc(b, ' ');
        buf_puts(b, f->url);
        if (f->line > 0) { /* ":LINE:COL" without printf: the folded writer labels every frame */
            buf_putc(b, ':');
            buf_put_u64(b, (unsigned long long)f->line);
            buf_putc(b, ':');
            buf_put_u64(b, (unsigned long long)(f->column > 0 ? f->column : 0));
        }
    }
}

profile_t *profile_reversed(const profile_t *p)
{
    profile_t *q = profile_new();
    uint32_t *fmap = xmalloc((p->nframes + 1) * sizeof *fmap);
    for (size_t i = 0; i < p->nframes; i++) {
        const profile_frame_t *f = &p->frames[i];
        fmap[i] = profile_frame(q, f->name, strlen(f->name), f->url, f->line, f->column, f->kind);
    }
    uint32_t *stack = NULL;
    size_t cap = 0;
    for (size_t i = 1; i < p->nnodes; i++) {
        if (p->nodes[i].self == 0) continue;
        size_t n = 0;
        for (uint32_t x = (uint32_t)i; x; x = p->nodes[x].parent) {
            XGROW(stack, cap, n + 1);
            stack[n++] = fmap[p->nodes[x].frame]; /* leaf first: the reversed stack */
        }
        profile_add_stack(q, stack, n, p->nodes[i].self);
    }
    free(stack);
    free(fmap);
    return q;
}
