/* THE profile model. Every reader builds one, every writer reads one.
 *
 *  - Frames are interned: (name, url, line, column, kind) -> a small integer id.
 *    `name` is the text a folded stack shows for the frame (for perf input that is
 *    the tidied symbol, e.g. "JS:*fib /app/fib.js:1:13"; for cpuprofile input the
 *    function name, with url/line/column kept apart). Line and column are 1-based,
 *    0 = unknown.
 *  - The call tree: node 0 is the root (no frame). A node is one frame under one
 *    parent; it carries the self weight of the samples whose leaf it is.
 *    Nodes are keyed on the function's definition site, never the sampled line:
 *    per-line hits go to the node's line ticks (cpuprofile positionTicks).
 *  - An optional timeline: one entry per sample, (time in µs, leaf node, weight).
 *  - Threads (see "Threads" below): a thread table, and one top-level node of kind
 *    FRAME_THREAD per thread whose subtree holds that thread's samples. Inputs that know
 *    nothing of threads (folded, DTrace, one .cpuprofile) have none: one implicit thread.
 *
 * Depends on util/ only. */
#ifndef PROFILE_PROFILE_H
#define PROFILE_PROFILE_H
#include "util/buf.h"
#include "util/hash.h"
#include <stddef.h>
#include <stdint.h>

typedef enum {
    FRAME_UNKNOWN = 0,
    FRAME_PROCESS,        /* the comm/pid root frame collapse prepends */
    FRAME_JS_TURBOFAN,    /* V8 tier '*' */
    FRAME_JS_MAGLEV,      /* '+' */
    FRAME_JS_BASELINE,    /* '^' Sparkplug */
    FRAME_JS_INTERPRETED, /* '~' Ignition */
    FRAME_JS,             /* JS, tier unknown (cpuprofile, DTrace jstack) */
    FRAME_BUILTIN,        /* V8 builtins, bytecode handlers, stubs, RegExp code */
    FRAME_NATIVE,         /* C/C++: node, libuv, libc, V8's own C++ */
    FRAME_KERNEL,
    FRAME_GC,      /* (garbage collector), V8 heap C++ */
    FRAME_IDLE,    /* (idle) */
    FRAME_PROGRAM, /* (program): native code V8 did not attribute */
    FRAME_ROOT,    /* (root) of a cpuprofile when kept as a frame */
    FRAME_THREAD,  /* a thread's top-level node; see profile_thread_t. Never reaches a writer's output */
    FRAME_KIND_COUNT
} frame_kind_t;

/* Seconds per unit when weights of this unit are a time ("ns" for cpu-clock periods), else 0. */
double profile_unit_seconds(const char *unit);

const char *frame_kind_name(frame_kind_t k); /* "turbofan", "kernel", ... */
int frame_kind_is_js(frame_kind_t k);

typedef struct {
    const char *name; /* interned; never NULL */
    const char *url;  /* interned; "" when unknown */
    int32_t line, column;
    frame_kind_t kind;
} profile_frame_t;

typedef struct {
    uint32_t frame;                     /* index into frames; unused for the root */
    uint32_t parent;                    /* root's parent is itself (0) */
    uint32_t first_child, next_sibling; /* 0 = none (0 is never a child) */
    double self;                        /* weight of samples whose leaf is this node */
} profile_node_t;

typedef struct {
    double time_us; /* in the producer's clock; see profile_t.start_us */
    uint32_t node;
    double weight;
} profile_sample_t;

typedef struct {
    uint32_t node;
    int32_t line; /* 1-based */
    double ticks;
} profile_line_tick_t;

typedef struct profile {
    strpool_t *strings;
    profile_frame_t *frames;
    size_t nframes, frames_cap;
    u64map_t frame_index; /* hash of frame fields -> frame id chain head */
    uint32_t *frame_next; /* collision chain for frame_index */

    profile_node_t *nodes;
    size_t nnodes, nodes_cap;
    u64map_t child_index; /* (parent << 32 | frame) -> node */

    profile_sample_t *samples; /* timeline; nsamples == 0 when there is none */
    size_t nsamples, samples_cap;
    double start_us, end_us; /* timeline bounds when known */

    profile_line_tick_t *ticks; /* per-line hits, unordered; see profile_add_line_ticks */
    size_t nticks, ticks_cap;
    u64map_t tick_index;

    const char *weight_unit; /* "samples" (default), "nanoseconds", ... (interned) */
    double total;            /* sum of self weights, kept up to date */

    struct profile_thread *threads; /* the thread table; nthreads == 0: one implicit thread */
    size_t nthreads, threads_cap;
    u64map_t thread_index;    /* (pid << 32 | tid) -> thread */
    u64map_t thread_of_frame; /* FRAME_THREAD frame -> thread */
    int thread_pids;          /* thread labels carry the pid: "node [pid N main]" (a recording of
                                   several processes, record -a/--children) */
} profile_t;

profile_t *profile_new(void);
void profile_free(profile_t *p);
/* 0 when every invariant of the model holds (tree links, frame and node indices, finite weights,
 * total = the sum of self weights, samples and ticks in range, thread frames); else -1, and what
 * is wrong appended to why (may be NULL). Fuzzers call it on every profile a reader makes. */
int profile_check(const profile_t *p, buf_t *why);

/* Interns a frame and returns its id. name/url need not be interned (they are copied). */
uint32_t profile_frame(profile_t *p, const char *name, size_t name_len, const char *url, int32_t line, int32_t column,
                       frame_kind_t kind);
/* Same for a NUL-terminated name with no source position. */
uint32_t profile_frame_simple(profile_t *p, const char *name, frame_kind_t kind);

/* The child of parent for frame, created when absent. */
uint32_t profile_child(profile_t *p, uint32_t parent, uint32_t frame);
/* Adds a whole stack (frames root first) with weight; returns the leaf node. */
uint32_t profile_add_stack(profile_t *p, const uint32_t *frames, size_t n, double weight);
/* Adds weight to a node's self weight. */
void profile_add_self(profile_t *p, uint32_t node, double weight);
/* Appends a timeline sample (does not add weight: call profile_add_self too). */
void profile_add_sample(profile_t *p, double time_us, uint32_t node, double weight);
/* Sorts n timeline samples by time (readers and samplers that gather them out of order). */
void profile_sort_samples(profile_sample_t *s, size_t n);
/* Adds per-line hits to a node. */
void profile_add_line_ticks(profile_t *p, uint32_t node, int32_t line, double ticks);

/* Total weight under a node (computed over the whole tree in one pass; fills out[nnodes]). */
void profile_totals(const profile_t *p, double *out);
/* Depth of every node (root 0). */
void profile_depths(const profile_t *p, uint32_t *out);
/* Frame ids from the root's child down to node; returns the count (at most max). */
size_t profile_stack_of(const profile_t *p, uint32_t node, uint32_t *out, size_t max);

/* Adds every stack of src (with weights scaled by factor, and its timeline) into dst. */
void profile_merge(profile_t *dst, const profile_t *src, double factor);

/* A new profile with every stack reversed (leaf becomes root); no timeline. */
profile_t *profile_reversed(const profile_t *p);

/* Children of a node sorted by frame name (byte order), as flame graphs draw them.
 * Returns a malloc'ed array of node ids; *n receives the count. */
uint32_t *profile_sorted_children(const profile_t *p, uint32_t node, size_t *n);

/* Folded label of a frame: the name, plus " url:line:column" when the frame has a url
 * and the name does not already carry it. Appended to b. */
void profile_frame_label(const profile_t *p, uint32_t frame, buf_t *b);

/* Function name, url, 1-based line and column of a frame: its own fields when it has a url,
 * else parsed from a V8 code name ("JS:*fib /app/fib.js:1:13"). *url stays valid until the next call. */
void profile_frame_split_v8(const profile_frame_t *f, buf_t *name, const char **url, int32_t *line, int32_t *col);

/* A V8 JS code name that ends in its definition site, "JS:*fib /app/fib.js:1:13": 1 and the
 * name's part ("JS:*fib", name_len), the url (a span of s) and the 1-based line and column, when
 * profile_frame_label would print exactly s back from them; else 0. For readers of text names. */
int profile_v8_location(const char *s, size_t n, size_t *name_len, const char **url, size_t *url_len, int32_t *line,
                        int32_t *col);

/* ---- Threads ----
 *
 * Every sample belongs to a thread: its process, thread id, name and role. Node runs its
 * JavaScript on the main thread (and each worker_threads Worker on a thread with its own
 * isolate), and beside them V8's platform workers (TurboFan's background compiles,
 * concurrent marking, parallel scavenges), libuv's pool (fs, dns, crypto.pbkdf2, zlib) and
 * a few more native threads. A profiler that samples the process sees them all; DevTools
 * and `node --cpu-prof` show one thread.
 *
 * How threads live in the model: a thread table in profile_t, and in the call tree one
 * top-level node per thread, of a FRAME_THREAD frame ("[thread PID/TID]"), under which
 * that thread's stacks hang. Why a node rather than a thread id per sample or a tree per
 * thread: the tree is what every writer reads and the only thing folded input and output
 * keep (no timeline), so thread identity has to live in it to survive folding, merging
 * (profile_merge maps threads by pid/tid) and reading back; one node per thread costs
 * nothing, keeps one frame table and one node index, and readers that know no threads
 * simply create none. The role is a property of the thread, not of its node's frame,
 * because it is often learnt late: perf shows every thread of Node 20 as "node", and
 * only some of a thread's samples show the stack that proves it a Worker
 * (node::worker::Worker::Run) or a V8 platform worker. So roots are labelled ("node
 * [main]", "node [Worker 1]", "node [V8 worker]", "node [libuv]") only when written:
 * writers go through profile_thread_view, which picks threads and turns the thread nodes
 * into role roots, one merged root (as before threads), or nothing (.cpuprofile). */
typedef enum {
    THREAD_OTHER = 0, /* other native threads (inspector, signal watchdog), or not known */
    THREAD_MAIN,      /* the main JavaScript thread (tid == pid, node::Start) */
    THREAD_WORKER,    /* a worker_threads Worker: its own isolate */
    THREAD_V8,        /* a V8 platform worker: background compile, GC helpers, delayed tasks */
    THREAD_LIBUV,     /* the libuv thread pool */
    THREAD_ROLE_COUNT
} thread_role_t;

typedef struct profile_thread {
    int32_t pid; /* 0 = unknown (perf script without the pid field) */
    int32_t tid;
    const char *name; /* interned thread name (perf's comm), last seen; "" when unknown */
    thread_role_t role;
    int role_known; /* role proven (tid == pid, a stack, a producer's label), not guessed from the name */
    uint32_t frame; /* its FRAME_THREAD frame */
} profile_thread_t;

const char *thread_role_name(thread_role_t r); /* "main", "worker", "v8", "libuv", "other" */
/* The role a thread's name suggests (Node's thread names across versions, Chrome's, and the
 * labels nodescope writes: "node [V8 worker]"); *known = 1 when the name says it for sure. */
thread_role_t profile_role_from_name(const char *name, size_t len, int *known);

/* The thread (pid, tid), created when new; its name is updated to name when name_len > 0
 * (threads are often named after they start). Returns its index in p->threads. */
uint32_t profile_thread(profile_t *p, int32_t pid, int32_t tid, const char *name, size_t name_len);
/* Sets a thread's role as known. */
void profile_thread_set_role(profile_t *p, uint32_t t, thread_role_t role);
/* Learns a thread's role from one of its stacks (frame ids, root first), when still unknown:
 * the thread entry frames near the root tell a Worker, a platform worker, libuv and main apart. */
void profile_thread_note_stack(profile_t *p, uint32_t t, const uint32_t *frames, size_t n);
/* The thread whose FRAME_THREAD frame this is, or -1. */
int64_t profile_thread_of_frame(const profile_t *p, uint32_t frame);
/* The thread a node's samples belong to (its top-level ancestor's), or -1 for the implicit thread. */
int64_t profile_thread_of_node(const profile_t *p, uint32_t node);
/* A thread's label in written output: "PROCESS [ROLE]", e.g. "node [main]", "node [Worker 2]",
 * "node [V8 worker]", "node [libuv]", "node [other]" (workers are numbered by tid within their
 * process, as worker_threads numbers them). Appended to b. */
void profile_thread_label(const profile_t *p, uint32_t t, buf_t *b);
/* Total weight of each thread's samples (out[nthreads]). */
void profile_thread_weights(const profile_t *p, double *out);

/* Which threads a writer takes: --thread main|all|worker|v8|libuv|other|TID. */
typedef struct {
    enum { PICK_ALL = 0, PICK_MAIN, PICK_ROLE, PICK_TID, PICK_INDEX } kind;
    thread_role_t role;
    int64_t id; /* PICK_TID: the tid; PICK_INDEX: index in p->threads */
} thread_pick_t;
/* 0, or -1 when s is none of those. */
int profile_thread_pick_parse(const char *s, thread_pick_t *out);

typedef enum {
    THREAD_ROOTS_ROLES = 0, /* a root frame per thread role: "node [main]" (folded, flame, pprof, top) */
    THREAD_ROOTS_MERGE,     /* no thread roots: the stacks as before threads (--threads merge) */
    THREAD_ROOTS_NONE,      /* no thread roots and no process frame: one thread's tree (.cpuprofile) */
} thread_roots_t;

/* The profile a writer draws from: only the picked threads, thread nodes turned into roots as
 * asked (a process frame that only repeats its thread's name is dropped under a role root),
 * timeline and line ticks kept. Returns NULL when p can be written as it is (no thread table
 * and every thread picked). PICK_MAIN takes the main thread (the heaviest one when there are
 * several processes; without any known main thread, the heaviest thread, with a warning).
 * *picked (when not NULL) receives how many threads were taken (1 for the implicit thread). */
profile_t *profile_thread_view(const profile_t *p, const thread_pick_t *pick, thread_roots_t roots, size_t *picked);

/* Guess a frame's kind from its folded/perf text (V8 perf-map prefixes and tier markers,
 * "_[k]" annotations, kernel and library modules). Used by readers that only have text. */
frame_kind_t profile_classify_name(const char *name, size_t len);

#endif
