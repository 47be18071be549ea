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

void profile_frame_split_v8(const profile_frame_t *f, buf_t *name, const char **url, int32_t *line, int32_t *col)
{
    static buf_t url_buf;
    buf_clear(name);
    if (f->url[0] || f->line) {
        buf_puts(name, f->name);
        *url = f->url, *line = f->line, *col = f->column;
        return;
    }
    *url = "", *line = 0, *col = 0;
    const char *s = f->name;
    size_t n = strlen(s);
    /* flamegraph annotations are not part of the name */
    if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']') n -= 4;
    static const char *const prefixes[] = {"JS:", "LazyCompile:", "Function:", "Eval:", "Script:"};
    int js = 0;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        size_t k = strlen(prefixes[i]);
        if (n >= k && !memcmp(s, prefixes[i], k)) {
            s += k, n -= k, js = 1;
            if (n && strchr("*+^~", s[0])) s++, n--;
            break;
        }
    }
    if (!js) {
        buf_append(name, s, n);
        return;
    }
    /* "fn url:line:col" — url may be empty (":3:26", new Function) and the name may be empty */
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
