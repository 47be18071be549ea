/* One table-driven option parser for every command and core subcommand.
 *
 * A command declares its options as an array of opt_t ending with OPT_END:
 *
 *     const char *out = NULL; int json = 0; double limit = 20;
 *     opt_t own[] = {
 *         OPT_STR("output", 'o', "FILE", "write here instead of stdout", &out),
 *         OPT_BOOL("json", 0, "a JSON document", &json),
 *         OPT_NUM("limit", 'n', "N", "rows (20)", &limit),
 *         OPT_VERBOSITY, OPT_HELP, OPT_END,
 *     };
 *     const opt_t *tables[] = {own, NULL};
 *     opt_cmd_t cmd = {"top", "usage: nodescope top [OPTIONS] [FILE...]\n\nWhat it does.\n", tables, 0, NULL};
 *     int n = opt_parse(&cmd, argc, argv);
 *     if (n < 0) return opt_exit_code(n);      // --help printed (0) or usage error printed (2)
 *     // the n operands are now argv[1..n]
 *
 * Accepted syntax: --name value, --name=value, -x value, -xvalue, bundled flags (-va),
 * "--" ends the options, "-" is an operand. By default options and operands may be mixed
 * (operands keep their order); OPT_STOP_AT_OPERAND stops at the first operand and leaves it
 * and everything after it as operands (record: `record [OPTIONS] [--] node app.js ...`).
 *
 * A usage error prints exactly two lines on stderr and counts as an error (util/diag.h):
 *     nodescope CMD: error: WHAT
 *     see 'nodescope CMD --help'
 * --help prints cmd->usage, then every table's options generated from the table (a table may
 * start with an OPT_SECTION entry naming its heading), then cmd->epilog. */
#ifndef UTIL_OPTIONS_H
#define UTIL_OPTIONS_H
#include <stdio.h>

typedef enum {
    OPT_KIND_END = 0,
    OPT_FLAG,      /* no argument: *(int *)target = value */
    OPT_STRING,    /* *(const char **)target = arg */
    OPT_DOUBLE,    /* *(double *)target = arg as a number (usage error otherwise) */
    OPT_LONG,      /* *(long *)target = arg as an integer (usage error otherwise) */
    OPT_CALL,      /* call(target, arg); arg is NULL when argname is NULL. Returns 0, or -1 after
                    * opt_fail() said what is wrong */
    OPT_HELP_KIND, /* prints --help and makes opt_parse return OPT_HELP_SHOWN */
    OPT_SECTION,   /* not an option: the heading of the table's lines in --help (help = heading) */
} opt_kind_t;

typedef struct opt {
    const char *name;    /* long name without "--", or NULL */
    char short_name;     /* 0 = none */
    const char *argname; /* metavariable in --help; NULL = takes no argument */
    const char *help;    /* one or more lines ('\n' between); NULL = hidden from --help */
    opt_kind_t kind;
    void *target;
    int (*call)(void *target, const char *arg); /* OPT_CALL */
    int value;                                  /* OPT_FLAG: the value stored */
} opt_t;

/* Table entries (macros so that every field is initialised: -Wextra wants that). */
#define OPT_STR(lname, sname, argname, help, ptr)                                                                      \
    {                                                                                                                  \
        lname, sname, argname, help, OPT_STRING, ptr, NULL, 0                                                          \
    }
#define OPT_BOOL(lname, sname, help, ptr)                                                                              \
    {                                                                                                                  \
        lname, sname, NULL, help, OPT_FLAG, ptr, NULL, 1                                                               \
    }
#define OPT_SETINT(lname, sname, help, ptr, v)                                                                         \
    {                                                                                                                  \
        lname, sname, NULL, help, OPT_FLAG, ptr, NULL, v                                                               \
    }
#define OPT_NUM(lname, sname, argname, help, ptr)                                                                      \
    {                                                                                                                  \
        lname, sname, argname, help, OPT_DOUBLE, ptr, NULL, 0                                                          \
    }
#define OPT_INT(lname, sname, argname, help, ptr)                                                                      \
    {                                                                                                                  \
        lname, sname, argname, help, OPT_LONG, ptr, NULL, 0                                                            \
    }
#define OPT_FN(lname, sname, argname, help, ptr, fn)                                                                   \
    {                                                                                                                  \
        lname, sname, argname, help, OPT_CALL, ptr, fn, 0                                                              \
    }
#define OPT_TITLE(text)                                                                                                \
    {                                                                                                                  \
        NULL, 0, NULL, text, OPT_SECTION, NULL, NULL, 0                                                                \
    }
#define OPT_END                                                                                                        \
    {                                                                                                                  \
        NULL, 0, NULL, NULL, OPT_KIND_END, NULL, NULL, 0                                                               \
    }
#define OPT_HELP                                                                                                       \
    {                                                                                                                  \
        "help", 'h', NULL, "this text", OPT_HELP_KIND, NULL, NULL, 0                                                   \
    }
/* -q/--quiet and -v/--verbose, setting diag_verbosity */
extern int opt_quiet_value, opt_verbose_value;
#define OPT_QUIET                                                                                                      \
    {                                                                                                                  \
        "quiet", 'q', NULL, "no warnings", OPT_CALL, &opt_quiet_value, opt_set_verbosity, 0                            \
    }
#define OPT_VERBOSE                                                                                                    \
    {                                                                                                                  \
        "verbose", 'v', NULL, "say more about what was read", OPT_CALL, &opt_verbose_value, opt_set_verbosity, 0       \
    }
#define OPT_VERBOSITY OPT_QUIET, OPT_VERBOSE
int opt_set_verbosity(void *target, const char *arg);

enum { OPT_STOP_AT_OPERAND = 1 };

typedef struct opt_cmd {
    const char *name;           /* as the user types it after "nodescope": "collapse", "core stack" */
    const char *usage;          /* start of --help: "usage: ...\n\nDescription.\n" */
    const opt_t *const *tables; /* NULL-terminated list of option tables */
    unsigned flags;             /* OPT_STOP_AT_OPERAND */
    const char *epilog;         /* printed after the options in --help, or NULL */
} opt_cmd_t;

enum { OPT_HELP_SHOWN = -1, OPT_USAGE_ERROR = -2 };

/* Parses argv[1..argc) (argv[0] is the command's name). Returns the number of operands, which
 * are moved to argv[1..n] in order (the option words follow them: argv stays a permutation),
 * or OPT_HELP_SHOWN / OPT_USAGE_ERROR (already printed). */
int opt_parse(const opt_cmd_t *cmd, int argc, char **argv);
/* EXIT_OK for OPT_HELP_SHOWN, EXIT_USAGE for OPT_USAGE_ERROR. */
int opt_exit_code(int parse_result);
/* Prints the whole --help text of cmd. */
void opt_print_help(const opt_cmd_t *cmd, FILE *f);
/* Prints the option lines of one table (as --help does). */
void opt_print_table(const opt_t *table, FILE *f);

/* A usage error about cmd (wrong operands, conflicting options): the two lines above.
 * Returns EXIT_USAGE. */
int opt_usage_error(const opt_cmd_t *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For OPT_CALL handlers: a usage error about the command being parsed. Returns -1. */
int opt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Number parsing shared with handlers: 0, or -1 after opt_fail("--name expects ..."). */
int opt_parse_double(const char *optname, const char *arg, double *out);
int opt_parse_long(const char *optname, const char *arg, long *out);
/* A positive duration in seconds: N or Ns, Nms, Nm/Nmin, Nh ("30s", "2m", "500ms"). */
int opt_parse_duration(const char *optname, const char *arg, double *out);
/* An OPT_FN setter for -p/--pid: a positive process id into *(int *)target. */
int opt_set_pid(void *target, const char *arg);
/* An OPT_FN setter for a count of at least 1 into *(long *)target. */
int opt_set_count(void *target, const char *arg);

#endif
