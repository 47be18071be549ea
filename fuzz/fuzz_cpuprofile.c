/* Fuzz the JSON tokenizer and the .cpuprofile reader, then write the result back:
 * any bytes must give a profile or an error, never a crash or a hang. */
#include "formats/format.h"
#include "fuzz_check.h"
#include "util/diag.h"
#include <stdint.h>
#include <stdio.h>

extern const format_reader_t format_cpuprofile_reader;
extern const format_writer_t format_cpuprofile_writer;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    input_t *in = input_from_memory("fuzz.cpuprofile", data, size);
    profile_t *p = profile_new();
    read_opts_t o = {0};
    if (format_cpuprofile_reader.read(in, p, &o) == 0) {
        fuzz_check_profile(p);
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) {
            format_cpuprofile_writer.write(p, devnull, NULL);
            fclose(devnull);
        }
    }
    profile_free(p);
    input_close(in);
    return 0;
}
