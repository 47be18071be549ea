/* A live process's frozen copy, taken outside a garbage collection (postmortem/snapshot.c). */
#ifndef POSTMORTEM_SNAPSHOT_H
#define POSTMORTEM_SNAPSHOT_H
#include "target/target.h"
#include "v8/v8.h"

/* Opens pid and its V8 (everything slow before the stop), and freezes a copy of it. A copy forked
 * in the middle of a garbage collection holds a half-moved heap (objects found twice, or not at
 * all): it is dropped and taken again 20 ms later, at most PM_SNAPSHOT_GC_RETRIES times, then kept
 * with a warning. *t and *v are what was opened (NULL when not), the caller closes them; *retried
 * counts the copies taken again. *t may also be pid's target from an earlier copy, unfrozen
 * (target_unfreeze), and *v its V8, then renewed (v8_renew): watch --heap's next census. 0 (*v NULL
 * when the process has no V8 nodescope reads), or -1 when the process cannot be opened or frozen. */
#define PM_SNAPSHOT_GC_RETRIES 5
int pm_open_frozen(int pid, target_t **t, v8_t **v, double *stopped_ms, int *retried);

#endif
