/* Threads in the profile model: the thread table, roles, labels, and the views writers
 * draw from. See "Threads" in profile.h for the design. */
#include "profile/profile.h"
#include "util/diag.h"
#include "util/strview.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const role_names[THREAD_ROLE_COUNT] = {
    [THREAD_OTHER] = "other", [THREAD_MAIN] = "main",   [THREAD_WORKER] = "worker",
    [THREAD_V8] = "v8",       [THREAD_LIBUV] = "libuv",
};

const char *thread_role_name(thread_role_t r) { return r < THREAD_ROLE_COUNT ? role_names[r] : "other"; }

thread_role_t profile_role_from_name(const char *s, size_t n, int *known)
{
    *known = 1;
    /* the labels nodescope writes ("node [Worker 2]"), read back from trace events */
    if (n && s[n - 1] == ']') {
        if (sv_ends(s, n, "[main]")) return THREAD_MAIN;
        if (sv_ends(s, n, "[V8 worker]")) return THREAD_V8;
        if (sv_ends(s, n, "[libuv]")) return THREAD_LIBUV;
        if (sv_ends(s, n, "[other]")) return THREAD_OTHER;
        if (sv_contains(s, n, "[Worker ")) return THREAD_WORKER;
        if (sv_contains(s, n, "[pid ")) { /* "node [pid N main]": several processes' */
            if (sv_ends(s, n, " main]")) return THREAD_MAIN;
            if (sv_ends(s, n, " V8 worker]")) return THREAD_V8;
            if (sv_ends(s, n, " libuv]")) return THREAD_LIBUV;
            if (sv_ends(s, n, " other]")) return THREAD_OTHER;
            if (sv_contains(s, n, " Worker ")) return THREAD_WORKER;
        }
    }
    /* Node 25 and 26 put "node-" before the names 24 gives (node-MainThread, node-V8Worker) */
    if (n > 5 && sv_starts(s, n, "node-")) {
        thread_role_t r = profile_role_from_name(s + 5, n - 5, known);
        if (*known) return r;
    }
    /* Node's own names: 24 names every thread, 22 its libuv pool and delayed-task thread,
     * older versions none (every thread is "node"); V8's default platform; Chrome's. */
    if ((n == 10 && !memcmp(s, "MainThread", 10)) || sv_starts(s, n, "CrRendererMain") ||
        sv_starts(s, n, "CrBrowserMain"))
        return THREAD_MAIN;
    if ((n == 12 && !memcmp(s, "WorkerThread", 12)) || sv_starts(s, n, "DedicatedWorker")) return THREAD_WORKER;
    if (sv_starts(s, n, "V8Worker") || sv_starts(s, n, "V8 DefaultWorke") || sv_starts(s, n, "V8 ") ||
        sv_starts(s, n, "DelayedTaskSche") || sv_starts(s, n, "ThreadPoolForeg") || sv_starts(s, n, "ThreadPoolBackg"))
        return THREAD_V8;
    if (sv_starts(s, n, "libuv-worker")) return THREAD_LIBUV;
    if (sv_starts(s, n, "SignalInspector") || sv_starts(s, n, "node (inspector)")) return THREAD_OTHER;
    *known = 0;
    return THREAD_OTHER;
}

static void thread_frame_name(buf_t *b, int32_t pid, int32_t tid)
{
    buf_clear(b);
    if (pid) buf_printf(b, "[thread %d/%d]", (int)pid, (int)tid);
    else buf_printf(b, "[thread %d]", (int)tid);
}

uint32_t profile_thread(profile_t *p, int32_t pid, int32_t tid, const char *name, size_t name_len)
{
    int found;
    uint32_t *slot = u64map_upsert(&p->thread_index, (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid, &found);
    if (found) {
        profile_thread_t *t = &p->threads[*slot];
        if (name_len && (strlen(t->name) != name_len || memcmp(t->name, name, name_len))) {
            t->name = strpool_intern(p->strings, name, name_len);
            int known;
            thread_role_t r = profile_role_from_name(name, name_len, &known);
            if (!t->role_known) t->role = r, t->role_known = known;
        }
        return *slot;
    }
    uint32_t id = (uint32_t)p->nthreads;
    *slot = id;
    buf_t b = {0};
    thread_frame_name(&b, pid, tid);
    uint32_t frame = profile_frame(p, b.data, b.len, "", 0, 0, FRAME_THREAD);
    buf_free(&b);
    XGROW(p->threads, p->threads_cap, p->nthreads + 1);
    profile_thread_t *t = &p->threads[id];
    memset(t, 0, sizeof *t);
    t->pid = pid, t->tid = tid, t->frame = frame;
    t->name = strpool_intern(p->strings, name ? name : "", name ? name_len : 0);
    t->role = profile_role_from_name(t->name, name_len, &t->role_known);
    if (pid > 0 && pid == tid) t->role = THREAD_MAIN, t->role_known = 1;
    p->nthreads++;
    uint32_t *fs = u64map_upsert(&p->thread_of_frame, frame, &found);
    *fs = id;
    return id;
}

void profile_thread_set_role(profile_t *p, uint32_t t, thread_role_t role)
{
    p->threads[t].role = role;
    p->threads[t].role_known = 1;
}

void profile_thread_note_stack(profile_t *p, uint32_t t, const uint32_t *frames, size_t n)
{
    if (p->threads[t].role_known) return;
    /* Thread entry points sit near the root: clone3; start_thread; <entry>; ... */
    for (size_t i = 0; i < n && i < 10; i++) {
        const profile_frame_t *f = &p->frames[frames[i]];
        if (f->kind == FRAME_THREAD || f->kind == FRAME_PROCESS) continue;
        const char *s = f->name;
        size_t len = strlen(s);
        thread_role_t r;
        if (sv_contains(s, len, "node::worker::Worker::Run") ||
            sv_contains(s, len, "node::worker::Worker::StartThread"))
            r = THREAD_WORKER;
        else if (sv_contains(s, len, "PlatformWorkerThread") || sv_contains(s, len, "DelayedTaskScheduler") ||
                 sv_contains(s, len, "v8::platform::"))
            r = THREAD_V8;
        else if (sv_starts(s, len, "node::Start") || sv_contains(s, len, "node::NodeMainInstance::Run"))
            r = THREAD_MAIN;
        else if ((len == 6 && !memcmp(s, "worker", 6)) || sv_starts(s, len, "uv__threadpool") ||
                 sv_starts(s, len, "uv__queue_work"))
            r = THREAD_LIBUV; /* libuv's pool thread function is a static named 'worker' */
        else continue;
        profile_thread_set_role(p, t, r);
        return;
    }
}

int64_t profile_thread_of_frame(const profile_t *p, uint32_t frame)
{
    uint32_t t;
    if (p->nthreads && p->frames[frame].kind == FRAME_THREAD && u64map_get(&p->thread_of_frame, frame, &t)) return t;
    return -1;
}

int64_t profile_thread_of_node(const profile_t *p, uint32_t node)
{
    if (!p->nthreads || node == 0) return -1;
    while (p->nodes[node].parent) node = p->nodes[node].parent;
    return profile_thread_of_frame(p, p->nodes[node].frame);
}

/* Node's own thread names are not the process's name */
static int node_internal_name(const char *s)
{
    int known;
    return !s[0] || profile_role_from_name(s, strlen(s), &known) != THREAD_OTHER || known;
}

/* Roles are Node's. A thread belongs to a Node process when a thread of its process is
 * named like node's (Node 20 names them all "node") or has a role only Node's threads have
 * (a Worker, a V8 platform worker, the libuv pool); tid == pid alone makes any program's
 * first thread "main". Threads of other processes (java, swapper, a shell) keep the plain
 * comm root they had before threads. pid 0 (perf printed none): the thread stands alone. */
static int in_node_process(const profile_t *p, uint32_t ti)
{
    const profile_thread_t *t = &p->threads[ti];
    for (size_t i = 0; i < p->nthreads; i++) {
        const profile_thread_t *o = &p->threads[i];
        if (o->pid != t->pid || (!t->pid && i != ti)) continue;
        if (o->role == THREAD_WORKER || o->role == THREAD_V8 || o->role == THREAD_LIBUV) return 1;
        if (!strncmp(o->name, "node", 4) || !strcmp(o->name, "MainThread")) return 1;
    }
    return 0;
}

void profile_thread_label(const profile_t *p, uint32_t ti, buf_t *b)
{
    const profile_thread_t *t = &p->threads[ti];
    if (!in_node_process(p, ti)) { /* its comm, as before threads */
        buf_puts(b, t->name && *t->name ? t->name : "[unknown thread]");
        return;
    }
    const char *proc = NULL;
    for (size_t i = 0; i < p->nthreads && !proc; i++)
        if (p->threads[i].pid == t->pid && p->threads[i].role == THREAD_MAIN)
            proc = node_internal_name(p->threads[i].name) ? "node" : p->threads[i].name;
    if (!proc) proc = t->role == THREAD_OTHER && !node_internal_name(t->name) ? t->name : "node";
    buf_puts(b, proc);
    buf_puts(b, " [");
    if (p->thread_pids && t->pid > 0) buf_printf(b, "pid %d ", (int)t->pid); /* "node [pid N main]" */
    switch (t->role) {
    case THREAD_MAIN: buf_puts(b, "main]"); break;
    case THREAD_WORKER: {
        int n = 1;
        for (size_t i = 0; i < p->nthreads; i++)
            if (p->threads[i].pid == t->pid && p->threads[i].role == THREAD_WORKER && p->threads[i].tid < t->tid) n++;
        buf_printf(b, "Worker %d]", n);
        break;
    }
    case THREAD_V8: buf_puts(b, "V8 worker]"); break;
    case THREAD_LIBUV: buf_puts(b, "libuv]"); break;
    default: buf_puts(b, "other]"); break;
    }
}

void profile_thread_weights(const profile_t *p, double *out)
{
    for (size_t t = 0; t < p->nthreads; t++) out[t] = 0;
    if (!p->nthreads) return;
    double *tot = xmalloc(p->nnodes * sizeof *tot);
    profile_totals(p, tot);
    for (uint32_t c = p->nodes[0].first_child; c; c = p->nodes[c].next_sibling) {
        int64_t t = profile_thread_of_frame(p, p->nodes[c].frame);
        if (t >= 0) out[t] += tot[c];
    }
    free(tot);
}

int profile_thread_pick_parse(const char *s, thread_pick_t *out)
{
    memset(out, 0, sizeof *out);
    if (!strcmp(s, "all")) out->kind = PICK_ALL;
    else if (!strcmp(s, "main")) out->kind = PICK_MAIN;
    else if (!strcmp(s, "worker") || !strcmp(s, "Worker")) out->kind = PICK_ROLE, out->role = THREAD_WORKER;
    else if (!strcmp(s, "v8") || !strcmp(s, "V8")) out->kind = PICK_ROLE, out->role = THREAD_V8;
    else if (!strcmp(s, "libuv")) out->kind = PICK_ROLE, out->role = THREAD_LIBUV;
    else if (!strcmp(s, "other")) out->kind = PICK_ROLE, out->role = THREAD_OTHER;
    else {
        char *end;
        long v = strtol(s, &end, 10);
        if (!*s || *end || v < 0 || v > 0x7fffffff) return -1;
        out->kind = PICK_TID, out->id = v;
    }
    return 0;
}

/* Which threads a pick takes: sel[t] = 1; returns the count. */
static size_t pick_threads(const profile_t *p, const thread_pick_t *pick, uint8_t *sel)
{
    size_t n = 0;
    if (pick->kind == PICK_MAIN) {
        double *w = xmalloc((p->nthreads + 1) * sizeof *w);
        profile_thread_weights(p, w);
        int64_t best = -1, heaviest = -1;
        size_t mains = 0;
        for (size_t t = 0; t < p->nthreads; t++) {
            if (p->threads[t].role == THREAD_MAIN) {
                mains++;
                if (best < 0 || w[t] > w[best]) best = (int64_t)t;
            }
            if (heaviest < 0 || w[t] > w[heaviest]) heaviest = (int64_t)t;
        }
        if (best < 0 && heaviest >= 0) {
            diag_warn(NULL, 0, "no thread is known to be the main JavaScript thread; taking the busiest (tid %d)",
                      (int)p->threads[heaviest].tid);
            best = heaviest;
        } else if (mains > 1) {
            diag_warn(NULL, 0,
                      "%zu processes' main threads; taking the busiest (pid %d); pick another with --thread TID", mains,
                      (int)p->threads[best].pid);
        }
        if (best >= 0) sel[best] = 1, n = 1;
        free(w);
        return n;
    }
    for (size_t t = 0; t < p->nthreads; t++) {
        const profile_thread_t *th = &p->threads[t];
        int take = pick->kind == PICK_ALL || (pick->kind == PICK_ROLE && th->role == pick->role) ||
                   (pick->kind == PICK_TID && th->tid == pick->id) ||
                   (pick->kind == PICK_INDEX && (int64_t)t == pick->id);
        sel[t] = (uint8_t)take;
        n += (size_t)take;
    }
    return n;
}

profile_t *profile_thread_view(const profile_t *p, const thread_pick_t *pick, thread_roots_t roots, size_t *picked)
{
    thread_pick_t all = {0};
    if (!pick) pick = &all;
    if (!p->nthreads) {
        /* one implicit thread: it is the main one and every one */
        int take = pick->kind == PICK_ALL || pick->kind == PICK_MAIN;
        if (picked) *picked = take;
        if (take) return NULL;
    }
    uint8_t *sel = xcalloc(p->nthreads + 1, 1);
    size_t n = p->nthreads ? pick_threads(p, pick, sel) : 0;
    if (picked) *picked = n;
    /* top-level nodes outside any thread (a merge of threaded and unthreaded input) are the
     * implicit thread: taken with every thread, or as main when no thread is main */
    int take_loose = pick->kind == PICK_ALL;

    profile_t *q = profile_new();
    q->weight_unit = strpool_cstr(q->strings, p->weight_unit);
    q->start_us = p->start_us, q->end_us = p->end_us;
    /* the view has at most p's nodes: room for them up front, no rehashing while copying */
    u64map_reserve(&q->child_index, p->nnodes);
    XGROW(q->nodes, q->nodes_cap, p->nnodes);
    uint32_t *fmap = xmalloc((p->nframes + 1) * sizeof *fmap);
    for (size_t i = 0; i < p->nframes; i++) fmap[i] = UINT32_MAX;
    const uint32_t SKIP = UINT32_MAX;
    uint32_t *nmap = xmalloc(p->nnodes * sizeof *nmap);
    int64_t *thread_node = xmalloc(p->nnodes * sizeof *thread_node); /* node -> thread when it is a thread node */
    nmap[0] = 0;
    thread_node[0] = -1;
    buf_t b = {0};
    for (size_t i = 1; i < p->nnodes; i++) {
        const profile_node_t *nd = &p->nodes[i];
        const profile_frame_t *f = &p->frames[nd->frame];
        thread_node[i] = -1;
        uint32_t up = nmap[nd->parent];
        if (nd->parent == 0 && f->kind == FRAME_THREAD) {
            int64_t t = profile_thread_of_frame(p, nd->frame);
            thread_node[i] = t;
            if (t < 0 || !sel[t]) nmap[i] = SKIP;
            else if (roots != THREAD_ROOTS_ROLES || !in_node_process(p, (uint32_t)t)) nmap[i] = 0;
            else {
                buf_clear(&b);
                profile_thread_label(p, (uint32_t)t, &b);
                nmap[i] = profile_child(q, 0, profile_frame(q, b.data, b.len, "", 0, 0, FRAME_PROCESS));
            }
        } else if (up == SKIP || (nd->parent == 0 && !take_loose)) {
            nmap[i] = SKIP;
        } else if (f->kind == FRAME_PROCESS && thread_node[nd->parent] >= 0 &&
                   (roots == THREAD_ROOTS_NONE || (roots == THREAD_ROOTS_ROLES && up != 0))) {
            /* the process frame perf's reader puts under a thread: dropped when it only repeats the
             * thread's name (under a role root, or in one thread's tree); a thread of a process
             * that is not Node's has no role root, and its comm frame is its root as before */
            const char *tn = p->threads[thread_node[nd->parent]].name;
            size_t k = 0;
            for (; tn[k] && f->name[k]; k++) {
                char c = tn[k] == ' ' ? '_' : tn[k] == ';' ? ':' : tn[k];
                if (c != f->name[k]) break;
            }
            int plain = !tn[k] && !f->name[k];
            if (plain) nmap[i] = up;
            else goto copy;
        } else {
        copy:
            if (fmap[nd->frame] == UINT32_MAX)
                fmap[nd->frame] = profile_frame(q, f->name, strlen(f->name), f->url, f->line, f->column, f->kind);
            nmap[i] = profile_child(q, up, fmap[nd->frame]);
        }
        if (nmap[i] != SKIP && nd->self != 0) profile_add_self(q, nmap[i], nd->self);
    }
    if (p->nodes[0].self != 0 && take_loose) profile_add_self(q, 0, p->nodes[0].self);
    for (size_t s = 0; s < p->nsamples; s++) {
        uint32_t m = nmap[p->samples[s].node];
        if (m != SKIP) profile_add_sample(q, p->samples[s].time_us, m, p->samples[s].weight);
    }
    for (size_t t = 0; t < p->nticks; t++) {
        uint32_t m = nmap[p->ticks[t].node];
        if (m != SKIP && m != 0) profile_add_line_ticks(q, m, p->ticks[t].line, p->ticks[t].ticks);
    }
    buf_free(&b);
    free(thread_node);
    free(nmap);
    free(fmap);
    free(sel);
    return q;
}
