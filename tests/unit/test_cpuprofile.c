/* The .cpuprofile reader on small hand-written profiles: nodes of one function
 * under one parent merge, special nodes get their kinds, the inspector's
 * {"profile": ...} wrapper, the timeline (first delta relative to startTime),
 * --from-time/--to-time, and positionTicks. */
#include "check.h"
#include "formats/format.h"
#include "util/diag.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern const format_reader_t format_cpuprofile_reader;

static profile_t *read_text(const char *text, const read_opts_t *o)
{
    input_t *in = input_from_memory("t.cpuprofile", text, strlen(text));
    profile_t *p = profile_new();
    read_opts_t none = {0};
    if (format_cpuprofile_reader.read(in, p, o ? o : &none) != 0) {
        profile_free(p);
        p = NULL;
    }
    input_close(in);
    return p;
}

static const profile_frame_t *frame_named(const profile_t *p, const char *name)
{
    for (size_t i = 0; i < p->nframes; i++)
        if (!strcmp(p->frames[i].name, name)) return &p->frames[i];
    return NULL;
}

#define CF(name, url, line, col)                                                                                       \
    "\"callFrame\":{\"functionName\":\"" name "\",\"url\":\"" url "\",\"lineNumber\":" #line ",\"columnNumber\":" #col \
    "}"
static const char *PROFILE =
    "{\"profile\":{\"nodes\":["
    "{\"id\":1," CF("(root)", "", -1,
                    -1) ",\"children\":[2,3,4,5,6]},"
                        "{\"id\":2," CF(
                            "f", "a.js", 0,
                            10) ",\"hitCount\":1,\"positionTicks\":[{\"line\":2,\"ticks\":1}]},"
                                "{\"id\":3," CF(
                                    "f", "a.js", 0,
                                    10) ",\"hitCount\":2,\"positionTicks\":[{\"line\":3,\"ticks\":2}]},"
                                        "{\"id\":4," CF(
                                            "(program)", "", -1,
                                            -1) "},"
                                                "{\"id\":5," CF(
                                                    "(idle)", "", -1,
                                                    -1) "},"
                                                        "{\"id\":6," CF(
                                                            "(garbage collector)", "", -1,
                                                            -1) "}],"
                                                                "\"startTime\":1000,\"endTime\":2000,\"samples\":[2,3,"
                                                                "3,4,5,6],\"timeDeltas\":[100,100,100,100,100,100]}}";

/* A negative timeDelta (V8 writes them now and then) keeps time in order without
 * losing the deficit: the samples end where V8's do. */
static void test_negative_delta(void)
{
    static const char *text = "{\"nodes\":[{\"id\":1," CF(
        "(root)", "", -1,
        -1) ",\"children\":[2]},"
            "{\"id\":2," CF("f", "a.js", 0,
                            0) "}],"
                               "\"startTime\":0,\"endTime\":17,\"samples\":[2,2,2,2],\"timeDeltas\":[0,10,-3,10]}";
    profile_t *p = read_text(text, NULL);
    CHECK(p && p->nsamples == 4);
    if (p && p->nsamples == 4) {
        CHECK_EQ_INT(p->samples[1].time_us, 10);
        CHECK_EQ_INT(p->samples[2].time_us, 10); /* not 7: time never runs backwards */
        CHECK_EQ_INT(p->samples[3].time_us, 17); /* not 20: the deficit is not lost */
    }
    profile_free(p);
}

/* A timeline in fractional µs (the live sampler's nanosecond clock) is written as whole-µs deltas
 * that add up to each sample's own time, rounded once: rounding each difference drifted (half a
 * µs a sample at most, 3 µs over 3,000 live samples), and a profile's times must line up with V8's. */
static void test_written_times_do_not_drift(void)
{
    profile_t *p = profile_new();
    uint32_t f = profile_frame(p, "f", 1, "a.js", 1, 1, FRAME_JS);
    uint32_t leaf = profile_add_stack(p, &f, 1, 0);
    enum { N = 3000 };
    for (int i = 0; i < N; i++) {
        profile_add_self(p, leaf, 1);
        profile_add_sample(p, 1000.3 + i * 1000.6, leaf, 1);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK_EQ_INT(format_write(format_writer_by_name("cpuprofile"), p, out, &(write_opts_t){0}), 0);
    fclose(out);
    profile_t *r = read_text(text, NULL);
    CHECK(r && r->nsamples == N);
    double worst = 0;
    for (size_t i = 0; r && i < r->nsamples && i < N; i++) {
        double d = fabs(r->samples[i].time_us - p->samples[i].time_us);
        if (d > worst) worst = d;
    }
    CHECK(worst <= 0.5);
    profile_free(r);
    profile_free(p);
    free(text);
}

int main(void)
{
    diag_verbosity = -1;
    test_negative_delta();
    test_written_times_do_not_drift();
    profile_t *p = read_text(PROFILE, NULL);
    CHECK(p != NULL);
    if (p) {
        /* root + f (ids 2 and 3 merged) + three special nodes */
        CHECK_EQ_INT(p->nnodes, 5);
        CHECK_EQ_INT(p->total, 6);
        CHECK_EQ_INT(p->nsamples, 6);
        CHECK_EQ_INT(p->samples[0].time_us, 1100); /* first delta relative to startTime */
        CHECK_EQ_INT(p->samples[5].time_us, 1600);
        const profile_frame_t *f = frame_named(p, "f");
        CHECK(f && f->line == 1 && f->column == 11 && !strcmp(f->url, "a.js") && f->kind == FRAME_JS);
        CHECK(frame_named(p, "(program)") && frame_named(p, "(program)")->kind == FRAME_PROGRAM);
        CHECK(frame_named(p, "(idle)") && frame_named(p, "(idle)")->kind == FRAME_IDLE);
        CHECK(frame_named(p, "(garbage collector)") && frame_named(p, "(garbage collector)")->kind == FRAME_GC);
        CHECK(!frame_named(p, "(root)")); /* the tree's root, not a frame */
        double ticks2 = 0, ticks3 = 0;
        for (size_t i = 0; i < p->nticks; i++) {
            if (p->ticks[i].line == 2) ticks2 += p->ticks[i].ticks;
            if (p->ticks[i].line == 3) ticks3 += p->ticks[i].ticks;
        }
        CHECK_EQ_INT(ticks2, 1);
        CHECK_EQ_INT(ticks3, 2);
        profile_free(p);
    }
    /* a time window: 0.15 ms .. 0.35 ms from the start keeps the samples at 200 and 300 µs */
    read_opts_t o = {0};
    o.has_time_range = 1, o.from_ms = 0.15, o.to_ms = 0.35;
    p = read_text(PROFILE, &o);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_INT(p->total, 2);
        profile_free(p);
    }
    /* errors, not crashes */
    CHECK(read_text("{\"nodes\":[{\"id\":1}]}", NULL) == NULL);
    CHECK(read_text("{\"nodes\":[]}", NULL) == NULL);
    CHECK(read_text("[1,2]", NULL) == NULL);
    CHECK(read_text("{\"nodes\":[{\"id\":1," CF("(root)", "", -1, -1) "},{\"id\":1," CF("x", "", 0, 0) "}]}", NULL) ==
          NULL);
    return check_summary("test_cpuprofile");
}
