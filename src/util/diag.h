/* Diagnostics: every message goes to stderr, starts with "nodescope: " and,
 * where there is one, names the file and line it is about. */
#ifndef UTIL_DIAG_H
#define UTIL_DIAG_H

/* 0 = errors and warnings, 1 = --verbose, -1 = --quiet (errors only). */
extern int diag_verbosity;

void diag_error(const char *file, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warn(const char *file, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* only with --verbose */
/* A warning printed at most once per process for the given key (a static string). */
void diag_warn_once(const char *key, const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Exit codes shared by every command. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

#endif
