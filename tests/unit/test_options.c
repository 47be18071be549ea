/* util/options: the table-driven option parser every command uses; and profile/units' unit check. */
#include "check.h"
#include "profile/units.h"
#include "util/diag.h"
#include "util/options.h"
#include <stdlib.h>
#include <unistd.h>

static const char *out;
static int json, verbose, flag_a, flag_b, calls;
static double limit;
static long count;

static int check_even(void *t, const char *arg)
{
    calls++;
    long v = strtol(arg, NULL, 10);
    if (v % 2) return opt_fail("--even takes an even number, not '%s'", arg);
    *(long *)t = v;
    return 0;
}

static long even;

static const opt_t table[] = {
    OPT_STR("output", 'o', "FILE", "where", &out),
    OPT_BOOL("json", 0, "json", &json),
    OPT_BOOL("verbose", 'v', "more", &verbose),
    OPT_BOOL("all", 'a', "all", &flag_a),
    OPT_SETINT("bee", 'b', "bee", &flag_b, 7),
    OPT_NUM("limit", 'n', "N", "rows", &limit),
    OPT_INT("count", 'c', "N", NULL, &count), /* hidden */
    OPT_FN("even", 0, "N", "an even number", &even, check_even),
    OPT_HELP,
    OPT_END,
};
static const opt_t *const tables[] = {table, NULL};

static void reset(void)
{
    out = NULL;
    json = verbose = flag_a = flag_b = calls = 0;
    limit = 0;
    count = even = 0;
}

/* Parses a NULL-terminated list of words (argv[0] = the command). */
static int parse(unsigned flags, char **argv)
{
    int argc = 0;
    while (argv[argc]) argc++;
    opt_cmd_t cmd = {"test", "usage: test\n", tables, flags, NULL};
    reset();
    return opt_parse(&cmd, argc, argv);
}

/* Runs f with stderr redirected to a file; returns what was written there. */
static char captured[4096];
static FILE *cap_file;
static void capture_start(int *saved)
{
    fflush(stderr);
    *saved = dup(2);
    cap_file = tmpfile();
    dup2(fileno(cap_file), 2);
}
static void capture_end(int saved)
{
    fflush(stderr);
    off_t n = lseek(2, 0, SEEK_CUR);
    lseek(2, 0, SEEK_SET);
    ssize_t r = read(2, captured, n < (off_t)sizeof captured - 1 ? (size_t)n : sizeof captured - 1);
    captured[r > 0 ? r : 0] = 0;
    dup2(saved, 2);
    close(saved);
    fclose(cap_file);
}

static void test_syntax(void)
{
    char *a1[] = {"test", "in1", "--output=x.svg", "-va", "in2", "-n", "5", "--json", "-c12",
                  "--",   "-n",  "--json",         NULL};
    int n = parse(0, a1);
    CHECK_EQ_INT(n, 4);
    CHECK_STR(a1[1], "in1");
    CHECK_STR(a1[2], "in2");
    CHECK_STR(a1[3], "-n"); /* after --: operands */
    CHECK_STR(a1[4], "--json");
    CHECK_STR(a1[5], "--output=x.svg"); /* argv stays a permutation: the option words follow */
    CHECK_STR(a1[6], "-va");
    CHECK_STR(a1[11], "--");
    CHECK_STR(out, "x.svg");
    CHECK(verbose && flag_a && json);
    CHECK(limit == 5);
    CHECK_EQ_INT(count, 12);

    char *a2[] = {"test", "--output", "y", "-b", "-", "-ofile", NULL};
    CHECK_EQ_INT(parse(0, a2), 1);
    CHECK_STR(a2[1], "-"); /* stdin is an operand */
    CHECK_STR(out, "file");
    CHECK_EQ_INT(flag_b, 7);

    /* stop at the first operand: the rest is a program's command line */
    char *a3[] = {"test", "-v", "node", "--json", "app.js", "-n", "3", NULL};
    CHECK_EQ_INT(parse(OPT_STOP_AT_OPERAND, a3), 5);
    CHECK(verbose && !json && limit == 0);
    CHECK_STR(a3[1], "node");
    CHECK_STR(a3[2], "--json");
    char *a4[] = {"test", "-v", "--", "-n", "3", NULL};
    CHECK_EQ_INT(parse(OPT_STOP_AT_OPERAND, a4), 2);
    CHECK_STR(a4[1], "-n");

    char *a5[] = {"test", "--even", "4", NULL};
    CHECK_EQ_INT(parse(0, a5), 0);
    CHECK_EQ_INT(even, 4);
    CHECK_EQ_INT(calls, 1);
}

static void test_errors(void)
{
    static char *bad[][6] = {
        {"test", "--nope", NULL},     {"test", "-x", NULL},
        {"test", "--output", NULL},   {"test", "--json=1", NULL},
        {"test", "-n", "many", NULL}, {"test", "--even=3", NULL},
        {"test", "-o", NULL},         {"test", "--count", "1x", NULL},
    };
    static const char *want[] = {
        "unknown option '--nope'",         "unknown option '-x'",
        "--output needs a value (FILE)",   "--json takes no value",
        "-n expects a number, not 'many'", "--even takes an even number, not '3'",
        "-o needs a value (FILE)",         "--count expects an integer, not '1x'",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int saved;
        unsigned long errors = diag_error_count();
        capture_start(&saved);
        int rc = parse(0, bad[i]);
        capture_end(saved);
        CHECK_EQ_INT(rc, OPT_USAGE_ERROR);
        CHECK_EQ_INT(opt_exit_code(rc), EXIT_USAGE);
        CHECK_EQ_INT(diag_error_count(), errors + 1);
        /* exactly two lines: the error and where to look */
        char expect[512];
        snprintf(expect, sizeof expect, "nodescope test: error: %s\nsee 'nodescope test --help'\n", want[i]);
        CHECK_STR(captured, expect);
    }
}

static void test_help(void)
{
    char *a[] = {"test", "-v", "--help", "--nope", NULL};
    int saved_out = dup(1);
    FILE *f = tmpfile();
    fflush(stdout);
    dup2(fileno(f), 1);
    int rc = parse(0, a);
    fflush(stdout);
    dup2(saved_out, 1);
    close(saved_out);
    CHECK_EQ_INT(rc, OPT_HELP_SHOWN);
    CHECK_EQ_INT(opt_exit_code(rc), EXIT_OK);
    char text[4096];
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    CHECK(strstr(text, "usage: test\n") == text);
    CHECK(strstr(text, "\n  -o, --output FILE      where\n") != NULL);
    CHECK(strstr(text, "\n      --json             json\n") != NULL);
    CHECK(strstr(text, "\n      --even N           an even number\n") != NULL);
    CHECK(strstr(text, "count") == NULL); /* hidden */
}

/* merge and diff refuse profiles whose weights have different units; reading several inputs into
 * one profile checks each file's unit against the first's */
static void test_units(void)
{
    profile_t *a = profile_new(), *b = profile_new();
    CHECK_STR(profile_weight_unit(a), "samples");
    CHECK_EQ_INT(profile_check_units("merge", "a.folded", a, "b.txt", b), 0);
    b->weight_unit = strpool_cstr(b->strings, "ns");
    int saved;
    capture_start(&saved);
    int rc = profile_check_units("merge", "a.folded", a, "b.txt", b);
    capture_end(saved);
    CHECK_EQ_INT(rc, -1);
    CHECK(strstr(captured, "a.folded weighs in samples, b.txt in ns") != NULL);
    capture_start(&saved);
    rc = profile_check_units("diff", "a.folded", a, "b.txt", b);
    capture_end(saved);
    CHECK(strstr(captured, "cannot be compared") != NULL);
    profile_free(a);
    profile_free(b);
}

/* opt_parse_duration: "30s", "2m", "500ms", "1h", bare seconds; anything else refused */
static void test_durations(void)
{
    static const struct {
        const char *arg;
        double want; /* seconds; 0: refused */
    } cases[] = {{"30", 30},  {"30s", 30}, {"500ms", 0.5}, {"2m", 120}, {"2min", 120}, {"1h", 3600},
                 {"0.25", 0.25}, {"0", 0}, {"-1s", 0},  {"2x", 0},     {"", 0},     {"s", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = -1;
        int saved;
        capture_start(&saved);
        int rc = opt_parse_duration("--every", cases[i].arg, &got);
        capture_end(saved);
        if (cases[i].want > 0) {
            CHECK_EQ_INT(rc, 0);
            CHECK(got == cases[i].want);
        } else {
            CHECK_EQ_INT(rc, -1);
            CHECK(strstr(captured, "--every takes a duration") != NULL);
        }
    }
}

int main(void)
{
    test_durations();
    test_syntax();
    test_errors();
    test_help();
    test_units();
    return check_summary("test_options");
}
