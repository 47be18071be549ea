/* Splitting V8's code names ("JS:*fib /app/fib.js:1:13", "LazyCompile:~f a.js:3",
 * "Builtin:ArrayMap") into function, url, line and column, for writers whose
 * format has those fields (cpuprofile, pprof). */
#include "profile/profile.h"
#include <stdlib.h>
#include <string.h>

static int all_digits(const char *s, size_t n)
{
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

static const char *const js_prefixes[] = {"JS:", "LazyCompile:", "Function:", "Eval:", "Script:"};

/* Length of the V8 prefix and tier marker of a JS code name ("JS:*", "LazyCompile:~"), 0 if none. */
static size_t js_prefix_len(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof js_prefixes / sizeof *js_prefixes; i++) {
        size_t k = strlen(js_prefixes[i]);
        if (n >= k && !memcmp(s, js_prefixes[i], k)) return k + (n > k && strchr("*+^~", s[k]) ? 1 : 0);
    }
    return 0;
}

/* A decimal as profile_frame_label prints it back: no sign, no leading zero, fits an int32. */
static int canonical_number(const char *s, size_t n) { return all_digits(s, n) && n <= 9 && (n == 1 || s[0] != '0'); }

int profile_v8_location(const char *s, size_t n, size_t *name_len, const char **url, size_t *url_len, int32_t *line,
                        int32_t *col)
{
    if (!js_prefix_len(s, n)) return 0;
    const char *sp = memrchr(s, ' ', n);
    if (!sp) return 0;
    const char *loc = sp + 1;
    size_t loc_len = n - (size_t)(loc - s);
    const char *c2 = memrchr(loc, ':', loc_len);
    const char *c1 = c2 ? memrchr(loc, ':', (size_t)(c2 - loc)) : NULL;
    if (!c1 || c1 == loc) return 0; /* no url: label would not print the position */
    size_t l_len = (size_t)(c2 - c1 - 1), c_len = loc_len - (size_t)(c2 + 1 - loc);
    if (!canonical_number(c1 + 1, l_len) || !canonical_number(c2 + 1, c_len) || c1[1] == '0') return 0;
    *name_len = (size_t)(sp - s);
    *url = loc, *url_len = (size_t)(c1 - loc);
    *line = atoi(c1 + 1), *col = atoi(c2 + 1);
    return 1;
}

/* The function's own name: without V8's prefix and tier marker, nor a flamegraph annotation. */
static void put_function_name(buf_t *name, const char *s, size_t n)
{
    if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']') n -= 4;
    size_t k = js_prefix_len(s, n);
    s += k, n -= k;
    if (n) buf_append(name, s, n);
    else buf_puts(name, k ? "(anonymous)" : "");
}

void profile_frame_split_v8(const profile_frame_t *f, buf_t *name, const char **url, int32_t *line, int32_t *col)
{
    static buf_t url_buf;
    buf_clear(name);
    if (f->url[0] || f->line) {
        /* readers give the position as fields (perf script, cpuprofile): nothing to parse */
        put_function_name(name, f->name, strlen(f->name));
        *url = f->url, *line = f->line, *col = f->column;
        return;
    }
    /* Names that carry their position as text (folded stacks written by other tools):
     * "fn url:line:col" — url may be empty (":3:26", new Function) and the name may be empty */
    *url = "", *line = 0, *col = 0;
    const char *s = f->name;
    size_t n = strlen(s);
    /* flamegraph annotations are not part of the name */
    if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']') n -= 4;
    size_t k = js_prefix_len(s, n);
    if (!k) {
        buf_append(name, s, n);
        return;
    }
    s += k, n -= k;
    const char *sp = memrchr(s, ' ', n);
    const char *loc = sp ? sp + 1 : s;
    size_t loc_len = n - (size_t)(loc - s);
    const char *c2 = memrchr(loc, ':', loc_len);
    const char *c1 = c2 ? memrchr(loc, ':', (size_t)(c2 - loc)) : NULL;
    if (c1 && all_digits(c1 + 1, (size_t)(c2 - c1 - 1)) && all_digits(c2 + 1, loc_len - (size_t)(c2 + 1 - loc))) {
        buf_clear(&url_buf);
        buf_append(&url_buf, loc, (size_t)(c1 - loc));
        *url = url_buf.data ? url_buf.data : "";
        *line = atoi(c1 + 1), *col = atoi(c2 + 1);
        n = sp ? (size_t)(sp - s) : 0;
    } else if (c2 && all_digits(c2 + 1, loc_len - (size_t)(c2 + 1 - loc))) {
        buf_clear(&url_buf);
        buf_append(&url_buf, loc, (size_t)(c2 - loc));
        *url = url_buf.data ? url_buf.data : "";
        *line = atoi(c2 + 1);
        n = sp ? (size_t)(sp - s) : 0;
    }
    if (n) buf_append(name, s, n);
    else buf_puts(name, "(anonymous)");
}
