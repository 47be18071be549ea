/* DTrace reader: a jstack() aggregation with Node's ustack helper frames
 * (tests/data/dtrace/node_jstack.txt, in the layout of seed 003 / FlameGraph's DTrace examples). */
#include "check.h"
#include "formats/folded.h"
#include "formats/format.h"
#include "util/buf.h"
#include "util/diag.h"
#include <stdlib.h>
#include <string.h>

static profile_t *read_text(const char *text)
{
    const format_reader_t *r = format_reader_by_name("dtrace");
    input_t *in = input_from_memory("mem", text, strlen(text));
    profile_t *p = profile_new();
    read_opts_t o = {0};
    int rc = r->read(in, p, &o);
    input_close(in);
    if (rc) {
        profile_free(p);
        return NULL;
    }
    return p;
}

static char *folded(const profile_t *p)
{
    buf_t b = {0};
    folded_write_buf(p, &b);
    if (!b.data) buf_puts(&b, "");
    return b.data;
}

static const profile_frame_t *find_frame(const profile_t *p, const char *name)
{
    for (size_t i = 0; i < p->nframes; i++)
        if (!strcmp(p->frames[i].name, name)) return &p->frames[i];
    return NULL;
}

static void test_fixture(void)
{
    const char *dir = getenv("TESTDATA") ? getenv("TESTDATA") : "tests/data";
    char path[4096];
    snprintf(path, sizeof path, "%s/dtrace/node_jstack.txt", dir);
    profile_t *p = profile_new();
    read_opts_t o = {0};
    CHECK(format_read_path(path, p, &o) == 0); /* detected as dtrace */
    char *f = folded(p);
    CHECK(p->total == 17 + 5 + 3 + 40);
    CHECK(strstr(f, "node`_start;node`main;node`uv_run 40\n") != NULL);
    CHECK(strstr(f, "node`_start;node`main 3\n") != NULL);
    /* root first, helper frames kept verbatim, offsets and C++ parameter lists dropped */
    CHECK(strstr(f,
                 "node`_start;node`main;node`v8::internal::Execution::Call;node`v8::internal::Invoke;"
                 "<< entry >>;<< internal >>;>> writeOrBuffer at _stream_writable.js position 6420;<< adaptor >>;") !=
          NULL);
    CHECK(strstr(f, "node`std::function<int (int, int)>::operator 5\n") != NULL);
    CHECK(strstr(f, "node`parse;inner_helper_[i];") != NULL);
    CHECK(strstr(f, "+0x") == NULL);
    const profile_frame_t *fr = find_frame(p, ">> parseRecords at /app/busy.js position 120");
    CHECK(fr && fr->kind == FRAME_JS);
    fr = find_frame(p, "<< internal code >>");
    CHECK(fr && fr->kind == FRAME_BUILTIN);
    fr = find_frame(p, "node`uv_run");
    CHECK(fr && fr->kind == FRAME_NATIVE);
    free(f);
    profile_free(p);
}

static void test_text(void)
{
    /* dtrace -q output: no header lines, nothing lost (stackcollapse.pl skips 3 lines blindly) */
    profile_t *p = read_text("              libc.so.1`__write+0x15\n"
                             "              node`main+0x1b\n"
                             "               2\n"
                             "\n"
                             "              genunix`kmem_free+0x1\n"
                             "              \n"
                             "              unix`sys_syscall+0x17a\n"
                             "                1\n");
    CHECK(p != NULL);
    if (!p) return;
    char *f = folded(p);
    CHECK_STR(f, "node`main;libc.so.1`__write 2\nunix`sys_syscall;genunix`kmem_free 1\n");
    const profile_frame_t *fr = find_frame(p, "genunix`kmem_free");
    CHECK(fr && fr->kind == FRAME_KERNEL);
    free(f);
    profile_free(p);

    diag_verbosity = -1;
    CHECK(read_text("") == NULL);
    CHECK(read_text("   node`main\n") == NULL);       /* no count */
    CHECK(read_text("\xff\xfe garbage\n\n") == NULL); /* frames but no count */
    diag_verbosity = 0;
}

int main(void)
{
    test_fixture();
    test_text();
    return check_summary("test_dtrace");
}
