/* stackcollapse-perf.pl's behaviour where it differs from the reader's default
 * (--perl-compat, perf_read_opts_t.perl_compat): its event regex, its parameter-list cut and
 * its module tests for _[k] and _[j]. Internal to the perf script reader. */
#ifndef FORMATS_PERF_PERL_H
#define FORMATS_PERF_PERL_H
#include "formats/perf_grammar.h"

/* The Perl script's event line: "^(\S.+?)\s+(\d+)\/ *(\d+)*\s+" for comm and PID/TID, then
 * ":\s*(\d+)*\s+(\S+):\s*$" on the whole line for period and event; never a frame.
 * 1 when it is an event line. */
int perf_perl_event(const char *s, size_t n, perf_event_t *ev);

/* The Perl script's callchain line "^\s*(\w+)\s*(.+) \((.*)\)" (blanks before it allowed). */
int perf_perl_frame(const char *s, size_t n, perf_frame_t *f);

/* Length of a symbol without its parameter list, as the Perl regexes cut it: unless it
 * looks like a Go method ".(...).", from the first '(' that is not "(anonymous namespace)". */
size_t perf_perl_strip_params(const char *s, size_t n);

/* The Perl script's _[k] test: the module starts with '[' or ends in "vmlinux", and does
 * not contain "unknown". */
int perf_perl_kernel_module(const char *m, size_t n);
/* The Perl script's _[j] test: the module contains "/tmp/perf-DIGITS.map". */
int perf_perl_jit_module(const char *m, size_t n);

#endif
