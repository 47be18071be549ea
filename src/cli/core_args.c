/* What every core command shares (cli/core_cmds.h): its operands checked and V8 required, the
 * "read" member of its JSON (a live process's mode), a row of the command list. Below the
 * commands, the command table (cli/core_table.c) and the prompt. */
#include "cli/core_cmds.h"
#include "util/diag.h"
#include "util/options.h"
#include <string.h>

void core_json_read(const core_session_t *s, jw_t *w)
{
    if (!s->live_mode) return;
    jw_string(w, "read", s->live_mode);
    if (strcmp(s->live_mode, "stop")) jw_fixed(w, "stopped_ms", 3, s->stopped_ms);
}

int core_need_v8(const core_session_t *s, const char *cmd)
{
    if (s->v) return 0;
    diag_error(target_name(s->t), 0, "%s needs V8's postmortem metadata, which %s lacks", cmd, target_exe_path(s->t));
    return -1;
}

int core_operands(const core_session_t *s, const opt_cmd_t *cmd, int n, char **argv, int min, int max,
                  const char *missing, int *rc)
{
    *rc = n < 0                           ? opt_exit_code(n)
          : n < min                       ? opt_usage_error(cmd, "%s", missing)
          : n > max                       ? opt_usage_error(cmd, "unexpected argument '%s'", argv[max + 1])
          : s->check_only                 ? EXIT_OK
          : core_need_v8(s, argv[0]) != 0 ? EXIT_FAIL
                                          : -1;
    return *rc < 0 ? n : -1;
}

/* One row of the command list: the name and its arguments in one column, then what it does. */
void core_print_command_row(FILE *f, const char *name, const char *args, const char *help)
{
    int n = fprintf(f, "  %s%s%s", name, *args ? " " : "", args);
    fprintf(f, "%*s %s\n", n < 62 ? 62 - n : 0, "", help);
}
