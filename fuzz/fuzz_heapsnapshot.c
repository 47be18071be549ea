/* Fuzz the .heapsnapshot census (postmortem/heapsnapshot_census.c), twice over the same bytes as
 * diff-objects reads A and B, then the fit over the two: any bytes must give a census or an
 * error, never a crash or a hang. */
#include "postmortem/heapsnapshot_census.h"
#include "util/diag.h"
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    pm_leak_t *L = pm_leak_new(PM_COUNT_REACHABLE);
    for (int k = 0; k < 2; k++) {
        input_t *in = input_from_memory("fuzz.heapsnapshot", data, size);
        int rc = pm_heapsnapshot_census_input(L, in, k);
        input_close(in);
        if (rc != 0) break;
    }
    pm_leak_class_t *c;
    size_t n = pm_leak_analyze(L, &c);
    pm_leak_classes_free(c, n);
    pm_leak_free(L);
    return 0;
}
