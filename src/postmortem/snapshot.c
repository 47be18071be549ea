/* pm_open_frozen: open a live process (or reuse the target opened for it before), freeze a copy
 * (target_freeze), and take it again when the main thread was in a garbage collection at the stop
 * (v8_in_gc). Used by every command that reads
 * a live heap through a copy (core --pid, watch --heap). */
#include "postmortem/snapshot.h"
#include "util/diag.h"
#include <unistd.h>

int pm_open_frozen(int pid, target_t **t, v8_t **v, double *stopped_ms, int *retried)
{
    if (!*t) *v = NULL;
    if (retried) *retried = 0;
    for (int attempt = 0;; attempt++) {
        if (!*t && !(*t = target_open_running(pid))) return -1;
        *v = *v ? v8_renew(*v) : v8_open(*t);
        if (target_freeze(*t, stopped_ms) != 0) return -1;
        if (!*v || !v8_in_gc(*v)) return 0; /* no V8: the command says so */
        if (attempt == PM_SNAPSHOT_GC_RETRIES) {
            diag_warn(target_name(*t), 0,
                      "it was collecting garbage each time its copy was taken: objects may be "
                      "found twice or not at all");
            return 0;
        }
        target_unfreeze(*t);
        if (retried) ++*retried;
        usleep(20000);
    }
}
