/* nodescope core: the commands that run against an open target (a core file or a live pid).
 * cli/core.c opens the target and dispatches; each command lives in its own file and is
 * reachable both from the command line and from the interactive prompt. */
#ifndef CLI_CORE_CMDS_H
#define CLI_CORE_CMDS_H
#include "postmortem/graph_session.h"
#include "postmortem/inspect.h"
#include "postmortem/resolve.h"
#include "target/target.h"
#include "util/json_writer.h"
#include "v8/v8.h"
#include <stdio.h>

typedef struct {
    target_t *t;
    v8_t *v;                  /* NULL when the executable has no usable V8 metadata */
    int check_only;           /* t and v are NULL: only check the command line (usage errors before attaching) */
    const char *live_mode;    /* --pid: how the process is read ("snapshot", "live", "stop"); NULL for a core */
    double stopped_ms;        /* --pid with snapshot or live: how long the process was stopped */
    const char *heapsnapshot; /* CORE is a .heapsnapshot (t and v NULL): only diff-objects reads it */
} core_session_t;

/* Each takes argv[0] = the command name; returns an EXIT_* code; prints to stdout. */
typedef int (*core_cmd_fn)(core_session_t *s, int argc, char **argv);
typedef struct {
    const char *name;
    core_cmd_fn run;
    const char *args; /* usage after the name */
    const char *help; /* one line */
} core_cmd_t;

int core_cmd_stack(core_session_t *s, int argc, char **argv);
int core_cmd_type(core_session_t *s, int argc, char **argv);
int core_cmd_v8print(core_session_t *s, int argc, char **argv);
int core_cmd_internal(core_session_t *s, int argc, char **argv);
int core_cmd_str(core_session_t *s, int argc, char **argv);
int core_cmd_array(core_session_t *s, int argc, char **argv);
int core_cmd_sample(core_session_t *s, int argc, char **argv);
int core_cmd_print(core_session_t *s, int argc, char **argv);
int core_cmd_constructor(core_session_t *s, int argc, char **argv);
int core_cmd_buffer(core_session_t *s, int argc, char **argv);
int core_cmd_closure(core_session_t *s, int argc, char **argv);
int core_cmd_source(core_session_t *s, int argc, char **argv);
int core_cmd_exception(core_session_t *s, int argc, char **argv);
/* core_objects.c: the commands that walk the whole heap */
int core_cmd_objects(core_session_t *s, int argc, char **argv);
int core_cmd_instances(core_session_t *s, int argc, char **argv);
int core_cmd_find(core_session_t *s, int argc, char **argv);
int core_cmd_functions(core_session_t *s, int argc, char **argv);
/* core_diff.c: core A diff-objects B (issue 31) */
int core_cmd_diff_objects(core_session_t *s, int argc, char **argv);
/* core_async.c, core_pending.c: what the program waits for (issue 16) */
int core_cmd_async(core_session_t *s, int argc, char **argv);
int core_cmd_pending(core_session_t *s, int argc, char **argv);
/* core_retain.c, core_heapsnapshot.c: the object graph (issue 15) */
int core_cmd_refs(core_session_t *s, int argc, char **argv);
int core_cmd_retainers(core_session_t *s, int argc, char **argv);
int core_cmd_dominators(core_session_t *s, int argc, char **argv);
int core_cmd_heapsnapshot(core_session_t *s, int argc, char **argv);
/* `objects --retained` (core_objects.c's option, run here once the options are parsed, n
 * arguments left): per constructor the retained size. */
struct opt_cmd;
int core_objects_retained(core_session_t *s, const struct opt_cmd *cmd, int n, char **argv, int verbose, long min,
                          const char *sort, int json);
#define OPT_NO_CACHE                                                                                                   \
    OPT_BOOL("no-cache", 0, "build the object graph; do not read or write its cache", &pm_graph_no_cache)

/* Runs one command line (argv[0] = the command) against the session; prints to stdout. */
int core_run_command(core_session_t *s, int argc, char **argv);
/* Lists the commands, one per line. */
void core_print_commands(FILE *f);
void core_print_command_row(FILE *f, const char *name, const char *args, const char *help);
/* The interactive prompt (or, when stdin is not a terminal, one command per input line). */
int core_prompt(core_session_t *s);

/* Commands that need V8 call this: prints why when s->v is NULL. */
int core_need_v8(const core_session_t *s, const char *cmd);
/* After a command's opt_parse (n: its result): between min and max operands (else a usage error,
   `missing` when too few), then nothing more on a check_only session, then V8's metadata needed.
   n to go on, or -1 with *rc the exit status to return (EXIT_OK after --help or a check). */
struct opt_cmd;
int core_operands(const core_session_t *s, const struct opt_cmd *cmd, int n, char **argv, int min, int max,
                  const char *missing, int *rc);
/* With --pid: "read" (how the process was read: "snapshot", "live", "stop") and "stopped_ms" (how
   long it was stopped for it; not with "stop") into the object w is in; nothing for a core. Every
   --json document of a core command that is a JSON object carries them at its top level (stack,
   exception, pending, async, retainers, dominators, instances, find); arrays and print --json's
   value keep their shape (docs/commands/core.md). */
void core_json_read(const core_session_t *s, jw_t *w);

#endif
