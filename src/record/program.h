/* What `record` profiles, checked before anything runs: the command to start
 * (found in PATH, known to be node or a script node runs) or the process to
 * attach to (alive, node, with a perf map). Every check that can fail before the
 * program runs is here, so a mistake costs the user nothing. */
#ifndef RECORD_PROGRAM_H
#define RECORD_PROGRAM_H

typedef struct {
    char **argv; /* what perf starts, NULL-terminated (owned) */
    int argc;
    char *path;  /* the executable the command resolved to (owned) */
    int is_node; /* a node binary, or a script whose #! line runs node */
} record_program_t;

/* Resolves argv[0] in PATH. When the command is node, or a script run by node,
 * the result runs node with node_flags placed right after the node binary (V8
 * flags must come before the script). When it is not node: with allow_any the
 * command runs as given; otherwise an error says what to do and -1 is returned. */
int record_program_resolve(record_program_t *rp, char **argv, int argc, const char *const *node_flags, int allow_any);
void record_program_free(record_program_t *rp);

/* What an attached recording needs of the process. */
typedef enum {
    RECORD_ATTACH_ANY,  /* alive (perf records any process) */
    RECORD_ATTACH_NODE, /* alive and node (the live sampler) */
    RECORD_ATTACH_TREE, /* alive and readable: its node descendants are sampled (--children) */
} record_attach_need_t;
/* 1 when process pid runs node (its executable is named node*, or its comm is). */
int record_process_is_node(int pid);
/* Whether nodescope may sample process pid and read its memory: another user's (CAP_SYS_PTRACE),
 * kernel.perf_event_paranoid above 2 (CAP_PERFMON), Yama's kernel.yama.ptrace_scope (1: only
 * descendants, 2: CAP_SYS_PTRACE, 3: none). 0, or -1 after an error naming the setting and a hint
 * with the fix (sysctl, make install-caps). */
int record_check_privileges(int pid);
/* 1 when the process is nodescope's user's, or nodescope has CAP_SYS_PTRACE (record -a skips others). */
int record_may_read(int pid);
/* Checks process pid can be recorded: 0, or -1 after an error saying what to do. */
int record_check_attach(int pid, record_attach_need_t need);

#endif
