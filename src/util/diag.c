#include "util/diag.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int diag_verbosity = 0;

static FILE *held; /* diag_hold_begin's stream, or NULL */
static char *held_text;
static size_t held_len;

static void emit(const char *kind, const char *file, long line, const char *fmt, va_list ap)
{
    FILE *out = held ? held : stderr;
    fputs("nodescope: ", out);
    if (file && line > 0) fprintf(out, "%s:%ld: ", file, line);
    else if (file) fprintf(out, "%s: ", file);
    if (kind && held && !strncmp(kind, "error: ", 7)) fprintf(out, "warning: %s", kind + 7); /* (its context) */
    else if (kind) fputs(kind, out);
    vfprintf(out, fmt, ap);
    fputc('\n', out);
}

static unsigned long errors;

void diag_hold_begin(void)
{
    if (!held) held = open_memstream(&held_text, &held_len);
}

void diag_hold_end(int print)
{
    if (!held) return;
    fclose(held);
    held = NULL;
    if (print && held_text && diag_verbosity >= 0) fputs(held_text, stderr);
    free(held_text);
    held_text = NULL;
    held_len = 0;
}

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
    if (!held) __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
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
