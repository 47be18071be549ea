/* Subcommands (one file each in src/cli/) and the few helpers they share. */
#ifndef CLI_CLI_H
#define CLI_CLI_H
#include "formats/format.h"

#ifndef NODESCOPE_VERSION
#define NODESCOPE_VERSION "0.1.0"
#endif

int cli_collapse(int argc, char **argv);
int cli_map(int argc, char **argv);
int cli_convert(int argc, char **argv);
int cli_top(int argc, char **argv);
int cli_merge(int argc, char **argv);
int cli_flame(int argc, char **argv);
int cli_diff(int argc, char **argv);
int cli_record(int argc, char **argv);
int cli_core(int argc, char **argv);

/* Reads every path (none = stdin) into p with o; prints errors; returns 0 or -1. */
int cli_read_inputs(char **paths, int npaths, profile_t *p, const read_opts_t *o);
/* The unit of p's weights ("samples", "ns", "cycles", ...). */
const char *cli_weight_unit(const profile_t *p);
/* 0 when a and b weigh in the same unit; otherwise prints an error naming both files and units
 * (what = "merge", "diff") and returns -1. */
int cli_check_units(const char *what, const char *path_a, const profile_t *a, const char *path_b, const profile_t *b);
/* Writes p to path ("-" or NULL = stdout) with the named writer, or the one the
 * extension names when writer is NULL. Never overwrites an input; atomic. */
int cli_write_profile(const profile_t *p, const char *path, const format_writer_t *writer, const write_opts_t *wo,
                      char **inputs, int ninputs);
/* Parses a number option; prints a usage error naming the option when it is not one. */
int cli_parse_double(const char *opt, const char *s, double *out);

#endif
