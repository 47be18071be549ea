/* The text of `perf script`: event lines, callchain (frame) lines, timestamps, and what a
 * frame's module is. Pure functions over counted strings (a line need not be NUL-terminated
 * and is never modified); no state, no allocation, no profile. One grammar for the reader
 * (perf_script.c), its --perl-compat mode (perf_perl.c) and `nodescope map update`. */
#ifndef FORMATS_PERF_GRAMMAR_H
#define FORMATS_PERF_GRAMMAR_H
#include <stddef.h>
#include <stdint.h>

/* An event line: "comm PID/TID [CPU] TIME: PERIOD EVENT: [frame]". Every field but the
 * comm and the TID may be absent (perf script -F picks the fields). */
typedef struct {
    const char *comm; /* may contain blanks; never empty */
    size_t comm_len;
    const char *pid, *tid; /* pid NULL when perf printed only one number (the TID) */
    size_t pid_len, tid_len;
    int has_time;
    double time_us; /* TIME as µs and as ns */
    uint64_t time_ns;
    const char *period; /* NULL when there is none */
    size_t period_len;
    const char *event; /* "cycles:u" (without the ':' that ends the word); NULL when none */
    size_t event_len;
    const char *frame; /* a single-line sample's frame "ADDR SYM (MODULE)"; NULL when none */
    size_t frame_len;
} perf_event_t;

/* Parses an event line (s without leading blanks). 1 when it is one. */
int perf_parse_event(const char *s, size_t n, perf_event_t *ev);
/* The fields after the PID word, which ends at s[from]: [CPU], TIME:, PERIOD, EVENT:, a frame. */
void perf_parse_event_fields(const char *s, size_t n, size_t from, perf_event_t *ev);

/* A callchain line "ADDR SYMBOL+0xOFF (MODULE)" (s without leading blanks). */
typedef struct {
    const char *pc; /* the address text: Perl's \w+ */
    size_t pc_len;
    uint64_t addr;   /* its leading hex digits */
    const char *sym; /* "SYMBOL+0xOFF" (may be "[unknown]", may contain " (") */
    size_t sym_len;
    const char *mod; /* text inside the last " (...)"; "" when the line has none */
    size_t mod_len;
    int has_mod;
} perf_frame_t;

/* The event's name without perf's modifiers: "cycles:u", "cycles:ppp" -> "cycles"; a tracepoint
 * "sched:sched_switch" keeps its colon. One event is one event whatever its modifiers. */
size_t perf_event_base_len(const char *ev, size_t n);

/* Parses a callchain line. 1 when it is one (an address, blanks, and a symbol). */
int perf_parse_frame(const char *s, size_t n, perf_frame_t *f);
/* The same test, and the same pc, addr and sym start, without splitting off the module (sym runs
 * to the end, mod is ""): enough to look a line up in a cache of lines already parsed. */
int perf_parse_frame_head(const char *s, size_t n, perf_frame_t *f);

/* "HEX SYMBOL..." where SYMBOL is not a PID word: a callchain line rather than an event
 * line whose comm perf padded with blanks. */
int perf_looks_like_frame(const char *s, size_t n);

/* "2146.055772:" -> µs and ns; 1 when it is a timestamp. */
int perf_parse_time(const char *t, size_t n, double *us, uint64_t *ns);
/* "PID/TID" or "TID": 1 when the word is one (pid NULL for a lone TID). */
int perf_parse_pid_tid(const char *s, size_t n, const char **pid, size_t *pid_len, const char **tid, size_t *tid_len);
/* Leading decimal digits of s[0..n) (bounded; s need not be terminated). */
uint64_t perf_parse_u64(const char *s, size_t n);

/* What perf printed in a frame's parentheses. */
typedef enum {
    PERF_MOD_NONE,      /* no module */
    PERF_MOD_FILE,      /* an ELF file: node, libc.so.6, an addon */
    PERF_MOD_KERNEL,    /* [kernel.kallsyms], [vdso], vmlinux, vmlinux-5.4.14-..., *.ko */
    PERF_MOD_PERF_MAP,  /* a perf-PID.map (V8 --perf-basic-prof and other JITs) */
    PERF_MOD_JITTED_SO, /* perf inject --jit's jitted-PID-N.so */
    PERF_MOD_UNKNOWN,   /* [unknown] */
} perf_module_t;

perf_module_t perf_module_class(const char *m, size_t n);
/* JIT code: a perf map or a jitted-*.so (--jit annotates it). */
static inline int perf_module_is_jit(perf_module_t k) { return k == PERF_MOD_PERF_MAP || k == PERF_MOD_JITTED_SO; }
/* Frames a JIT symbol source may rename: JIT code, or code perf could not place. */
static inline int perf_module_is_jit_like(perf_module_t k) { return perf_module_is_jit(k) || k == PERF_MOD_UNKNOWN; }

/* Character classes of the grammar. */
static inline int perf_is_hex(char c) { return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f'); }
static inline int perf_is_digit(char c) { return c >= '0' && c <= '9'; }
static inline int perf_is_space(char c) { return c == ' ' || c == '\t'; }
/* Perl's \w for ASCII: what the Perl script accepts as an address */
static inline int perf_is_word(char c) { return perf_is_digit(c) || ((c | 32) >= 'a' && (c | 32) <= 'z') || c == '_'; }

/* The file name part of a path. */
const char *perf_basename(const char *s, size_t n, size_t *out_len);

#endif
