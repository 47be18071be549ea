/* perf script reader: fixtures recorded here with perf 6.1 and node 20
 * (tests/data/perf/), plus hand-made edge cases built from real lines. */
#include "check.h"
#include "formats/folded.h"
#include "formats/format.h"
#include "formats/perf_opts.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/options.h"
#include <stdlib.h>
#include <string.h>

static const char *data_dir(void)
{
    const char *d = getenv("TESTDATA");
    return d ? d : "tests/data";
}

/* Reads TESTDATA/rel with the perf reader into a new profile (NULL on error). */
static profile_t *read_file(const char *rel, const read_opts_t *o)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", data_dir(), rel);
    profile_t *p = profile_new();
    read_opts_t defaults = {0};
    defaults.to_ms = 1e300;
    if (format_read_path(path, p, o ? o : &defaults) != 0) {
        profile_free(p);
        return NULL;
    }
    return p;
}

static profile_t *read_text(const char *text, const read_opts_t *o)
{
    const format_reader_t *r = format_reader_by_name("perf");
    input_t *in = input_from_memory("mem", text, strlen(text));
    profile_t *p = profile_new();
    read_opts_t defaults = {0};
    int rc = r->read(in, p, o ? o : &defaults);
    input_close(in);
    if (rc) {
        profile_free(p);
        return NULL;
    }
    return p;
}

/* Folded text with the stacks as before threads (--threads merge): what these tests check
 * is parsing; the thread roots have their own test. */
static char *folded(const profile_t *p)
{
    buf_t b = {0};
    profile_t *v = profile_thread_view(p, NULL, THREAD_ROOTS_MERGE, NULL);
    folded_write_buf(v ? v : p, &b);
    profile_free(v);
    if (!b.data) buf_puts(&b, "");
    return b.data;
}

static const profile_frame_t *find_frame(const profile_t *p, const char *name)
{
    for (size_t i = 0; i < p->nframes; i++)
        if (!strcmp(p->frames[i].name, name)) return &p->frames[i];
    return NULL;
}

/* Weight of stacks whose folded text contains needle. */
static double weight_with(const char *text, const char *needle)
{
    double w = 0;
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        const char *sp = l + len;
        while (sp > l && sp[-1] != ' ') sp--;
        if (memmem(l, len, needle, strlen(needle))) w += atof(sp);
        l += len + (nl != NULL);
    }
    return w;
}

static void test_node_default(void)
{
    profile_t *p = read_file("perf/node_default.txt", NULL);
    CHECK(p != NULL);
    if (!p) return;
    char *f = folded(p);
    /* 28 samples of 2004008 ns each (perf's cpu-clock period) */
    CHECK(p->total == 28.0 * 2004008);
    CHECK_EQ_INT(p->nsamples, 28);
    CHECK(p->samples[0].time_us == 2145946012.0 || p->samples[0].time_us > 2e9);
    CHECK(p->end_us >= p->start_us);
    /* offsets stripped, V8 tier markers and positions kept */
    CHECK(strstr(f, "JS:*parseRecords /work/main/examples/busy.js:4:22") != NULL);
    CHECK(strstr(f, "+0x") == NULL);
    /* ... as the frame's fields: the name keeps V8's prefix and tier, the site is url:line:column */
    const profile_frame_t *fr = find_frame(p, "JS:*parseRecords");
    CHECK(fr && fr->kind == FRAME_JS_TURBOFAN);
    CHECK(fr && !strcmp(fr->url, "/work/main/examples/busy.js") && fr->line == 4 && fr->column == 22);
    CHECK(find_frame(p, "JS:*parseRecords /work/main/examples/busy.js:4:22") == NULL);
    fr = find_frame(p, "entry_SYSCALL_64_after_hwframe");
    if (!fr) fr = find_frame(p, "asm_exc_page_fault");
    CHECK(fr && fr->kind == FRAME_KERNEL);
    fr = find_frame(p, "node");
    CHECK(fr && fr->kind == FRAME_PROCESS);
    fr = find_frame(p, "__libc_start_call_main");
    CHECK(fr && fr->kind == FRAME_NATIVE);
    /* every line starts with the process frame */
    CHECK(!strncmp(f, "node;", 5));
    free(f);
    profile_free(p);
}

static void test_annotations(void)
{
    read_opts_t o = {0};
    perf_read_opts_t o_p = {0};
    format_reader_opts_set(&o, "perf", &o_p);
    o_p.annotate_kernel = o_p.annotate_jit = 1;
    o_p.with_pid = 1;
    profile_t *p = read_file("perf/node_default.txt", &o);
    CHECK(p != NULL);
    if (!p) return;
    char *f = folded(p);
    CHECK(strstr(f, "node-?;") == f); /* default perf script prints no PID: Perl writes '?' */
    CHECK(strstr(f, "_[k]") != NULL);
    CHECK(strstr(f, "JS:*parseRecords /work/main/examples/busy.js:4:22_[j]") != NULL);
    CHECK(strstr(f, "__libc_start_call_main_[") == NULL);
    CHECK(find_frame(p, "asm_exc_page_fault_[k]") == NULL ||
          find_frame(p, "asm_exc_page_fault_[k]")->kind == FRAME_KERNEL);
    free(f);
    profile_free(p);
}

static void test_multi_fields(void)
{
    read_opts_t o = {0};
    perf_read_opts_t o_p = {0};
    format_reader_opts_set(&o, "perf", &o_p);
    o_p.with_tid = 1;
    profile_t *p = read_file("perf/multi_fields.txt", &o);
    CHECK(p != NULL);
    if (!p) return;
    char *f = folded(p);
    /* several processes and threads, and a one-character comm ('t', a symlink to node) */
    CHECK(strstr(f, "\nt-7579/7579;") != NULL || !strncmp(f, "t-7579/7579;", 12));
    CHECK(strstr(f, "node-7580/7593;") != NULL);
    CHECK(strstr(f, "sh-7577/7577;") != NULL);
    CHECK(strstr(f, "2396.") == NULL); /* no time in a frame (the Perl 1-char comm bug) */
    free(f);
    profile_free(p);
}

static void test_single_line(void)
{
    profile_t *p = read_file("perf/single_line.txt", NULL);
    CHECK(p != NULL);
    if (!p) return;
    /* perf script -F comm,pid,ip,sym -G: 40 samples, one frame each, weight 1 (no period) */
    CHECK(p->total == 40);
    char *f = folded(p);
    CHECK(strstr(f, "node;ext4_mpage_readpages ") != NULL);
    free(f);
    profile_free(p);
}

static void test_edge_cases(void)
{
    profile_t *p = read_file("perf/edge_cases.txt", NULL);
    CHECK(p != NULL);
    if (!p) return;
    char *f = folded(p);
    CHECK_STR(f, "V8_WorkerThread;[unknown];entry_SYSCALL_64_after_hwframe;[libc.so.6];outer;middle_[i];inner_[i];"
                 "net/http.(*Client).Do;(anonymous namespace)::Visit;std::function<int (int, int)>::operator;"
                 "JS:*fib /app/a.js:14:13;RegExp:(\\\\s+)|(\"x\") 1001001\n"
                 "a;main;malloc 1001001\n"
                 "node;uv_run;JS:~<anonymous> /app/a.js:1:1 2002002\n");
    free(f);
    profile_free(p);

    /* --perl-compat reproduces the Perl script's output for the same file */
    read_opts_t o = {0};
    perf_read_opts_t o_p = {0};
    format_reader_opts_set(&o, "perf", &o_p);
    o_p.perl_compat = 1;
    p = read_file("perf/edge_cases.txt", &o);
    CHECK(p != NULL);
    if (!p) return;
    f = folded(p);
    CHECK_STR(f, "V8_WorkerThread;[unknown];entry_SYSCALL_64_after_hwframe;[libc.so.6];outer;middle_[i];inner_[i];"
                 "net/http.(*Client).Do;std::function<int ;JS:*fib /app/a.js:14:13;RegExp: 1001001\n"
                 "a_99076/99076_10314749.002559:;main;malloc 1001001\n");
    free(f);
    profile_free(p);

    /* an explicit event filter */
    read_opts_t e = {0};
    perf_read_opts_t e_p = {0};
    format_reader_opts_set(&e, "perf", &e_p);
    e_p.event_filter = "page-faults";
    p = read_file("perf/edge_cases.txt", &e);
    CHECK(p != NULL);
    if (!p) return;
    f = folded(p);
    CHECK_STR(f, "node;memset 1001001\n");
    free(f);
    profile_free(p);
}

static void test_addrs_and_time(void)
{
    const char *text = "node 10/11 100.000000: 5 cycles:\n"
                       "\t7f00 [unknown] ([unknown])\n"
                       "\t98930 main+0x4 (/usr/bin/node)\n"
                       "\n"
                       "node 10/11 100.002000: 7 cycles:\n"
                       "\t7f08 [unknown] ([unknown])\n"
                       "\t98930 main+0x4 (/usr/bin/node)\n"
                       "\n"
                       "node 10/11 100.010000: 9 cycles:\n"
                       "\t98930 main+0x4 (/usr/bin/node)\n";
    read_opts_t o = {0};
    perf_read_opts_t o_p = {0};
    format_reader_opts_set(&o, "perf", &o_p);
    o_p.with_addrs = 1;
    profile_t *p = read_text(text, &o);
    CHECK(p != NULL);
    if (!p) return;
    char *f = folded(p);
    CHECK_STR(f, "node;main 9\nnode;main;[unknown <7f00>] 5\nnode;main;[unknown <7f08>] 7\n");
    CHECK_EQ_INT(p->nsamples, 3);
    CHECK(p->nsamples == 3 && p->samples[1].time_us == 100002000.0 && p->samples[1].weight == 7);
    free(f);
    profile_free(p);

    /* a time window relative to the first sample */
    read_opts_t w = {0};
    w.has_time_range = 1;
    w.from_ms = 1;
    w.to_ms = 5;
    p = read_text(text, &w);
    CHECK(p != NULL);
    if (!p) return;
    f = folded(p);
    CHECK_STR(f, "node;main;[unknown] 7\n");
    free(f);
    profile_free(p);
}

static void test_errors_and_sniff(void)
{
    diag_verbosity = -1;
    CHECK(read_text("", NULL) == NULL);
    CHECK(read_text("\x01\x02garbage\x00\xff\n", NULL) == NULL);
    CHECK(read_text("just some words\nand more\n", NULL) == NULL);
    /* truncated in the middle of a callchain line: still reads what is complete */
    profile_t *p = read_text("node 1 1.0: 3 cycles:\n\t98930 ma", NULL);
    CHECK(p != NULL);
    if (p) CHECK(p->total == 3);
    profile_free(p);
    diag_verbosity = 0;

    const format_reader_t *perf = format_reader_by_name("perf");
    const char *perf_head =
        "node  4692   510.896658:    3344481 cpu-clock:ppp: \n\tffffffff82238015 mas_find+0xb5 ([kernel.kallsyms])\n";
    const char *dtrace_head = "\n\n              node`main+0x1b\n              node`_start+0x83\n               17\n";
    const char *folded_head = "node;main;foo 12\nnode;main 3\n";
    const format_reader_t *dt = format_reader_by_name("dtrace");
    const format_reader_t *fo = format_reader_by_name("folded");
    CHECK(dt != NULL && fo != NULL);
    if (!dt || !fo) return;
    CHECK(perf->sniff(perf_head, strlen(perf_head)) > dt->sniff(perf_head, strlen(perf_head)));
    CHECK(perf->sniff(perf_head, strlen(perf_head)) > fo->sniff(perf_head, strlen(perf_head)));
    CHECK(dt->sniff(dtrace_head, strlen(dtrace_head)) > perf->sniff(dtrace_head, strlen(dtrace_head)));
    CHECK(dt->sniff(dtrace_head, strlen(dtrace_head)) > fo->sniff(dtrace_head, strlen(dtrace_head)));
    CHECK(fo->sniff(folded_head, strlen(folded_head)) > perf->sniff(folded_head, strlen(folded_head)));
    CHECK(fo->sniff(folded_head, strlen(folded_head)) > dt->sniff(folded_head, strlen(folded_head)));
}

static void test_shares(void)
{
    /* the busy.js fixture: parseRecords is the largest JS function */
    profile_t *p = read_file("perf/node_default.txt", NULL);
    if (!p) return;
    char *f = folded(p);
    double parse = weight_with(f, "parseRecords"), sort = weight_with(f, "sortNumbers");
    CHECK(parse > sort);
    CHECK(parse > 0 && sort > 0);
    free(f);
    profile_free(p);
}

/* Inputs the reader must read as inferno does (tests/data/perf/{unindented,rust,
 * vmlinux_versioned,event_modifiers,java}.txt; whole outputs in collapse_cases). */
static void test_peer_cases(void)
{
    /* callchain lines without indentation (perf 3.x): detected and read */
    const format_reader_t *perf = format_reader_by_name("perf");
    const char *old = "java 19983 cycles: \nffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n"
                      "7f72432b4e9a start_thread (/lib/x86_64-linux-gnu/libpthread-2.15.so)\n\n";
    CHECK(perf->sniff(old, strlen(old)) > 0);
    profile_t *p = read_file("perf/unindented.txt", NULL);
    CHECK(p != NULL);
    if (p) {
        const profile_frame_t *k = find_frame(p, "native_write_msr_safe");
        CHECK(k && k->kind == FRAME_KERNEL);
        CHECK(p->total == 3);
        profile_free(p);
    }

    /* Rust: every scheme demangled, no hash left */
    p = read_file("perf/rust.txt", NULL);
    CHECK(p != NULL);
    if (p) {
        CHECK(find_frame(p, "rayon_core::registry::Registry::in_worker_cold") != NULL);
        CHECK(find_frame(p, "<core::fmt::Formatter>::write_str") != NULL);
        CHECK(find_frame(p, "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop") != NULL);
        CHECK(find_frame(p, "my_addon::parse::{{closure}}") != NULL);
        CHECK(find_frame(p, "std::sys::unix::fs::File::open") != NULL);
        CHECK(find_frame(p, "<core::str::Chars<'a> as core::iter::traits::iterator::Iterator>::next") != NULL);
        profile_free(p);
    }
    read_opts_t perl = {0};
    perf_read_opts_t perl_p = {0};
    format_reader_opts_set(&perl, "perf", &perl_p);
    perl.to_ms = 1e300;
    perl_p.perl_compat = 1; /* the Perl script leaves them as perf printed them */
    p = read_file("perf/rust.txt", &perl);
    CHECK(p && find_frame(p, "std::sys::unix::fs::File::open::hb90e1c1c787080f0") != NULL);
    profile_free(p);

    /* a versioned vmlinux is kernel; --kernel annotates it */
    read_opts_t kern = {0};
    perf_read_opts_t kern_p = {0};
    format_reader_opts_set(&kern, "perf", &kern_p);
    kern.to_ms = 1e300;
    kern_p.annotate_kernel = 1;
    p = read_file("perf/vmlinux_versioned.txt", &kern);
    CHECK(p != NULL);
    if (p) {
        const profile_frame_t *f = find_frame(p, "do_idle_[k]");
        CHECK(f && f->kind == FRAME_KERNEL);
        CHECK(find_frame(p, "bpf_prog_2b956549c660136a_uni_l4lb") != NULL); /* a BPF program is not */
        profile_free(p);
    }

    /* cycles:u, cycles, cycles:ppp: one event, every sample kept; instructions:u skipped */
    diag_verbosity = -1;
    p = read_file("perf/event_modifiers.txt", NULL);
    diag_verbosity = 0;
    CHECK(p != NULL);
    if (p) {
        CHECK(p->total == 34467 + 12000 + 2000);
        profile_free(p);
    }
    read_opts_t ev = {0};
    perf_read_opts_t ev_p = {0};
    format_reader_opts_set(&ev, "perf", &ev_p);
    ev.to_ms = 1e300;
    ev_p.event_filter = "instructions";
    p = read_file("perf/event_modifiers.txt", &ev);
    CHECK(p && p->total == 3000);
    profile_free(p);

    /* Java frames lose the 'L' in a java process only; a frame without a symbol is " " */
    p = read_file("perf/java.txt", NULL);
    CHECK(p != NULL);
    if (p) {
        CHECK(find_frame(p, "sun/nio/ch/FileDispatcherImpl:.write0") != NULL);
        CHECK(find_frame(p, "io/netty/util/Recycler:.get_[i]") != NULL);
        CHECK(find_frame(p, "Lio/netty/channel/nio/AbstractNioByteChannel:.doWrite") != NULL); /* comm node */
        CHECK(find_frame(p, " ") != NULL);
        profile_free(p);
    }
}

/* Weights are periods; their unit says what a period counts (profile.weight_unit). */
static void test_weight_unit(void)
{
    profile_t *p = read_file("perf/node_default.txt", NULL); /* cpu-clock:ppp: ns */
    CHECK(p && !strcmp(p->weight_unit, "ns"));
    profile_free(p);
    p = read_file("perf/single_line.txt", NULL); /* -F comm,pid,ip,sym: no period */
    CHECK(p && !strcmp(p->weight_unit, "samples"));
    profile_free(p);
    diag_verbosity = -1;
    p = read_file("perf/event_modifiers.txt", NULL); /* cycles:u: cycles */
    CHECK(p && !strcmp(p->weight_unit, "cycles"));
    profile_free(p);
    setenv("NODESCOPE_PERF_THREADS", "3", 1); /* the parallel reader sets it too */
    p = read_file("perf/event_modifiers.txt", NULL);
    CHECK(p && !strcmp(p->weight_unit, "cycles"));
    profile_free(p);
    unsetenv("NODESCOPE_PERF_THREADS");
    diag_verbosity = 0;
    p = read_text("node 1 1.0: 3 task-clock:\n\t98930 main (/a)\n", NULL);
    CHECK(p && !strcmp(p->weight_unit, "ns"));
    profile_free(p);
}

/* Every sample is attached to its thread: pid/tid and comm from the event line, the role from
 * tid == pid, the name, or the thread entry frames of the stack. --perl-compat keeps none. */
static void test_threads(void)
{
    const char *text = "node 500/500 [000] 10.000100: 1001001 cpu-clock:ppp: \n"
                       "\t7f00 JS:*hot /app/a.js:1:1 (/tmp/perf-500.map)\n"
                       "\t55a0 node::Start+0x10 (/usr/bin/node)\n"
                       "\t7fa0 __libc_start_main+0x80 (/usr/lib/libc.so.6)\n"
                       "\n"
                       "node 500/503 [001] 10.000200: 1001001 cpu-clock:ppp: \n"
                       "\t55b0 v8::internal::compiler::PipelineImpl::OptimizeGraph+0x1 (/usr/bin/node)\n"
                       "\t55b8 node::(anonymous namespace)::PlatformWorkerThread+0x3 (/usr/bin/node)\n"
                       "\t7fa8 start_thread+0x5 (/usr/lib/libc.so.6)\n"
                       "\n"
                       "node 500/503 [001] 10.000300: 1001001 cpu-clock:ppp: \n"
                       "\t55b0 v8::internal::compiler::PipelineImpl::OptimizeGraph+0x1 (/usr/bin/node)\n"
                       "\n"
                       "node 500/510 [001] 10.000400: 1001001 cpu-clock:ppp: \n"
                       "\t7f00 JS:*hot /app/a.js:1:1 (/tmp/perf-500.map)\n"
                       "\t55c0 node::worker::Worker::Run+0x9 (/usr/bin/node)\n"
                       "\t7fa8 start_thread+0x5 (/usr/lib/libc.so.6)\n"
                       "\n"
                       "libuv-worker 500/520 [001] 10.000500: 1001001 cpu-clock:ppp: \n"
                       "\t7fb0 sha512_block_data_order_avx2+0x5 (/usr/lib/libcrypto.so.3)\n"
                       "\n";
    read_opts_t o = {0};
    perf_read_opts_t o_p = {0};
    format_reader_opts_set(&o, "perf", &o_p);
    o.to_ms = 1e300;
    profile_t *p = read_text(text, &o);
    CHECK(p != NULL);
    CHECK_EQ_INT(p->nthreads, 4);
    CHECK_EQ_INT(p->threads[0].role, THREAD_MAIN);
    CHECK_EQ_INT(p->threads[1].role, THREAD_V8);
    CHECK_EQ_INT(p->threads[2].role, THREAD_WORKER);
    CHECK_EQ_INT(p->threads[3].role, THREAD_LIBUV);
    CHECK_EQ_INT(p->threads[1].tid, 503);
    CHECK_EQ_INT(p->threads[1].pid, 500);
    const format_writer_t *w = format_writer_by_name("folded");
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    CHECK_EQ_INT(format_write(w, p, f, &(write_opts_t){0}), 0);
    fclose(f);
    CHECK_STR(out, "node [V8 worker];start_thread;node::(anonymous namespace)::PlatformWorkerThread;"
                   "v8::internal::compiler::PipelineImpl::OptimizeGraph 1001001\n"
                   "node [V8 worker];v8::internal::compiler::PipelineImpl::OptimizeGraph 1001001\n"
                   "node [Worker 1];start_thread;node::worker::Worker::Run;JS:*hot /app/a.js:1:1 1001001\n"
                   "node [libuv];sha512_block_data_order_avx2 1001001\n"
                   "node [main];__libc_start_main;node::Start;JS:*hot /app/a.js:1:1 1001001\n");
    free(out);
    /* --threads merge: as before threads */
    char *m = folded(p);
    CHECK(strstr(m, "node;start_thread;node::worker::Worker::Run;JS:*hot /app/a.js:1:1 1001001\n") != NULL);
    free(m);
    profile_free(p);
    o_p.perl_compat = 1;
    p = read_text(text, &o);
    CHECK(p && p->nthreads == 0);
    profile_free(p);
}

/* The reader declares its own options (format_reader_t.options): a table whose targets are its
 * options struct, found again through read_opts_t by format_reader_opts; other readers have none. */
static void test_reader_options(void)
{
    const format_reader_t *r = format_reader_by_name("perf");
    CHECK(r && r->options && r->opts_size == sizeof(perf_read_opts_t));
    perf_read_opts_t po = {0};
    opt_t table[FORMAT_READER_MAX_OPTS];
    r->options(&po, table);
    int seen = 0;
    for (size_t i = 0; i < FORMAT_READER_MAX_OPTS && table[i].kind != OPT_KIND_END; i++) {
        if (table[i].name && !strcmp(table[i].name, "pid")) {
            CHECK(table[i].target == &po.with_pid);
            seen++;
        }
        if (table[i].name && !strcmp(table[i].name, "perl-compat")) {
            CHECK(table[i].help == NULL);
            seen++;
        }
    }
    CHECK_EQ_INT(seen, 2);
    read_opts_t o = {0};
    CHECK(format_reader_opts(&o, r) == NULL);
    CHECK_EQ_INT(format_reader_opts_set(&o, "perf", &po), 0);
    CHECK(format_reader_opts(&o, r) == &po);
    CHECK_EQ_INT(format_reader_opts_set(&o, "nonesuch", &po), -1);
    const format_reader_t *f = format_reader_by_name("folded");
    CHECK(f && !f->options && format_reader_opts(&o, f) == NULL);
}

int main(void)
{
    test_reader_options();
    test_node_default();
    test_annotations();
    test_multi_fields();
    test_single_line();
    test_edge_cases();
    test_addrs_and_time();
    test_errors_and_sniff();
    test_shares();
    test_peer_cases();
    test_weight_unit();
    test_threads();
    return check_summary("test_perf_script");
}
