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
 *
 * Depends on util/ only. */
#ifndef PROFILE_PROFILE_H
#define PROFILE_PROFILE_H
#include <stddef.h>
#include <stdint.h>
#include "util/hash.h"

typedef enum {
    FRAME_UNKNOWN = 0,
    FRAME_PROCESS,         /* the comm/pid root frame collapse prepends */
    FRAME_JS_TURBOFAN,     /* V8 tier '*' */
    FRAME_JS_MAGLEV,       /* '+' */
    FRAME_JS_BASELINE,     /* '^' Sparkplug */
    FRAME_JS_INTERPRETED,  /* '~' Ignition */
    FRAME_JS,              /* JS, tier unknown (cpuprofile, DTrace jstack) */
    FRAME_BUILTIN,         /* V8 builtins, bytecode handlers, stubs, RegExp code */
    FRAME_NATIVE,          /* C/C++: node, libuv, libc, V8's own C++ */
    FRAME_KERNEL,
    FRAME_GC,              /* (garbage collector), V8 heap C++ */
    FRAME_IDLE,            /* (idle) */
    FRAME_PROGRAM,         /* (program): native code V8 did not attribute */
    FRAME_ROOT,            /* (root) of a cpuprofile when kept as a frame */
    FRAME_KIND_COUNT
} frame_kind_t;

const char *frame_kind_name(frame_kind_t k);   /* "turbofan", "kernel", ... */
int frame_kind_is_js(frame_kind_t k);

typedef struct {
    const char *name;   /* interned; never NULL */
    const char *url;    /* interned; "" when unknown */
    int32_t line, column;
    frame_kind_t kind;
} profile_frame_t;

typedef struct {
    uint32_t frame;     /* index into frames; unused for the root */
    uint32_t parent;    /* root's parent is itself (0) */
    uint32_t first_child, next_sibling;   /* 0 = none (0 is never a child) */
    double self;        /* weight of samples whose leaf is this node */
} profile_node_t;

typedef struct {
    double time_us;     /* in the producer's clock; see profile_t.start_us */
    uint32_t node;
    double weight;
} profile_sample_t;

typedef struct {
    uint32_t node;
    int32_t line;       /* 1-based */
    double ticks;
} profile_line_tick_t;

typedef struct profile {
    strpool_t *strings;
    profile_frame_t *frames;
    size_t nframes, frames_cap;
    u64map_t frame_index;       /* hash of frame fields -> frame id chain head */
    uint32_t *frame_next;       /* collision chain for frame_index */

    profile_node_t *nodes;
    size_t nnodes, nodes_cap;
    u64map_t child_index;       /* (parent << 32 | frame) -> node */

    profile_sample_t *samples;  /* timeline; nsamples == 0 when there is none */
    size_t nsamples, samples_cap;
    double start_us, end_us;    /* timeline bounds when known */

    profile_line_tick_t *ticks; /* per-line hits, unordered; see profile_add_line_ticks */
    size_t nticks, ticks_cap;
    u64map_t tick_index;

    const char *weight_unit;    /* "samples" (default), "nanoseconds", ... (interned) */
    double total;               /* sum of self weights, kept up to date */
} profile_t;

profile_t *profile_new(void);
void profile_free(profile_t *p);

/* Interns a frame and returns its id. name/url need not be interned (they are copied). */
uint32_t profile_frame(profile_t *p, const char *name, size_t name_len, const char *url, int32_t line,
                       int32_t column, frame_kind_t kind);
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
#include "util/buf.h"
void profile_frame_label(const profile_t *p, uint32_t frame, buf_t *b);

/* Function name, url, 1-based line and column of a frame: its own fields when it has a url,
 * else parsed from a V8 code name ("JS:*fib /app/fib.js:1:13"). *url stays valid until the next call. */
void profile_frame_split_v8(const profile_frame_t *f, buf_t *name, const char **url, int32_t *line, int32_t *col);

/* A V8 JS code name that ends in its definition site, "JS:*fib /app/fib.js:1:13": 1 and the
 * name's part ("JS:*fib", name_len), the url (a span of s) and the 1-based line and column, when
 * profile_frame_label would print exactly s back from them; else 0. For readers of text names. */
int profile_v8_location(const char *s, size_t n, size_t *name_len, const char **url, size_t *url_len, int32_t *line,
                        int32_t *col);

/* Guess a frame's kind from its folded/perf text (V8 perf-map prefixes and tier markers,
 * "_[k]" annotations, kernel and library modules). Used by readers that only have text. */
frame_kind_t profile_classify_name(const char *name, size_t len);

#endif
