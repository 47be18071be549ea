/* The profile model: interning, tree building, totals, merge, folded round trip. */
#include "check.h"
#include "formats/folded.h"
#include "formats/format.h"
#include "profile/profile.h"
#include "util/xalloc.h"
#include <stdlib.h>

static void test_interning(void)
{
    profile_t *p = profile_new();
    uint32_t a = profile_frame(p, "fib", 3, "/app/fib.js", 1, 13, FRAME_JS);
    uint32_t b = profile_frame(p, "fib", 3, "/app/fib.js", 1, 13, FRAME_JS);
    uint32_t c = profile_frame(p, "fib", 3, "/app/fib.js", 2, 13, FRAME_JS);
    uint32_t d = profile_frame(p, "fib", 3, "/app/fib.js", 1, 13, FRAME_JS_TURBOFAN);
    CHECK_EQ_INT(a, b);
    CHECK(a != c);
    CHECK(a != d);
    CHECK_EQ_INT(p->nframes, 3);
    for (int i = 0; i < 100000; i++) {
        char name[32];
        int n = snprintf(name, sizeof name, "f%d", i);
        profile_frame(p, name, (size_t)n, "", 0, 0, FRAME_NATIVE);
    }
    CHECK_EQ_INT(p->nframes, 100003);
    CHECK_EQ_INT(profile_frame(p, "f77", 3, "", 0, 0, FRAME_NATIVE), 80);
    profile_free(p);
}

static void test_tree(void)
{
    profile_t *p = profile_new();
    uint32_t f[3] = {profile_frame_simple(p, "main", FRAME_NATIVE), profile_frame_simple(p, "a", FRAME_NATIVE),
                     profile_frame_simple(p, "b", FRAME_NATIVE)};
    uint32_t leaf1 = profile_add_stack(p, f, 3, 2);
    uint32_t leaf2 = profile_add_stack(p, f, 3, 3);
    profile_add_stack(p, f, 2, 1);
    CHECK_EQ_INT(leaf1, leaf2);
    CHECK_EQ_INT(p->nnodes, 4);
    double *tot = xmalloc(p->nnodes * sizeof *tot);
    profile_totals(p, tot);
    CHECK(tot[0] == 6 && tot[1] == 6 && tot[2] == 6 && tot[3] == 5);
    CHECK(p->total == 6);
    uint32_t st[8];
    CHECK_EQ_INT(profile_stack_of(p, leaf1, st, 8), 3);
    CHECK_EQ_INT(st[0], f[0]);
    CHECK_EQ_INT(st[2], f[2]);

    profile_t *q = profile_new();
    profile_merge(q, p, 2);
    profile_merge(q, p, 1);
    CHECK(q->total == 18);
    CHECK_EQ_INT(q->nnodes, 4);
    free(tot);
    profile_free(p);
    profile_free(q);
}

static void test_folded_round_trip(void)
{
    const char text[] = "main;a;b 3\nmain;a 2\nmain;a;b 4\nmain;a+b;c 1.5\n\nnot a stack\nx;y;z 10\n";
    input_t *in = input_from_memory("mem", text, sizeof text - 1);
    profile_t *p = profile_new();
    const format_reader_t *r = format_detect(in);
    CHECK(r && !strcmp(r->name, "folded"));
    CHECK_EQ_INT(r->read(in, p, &(read_opts_t){0}), 0);
    input_close(in);
    CHECK(p->total == 20.5);
    buf_t out = {0};
    folded_write_buf(p, &out);
    /* byte order of whole lines, as stackcollapse-perf.pl sorts: "a+b" < "a;b" */
    CHECK_STR(out.data, "main;a 2\nmain;a+b;c 1.5\nmain;a;b 7\nx;y;z 10\n");
    buf_free(&out);
    profile_free(p);
}

/* The writer sorts paths of frames, never their text: its order must still be the
 * text's byte order, where a label that is a prefix of another meets ';' or the end
 * of the line ("foo" + ".bar" sorts before "foo" + ";x", after "foo" alone). */
static void test_folded_sorted_like_text(void)
{
    static const char *names[] = {"foo", "foo.bar", "foo;", "fo", "foo~", "a b", "a", "f", "foo:1"};
    unsigned seed = 12345;
    profile_t *p = profile_new();
    for (int i = 0; i < 4000; i++) {
        uint32_t frames[6];
        size_t n = 1 + (seed = seed * 1103515245 + 12345) % 6;
        for (size_t k = 0; k < n; k++)
            frames[k] = profile_frame_simple(p, names[(seed = seed * 1103515245 + 12345) >> 16 & 7], FRAME_NATIVE);
        profile_add_stack(p, frames, n, 1);
    }
    buf_t out = {0};
    folded_write_buf(p, &out);
    size_t prev_off = 0, prev_len = 0, lines = 0;
    int sorted = 1;
    double total = 0;
    for (size_t at = 0; at < out.len;) {
        const char *nl = memchr(out.data + at, '\n', out.len - at);
        size_t len = (size_t)(nl - (out.data + at)), stack_len;
        double w;
        CHECK(folded_split_line(out.data + at, len, &stack_len, &w));
        total += w;
        if (lines++) {
            size_t m = prev_len < stack_len ? prev_len : stack_len;
            int c = memcmp(out.data + prev_off, out.data + at, m);
            if (c > 0 || (c == 0 && prev_len > stack_len)) sorted = 0;
        }
        prev_off = at, prev_len = stack_len;
        at += len + 1;
    }
    CHECK(sorted);
    CHECK(total == 4000);
    CHECK(lines > 100);
    buf_free(&out);
    profile_free(p);
}

static void test_split(void)
{
    size_t sl;
    double c;
    CHECK(folded_split_line("a b;c 12", 8, &sl, &c) && sl == 5 && c == 12);
    CHECK(!folded_split_line("abc", 3, &sl, &c));
    CHECK(!folded_split_line("12", 2, &sl, &c));
    CHECK(!folded_split_line("a 1.2.3", 7, &sl, &c));
    CHECK(folded_split_line("a 0.5", 5, &sl, &c) && c == 0.5);
}

static void test_classify(void)
{
#define K(s) profile_classify_name(s, strlen(s))
    CHECK_EQ_INT(K("JS:*fib /app/fib.js:1:13"), FRAME_JS_TURBOFAN);
    CHECK_EQ_INT(K("JS:~fib /app/fib.js:1:13_[j]"), FRAME_JS_INTERPRETED);
    CHECK_EQ_INT(K("JS:^x :3:26"), FRAME_JS_BASELINE);
    CHECK_EQ_INT(K("JS:+x a.js:3:26"), FRAME_JS_MAGLEV);
    CHECK_EQ_INT(K("LazyCompile:*fib /a.js:1"), FRAME_JS_TURBOFAN);
    CHECK_EQ_INT(K("Builtins_InterpreterEntryTrampoline"), FRAME_BUILTIN);
    CHECK_EQ_INT(K("RegExp:^#!.*"), FRAME_BUILTIN);
    CHECK_EQ_INT(K("do_syscall_64_[k]"), FRAME_KERNEL);
    CHECK_EQ_INT(K("(garbage collector)"), FRAME_GC);
    CHECK_EQ_INT(K("v8::internal::Heap::CollectGarbage"), FRAME_GC);
    CHECK_EQ_INT(K("uv_run"), FRAME_NATIVE);
    CHECK_EQ_INT(K("[unknown]"), FRAME_UNKNOWN);
    CHECK_EQ_INT(K("fib /app/fib.js:1:13"), FRAME_JS);
#undef K
}

/* A profile with threads as the perf reader builds it: a thread node, the process frame, the stack. */
static uint32_t add_thread_stack(profile_t *p, uint32_t t, const char *const *names, size_t n, double w, double time_us)
{
    uint32_t fr[16];
    size_t k = 0;
    fr[k++] = p->threads[t].frame;
    buf_t proc = {0};
    for (const char *c = p->threads[t].name; *c; c++) buf_putc(&proc, *c == ' ' ? '_' : *c);
    fr[k++] = profile_frame(p, proc.data, proc.len, "", 0, 0, FRAME_PROCESS);
    buf_free(&proc);
    for (size_t i = 0; i < n; i++)
        fr[k++] = profile_frame_simple(p, names[i], profile_classify_name(names[i], strlen(names[i])));
    profile_thread_note_stack(p, t, fr + 1, k - 1);
    uint32_t leaf = profile_add_stack(p, fr, k, w);
    if (time_us >= 0) profile_add_sample(p, time_us, leaf, w);
    return leaf;
}

static profile_t *threaded_profile(void)
{
    profile_t *p = profile_new();
    /* Node 20 under perf: every thread is "node"; only tid == pid and the stacks tell them apart */
    uint32_t main_t = profile_thread(p, 100, 100, "node", 4);
    uint32_t v8a = profile_thread(p, 100, 103, "node", 4);
    uint32_t v8b = profile_thread(p, 100, 104, "V8 DefaultWorke", 15);
    uint32_t w2 = profile_thread(p, 100, 111, "node", 4);
    uint32_t w1 = profile_thread(p, 100, 110, "node", 4);
    uint32_t uv = profile_thread(p, 100, 120, "libuv-worker", 12);
    static const char *const m1[] = {"main", "node::Start", "JS:*hot /app/a.js:1:1"};
    static const char *const m2[] = {"main", "node::Start", "JS:~cold /app/a.js:9:1"};
    static const char *const v1[] = {"start_thread", "node::(anonymous namespace)::PlatformWorkerThread",
                                     "v8::internal::OptimizingCompileDispatcher::CompileTask::RunInternal"};
    static const char *const v2[] = {"v8::internal::ScavengerCollector::JobTask::Run"}; /* no entry frame */
    static const char *const wk[] = {"start_thread", "node::worker::Worker::Run", "JS:*hot /app/a.js:1:1"};
    static const char *const lu[] = {"start_thread", "worker", "sha512_block_data_order_avx2"};
    add_thread_stack(p, main_t, m1, 3, 6, 1000);
    add_thread_stack(p, v8a, v1, 3, 3, 1100);
    add_thread_stack(p, main_t, m2, 3, 2, 1200);
    add_thread_stack(p, v8b, v2, 1, 1, 1300);
    add_thread_stack(p, w1, wk, 3, 4, 1400);
    add_thread_stack(p, w2, wk, 3, 5, 1500);
    add_thread_stack(p, uv, lu, 3, 2, 1600);
    return p;
}

static void test_thread_roles(void)
{
    profile_t *p = threaded_profile();
    CHECK_EQ_INT(p->nthreads, 6);
    CHECK_EQ_INT(p->threads[0].role, THREAD_MAIN);   /* tid == pid */
    CHECK_EQ_INT(p->threads[1].role, THREAD_V8);     /* PlatformWorkerThread on the stack */
    CHECK_EQ_INT(p->threads[2].role, THREAD_V8);     /* its name */
    CHECK_EQ_INT(p->threads[3].role, THREAD_WORKER); /* node::worker::Worker::Run */
    CHECK_EQ_INT(p->threads[5].role, THREAD_LIBUV);
    buf_t b = {0};
    profile_thread_label(p, 0, &b);
    CHECK_STR(b.data, "node [main]");
    buf_clear(&b);
    profile_thread_label(p, 4, &b); /* tid 110: the first Worker */
    CHECK_STR(b.data, "node [Worker 1]");
    buf_clear(&b);
    profile_thread_label(p, 3, &b);
    CHECK_STR(b.data, "node [Worker 2]");
    buf_clear(&b);
    profile_thread_label(p, 1, &b);
    CHECK_STR(b.data, "node [V8 worker]");
    buf_clear(&b);
    profile_thread_label(p, 5, &b);
    CHECK_STR(b.data, "node [libuv]");
    /* several processes' recording: the pid in each label, and the labels read back as roles */
    p->thread_pids = 1;
    static const struct {
        uint32_t t;
        const char *label;
        thread_role_t role;
    } pid_labels[] = {
        {0, "node [pid 100 main]", THREAD_MAIN},
        {4, "node [pid 100 Worker 1]", THREAD_WORKER},
        {1, "node [pid 100 V8 worker]", THREAD_V8},
        {5, "node [pid 100 libuv]", THREAD_LIBUV},
    };
    for (size_t i = 0; i < sizeof pid_labels / sizeof *pid_labels; i++) {
        buf_clear(&b);
        profile_thread_label(p, pid_labels[i].t, &b);
        CHECK_STR(b.data, pid_labels[i].label);
        int known;
        CHECK_EQ_INT(profile_role_from_name(b.data, b.len, &known), pid_labels[i].role);
        CHECK_EQ_INT(known, 1);
    }
    p->thread_pids = 0;
    buf_free(&b);
    double w[6];
    profile_thread_weights(p, w);
    CHECK(w[0] == 8 && w[1] == 3 && w[2] == 1 && w[3] == 5 && w[4] == 4 && w[5] == 2);
    CHECK_EQ_INT(profile_thread_of_node(p, p->samples[2].node), 0);
    CHECK_EQ_INT(profile_thread_of_node(p, p->samples[4].node), 4);
    /* a thread renamed after it started keeps its node; the name says libuv only until a stack proves more */
    uint32_t again = profile_thread(p, 100, 104, "V8Worker", 8);
    CHECK_EQ_INT(again, 2);
    CHECK_STR(p->threads[2].name, "V8Worker");
    /* names across Node versions and producers */
    int known;
    CHECK_EQ_INT(profile_role_from_name("MainThread", 10, &known), THREAD_MAIN);
    CHECK_EQ_INT(profile_role_from_name("WorkerThread", 12, &known), THREAD_WORKER);
    CHECK_EQ_INT(profile_role_from_name("DelayedTaskSche", 15, &known), THREAD_V8);
    /* Node 25 and 26: "node-" before 24's names; "node-" before anything else is not Node's */
    CHECK_EQ_INT(profile_role_from_name("node-MainThread", 15, &known), THREAD_MAIN);
    CHECK_EQ_INT(profile_role_from_name("node-V8Worker", 13, &known), THREAD_V8);
    CHECK_EQ_INT(profile_role_from_name("node-foo", 8, &known), THREAD_OTHER);
    CHECK(!known);
    CHECK_EQ_INT(profile_role_from_name("node [Worker 3]", 15, &known), THREAD_WORKER);
    CHECK(known);
    CHECK_EQ_INT(profile_role_from_name("node", 4, &known), THREAD_OTHER);
    CHECK(!known);
    /* without pids (perf script's default fields) main is known by node::Start */
    profile_t *q = profile_new();
    uint32_t t = profile_thread(q, 0, 4242, "node", 4);
    CHECK_EQ_INT(q->threads[t].role, THREAD_OTHER);
    static const char *const m1[] = {"__libc_start_main", "main", "node::Start", "JS:*f a.js:1:1"};
    add_thread_stack(q, t, m1, 4, 1, -1);
    CHECK_EQ_INT(q->threads[t].role, THREAD_MAIN);
    profile_free(q);
    profile_free(p);
}

static char *view_folded(const profile_t *p, const char *pick_s, thread_roots_t roots, size_t *picked)
{
    thread_pick_t pick;
    CHECK_EQ_INT(profile_thread_pick_parse(pick_s, &pick), 0);
    profile_t *v = profile_thread_view(p, &pick, roots, picked);
    buf_t b = {0};
    folded_write_buf(v ? v : p, &b);
    profile_free(v);
    buf_putc(&b, 0);
    return b.data;
}

static void test_thread_views(void)
{
    profile_t *p = threaded_profile();
    size_t n;
    char *s = view_folded(p, "all", THREAD_ROOTS_ROLES, &n);
    CHECK_EQ_INT(n, 6);
    CHECK_STR(s, "node [V8 worker];start_thread;node::(anonymous namespace)::PlatformWorkerThread;"
                 "v8::internal::OptimizingCompileDispatcher::CompileTask::RunInternal 3\n"
                 "node [V8 worker];v8::internal::ScavengerCollector::JobTask::Run 1\n"
                 "node [Worker 1];start_thread;node::worker::Worker::Run;JS:*hot /app/a.js:1:1 4\n"
                 "node [Worker 2];start_thread;node::worker::Worker::Run;JS:*hot /app/a.js:1:1 5\n"
                 "node [libuv];start_thread;worker;sha512_block_data_order_avx2 2\n"
                 "node [main];main;node::Start;JS:*hot /app/a.js:1:1 6\n"
                 "node [main];main;node::Start;JS:~cold /app/a.js:9:1 2\n");
    free(s);
    /* merge: the stacks as before threads, the process frame (perf's comm) as root */
    s = view_folded(p, "all", THREAD_ROOTS_MERGE, &n);
    CHECK(strstr(s, "node;start_thread;node::worker::Worker::Run;JS:*hot /app/a.js:1:1 9\n") != NULL);
    CHECK(strstr(s, "V8_DefaultWorke;v8::internal::ScavengerCollector::JobTask::Run 1\n") != NULL);
    free(s);
    /* a .cpuprofile's view: the main thread's tree, no root frame */
    s = view_folded(p, "main", THREAD_ROOTS_NONE, &n);
    CHECK_EQ_INT(n, 1);
    CHECK_STR(s, "main;node::Start;JS:*hot /app/a.js:1:1 6\nmain;node::Start;JS:~cold /app/a.js:9:1 2\n");
    free(s);
    s = view_folded(p, "v8", THREAD_ROOTS_ROLES, &n);
    CHECK_EQ_INT(n, 2);
    free(s);
    s = view_folded(p, "111", THREAD_ROOTS_NONE, &n);
    CHECK_STR(s, "start_thread;node::worker::Worker::Run;JS:*hot /app/a.js:1:1 5\n");
    free(s);
    s = view_folded(p, "999", THREAD_ROOTS_NONE, &n);
    CHECK_EQ_INT(n, 0);
    CHECK_STR(s, "");
    free(s);
    /* the timeline follows the threads picked */
    thread_pick_t pick;
    profile_thread_pick_parse("main", &pick);
    profile_t *v = profile_thread_view(p, &pick, THREAD_ROOTS_NONE, NULL);
    CHECK_EQ_INT(v->nsamples, 2);
    CHECK(v->samples[0].time_us == 1000 && v->samples[1].time_us == 1200 && v->total == 8);
    profile_free(v);
    CHECK(profile_thread_pick_parse("mian", &pick) != 0);
    CHECK(profile_thread_pick_parse("-3", &pick) != 0);
    /* one implicit thread: nothing to do for all or main, nothing picked otherwise */
    profile_t *one = profile_new();
    uint32_t f = profile_frame_simple(one, "a", FRAME_NATIVE);
    profile_add_stack(one, &f, 1, 1);
    profile_thread_pick_parse("main", &pick);
    CHECK(profile_thread_view(one, &pick, THREAD_ROOTS_NONE, &n) == NULL && n == 1);
    profile_thread_pick_parse("libuv", &pick);
    v = profile_thread_view(one, &pick, THREAD_ROOTS_ROLES, &n);
    CHECK(n == 0 && v && v->total == 0);
    profile_free(v);
    profile_free(one);
    profile_free(p);
}

static void test_thread_merge_and_trace(void)
{
    profile_t *p = threaded_profile();
    /* merge carries threads over, matched on pid and tid, roles included */
    profile_t *q = profile_new();
    profile_merge(q, p, 1);
    profile_merge(q, p, 1);
    CHECK_EQ_INT(q->nthreads, 6);
    CHECK_EQ_INT(q->threads[3].role, THREAD_WORKER);
    CHECK(q->total == 2 * p->total);
    double w[6];
    profile_thread_weights(q, w);
    CHECK(w[0] == 16);
    profile_free(q);

    /* trace events: one profile per thread, read back as threads with their roles */
    const format_writer_t *tw = format_writer_by_name("trace");
    CHECK(tw != NULL);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK_EQ_INT(format_write(tw, p, f, &(write_opts_t){0}), 0);
    fclose(f);
    input_t *in = input_from_memory("t.json", text, len);
    profile_t *r = profile_new();
    CHECK_EQ_INT(format_detect(in) == format_reader_by_name("cpuprofile"), 1);
    CHECK_EQ_INT(format_reader_by_name("cpuprofile")->read(in, r, &(read_opts_t){0}), 0);
    input_close(in);
    CHECK_EQ_INT(r->nthreads, 6);
    for (size_t t = 0; t < r->nthreads; t++) {
        buf_t a = {0}, b = {0};
        profile_thread_label(r, (uint32_t)t, &a);
        for (size_t k = 0; k < p->nthreads; k++)
            if (p->threads[k].tid == r->threads[t].tid) profile_thread_label(p, (uint32_t)k, &b);
        CHECK_STR(a.data, b.data);
        buf_free(&a);
        buf_free(&b);
    }
    /* the same stacks per role, one sample each (the timeline's samples), V8 names split as in a .cpuprofile */
    char *x = view_folded(r, "all", THREAD_ROOTS_ROLES, NULL);
    CHECK(strstr(x, "node [main];main;node::Start;cold /app/a.js:9:1 1\n") != NULL);
    CHECK(strstr(x, "node [Worker 2];start_thread;node::worker::Worker::Run;hot /app/a.js:1:1 1\n") != NULL);
    CHECK_EQ_INT(r->nsamples, 7);
    free(x);
    free(text);
    /* a .cpuprofile holds the main thread */
    text = NULL;
    f = open_memstream(&text, &len);
    CHECK_EQ_INT(format_write(format_writer_by_name("cpuprofile"), p, f, &(write_opts_t){0}), 0);
    fclose(f);
    CHECK(strstr(text, "\"cold\"") && !strstr(text, "sha512") && !strstr(text, "Worker::Run"));
    free(text);
    profile_free(r);
    profile_free(p);
}

static profile_t *read_text(const char *name, const char *text)
{
    input_t *in = input_from_memory(name, text, strlen(text));
    profile_t *p = profile_new();
    const format_reader_t *r = format_detect(in);
    CHECK(r != NULL);
    if (r) CHECK_EQ_INT(r->read(in, p, &(read_opts_t){.no_timeline = 1}), 0);
    input_close(in);
    return p;
}

static uint32_t frame_named(const profile_t *p, const char *name)
{
    for (uint32_t f = 0; f < p->nframes; f++)
        if (!strcmp(p->frames[f].name, name)) return f;
    return UINT32_MAX;
}

/* Folded text's V8 names carry their definition site as fields, as perf's frames do: the same
 * stacks from both inputs are the same frames and merge into one tree; the text comes back. */
static void test_folded_url_fields(void)
{
    const char folded[] = "node;JS:*fib /app/fib.js:1:13;JS:~main /app/a.js:12:3 2\nnode;JS:^g :3:26 1\n"
                          "node;JS:*fib /app/fib.js:1:13_[j] 1\nnode;LazyCompile:~x node:internal/x:5:1 1\n";
    profile_t *p = read_text("mem.folded", folded);
    uint32_t f = frame_named(p, "JS:*fib");
    CHECK(f != UINT32_MAX);
    if (f != UINT32_MAX) {
        CHECK_STR(p->frames[f].url, "/app/fib.js");
        CHECK(p->frames[f].line == 1 && p->frames[f].column == 13 && p->frames[f].kind == FRAME_JS_TURBOFAN);
    }
    f = frame_named(p, "JS:~main");
    CHECK(f != UINT32_MAX && !strcmp(p->frames[f].url, "/app/a.js") && p->frames[f].line == 12);
    /* an annotated name keeps its text (the label would put the site before the annotation) */
    CHECK(frame_named(p, "JS:*fib /app/fib.js:1:13_[j]") != UINT32_MAX);
    buf_t out = {0};
    folded_write_buf(p, &out);
    CHECK_STR(out.data, "node;JS:*fib /app/fib.js:1:13;JS:~main /app/a.js:12:3 2\n"
                        "node;JS:*fib /app/fib.js:1:13_[j] 1\nnode;JS:^g :3:26 1\n"
                        "node;LazyCompile:~x node:internal/x:5:1 1\n");
    buf_free(&out);
    /* perf script without periods (weights in samples) of the same stack: one frame, one node */
    const char perf[] = "node 7 1.0: cpu-clock: \n\t    7f00 JS:*fib /app/fib.js:1:13+0x1 (/tmp/perf-7.map)\n\n";
    profile_t *q = read_text("mem.perf", perf);
    profile_t *m = profile_new();
    profile_merge(m, p, 1);
    size_t nodes = m->nnodes, frames = m->nframes;
    profile_merge(m, q, 1);
    CHECK_EQ_INT(m->nframes, frames + 2); /* new: the thread frame and perf's process frame; fib is not */
    CHECK_EQ_INT(m->nnodes, nodes + 3);   /* the thread, its process, fib under it */
    uint32_t fib = frame_named(m, "JS:*fib");
    size_t uses = 0;
    for (size_t i = 1; i < m->nnodes; i++) uses += m->nodes[i].frame == fib;
    CHECK_EQ_INT(uses, 2);
    profile_free(m);
    profile_free(q);
    profile_free(p);
}

/* Flame graphs draw children in the byte order of their labels, frames with fields included:
 * line 12 before line 9, as the folded text sorts. */
static void test_children_in_label_order(void)
{
    profile_t *p = profile_new();
    uint32_t a = profile_frame(p, "JS:*f", 5, "/a.js", 9, 1, FRAME_JS);
    uint32_t b = profile_frame(p, "JS:*f", 5, "/a.js", 12, 1, FRAME_JS);
    uint32_t c = profile_frame(p, "JS:*f.g", 7, "", 0, 0, FRAME_JS);
    uint32_t d = profile_frame(p, "JS:*f", 5, "", 0, 0, FRAME_JS);
    uint32_t e = profile_frame(p, "JS:*f /", 7, "", 0, 0, FRAME_JS);
    uint32_t fr[5] = {a, b, c, d, e};
    for (int i = 0; i < 5; i++) profile_add_stack(p, &fr[i], 1, 1);
    size_t n;
    uint32_t *kids = profile_sorted_children(p, 0, &n);
    CHECK_EQ_INT(n, 5);
    /* "JS:*f" < "JS:*f /" < "JS:*f /a.js:12:1" < "JS:*f /a.js:9:1" < "JS:*f.g" */
    uint32_t want[5] = {d, e, b, a, c};
    for (size_t i = 0; i < n && i < 5; i++) CHECK_EQ_INT(p->nodes[kids[i]].frame, want[i]);
    free(kids);
    profile_free(p);
}

/* A profile without a timeline whose weights are perf's ns becomes a sample per ms of them in a
 * .cpuprofile, not a sample per ns; large totals of other units are scaled to at most 1M samples. */
static void test_cpuprofile_weights_kept(void)
{
    profile_t *p = profile_new();
    p->weight_unit = strpool_cstr(p->strings, "ns");
    uint32_t f[2] = {profile_frame_simple(p, "main", FRAME_NATIVE), profile_frame_simple(p, "work", FRAME_NATIVE)};
    profile_add_stack(p, f, 2, 3e9);   /* 3 s */
    profile_add_stack(p, f, 1, 1.5e9); /* 1.5 s */
    char *text = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&text, &len);
    CHECK_EQ_INT(format_write(format_writer_by_name("cpuprofile"), p, mf, &(write_opts_t){0}), 0);
    fclose(mf);
    size_t commas = 0;
    const char *s = strstr(text, "\"samples\":["), *e = s ? strchr(s, ']') : NULL;
    for (const char *c = s; c && c < e; c++) commas += *c == ',';
    CHECK_EQ_INT(commas + 1, 4500); /* a sample per ms */
    CHECK(strstr(text, "\"endTime\":4500000}") != NULL);
    free(text);
    p->weight_unit = strpool_cstr(p->strings, "cycles");
    text = NULL;
    mf = open_memstream(&text, &len);
    CHECK_EQ_INT(format_write(format_writer_by_name("cpuprofile"), p, mf, &(write_opts_t){0}), 0);
    fclose(mf);
    CHECK(len < 16u << 20);
    CHECK(strstr(text, "\"hitCount\":666667") && strstr(text, "\"hitCount\":333333"));
    free(text);
    profile_free(p);
}

/* Frames whose labels print the same ("a;b" is written "a:b"): lines that print the same are one
 * line with the weights summed, as stackcollapse-perf.pl's hash of stacks gives them. */
static void test_folded_equal_labels(void)
{
    profile_t *p = profile_new();
    uint32_t x1 = profile_child(p, 0, profile_frame_simple(p, "a;b", FRAME_NATIVE));
    uint32_t y = profile_child(p, x1, profile_frame_simple(p, "z", FRAME_NATIVE));
    uint32_t x2 = profile_child(p, 0, profile_frame_simple(p, "a:b", FRAME_NATIVE));
    uint32_t y2 = profile_child(p, x2, profile_frame_simple(p, "y", FRAME_NATIVE));
    uint32_t z2 = profile_child(p, x2, profile_frame_simple(p, "z", FRAME_NATIVE));
    uint32_t q = profile_child(p, 0, profile_frame_simple(p, "a", FRAME_NATIVE));
    uint32_t r = profile_child(p, q, profile_frame_simple(p, "b", FRAME_NATIVE));
    profile_add_self(p, y, 1);
    profile_add_self(p, x1, 2);
    profile_add_self(p, y2, 3);
    profile_add_self(p, z2, 4);
    profile_add_self(p, q, 5);
    profile_add_self(p, r, 6);
    profile_add_self(p, x2, 7);
    buf_t out = {0};
    folded_write_buf(p, &out);
    buf_putc(&out, 0);
    CHECK_STR(out.data, "a 5\na:b 9\na:b;y 3\na:b;z 5\na;b 6\n");
    buf_free(&out);
    profile_free(p);
}

int main(void)
{
    test_folded_equal_labels();
    test_interning();
    test_tree();
    test_folded_round_trip();
    test_folded_sorted_like_text();
    test_split();
    test_classify();
    test_thread_roles();
    test_thread_views();
    test_thread_merge_and_trace();
    test_folded_url_fields();
    test_children_in_label_order();
    test_cpuprofile_weights_kept();
    return check_summary("test_profile");
}
