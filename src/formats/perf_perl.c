/* stackcollapse-perf.pl's quirks (see perf_perl.h); FlameGraph 41fee1f. */
#include "formats/perf_perl.h"
#include "util/strview.h"
#include <string.h>

/* "^(\S.+?)\s+(\d+)\/ *(\d+)*\s+" without the blank: the comm needs two characters. Returns the
 * comm length and the pid/tid token bounds, or 0. */
static size_t perl_comm(const char *s, size_t n, size_t *tok, size_t *tok_end)
{
    if (n == 0 || perf_is_space(s[0])) return 0;
    for (size_t c = 2; c < n; c++) {
        size_t i = c;
        if (!perf_is_space(s[i])) continue;
        while (i < n && perf_is_space(s[i])) i++;
        size_t t = i;
        while (i < n && perf_is_digit(s[i])) i++;
        if (i == t) continue;
        while (i < n && s[i] == '/') i++;
        while (i < n && perf_is_digit(s[i])) i++;
        if (i < n && perf_is_space(s[i])) {
            *tok = t;
            *tok_end = i;
            return c;
        }
    }
    return 0;
}

int perf_perl_event(const char *s, size_t n, perf_event_t *ev)
{
    memset(ev, 0, sizeof *ev);
    while (n > 0 && perf_is_space(s[n - 1])) n--;
    size_t tok = 0, tok_end = 0;
    /* (Perl keeps a blank the lazy match took: comm "t " -> "t_") */
    size_t comm_len = perl_comm(s, n, &tok, &tok_end);
    if (!comm_len) return 0;
    if (!perf_parse_pid_tid(s + tok, tok_end - tok, &ev->pid, &ev->pid_len, &ev->tid, &ev->tid_len)) {
        /* Perl's PID//TID-ish forms: take the leading digits as the tid */
        ev->pid = NULL, ev->pid_len = 0, ev->tid = s + tok, ev->tid_len = 0;
        while (tok + ev->tid_len < tok_end && perf_is_digit(s[tok + ev->tid_len])) ev->tid_len++;
    }
    ev->comm = s, ev->comm_len = comm_len;
    perf_parse_event_fields(s, n, tok_end, ev); /* for the time */
    /* Perl matches ":\s*(\d+)*\s+(\S+):\s*$" on the whole line, and ignores any frame on it. */
    ev->event = NULL, ev->event_len = 0, ev->period = NULL, ev->period_len = 0, ev->frame = NULL, ev->frame_len = 0;
    if (n > 1 && s[n - 1] == ':') {
        size_t e = n - 1, b = e;
        while (b > 0 && !perf_is_space(s[b - 1])) b--;
        size_t j = b;
        while (j > 0 && perf_is_space(s[j - 1])) j--;
        if (b > e || j == b) return 1;
        size_t d = j;
        while (d > 0 && perf_is_digit(s[d - 1])) d--;
        size_t c = d;
        while (c > 0 && perf_is_space(s[c - 1])) c--;
        if (c > 0 && s[c - 1] == ':') {
            if (d < j) ev->period = s + d, ev->period_len = j - d;
        } else if (!(j > 0 && s[j - 1] == ':')) { /* ':' right before the blanks: no period */
            return 1;
        }
        /* the event name is \S+ up to the last ':' */
        ev->event = s + b, ev->event_len = e - b;
    }
    return 1;
}

size_t perf_perl_strip_params(const char *s, size_t n)
{
    const char *go = memmem(s, n, ".(", 2);
    if (go) {
        const char *close = NULL;
        for (const char *q = s + n; q > go + 2; q--)
            if (q[-1] == '.' && q - 2 > go + 1 && q[-2] == ')') {
                close = q;
                break;
            }
        if (close) return n;
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] == '(' && !sv_starts(s + i, n - i, "(anonymous namespace)")) return i;
    return n;
}

int perf_perl_kernel_module(const char *m, size_t n)
{
    return ((n > 0 && m[0] == '[') || sv_ends(m, n, "vmlinux")) && !memmem(m, n, "unknown", 7);
}

int perf_perl_jit_module(const char *m, size_t n)
{
    for (const char *p = m; (p = memmem(p, (size_t)(m + n - p), "/tmp/perf-", 10)) != NULL; p++) {
        size_t i = (size_t)(p - m) + 10, d = i;
        while (i < n && perf_is_digit(m[i])) i++;
        if (i > d && i + 4 <= n && !memcmp(m + i, ".map", 4)) return 1;
    }
    return 0;
}

int perf_perl_frame(const char *s, size_t n, perf_frame_t *f)
{
    /* "^\s*(\w+)\s*(.+) \((.*)\)": the last " (" with a ')' somewhere after it; the symbol
     * keeps a blank when the greedy \s* must give one back (an empty symbol becomes " "). */
    memset(f, 0, sizeof *f);
    size_t i = 0;
    while (i < n && perf_is_space(s[i])) i++;
    size_t pc = i;
    while (i < n && perf_is_word(s[i])) i++;
    if (i == pc) return 0;
    f->pc = s + pc, f->pc_len = i - pc;
    for (size_t k = pc; k < i && perf_is_hex(s[k]); k++)
        f->addr = f->addr * 16 + (uint64_t)(perf_is_digit(s[k]) ? s[k] - '0' : (s[k] | 32) - 'a' + 10);
    size_t w = i;
    while (w < n && perf_is_space(s[w])) w++;
    size_t close = n;
    while (close > i && s[close - 1] != ')') close--;
    if (close == i) return 0;
    close--; /* the last ')' */
    for (size_t k = close; k-- > i + 1;) {
        if (s[k] != ' ' || s[k + 1] != '(') continue;
        size_t start = w < k ? w : k - 1;
        f->sym = s + start, f->sym_len = k - start;
        f->mod = s + k + 2, f->mod_len = close - (k + 2);
        f->has_mod = 1;
        return 1;
    }
    return 0;
}
