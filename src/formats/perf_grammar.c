/* perf script's line grammar (see perf_grammar.h). */
#include "formats/perf_grammar.h"
#include "util/strview.h"
#include <string.h>

const char *perf_basename(const char *s, size_t n, size_t *out_len)
{
    size_t i = n;
    while (i > 0 && s[i - 1] != '/') i--;
    *out_len = n - i;
    return s + i;
}

uint64_t perf_parse_u64(const char *s, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && perf_is_digit(s[i]); i++) v = v * 10 + (uint64_t)(s[i] - '0');
    return v;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (!perf_is_digit(s[i])) return 0;
    return 1;
}

int perf_parse_time(const char *t, size_t n, double *us, uint64_t *ns)
{
    if (n < 2 || t[n - 1] != ':') return 0;
    uint64_t sec = 0, frac = 0;
    size_t i = 0, fd = 0;
    while (i < n - 1 && perf_is_digit(t[i])) sec = sec * 10 + (uint64_t)(t[i++] - '0');
    if (i == 0 || i >= n - 1 || t[i] != '.') return 0;
    i++;
    while (i < n - 1 && perf_is_digit(t[i])) {
        if (fd < 9) frac = frac * 10 + (uint64_t)(t[i] - '0'), fd++;
        i++;
    }
    if (i != n - 1 || fd == 0) return 0;
    while (fd < 9) frac *= 10, fd++;
    *ns = sec * 1000000000ULL + frac;
    *us = (double)sec * 1e6 + (double)frac / 1e3;
    return 1;
}

int perf_parse_pid_tid(const char *s, size_t n, const char **pid, size_t *pid_len, const char **tid, size_t *tid_len)
{
    const char *slash = memchr(s, '/', n);
    if (!slash) {
        if (!all_digits(s, n)) return 0;
        *pid = NULL, *pid_len = 0, *tid = s, *tid_len = n;
        return 1;
    }
    size_t a = (size_t)(slash - s);
    if (!all_digits(s, a) || !all_digits(slash + 1, n - a - 1)) return 0;
    *pid = s, *pid_len = a, *tid = slash + 1, *tid_len = n - a - 1;
    return 1;
}

void perf_parse_event_fields(const char *s, size_t n, size_t from, perf_event_t *ev)
{
    while (n > 0 && perf_is_space(s[n - 1])) n--;
    size_t i = from;
    /* The rest, word by word: [CPU], TIME:, PERIOD, EVENT:, then maybe a frame. */
    while (i < n) {
        while (i < n && perf_is_space(s[i])) i++;
        if (i >= n) break;
        size_t t = i;
        while (i < n && !perf_is_space(s[i])) i++;
        const char *w = s + t;
        size_t wl = i - t;
        if (ev->event) {
            ev->frame = w;
            break;
        }
        if (w[0] == '[' && w[wl - 1] == ']') continue;
        if (perf_parse_time(w, wl, &ev->time_us, &ev->time_ns)) {
            ev->has_time = 1;
            continue;
        }
        if (all_digits(w, wl)) {
            /* a period, unless the next word is not an event: then it is a frame address */
            size_t j = i;
            while (j < n && perf_is_space(s[j])) j++;
            size_t k = j;
            while (k < n && !perf_is_space(s[k])) k++;
            if (k > j && s[k - 1] == ':') {
                ev->period = w, ev->period_len = wl;
                continue;
            }
            ev->frame = w;
            break;
        }
        if (w[wl - 1] == ':' && wl > 1) {
            ev->event = w;
            ev->event_len = wl - 1;
            continue;
        }
        ev->frame = w;
        break;
    }
    if (ev->frame) ev->frame_len = (size_t)(s + n - ev->frame);
}

int perf_parse_event(const char *s, size_t n, perf_event_t *ev)
{
    memset(ev, 0, sizeof *ev);
    while (n > 0 && perf_is_space(s[n - 1])) n--;
    /* The comm is everything before the first "PID" or "PID/TID" word after the first word. */
    size_t i = 0, tok = 0, tok_end = 0;
    while (i < n && !perf_is_space(s[i])) i++;
    if (i == 0) return 0;
    for (;;) {
        while (i < n && perf_is_space(s[i])) i++;
        if (i >= n) return 0;
        size_t t = i;
        while (i < n && !perf_is_space(s[i])) i++;
        if (perf_parse_pid_tid(s + t, i - t, &ev->pid, &ev->pid_len, &ev->tid, &ev->tid_len)) {
            tok = t, tok_end = i;
            break;
        }
    }
    size_t comm_len = tok;
    while (comm_len > 0 && perf_is_space(s[comm_len - 1])) comm_len--;
    ev->comm = s, ev->comm_len = comm_len;

    perf_parse_event_fields(s, n, tok_end, ev);
    return 1;
}

int perf_parse_frame_head(const char *s, size_t n, perf_frame_t *f)
{
    memset(f, 0, sizeof *f);
    while (n > 0 && perf_is_space(s[n - 1])) n--;
    /* the address's hex digits and their value in one pass (every callchain line comes here),
     * then the rest of the word */
    uint64_t addr = 0;
    size_t pc_len = 0;
    for (; pc_len < n; pc_len++) {
        unsigned c = (unsigned char)s[pc_len], d = c - '0', l = (c | 32) - 'a';
        if (d < 10) addr = addr << 4 | d;
        else if (l < 6) addr = addr << 4 | (l + 10);
        else break;
    }
    while (pc_len < n && perf_is_word(s[pc_len])) pc_len++;
    size_t rest = pc_len;
    while (rest < n && perf_is_space(s[rest])) rest++;
    if (pc_len == 0 || rest == n) return 0;
    f->pc = s, f->pc_len = pc_len;
    f->addr = addr;
    f->sym = s + rest, f->sym_len = n - rest, f->mod = "", f->mod_len = 0;
    return 1;
}

int perf_parse_frame(const char *s, size_t n, perf_frame_t *f)
{
    if (!perf_parse_frame_head(s, n, f)) return 0;
    size_t pc_len = f->pc_len, rest = (size_t)(f->sym - s);
    /* "SYMBOL (MODULE)": split at the last " (" */
    const char *sym = f->sym;
    size_t sym_len = f->sym_len;
    if (sym[0] == '(' && sym[sym_len - 1] == ')' && rest - pc_len >= 2 && !memmem(sym, sym_len, " (", 2)) {
        /* "7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)": no symbol. The Perl script's regex
         * makes it the frame " " and inferno does the same on purpose; so do we. */
        f->sym = sym - 1, f->sym_len = 1;
        f->mod = sym + 1, f->mod_len = sym_len - 2, f->has_mod = 1;
        return 1;
    }
    if (sym_len >= 2 && sym[sym_len - 1] == ')') {
        for (size_t i = sym_len - 1; i-- > 0;) {
            if (sym[i] == '(' && i > 0 && sym[i - 1] == ' ') {
                f->mod = sym + i + 1;
                f->mod_len = sym_len - i - 2;
                f->sym_len = i - 1;
                f->has_mod = 1;
                break;
            }
        }
    }
    return 1;
}

int perf_looks_like_frame(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && perf_is_hex(s[i])) i++;
    if (i == 0 || i >= n || !perf_is_space(s[i])) return 0;
    while (i < n && perf_is_space(s[i])) i++;
    size_t t = i;
    while (i < n && !perf_is_space(s[i])) i++;
    const char *a, *b;
    size_t al, bl;
    return !perf_parse_pid_tid(s + t, i - t, &a, &al, &b, &bl);
}

/* perf-PID.map, in any directory (perf writes /tmp/perf-PID.map) */
static int is_perf_map(const char *m, size_t n)
{
    size_t bl;
    const char *b = perf_basename(m, n, &bl);
    if (!sv_starts(b, bl, "perf-") || !sv_ends(b, bl, ".map")) return 0;
    return bl > 9 && all_digits(b + 5, bl - 9);
}

/* vmlinux, or vmlinux with a version: vmlinux-5.4.14-cloudflare-2020.1.11 */
static int is_vmlinux(const char *b, size_t bl)
{
    if (!sv_starts(b, bl, "vmlinux")) return 0;
    for (size_t i = 7; i < bl; i++)
        if (!perf_is_word(b[i]) && b[i] != '-' && b[i] != '.') return 0;
    return 1;
}

perf_module_t perf_module_class(const char *m, size_t n)
{
    if (n == 0) return PERF_MOD_NONE;
    if (n == 9 && !memcmp(m, "[unknown]", 9)) return PERF_MOD_UNKNOWN;
    if (is_perf_map(m, n)) return PERF_MOD_PERF_MAP;
    size_t bl;
    const char *b = perf_basename(m, n, &bl);
    if (sv_starts(b, bl, "jitted-") && sv_ends(b, bl, ".so")) return PERF_MOD_JITTED_SO;
    /* [kernel.kallsyms], [vdso], [guest.kernel...]; vmlinux, vmlinux-VERSION; kernel modules */
    if (m[0] == '[' || sv_ends(m, n, ".ko") || is_vmlinux(b, bl)) return PERF_MOD_KERNEL;
    return PERF_MOD_FILE;
}

/* perf's event modifiers (tools/perf/util/parse-events.l: u k h I G H p P S D W e b R x) */
static int is_modifier(char c) { return c && strchr("ukhIGHpPSDWebRx", c) != NULL; }

size_t perf_event_base_len(const char *ev, size_t n)
{
    size_t i = n;
    while (i > 0 && is_modifier(ev[i - 1])) i--;
    if (i > 0 && i < n && ev[i - 1] == ':') return i - 1;
    return n;
}
