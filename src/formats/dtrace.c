/* DTrace aggregations of ustack()/jstack()/stack() -> profile, like stackcollapse.pl.
 *
 *   CPU     ID                    FUNCTION:NAME        (header, when not run with -q)
 *     0  64091                        :tick-60s
 *
 *               node`uv_run+0x1a                       (leaf first)
 *               << internal code >>                    (Node's ustack helper)
 *               >> parseRecords at /app/a.js position 123
 *               node`main+0x1b
 *                17                                    (the count ends the stack)
 *
 * Differences from stackcollapse.pl: header lines are recognised rather than
 * "always skip three lines" (output of `dtrace -q` has none, and the Perl script
 * loses the first frames), and C++ parameter lists are cut bracket-aware (template
 * arguments stay), never inside the ustack helper's "<< ... >>" / ">> ..." frames. */
#include "formats/format.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

static int is_blank(char c) { return c == ' ' || c == '\t'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* "   17": a stack's count. */
static int count_line(const char *s, size_t n, double *count)
{
    size_t i = 0;
    while (i < n && is_blank(s[i])) i++;
    size_t d = i;
    while (i < n && is_digit(s[i])) i++;
    if (i == d) return 0;
    size_t e = i;
    while (i < n && is_blank(s[i])) i++;
    if (i != n) return 0;
    char num[32];
    size_t k = e - d < sizeof num - 1 ? e - d : sizeof num - 1;
    memcpy(num, s + d, k);
    num[k] = 0;
    *count = strtod(num, NULL);
    return 1;
}

/* dtrace's column header "CPU     ID    FUNCTION:NAME" and the probe line "  0  64091   :tick-60s". */
static int header_line(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && is_blank(s[i])) i++;
    if (n - i >= 3 && !memcmp(s + i, "CPU", 3)) return 1;
    int words = 0, numeric = 0;
    while (i < n) {
        size_t t = i;
        while (i < n && !is_blank(s[i])) i++;
        int num = 1;
        for (size_t k = t; k < i; k++) num &= is_digit(s[k]);
        words++, numeric += num;
        while (i < n && is_blank(s[i])) i++;
    }
    return words == 3 && numeric == 2 && memchr(s, ':', n) != NULL;
}

/* Cut a C++ parameter list: the first '(' outside <>, {}, [] after the last "::" scope start. */
static size_t cpp_name_len(const char *s, size_t n)
{
    if (!memmem(s, n, "::", 2)) return n;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '<' || c == '{' || c == '[') depth++;
        else if ((c == '>' || c == '}' || c == ']') && depth > 0) depth--;
        else if (c == '(' && depth == 0 && !(n - i >= 21 && !memcmp(s + i, "(anonymous namespace)", 21))) return i;
    }
    return n;
}

static frame_kind_t dtrace_kind(const char *s, size_t n)
{
    if (n >= 3 && !memcmp(s, ">> ", 3)) return FRAME_JS;
    if (n >= 2 && !memcmp(s, "<<", 2)) return FRAME_BUILTIN;
    /* jstack() JS frames without the helper's prefix: "fn at /app/a.js line 3" / "position 120" */
    if (n && memmem(s, n, " at ", 4) && (memmem(s, n, " line ", 6) || memmem(s, n, " position ", 10))) return FRAME_JS;
    const char *tick = n ? memchr(s, '`', n) : NULL; /* s may be NULL when n is 0 */
    if (tick) {
        size_t m = (size_t)(tick - s);
        if ((m == 7 && !memcmp(s, "genunix", 7)) || (m == 4 && !memcmp(s, "unix", 4))) return FRAME_KERNEL;
        frame_kind_t k = profile_classify_name(tick + 1, n - m - 1);
        return k == FRAME_JS ? FRAME_NATIVE : k;
    }
    if (n > 2 && s[0] == '0' && s[1] == 'x') return FRAME_UNKNOWN;
    return profile_classify_name(s, n);
}

typedef struct {
    profile_t *p;
    const read_opts_t *o;
    u64map_t cache; /* hash of the raw frame text -> frame id + 1 */
    buf_t tidy;
} dtrace_reader_t;

/* Appends the frames of one line (root-most first) to *stack. */
static void dtrace_frames(dtrace_reader_t *r, const char *s, size_t n, uint32_t **stack, size_t *depth, size_t *cap)
{
    /* strip "+0x1a" (stackcollapse.pl: from the last '+') */
    const char *plus = NULL;
    for (size_t i = n; i-- > 0;)
        if (s[i] == '+') {
            plus = s + i;
            break;
        }
    if (plus && !(n >= 2 && s[0] == '<' && s[1] == '<')) n = (size_t)(plus - s);
    int helper = n >= 2 && ((s[0] == '<' && s[1] == '<') || (s[0] == '>' && s[1] == '>'));
    if (!helper) n = cpp_name_len(s, n);
    if (n == 0) s = "-", n = 1;
    size_t part = 0, nparts = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !(s[i] == '-' && i + 1 < n && s[i + 1] == '>' && !helper)) continue;
        buf_clear(&r->tidy);
        for (size_t k = part; k < i; k++) buf_putc(&r->tidy, s[k] == ';' ? ':' : s[k]);
        if (nparts) buf_puts(&r->tidy, "_[i]");
        uint64_t h = hash_bytes(r->tidy.data, r->tidy.len);
        int found;
        uint32_t *slot = u64map_upsert(&r->cache, h, &found);
        uint32_t f;
        if (found && !strcmp(r->p->frames[*slot - 1].name, r->tidy.data)) {
            f = *slot - 1;
        } else {
            f = profile_frame(r->p, r->tidy.data, r->tidy.len, "", 0, 0, dtrace_kind(r->tidy.data, r->tidy.len));
            if (!found) *slot = f + 1;
        }
        XGROW(*stack, *cap, *depth + 1);
        (*stack)[(*depth)++] = f;
        nparts++;
        part = i + 2;
        i++;
    }
}

static int dtrace_read(input_t *in, profile_t *p, const read_opts_t *o)
{
    dtrace_reader_t r = {.p = p, .o = o};
    u64map_init(&r.cache);
    /* Frames arrive leaf first; each line's frames are kept in groups, reversed at the count. */
    uint32_t *frames = NULL, *stack = NULL;
    size_t nframes = 0, frames_cap = 0, stack_cap = 0;
    size_t *line_start = NULL, nlines = 0, lines_cap = 0;
    long stacks = 0, orphan_line = 0;
    int seen_frame = 0, rc;
    char *line;
    size_t len;
    while ((rc = input_getline(in, &line, &len)) > 0) {
        double count;
        if (count_line(line, len, &count)) {
            if (nlines == 0) {
                if (!orphan_line) orphan_line = in->line;
                continue;
            }
            size_t depth = 0;
            XGROW(stack, stack_cap, nframes);
            for (size_t l = nlines; l-- > 0;) {
                size_t end = l + 1 < nlines ? line_start[l + 1] : nframes;
                for (size_t k = line_start[l]; k < end; k++) stack[depth++] = frames[k];
            }
            profile_add_stack(p, stack, depth, count);
            stacks++;
            nframes = nlines = 0;
            continue;
        }
        size_t i = 0;
        while (i < len && is_blank(line[i])) i++;
        size_t e = len;
        while (e > i && is_blank(line[e - 1])) e--;
        if (i == e) continue;
        if (!seen_frame && header_line(line, len)) continue;
        seen_frame = 1;
        XGROW(line_start, lines_cap, nlines + 1);
        line_start[nlines++] = nframes;
        dtrace_frames(&r, line + i, e - i, &frames, &nframes, &frames_cap);
    }
    int result = rc < 0 ? -1 : 0;
    if (result == 0 && stacks == 0) {
        diag_error(in->name, in->line, "no DTrace stacks found (expected frame lines followed by a count line)");
        result = -1;
    } else if (result == 0 && nlines) {
        diag_warn(in->name, in->line, "input ends inside a stack with no count; that stack was ignored");
    }
    if (result == 0 && orphan_line) diag_warn(in->name, orphan_line, "a count with no stack before it was ignored");
    free(frames);
    free(stack);
    free(line_start);
    buf_free(&r.tidy);
    u64map_free(&r.cache);
    return result;
}

/* Stack blocks: indented frame lines ("mod`func+0x..", "<< ... >>") and indented count lines. */
static int dtrace_sniff(const char *head, size_t n)
{
    size_t pos = 0;
    int counts = 0, ticks = 0, frames = 0, other = 0;
    for (int lines = 0; pos < n && lines < 400; lines++) {
        const char *s = head + pos;
        const char *nl = memchr(s, '\n', n - pos);
        if (!nl) break;
        size_t len = (size_t)(nl - s);
        pos += len + 1;
        double c;
        if (len == 0) continue;
        if (count_line(s, len, &c)) {
            if (is_blank(s[0])) counts++;
            else other++;
        } else if (is_blank(s[0])) {
            frames++;
            if (memchr(s, '`', len) || memmem(s, len, "<< ", 3) || memmem(s, len, ">> ", 3)) ticks++;
        } else if (!header_line(s, len)) {
            other++;
        }
    }
    if (counts == 0 || other > 2 || memchr(head, 0, n)) return 0;
    return ticks ? 85 : frames ? 50 : 0;
}

const format_reader_t format_dtrace_reader = {
    .name = "dtrace",
    .description = "DTrace ustack()/jstack() aggregation (stackcollapse.pl compatible)",
    .sniff = dtrace_sniff,
    .read = dtrace_read,
};
