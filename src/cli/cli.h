/* Subcommands (one file each in src/cli/) and the few helpers they share. */
#ifndef CLI_CLI_H
#define CLI_CLI_H
#include "formats/format.h"
#include "postmortem/facts_report.h" /* --version -p PID */

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
int cli_gcore(int argc, char **argv);
int cli_watch(int argc, char **argv);
int cli_watch_heap(int argc, char **argv); /* watch --heap */
int cli_watch_on(int argc, char **argv);   /* watch --on EVENT */
static inline int cli_version(int argc, char **argv) { return pm_version_command(argc, argv, NODESCOPE_VERSION); }

struct opt_cmd;
/* The writer for OUT: the one --to names (to: NULL when not given; has_to: the command has
 * --to), else the one OUT's extension names. Sets *w and returns EXIT_OK, or prints the usage
 * error (a missing OUT, an unknown --to, an extension no writer has, listing the known ones)
 * and returns EXIT_USAGE. */
int cli_output_writer(const struct opt_cmd *cmd, const char *to, int has_to, const char *out,
                      const format_writer_t **w);
/* Writes p to path ("-" or NULL = stdout) with the named writer, or the one the
 * extension names when writer is NULL. Never overwrites an input; atomic. (format_write_file,
 * formats/write_file.h: the commands' name for it.) */
int cli_write_profile(const profile_t *p, const char *path, const format_writer_t *writer, const write_opts_t *wo,
                      char **inputs, int ninputs);

#endif
