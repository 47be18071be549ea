/* libFuzzer target: the perf reader must reject or read any bytes without crashing,
 * leaking or hanging, and whatever it reads must fold (write) cleanly. */
#include "formats/folded.h"
#include "formats/format.h"
#include "util/buf.h"
#include "util/diag.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const format_reader_t *reader;
    if (!reader) {
        diag_verbosity = -1;
        reader = format_reader_by_name("perf");
        if (!reader) abort();
    }
    reader->sniff((const char *)data, size);
    /* the first byte picks some options so their code paths are fuzzed too */
    read_opts_t o = {0};
    o.to_ms = 1e300;
    if (size > 0) {
        uint8_t f = data[0];
        o.with_pid = f & 1;
        o.with_tid = f & 2;
        o.annotate_kernel = o.annotate_jit = f & 4;
        o.with_addrs = f & 8;
        o.perl_compat = f & 16;
        o.no_process_frame = f & 32;
    }
    input_t *in = input_from_memory("fuzz", data, size);
    profile_t *p = profile_new();
    if (reader->read(in, p, &o) == 0) {
        buf_t b = {0};
        folded_write_buf(p, &b);
        buf_free(&b);
    }
    profile_free(p);
    input_close(in);
    return 0;
}
