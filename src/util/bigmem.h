/* Memory for bulk work (folding large perf scripts, drawing large flame graphs): one
 * call before the big allocations asks glibc's malloc for a heap that page faults less. */
#ifndef UTIL_BIGMEM_H
#define UTIL_BIGMEM_H

/* Idempotent; call before creating threads. A no-op where it cannot help. */
void bigmem_prepare(void);

#endif
