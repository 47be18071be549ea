/* Diagnostics: every message goes to stderr, starts with "nodescope: " and,
 * where there is one, names the file and line it is about. */
#ifndef UTIL_DIAG_H
#define UTIL_DIAG_H

/* 0 = errors and warnings, 1 = --verbose, -1 = --quiet (errors only). */
extern int diag_verbosity;

void diag_error(const char *file, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warn(const char *file, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_info(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* only with --verbose */
/* A warning printed at most once per process for the given key (a static string). */
void diag_warn_once(const char *key, const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* While set, every error reads "error: CTX: ..." (a reader says which format it read the input
 * as: "not a valid cpuprofile"). NULL clears it. */
void diag_set_error_context(const char *ctx);

/* What the user can do about the error just printed ("nodescope: hint: ..."); not with --quiet. */
void diag_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* How many errors were printed (diag_error, diag_usage_error). main() turns a command's
 * EXIT_OK into EXIT_FAIL when this is not 0: "error:" and exit status 0 never go together. */
unsigned long diag_error_count(void);
/* Only for the interactive prompt, whose exit status is its last command's: forgets the errors
 * of earlier commands by setting the count back to n. */
void diag_set_error_count(unsigned long n);
/* Held messages: between diag_hold_begin and diag_hold_end, messages are kept instead of printed
 * and errors are not counted (one try of many that may fail for a reason that is no error: a
 * process found in /proc that exits while it is opened). diag_hold_end prints them, the errors as
 * warnings, when print is set, else drops them. Not nested; one thread. */
void diag_hold_begin(void);
void diag_hold_end(int print);

/* A usage error of a command (cmd = "collapse", "core stack"): two lines on stderr,
 *   nodescope CMD: error: WHAT
 *   see 'nodescope CMD --help'
 * util/options.h's opt_usage_error/opt_fail are the usual way to call it. */
#include <stdarg.h>
void diag_usage_error(const char *cmd, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Exit codes shared by every command. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

#endif
