#include "util/diag.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int diag_verbosity = 0;

static void emit(const char *kind, const char *file, long line, const char *fmt, va_list ap)
{
    fputs("nodescope: ", stderr);
    if (file && line > 0) fprintf(stderr, "%s:%ld: ", file, line);
    else if (file) fprintf(stderr, "%s: ", file);
    if (kind) fputs(kind, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

static unsigned long errors;

/* atomic: the parallel perf reader reports from its worker threads */
unsigned long diag_error_count(void) { return __atomic_load_n(&errors, __ATOMIC_RELAXED); }
void diag_set_error_count(unsigned long n) { __atomic_store_n(&errors, n, __ATOMIC_RELAXED); }

void diag_hint(const char *fmt, ...)
{
    if (diag_verbosity < 0) return;
    va_list ap;
    va_start(ap, fmt);
    emit("hint: ", NULL, 0, fmt, ap);
    va_end(ap);
}

void diag_usage_error(const char *cmd, const char *fmt, va_list ap)
{
    __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
    fprintf(stderr, "nodescope%s%s: error: ", *cmd ? " " : "", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nsee 'nodescope%s%s --help'\n", *cmd ? " " : "", cmd);
}

static const char *error_context;
void diag_set_error_context(const char *ctx) { error_context = ctx; }

void diag_error(const char *file, long line, const char *fmt, ...)
{
    __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
    char kind[256];
    snprintf(kind, sizeof kind, "error: %s%s", error_context ? error_context : "", error_context ? ": " : "");
    va_list ap;
    va_start(ap, fmt);
    emit(kind, file, line, fmt, ap);
    va_end(ap);
}

void diag_warn(const char *file, long line, const char *fmt, ...)
{
    if (diag_verbosity < 0) return;
    va_list ap;
    va_start(ap, fmt);
    emit("warning: ", file, line, fmt, ap);
    va_end(ap);
}

void diag_info(const char *fmt, ...)
{
    if (diag_verbosity < 1) return;
    va_list ap;
    va_start(ap, fmt);
    emit(NULL, NULL, 0, fmt, ap);
    va_end(ap);
}

#define MAX_ONCE 64
static const char *once_keys[MAX_ONCE];
static int once_n;

void diag_warn_once(const char *key, const char *file, long line, const char *fmt, ...)
{
    for (int i = 0; i < once_n; i++)
        if (once_keys[i] == key || strcmp(once_keys[i], key) == 0) return;
    if (once_n < MAX_ONCE) once_keys[once_n++] = key;
    if (diag_verbosity < 0) return;
    va_list ap;
    va_start(ap, fmt);
    emit("warning: ", file, line, fmt, ap);
    va_end(ap);
}
