#include "util/options.h"
#include "util/diag.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int opt_quiet_value = -1, opt_verbose_value = 1;

int opt_set_verbosity(void *target, const char *arg)
{
    (void)arg;
    diag_verbosity = *(const int *)target;
    return 0;
}

/* The command being parsed, for opt_fail() in handlers. */
static const opt_cmd_t *current;

int opt_exit_code(int parse_result) { return parse_result == OPT_HELP_SHOWN ? EXIT_OK : EXIT_USAGE; }

static void vusage(const char *name, const char *fmt, va_list ap) { diag_usage_error(name ? name : "", fmt, ap); }

int opt_usage_error(const opt_cmd_t *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vusage(cmd->name, fmt, ap);
    va_end(ap);
    return EXIT_USAGE;
}

int opt_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vusage(current ? current->name : NULL, fmt, ap);
    va_end(ap);
    return -1;
}

int opt_parse_double(const char *optname, const char *arg, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(arg, &end);
    if (!*arg || *end || errno == ERANGE) return opt_fail("%s expects a number, not '%s'", optname, arg);
    *out = d;
    return 0;
}

int opt_parse_duration(const char *optname, const char *arg, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || errno || !(v > 0)) return opt_fail("%s takes a duration (30s, 2m, 500ms), not '%s'", optname, arg);
    if (!*end || !strcmp(end, "s")) *out = v;
    else if (!strcmp(end, "ms")) *out = v / 1000;
    else if (!strcmp(end, "m") || !strcmp(end, "min")) *out = v * 60;
    else if (!strcmp(end, "h")) *out = v * 3600;
    else return opt_fail("%s takes a duration (30s, 2m, 500ms), not '%s'", optname, arg);
    return 0;
}

int opt_parse_long(const char *optname, const char *arg, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 0);
    if (!*arg || *end || errno == ERANGE) return opt_fail("%s expects an integer, not '%s'", optname, arg);
    *out = v;
    return 0;
}

int opt_set_pid(void *target, const char *arg)
{
    long pid;
    if (opt_parse_long("--pid", arg, &pid) != 0) return -1;
    if (pid <= 0 || pid > 0x7fffffff) return opt_fail("--pid needs a process id, not '%s'", arg);
    *(int *)target = (int)pid;
    return 0;
}

int opt_set_count(void *target, const char *arg)
{
    char *end;
    errno = 0;
    long n = strtol(arg, &end, 10);
    if (!*arg || *end || errno == ERANGE || n < 1) return opt_fail("expected a positive count, not '%s'", arg);
    *(long *)target = n;
    return 0;
}

/* ---- --help ---- */

#define HELP_COLUMN 25

void opt_print_table(const opt_t *t, FILE *f)
{
    for (; t->kind != OPT_KIND_END; t++) {
        if (t->kind == OPT_SECTION) {
            fprintf(f, "%s\n", t->help);
            continue;
        }
        if (!t->help) continue;
        char left[128];
        int n;
        if (t->short_name && t->name) n = snprintf(left, sizeof left, "  -%c, --%s", t->short_name, t->name);
        else if (t->name) n = snprintf(left, sizeof left, "      --%s", t->name);
        else n = snprintf(left, sizeof left, "  -%c", t->short_name);
        if (t->argname && n > 0 && (size_t)n < sizeof left)
            n += snprintf(left + n, sizeof left - (size_t)n, " %s", t->argname);
        fputs(left, f);
        const char *h = t->help;
        if (n + 2 > HELP_COLUMN) fputs("  ", f);
        else fprintf(f, "%*s", HELP_COLUMN - n, "");
        for (;;) { /* continuation lines are indented to the help column */
            const char *nl = strchr(h, '\n');
            if (!nl) {
                fprintf(f, "%s\n", h);
                break;
            }
            fprintf(f, "%.*s\n%*s", (int)(nl - h), h, HELP_COLUMN, "");
            h = nl + 1;
        }
    }
}

void opt_print_help(const opt_cmd_t *cmd, FILE *f)
{
    if (cmd->usage) fputs(cmd->usage, f);
    for (const opt_t *const *t = cmd->tables; t && *t; t++) {
        if (t != cmd->tables || cmd->usage) fputc('\n', f);
        opt_print_table(*t, f);
    }
    if (cmd->epilog) {
        fputc('\n', f);
        fputs(cmd->epilog, f);
    }
}

/* ---- parsing ---- */

static const opt_t *find_long(const opt_cmd_t *cmd, const char *name, size_t len)
{
    for (const opt_t *const *t = cmd->tables; t && *t; t++)
        for (const opt_t *o = *t; o->kind != OPT_KIND_END; o++)
            if (o->name && strlen(o->name) == len && !strncmp(o->name, name, len)) return o;
    return NULL;
}

static const opt_t *find_short(const opt_cmd_t *cmd, char c)
{
    for (const opt_t *const *t = cmd->tables; t && *t; t++)
        for (const opt_t *o = *t; o->kind != OPT_KIND_END; o++)
            if (o->kind != OPT_SECTION && o->short_name == c) return o;
    return NULL;
}

/* Applies one option. spelled: how the user wrote it ("--limit", "-n"). */
static int apply(const opt_cmd_t *cmd, const opt_t *o, const char *spelled, const char *arg)
{
    switch (o->kind) {
    case OPT_FLAG: *(int *)o->target = o->value; return 0;
    case OPT_STRING: *(const char **)o->target = arg; return 0;
    case OPT_DOUBLE: return opt_parse_double(spelled, arg, (double *)o->target);
    case OPT_LONG: return opt_parse_long(spelled, arg, (long *)o->target);
    case OPT_CALL: return o->call(o->target, arg) == 0 ? 0 : -1;
    case OPT_HELP_KIND: opt_print_help(cmd, stdout); return 1;
    default: return -1;
    }
}

int opt_parse(const opt_cmd_t *cmd, int argc, char **argv)
{
    const opt_cmd_t *saved = current;
    current = cmd;
    int nops = 0, rc = 0, i;
    /* operands are collected in order and copied back to argv[1..] at the end */
    char **ops = malloc(((size_t)argc + 1) * sizeof *ops);
    char *is_op = calloc((size_t)argc + 1, 1);
    if (!ops || !is_op) abort();
    for (i = 1; i < argc; i++) {
        char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || !a[1]) { /* an operand ("-" is stdin) */
            if (cmd->flags & OPT_STOP_AT_OPERAND) break;
            is_op[i] = 1;
            ops[nops++] = a;
            continue;
        }
        if (a[1] == '-') { /* --name, --name=value, --name value */
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const opt_t *o = find_long(cmd, name, len);
            if (!o) {
                rc = opt_fail("unknown option '--%.*s'", (int)len, name);
                goto out;
            }
            char spelled[128];
            snprintf(spelled, sizeof spelled, "--%s", o->name);
            const char *arg = NULL;
            if (o->argname) {
                if (eq) arg = eq + 1;
                else if (i + 1 < argc) arg = argv[++i];
                else {
                    rc = opt_fail("%s needs a value (%s)", spelled, o->argname);
                    goto out;
                }
            } else if (eq) {
                rc = opt_fail("%s takes no value", spelled);
                goto out;
            }
            if ((rc = apply(cmd, o, spelled, arg)) != 0) goto out;
            continue;
        }
        /* -x, -xVALUE, -x VALUE, bundled -abc */
        for (const char *p = a + 1; *p; p++) {
            const opt_t *o = find_short(cmd, *p);
            char spelled[3] = {'-', *p, 0};
            if (!o) {
                if (p == a + 1 && p[1] && find_long(cmd, p, strlen(p)))
                    rc = opt_fail("unknown option '%s' (did you mean '-%s'?)", a, a);
                else rc = opt_fail("unknown option '-%c'", *p);
                goto out;
            }
            const char *arg = NULL;
            if (o->argname) {
                if (p[1]) arg = p + 1;
                else if (i + 1 < argc) arg = argv[++i];
                else {
                    rc = opt_fail("%s needs a value (%s)", spelled, o->argname);
                    goto out;
                }
            }
            if ((rc = apply(cmd, o, spelled, arg)) != 0) goto out;
            if (arg) break;
        }
    }
    while (i < argc) is_op[i] = 1, ops[nops++] = argv[i++];
    /* argv stays a permutation of itself: the operands, then the options as they were given */
    int k = nops;
    for (i = 1; i < argc; i++)
        if (!is_op[i]) ops[k++] = argv[i];
    if (argc > 1) memcpy(argv + 1, ops, (size_t)(argc - 1) * sizeof *argv);
    free(ops);
    free(is_op);
    current = saved;
    return nops;
out:
    free(ops);
    free(is_op);
    current = saved;
    return rc > 0 ? OPT_HELP_SHOWN : OPT_USAGE_ERROR;
}
