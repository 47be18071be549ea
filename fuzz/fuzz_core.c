/* Fuzz the core reader: a mutated core (headers, notes, segments) is written to a file, opened with
 * target_open_core and read all over; never a crash or a hang, whatever the headers claim.
 * The executable is /bin/true (small) so that opening gets past the executable checks. */
#include "target/target.h"
#include "util/diag.h"
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* elfutils' libdw leaks 16 bytes per failed dwfl_core_file_attach on some corrupt cores (inside libdw,
 * after dwfl_end): not ours to fix, so LeakSanitizer ignores allocations made by libdw. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libdw.so"; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_core.%d", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    for (int with_exe = 0; with_exe < 2; with_exe++) {
        target_t *t = target_open_core(path, with_exe ? "/bin/true" : NULL);
        if (!t) continue;
        for (size_t i = 0; i < target_mapping_count(t) && i < 64; i++) {
            const target_mapping_t *m = target_mapping(t, i);
            uint8_t buf[256];
            target_read(t, m->start, buf, sizeof buf);
            target_read(t, m->end - 8, buf, 16); /* crosses the end */
            target_direct(t, m->start, 64);
        }
        for (size_t i = 0; i < target_thread_count(t); i++) {
            target_frame_t fr[32];
            target_unwind(t, i, fr, 32);
            target_symbol_t s;
            target_symbolize(t, target_thread(t, i)->pc, &s);
        }
        uint64_t v;
        target_exe_symbol_value(t, "main", &v, NULL);
        target_close(t);
    }
    unlink(path);
    return 0;
}
