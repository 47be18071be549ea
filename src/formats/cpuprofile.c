/* Chrome DevTools .cpuprofile (node --cpu-prof, Deno, Chrome, the inspector's
 * Profiler.stop result), its legacy 'head' tree and trace events (Chrome's
 * Performance panel): read into the profile model (the writers: cpuprofile_write.c).
 *
 * Reading normalizes: a node is (parent, function name, url, line, column of the
 * definition), so nodes a producer split for the same function under the same
 * parent merge (profile_child keys on exactly that); per-line hits stay per node
 * as positionTicks. (root) is the tree's root; (program), (idle) and
 * (garbage collector) become frames of their own kinds. */
#include "formats/format.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/json.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double id;
    double parent_id; /* trace-event chunks name the parent instead of children; -1 = none */
    uint32_t frame;   /* profile frame; UINT32_MAX for (root) */
    double hit_count;
    uint32_t *children; /* ids, as given */
    size_t nchildren;
    uint32_t *tick_lines;
    double *tick_counts;
    size_t nticks;
} cp_node_t;

typedef struct {
    cp_node_t *nodes;
    size_t n, cap;
    double *samples, *deltas;
    size_t nsamples, samples_cap, ndeltas, deltas_cap;
    double *lines; /* trace events: 1-based line of each sample (0 = unknown), instead of positionTicks */
    size_t nlines, lines_cap;
    double start_time, end_time;
    int have_start, have_end;
    int saw_children; /* some node had a 'children' list */
    int legacy;       /* old 'head' tree format: times in seconds, 'timestamps' */
    double *stamps;   /* legacy: absolute µs per sample */
    size_t nstamps, stamps_cap;
    char event_id[40]; /* trace events: the profile id ("0x1"), "" = none */
    /* trace events: the event's process, thread and name (args.name for metadata events) */
    double pid, tid;
    int have_tid, depth;
    char ev_name[24], arg_name[128];
    struct cp_prof *profs; /* the profiles of a trace, by (pid, id); each becomes a thread */
    size_t nprofs;
    struct cp_tname {
        double pid, tid;
        char name[128];
    } * tnames; /* thread_name metadata */
    size_t ntnames;
    /* scratch reused from node to node (a big profile has hundreds of thousands) */
    buf_t name, url;
    double *ids;
    size_t ids_cap;
} cp_t;

struct cp_prof {
    char id[40];
    double pid, tid;
    int have_tid;
    unsigned long events;
    cp_t *cp;
};

static int sniff_cpuprofile(const char *head, size_t n)
{
    size_t i = 0;
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
    if (i >= n || (head[i] != '{' && head[i] != '[')) return 0;
    if (head[i] == '[') /* a bare array of trace events */
        return memmem(head, n, "\"ProfileChunk\"", 14) || memmem(head, n, "\"cpuProfile\"", 12) ? 85 : 0;
    if (memmem(head, n, "\"nodes\"", 7) && memmem(head, n, "\"callFrame\"", 11)) return 90;
    if (memmem(head, n, "\"profile\"", 9) && memmem(head, n, "\"nodes\"", 7)) return 80;
    if (memmem(head, n, "\"ProfileChunk\"", 14) || memmem(head, n, "\"cpuProfile\"", 12)) return 85;
    if (memmem(head, n, "\"head\"", 6) && memmem(head, n, "\"functionName\"", 14)) return 80; /* legacy */
    /* a JSON object with a profile's keys but not its shape: read it as one, so the error says
     * what is wrong with it ({"nodes":5}) instead of "unrecognised input" */
    if (memmem(head, n, "\"nodes\"", 7) || memmem(head, n, "\"timeDeltas\"", 12) ||
        memmem(head, n, "\"traceEvents\"", 13))
        return 40;
    return 0;
}

static frame_kind_t kind_of(const char *name, const char *url)
{
    if (!strcmp(name, "(garbage collector)")) return FRAME_GC;
    if (!strcmp(name, "(idle)")) return FRAME_IDLE;
    if (!strcmp(name, "(program)")) return FRAME_PROGRAM;
    if (!strcmp(name, "(root)")) return FRAME_ROOT;
    if (url[0]) return FRAME_JS;
    frame_kind_t k = profile_classify_name(name, strlen(name));
    return k == FRAME_NATIVE || k == FRAME_UNKNOWN ? FRAME_NATIVE : k;
}

/* Reads a number value (after its key); wrong types are an error. */
static int want_number(json_t *j, double *out, const char *what)
{
    json_token_t t = json_next(j);
    if (t == JSON_NUMBER) {
        *out = j->num;
        return 0;
    }
    if (t != JSON_ERROR) {
        char msg[128];
        snprintf(msg, sizeof msg, "'%s' should be a number", what);
        json_fail(j, msg);
    }
    return -1;
}

static int read_number_array(json_t *j, double **arr, size_t *n, size_t *cap, const char *what)
{
    json_token_t t = json_next(j);
    if (t == JSON_NULL) return 0;
    if (t != JSON_ARRAY_START) {
        char msg[128];
        snprintf(msg, sizeof msg, "'%s' should be an array of numbers", what);
        json_fail(j, msg);
        return -1;
    }
    if ((t = json_read_numbers(j, arr, n, cap)) != JSON_ARRAY_END) {
        if (t != JSON_ERROR) json_fail(j, "arrays of samples and deltas must hold only numbers");
        return -1;
    }
    return 0;
}

static int read_call_frame(json_t *j, profile_t *p, cp_t *cp, uint32_t *frame)
{
    json_token_t t = json_next(j);
    if (t != JSON_OBJECT_START) return json_fail(j, "'callFrame' should be an object"), -1;
    buf_t *name = &cp->name, *url = &cp->url;
    buf_clear(name);
    buf_clear(url);
    double line = -1, col = -1;
    int rc = 0;
    while (rc == 0 && (t = json_next(j)) == JSON_KEY) {
        if (!strcmp(j->str.data, "functionName") || !strcmp(j->str.data, "url")) {
            buf_t *dst = j->str.data[0] == 'f' ? name : url;
            if (json_next(j) != JSON_STRING) rc = (json_fail(j, "'functionName' and 'url' should be strings"), -1);
            else buf_clear(dst), buf_append(dst, j->str.data, j->str.len);
        } else if (!strcmp(j->str.data, "lineNumber")) {
            rc = want_number(j, &line, "lineNumber");
        } else if (!strcmp(j->str.data, "columnNumber")) {
            rc = want_number(j, &col, "columnNumber");
        } else {
            rc = json_skip(j, json_next(j));
        }
    }
    if (rc == 0 && t != JSON_OBJECT_END) rc = -1;
    if (rc == 0) {
        const char *nm = name->len ? name->data : "(anonymous)";
        const char *u = url->len ? url->data : "";
        /* 0-based in the file, 1-based in the model; -1 (unknown) becomes 0 */
        int32_t l = line >= 0 && line < 1e9 ? (int32_t)line + 1 : 0, c = col >= 0 && col < 1e9 ? (int32_t)col + 1 : 0;
        frame_kind_t k = kind_of(nm, u);
        *frame = k == FRAME_ROOT ? UINT32_MAX : profile_frame(p, nm, strlen(nm), u, l, c, k);
    }
    return rc;
}

static int read_node(json_t *j, profile_t *p, cp_t *cp, cp_node_t *node)
{
    memset(node, 0, sizeof *node);
    node->id = -1;
    node->parent_id = -1;
    node->frame = UINT32_MAX;
    int have_frame = 0, rc = 0;
    json_token_t t;
    size_t ccap = 0, tcap = 0, tcap2 = 0;
    while (rc == 0 && (t = json_next(j)) == JSON_KEY) {
        const char *k = j->str.data;
        if (!strcmp(k, "id")) rc = want_number(j, &node->id, "id");
        else if (!strcmp(k, "hitCount")) rc = want_number(j, &node->hit_count, "hitCount");
        else if (!strcmp(k, "parent")) rc = want_number(j, &node->parent_id, "parent");
        else if (!strcmp(k, "callFrame")) rc = read_call_frame(j, p, cp, &node->frame), have_frame = 1;
        else if (!strcmp(k, "children")) {
            size_t n = 0;
            rc = read_number_array(j, &cp->ids, &n, &cp->ids_cap, "children");
            if (n) XGROW(node->children, ccap, node->nchildren + n);
            for (size_t i = 0; i < n; i++)
                node->children[node->nchildren++] =
                    cp->ids[i] >= 0 && cp->ids[i] < 4e9 ? (uint32_t)cp->ids[i] : UINT32_MAX;
        } else if (!strcmp(k, "positionTicks")) {
            if ((t = json_next(j)) != JSON_ARRAY_START) rc = (json_fail(j, "'positionTicks' should be an array"), -1);
            while (rc == 0 && (t = json_next(j)) == JSON_OBJECT_START) {
                double line = 0, ticks = 0;
                while (rc == 0 && (t = json_next(j)) == JSON_KEY) {
                    if (!strcmp(j->str.data, "line")) rc = want_number(j, &line, "line");
                    else if (!strcmp(j->str.data, "ticks")) rc = want_number(j, &ticks, "ticks");
                    else rc = json_skip(j, json_next(j));
                }
                if (rc == 0 && line >= 1 && line < 1e9 && ticks > 0) {
                    XGROW(node->tick_lines, tcap, node->nticks + 1);
                    XGROW(node->tick_counts, tcap2, node->nticks + 1);
                    node->tick_lines[node->nticks] = (uint32_t)line;
                    node->tick_counts[node->nticks++] = ticks;
                }
            }
            if (rc == 0 && t != JSON_ARRAY_END) rc = -1;
        } else rc = json_skip(j, json_next(j));
    }
    if (rc == 0 && t != JSON_OBJECT_END) rc = -1;
    if (rc == 0 && (node->id < 0 || !have_frame)) rc = (json_fail(j, "a node without 'id' or 'callFrame'"), -1);
    return rc;
}

static void cp_free(cp_t *cp)
{
    for (size_t i = 0; i < cp->n; i++) {
        free(cp->nodes[i].children);
        free(cp->nodes[i].tick_lines);
        free(cp->nodes[i].tick_counts);
    }
    free(cp->nodes);
    free(cp->samples);
    free(cp->deltas);
    free(cp->lines);
    free(cp->stamps);
    buf_free(&cp->name);
    buf_free(&cp->url);
    free(cp->ids);
    for (size_t i = 0; i < cp->nprofs; i++) {
        cp_free(cp->profs[i].cp);
        free(cp->profs[i].cp);
    }
    free(cp->profs);
    free(cp->tnames);
}

static int read_profile_object(json_t *j, profile_t *p, cp_t *cp);

/* The legacy format (Chrome before 2016): {"head": node} where a node carries
 * functionName/url/lineNumber (1-based)/columnNumber itself and its children as
 * nested node objects. Returns the node's id, or -1 after an error. Nesting is
 * bounded by the JSON parser's depth limit. */
static double read_legacy_node(json_t *j, profile_t *p, cp_t *cp)
{
    XGROW(cp->nodes, cp->cap, cp->n + 1);
    size_t me = cp->n++;
    cp_node_t *nd = &cp->nodes[me];
    memset(nd, 0, sizeof *nd);
    nd->id = -1;
    nd->parent_id = -1;
    buf_t name = {0}, url = {0};
    double line = 0, col = 0, id = -1, hits = 0;
    size_t ccap = 0;
    json_token_t t;
    int rc = 0;
    while (rc == 0 && (t = json_next(j)) == JSON_KEY) {
        const char *k = j->str.data;
        if (!strcmp(k, "functionName") || !strcmp(k, "url")) {
            buf_t *dst = k[0] == 'f' ? &name : &url;
            if (json_next(j) != JSON_STRING) rc = (json_fail(j, "'functionName' and 'url' should be strings"), -1);
            else buf_append(dst, j->str.data, j->str.len);
        } else if (!strcmp(k, "lineNumber")) rc = want_number(j, &line, "lineNumber");
        else if (!strcmp(k, "columnNumber")) rc = want_number(j, &col, "columnNumber");
        else if (!strcmp(k, "id")) rc = want_number(j, &id, "id");
        else if (!strcmp(k, "hitCount")) rc = want_number(j, &hits, "hitCount");
        else if (!strcmp(k, "children")) {
            if ((t = json_next(j)) != JSON_ARRAY_START)
                rc = (json_fail(j, "'children' should be an array of nodes"), -1);
            while (rc == 0 && (t = json_next(j)) == JSON_OBJECT_START) {
                double cid = read_legacy_node(j, p, cp);
                if (cid < 0) rc = -1;
                else {
                    nd = &cp->nodes[me]; /* the array may have moved */
                    XGROW(nd->children, ccap, nd->nchildren + 1);
                    nd->children[nd->nchildren++] = cid < 4e9 ? (uint32_t)cid : UINT32_MAX;
                }
            }
            if (rc == 0 && t != JSON_ARRAY_END)
                rc = (t == JSON_ERROR ? -1 : (json_fail(j, "'children' should hold node objects"), -1));
        } else rc = json_skip(j, json_next(j));
    }
    if (rc == 0 && t != JSON_OBJECT_END) rc = -1;
    nd = &cp->nodes[me];
    if (rc == 0) {
        const char *nm = name.len ? name.data : "(anonymous)";
        const char *u = url.len ? url.data : "";
        frame_kind_t kd = kind_of(nm, u);
        int32_t l = line >= 1 && line < 1e9 ? (int32_t)line : 0, c = col >= 1 && col < 1e9 ? (int32_t)col : 0;
        nd->frame = kd == FRAME_ROOT ? UINT32_MAX : profile_frame(p, nm, strlen(nm), u, l, c, kd);
        nd->hit_count = hits;
        nd->id = id >= 0 ? id : 3e9 + (double)me; /* synthesized ids never clash with real ones */
        if (nd->nchildren) cp->saw_children = 1;
    }
    buf_free(&name);
    buf_free(&url);
    return rc == 0 ? nd->id : -1;
}

/* Appends one event's (or a chunk's) parts to the profile being built. */
static void append_event(cp_t *cp, cp_t *ev)
{
    for (size_t i = 0; i < ev->n; i++) {
        XGROW(cp->nodes, cp->cap, cp->n + 1);
        cp->nodes[cp->n++] = ev->nodes[i];
    }
    ev->n = 0;
    for (size_t i = 0; i < ev->nsamples; i++) {
        XGROW(cp->samples, cp->samples_cap, cp->nsamples + 1);
        cp->samples[cp->nsamples++] = ev->samples[i];
    }
    /* one line per sample of this chunk (V8 sometimes writes one fewer): pad with 0 = unknown */
    for (size_t i = 0; i < ev->nsamples; i++) {
        XGROW(cp->lines, cp->lines_cap, cp->nlines + 1);
        cp->lines[cp->nlines++] = i < ev->nlines ? ev->lines[i] : 0;
    }
    for (size_t i = 0; i < ev->ndeltas; i++) {
        XGROW(cp->deltas, cp->deltas_cap, cp->ndeltas + 1);
        cp->deltas[cp->ndeltas++] = ev->deltas[i];
    }
    if (ev->have_start && !cp->have_start) cp->start_time = ev->start_time, cp->have_start = 1;
    if (ev->have_end) cp->end_time = ev->end_time, cp->have_end = 1;
    cp->saw_children |= ev->saw_children;
    cp_free(ev);
}

/* A trace-event array (after its '['): every event's members are read as a profile object.
 * Profile and ProfileChunk events (args.data.startTime, args.data.cpuProfile {nodes, samples},
 * args.data.timeDeltas) accumulate per profile id and process; each profile is a thread's
 * (the events' pid and tid), named by the thread_name metadata events. */
static void take_event(cp_t *cp, cp_t *ev)
{
    if (!strcmp(ev->ev_name, "thread_name") && ev->arg_name[0] && ev->have_tid) {
        cp->tnames = xrealloc(cp->tnames, (cp->ntnames + 1) * sizeof *cp->tnames);
        struct cp_tname *tn = &cp->tnames[cp->ntnames++];
        tn->pid = ev->pid, tn->tid = ev->tid;
        memcpy(tn->name, ev->arg_name, sizeof tn->name);
    }
    if (ev->event_id[0] && (ev->n || ev->nsamples || ev->ndeltas || ev->have_start)) {
        struct cp_prof *pr = NULL;
        for (size_t i = 0; i < cp->nprofs && !pr; i++)
            if (!strcmp(cp->profs[i].id, ev->event_id) && cp->profs[i].pid == ev->pid) pr = &cp->profs[i];
        if (!pr) {
            cp->profs = xrealloc(cp->profs, (cp->nprofs + 1) * sizeof *cp->profs);
            pr = &cp->profs[cp->nprofs++];
            memset(pr, 0, sizeof *pr);
            memcpy(pr->id, ev->event_id, sizeof pr->id);
            pr->pid = ev->pid, pr->tid = ev->tid, pr->have_tid = ev->have_tid;
            pr->cp = xcalloc(1, sizeof *pr->cp);
            memcpy(pr->cp->event_id, ev->event_id, sizeof pr->cp->event_id);
        }
        pr->events++;
        append_event(pr->cp, ev);
        return;
    }
    append_event(cp, ev);
}

static int read_trace_events(json_t *j, profile_t *p, cp_t *cp)
{
    json_token_t t;
    while ((t = json_next(j)) == JSON_OBJECT_START) {
        cp_t ev = {0};
        int rc = read_profile_object(j, p, &ev);
        take_event(cp, &ev);
        if (rc != 0) return -1;
    }
    if (t != JSON_ARRAY_END) return t == JSON_ERROR ? -1 : (json_fail(j, "trace events should be objects"), -1);
    return 0;
}

/* Parses the members of a profile object (after its '{'). Recurses into {"profile": {...}}
 * (inspector Profiler.stop result) and into trace events ({"traceEvents": [...]}, args,
 * data, cpuProfile). */
static int read_profile_object(json_t *j, profile_t *p, cp_t *cp)
{
    json_token_t t;
    int rc = 0;
    while (rc == 0 && (t = json_next(j)) == JSON_KEY) {
        const char *k = j->str.data;
        if (!strcmp(k, "nodes")) {
            if ((t = json_next(j)) != JSON_ARRAY_START) return json_fail(j, "'nodes' should be an array"), -1;
            while ((t = json_next(j)) == JSON_OBJECT_START) {
                XGROW(cp->nodes, cp->cap, cp->n + 1);
                if (read_node(j, p, cp, &cp->nodes[cp->n]) != 0) {
                    cp->n++;
                    return -1;
                }
                if (cp->nodes[cp->n].nchildren) cp->saw_children = 1;
                cp->n++;
            }
            if (t != JSON_ARRAY_END) return t == JSON_ERROR ? -1 : (json_fail(j, "'nodes' should hold objects"), -1);
        } else if (!strcmp(k, "samples"))
            rc = read_number_array(j, &cp->samples, &cp->nsamples, &cp->samples_cap, "samples");
        else if (!strcmp(k, "lines")) rc = read_number_array(j, &cp->lines, &cp->nlines, &cp->lines_cap, "lines");
        else if (!strcmp(k, "timeDeltas"))
            rc = read_number_array(j, &cp->deltas, &cp->ndeltas, &cp->deltas_cap, "timeDeltas");
        else if (!strcmp(k, "startTime")) {
            double v = 0;
            rc = want_number(j, &v, "startTime");
            if (!cp->have_start)
                cp->start_time = v, cp->have_start = 1; /* first wins: later trace events may carry others */
        } else if (!strcmp(k, "endTime")) rc = want_number(j, &cp->end_time, "endTime"), cp->have_end = 1;
        else if (!strcmp(k, "head")) {
            if ((t = json_next(j)) != JSON_OBJECT_START) rc = (json_fail(j, "'head' should be a node object"), -1);
            else rc = read_legacy_node(j, p, cp) < 0 ? -1 : 0, cp->legacy = 1;
        } else if (!strcmp(k, "timestamps"))
            rc = read_number_array(j, &cp->stamps, &cp->nstamps, &cp->stamps_cap, "timestamps");
        else if (!strcmp(k, "id")) { /* a trace event's profile id */ t = json_next(j);
            if (t == JSON_STRING) snprintf(cp->event_id, sizeof cp->event_id, "%s", j->str.data);
            else if (t == JSON_NUMBER) snprintf(cp->event_id, sizeof cp->event_id, "%.0f", j->num);
            else rc = json_skip(j, t);
        } else if (!strcmp(k, "traceEvents")) {
            if ((t = json_next(j)) != JSON_ARRAY_START) rc = json_skip(j, t);
            else rc = read_trace_events(j, p, cp);
        } else if (!strcmp(k, "profile") || !strcmp(k, "args") || !strcmp(k, "data") || !strcmp(k, "cpuProfile")) {
            if ((t = json_next(j)) != JSON_OBJECT_START) rc = json_skip(j, t);
            else cp->depth++, rc = read_profile_object(j, p, cp), cp->depth--;
        } else if (cp->depth == 0 && (!strcmp(k, "pid") || !strcmp(k, "tid"))) { /* a trace event's thread */
            int is_pid = k[0] == 'p';
            t = json_next(j);
            if (t != JSON_NUMBER) rc = json_skip(j, t);
            else if (is_pid) cp->pid = j->num;
            else cp->tid = j->num, cp->have_tid = 1;
        } else if (cp->depth <= 1 && !strcmp(k, "name")) { /* an event's name, or a metadata event's args.name */
            int depth = cp->depth;
            t = json_next(j);
            if (t != JSON_STRING) rc = json_skip(j, t);
            else if (depth == 0) snprintf(cp->ev_name, sizeof cp->ev_name, "%s", j->str.data);
            else snprintf(cp->arg_name, sizeof cp->arg_name, "%s", j->str.data);
        } else rc = json_skip(j, json_next(j));
    }
    if (rc == 0 && t != JSON_OBJECT_END) rc = -1;
    return rc;
}

/* Bun before its fix (seed 002, oven-sh/bun#29241) keyed nodes on the sampled
 * position: one node per executed line, callFrame line/column = that line, and no
 * positionTicks anywhere. V8-based producers always give positionTicks to nodes
 * with hits, so a profile with hits and no positionTicks at all is taken to be
 * such a producer. Repair: every node of a function (same name and url) gets the
 * function's earliest seen line/column as its definition site (the real one is not
 * in the file), and its own hits become positionTicks on the line it carried;
 * nodes then merge as usual. */
/* A node id as a map key. Ids are non-negative integers; a corrupt file's negative, huge or NaN
 * number (converting it would be undefined) gets a key no real id has. */
static uint64_t id_key(double id) { return id >= 0 && id < 1.8e19 ? (uint64_t)id : UINT64_MAX; }

static void repair_sampled_positions(input_t *in, profile_t *p, cp_t *cp, const u64map_t *index)
{
    double hits = 0;
    for (size_t i = 0; i < cp->n; i++) {
        if (cp->nodes[i].nticks) return;
        hits += cp->nodes[i].hit_count;
    }
    if (!(hits > 0) && !cp->nsamples) return;
    if (cp->event_id[0] || cp->legacy) return; /* trace-event chunks and the legacy format never carry positionTicks */
    /* own hits per node: from samples when there are any, else hitCount */
    double *own = xcalloc(cp->n, sizeof *own);
    for (size_t s = 0; s < cp->nsamples; s++) {
        uint32_t k;
        if (u64map_get(index, id_key(cp->samples[s]), &k)) own[k]++;
    }
    if (!cp->nsamples)
        for (size_t i = 0; i < cp->n; i++) own[i] = cp->nodes[i].hit_count;
    /* earliest position per function; names and urls are interned, so pointers identify them */
    u64map_t first;
    u64map_init(&first);
    size_t split = 0;
    for (size_t i = 0; i < cp->n; i++) {
        uint32_t f = cp->nodes[i].frame;
        if (f == UINT32_MAX || !p->frames[f].url[0]) continue;
        uint64_t key = (uint64_t)(uintptr_t)p->frames[f].name * 31 + (uint64_t)(uintptr_t)p->frames[f].url;
        int found;
        uint32_t *slot = u64map_upsert(&first, key, &found);
        const profile_frame_t *a = &p->frames[f];
        if (!found) *slot = f;
        else if (*slot != f) {
            const profile_frame_t *b = &p->frames[*slot];
            split++;
            if (a->line < b->line || (a->line == b->line && a->column < b->column)) *slot = f;
        }
    }
    if (split) {
        size_t moved = 0;
        for (size_t i = 0; i < cp->n; i++) {
            cp_node_t *nd = &cp->nodes[i];
            uint32_t f = nd->frame;
            if (f == UINT32_MAX || !p->frames[f].url[0]) continue;
            uint64_t key = (uint64_t)(uintptr_t)p->frames[f].name * 31 + (uint64_t)(uintptr_t)p->frames[f].url;
            uint32_t def;
            u64map_get(&first, key, &def);
            if (own[i] > 0 && p->frames[f].line > 0) {
                nd->tick_lines = xmalloc(sizeof *nd->tick_lines);
                nd->tick_counts = xmalloc(sizeof *nd->tick_counts);
                nd->tick_lines[0] = (uint32_t)p->frames[f].line;
                nd->tick_counts[0] = own[i];
                nd->nticks = 1;
            }
            if (def != f) nd->frame = def, moved++;
        }
        diag_info("%s: repaired a profile keyed on sampled positions (Bun before oven-sh/bun#29241): "
                  "%zu nodes moved to their function's earliest line, own hits kept as positionTicks",
                  in->name, moved);
    }
    u64map_free(&first);
    free(own);
}

/* Builds one profile's tree under node top (0, or its thread's node) and adds its samples. */
static int build_profile(input_t *in, profile_t *p, const read_opts_t *o, cp_t *cp, uint32_t top, int first)
{
    if (!cp->n) {
        diag_error(in->name, 0, "no 'nodes'");
        return -1;
    }
    if (cp->legacy) { /* seconds, and absolute sample timestamps in µs instead of deltas */
        cp->start_time *= 1e6, cp->end_time *= 1e6;
        if (!cp->ndeltas && cp->nstamps == cp->nsamples)
            for (size_t s = 0; s < cp->nstamps; s++) {
                XGROW(cp->deltas, cp->deltas_cap, cp->ndeltas + 1);
                cp->deltas[cp->ndeltas++] = cp->stamps[s] - (s ? cp->stamps[s - 1] : cp->start_time);
            }
    }

    /* id -> index; parents from children lists */
    u64map_t index;
    u64map_init(&index);
    u64map_reserve(&index, cp->n);
    for (size_t i = 0; i < cp->n; i++) {
        int found;
        uint32_t *slot = u64map_upsert(&index, id_key(cp->nodes[i].id), &found);
        if (found) {
            diag_error(in->name, 0, "node id %.0f appears twice", cp->nodes[i].id);
            u64map_free(&index);
            return -1;
        }
        *slot = (uint32_t)i;
    }
    /* trace-event chunks: children lists from the nodes' parent ids */
    if (!cp->saw_children)
        for (size_t i = 0; i < cp->n; i++) {
            uint32_t k;
            if (cp->nodes[i].parent_id < 0) continue;
            if (!u64map_get(&index, id_key(cp->nodes[i].parent_id), &k)) continue; /* a root */
            cp_node_t *up = &cp->nodes[k];
            up->children = xrealloc(up->children, (up->nchildren + 1) * sizeof *up->children);
            up->children[up->nchildren++] = (uint32_t)cp->nodes[i].id;
        }
    repair_sampled_positions(in, p, cp, &index);
    uint32_t *parent = xmalloc(cp->n * sizeof *parent);
    for (size_t i = 0; i < cp->n; i++) parent[i] = UINT32_MAX;
    unsigned long dangling = 0, multi = 0;
    for (size_t i = 0; i < cp->n; i++)
        for (size_t c = 0; c < cp->nodes[i].nchildren; c++) {
            uint32_t k;
            if (!u64map_get(&index, cp->nodes[i].children[c], &k)) dangling++;
            else if (parent[k] != UINT32_MAX || k == i) multi++;
            else parent[k] = (uint32_t)i;
        }
    if (dangling) diag_warn(in->name, 0, "%lu children refer to missing nodes; ignored", dangling);
    if (multi)
        diag_warn(in->name, 0, "%lu nodes listed under several parents (or themselves); kept under the first", multi);

    /* Profile nodes in parent-first order (iterative DFS from every root), so a cycle
     * (which has no root) is never entered. */
    uint32_t *pnode = xmalloc(cp->n * sizeof *pnode), *stack = xmalloc(cp->n * sizeof *stack);
    uint8_t *seen = xcalloc(cp->n, 1);
    size_t reached = 0;
    for (size_t r = 0; r < cp->n; r++) {
        if (parent[r] != UINT32_MAX) continue;
        size_t sn = 0;
        stack[sn++] = (uint32_t)r;
        seen[r] = 1;
        while (sn) {
            uint32_t i = stack[--sn];
            reached++;
            uint32_t up = parent[i] == UINT32_MAX ? top : pnode[parent[i]];
            pnode[i] = cp->nodes[i].frame == UINT32_MAX ? up : profile_child(p, up, cp->nodes[i].frame);
            for (size_t c = 0; c < cp->nodes[i].nchildren; c++) {
                uint32_t k;
                if (u64map_get(&index, cp->nodes[i].children[c], &k) && parent[k] == i && !seen[k]) {
                    seen[k] = 1;
                    stack[sn++] = k;
                }
            }
        }
    }
    if (reached < cp->n)
        diag_warn(in->name, 0, "%zu nodes form a cycle in 'children' and are unreachable; ignored", cp->n - reached);

    /* weights: samples (with the timeline) when present, else hitCount */
    double range_lo = -INFINITY, range_hi = INFINITY;
    if (o->has_time_range) range_lo = cp->start_time + o->from_ms * 1000, range_hi = cp->start_time + o->to_ms * 1000;
    if (cp->nsamples) {
        double t_us = cp->start_time, raw_us = cp->start_time;
        unsigned long missing = 0, negative = 0;
        for (size_t s = 0; s < cp->nsamples; s++) {
            double d = s < cp->ndeltas ? cp->deltas[s] : 0;
            /* V8 sometimes writes a negative delta (a sample stamped before the one ahead of
             * it). Time never runs backwards here: the sample stays at the time before it, and
             * the deficit is taken from the deltas after it rather than lost, so the samples
             * keep their sum and end where V8's do. */
            raw_us += d;
            if (d < 0) negative++;
            if (raw_us > t_us) t_us = raw_us;
            uint32_t k;
            if (!u64map_get(&index, id_key(cp->samples[s]), &k) || !seen[k]) {
                missing++;
                continue;
            }
            if (t_us < range_lo || t_us > range_hi) continue;
            profile_add_self(p, pnode[k], 1);
            if (!o->no_timeline) profile_add_sample(p, t_us, pnode[k], 1);
            if (cp->nlines == cp->nsamples && cp->lines[s] >= 1 && cp->lines[s] < 1e9 && pnode[k] != top)
                profile_add_line_ticks(p, pnode[k], (int32_t)cp->lines[s], 1);
        }
        if (missing) diag_warn(in->name, 0, "%lu samples refer to missing nodes; dropped", missing);
        if (negative)
            diag_warn(in->name, 0, "%lu negative timeDeltas: those samples are kept at the time of the one before",
                      negative);
        if (cp->ndeltas && cp->ndeltas != cp->nsamples)
            diag_warn(in->name, 0, "%zu samples but %zu timeDeltas", cp->nsamples, cp->ndeltas);
        double end = cp->have_end ? cp->end_time : t_us;
        if (first || cp->start_time < p->start_us) p->start_us = cp->start_time;
        if (first || end > p->end_us) p->end_us = end;
    } else {
        for (size_t i = 0; i < cp->n; i++)
            if (seen[i] && cp->nodes[i].hit_count > 0) profile_add_self(p, pnode[i], cp->nodes[i].hit_count);
    }
    for (size_t i = 0; i < cp->n; i++)
        if (seen[i] && pnode[i] != top)
            for (size_t t2 = 0; t2 < cp->nodes[i].nticks; t2++)
                profile_add_line_ticks(p, pnode[i], (int32_t)cp->nodes[i].tick_lines[t2], cp->nodes[i].tick_counts[t2]);
    diag_info("%s: %zu nodes read, %zu after merging nodes of the same function under the same parent, %zu samples",
              in->name, cp->n, p->nnodes - 1, cp->nsamples);
    free(pnode);
    free(stack);
    free(seen);
    free(parent);
    u64map_free(&index);
    return 0;
}

/* The name of a trace's thread, from its thread_name metadata event */
static const char *trace_thread_name(const cp_t *cp, double pid, double tid)
{
    for (size_t i = 0; i < cp->ntnames; i++)
        if (cp->tnames[i].pid == pid && cp->tnames[i].tid == tid) return cp->tnames[i].name;
    return "";
}

static int read_body(input_t *in, profile_t *p, const read_opts_t *o)
{
    json_t j;
    json_init(&j, in);
    cp_t cp = {0};
    int rc = -1;
    json_token_t t = json_next(&j);
    if (t == JSON_ARRAY_START) {
        if (read_trace_events(&j, p, &cp) != 0) goto out;
    } else if (t != JSON_OBJECT_START) {
        if (t != JSON_ERROR) json_fail(&j, "a .cpuprofile is a JSON object");
        goto out;
    } else if (read_profile_object(&j, p, &cp) != 0) goto out;
    if (json_next(&j) != JSON_EOF) goto out;
    if (!cp.nprofs) {
        rc = build_profile(in, p, o, &cp, 0, 1);
        goto out;
    }
    /* Trace events: one profile per thread. A second profile of the same thread (V8 runs one for
     * tracing and one for --cpu-prof) is skipped; one thread in all reads as before threads. */
    size_t *kept = xmalloc(cp.nprofs * sizeof *kept), nkept = 0;
    unsigned long skipped = 0;
    for (size_t i = 0; i < cp.nprofs; i++) {
        int dup = 0;
        for (size_t k = 0; k < nkept && !dup; k++)
            dup = cp.profs[kept[k]].pid == cp.profs[i].pid && cp.profs[kept[k]].tid == cp.profs[i].tid;
        if (dup) skipped += cp.profs[i].events;
        else kept[nkept++] = i;
    }
    if (skipped)
        diag_warn(
            in->name, 0,
            "the trace holds several CPU profiles of one thread; read the first (id %s), skipped %lu events of others",
            cp.profs[kept[0]].id, skipped);
    rc = 0;
    for (size_t k = 0; k < nkept && rc == 0; k++) {
        struct cp_prof *pr = &cp.profs[kept[k]];
        uint32_t top = 0;
        if (nkept > 1) {
            const char *name = trace_thread_name(&cp, pr->pid, pr->tid);
            int32_t pid = pr->pid > 0 && pr->pid < 2e9 ? (int32_t)pr->pid : 0;
            int32_t tid = pr->tid > 0 && pr->tid < 2e9 ? (int32_t)pr->tid : (int32_t)k + 1;
            uint32_t th = profile_thread(p, pid, tid, name, strlen(name));
            top = profile_child(p, 0, p->threads[th].frame);
        }
        rc = build_profile(in, p, o, pr->cp, top, k == 0);
    }
    if (nkept > 1) profile_sort_samples(p->samples, p->nsamples);
    free(kept);
out:
    cp_free(&cp);
    json_free(&j);
    return rc;
}

static int cpuprofile_read(input_t *in, profile_t *p, const read_opts_t *o)
{
    /* every error about the content says which format it was read as (it may have been detected) */
    diag_set_error_context("not a valid cpuprofile");
    int rc = read_body(in, p, o);
    diag_set_error_context(NULL);
    return rc;
}

const format_reader_t format_cpuprofile_reader = {
    .name = "cpuprofile",
    .description = "Chrome DevTools .cpuprofile (node --cpu-prof, Deno, Chrome, inspector Profiler.stop)",
    .sniff = sniff_cpuprofile,
    .read = cpuprofile_read,
};
