/* The body shared by the fuzz targets of the text readers (perf script, DTrace, folded): any
 * bytes must be read or rejected without crashing, leaking or hanging, and whatever is read must
 * fold (write) cleanly. The first byte picks reader options so their code paths are fuzzed too. */
#ifndef FUZZ_TEXT_READER_FUZZ_H
#define FUZZ_TEXT_READER_FUZZ_H
#include "formats/folded.h"
#include "formats/format.h"
#include "formats/perf_opts.h"
#include "fuzz_check.h"
#include "util/buf.h"
#include "util/diag.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static int fuzz_text_reader(const char *reader_name, const uint8_t *data, size_t size)
{
    static const format_reader_t *reader;
    if (!reader) {
        diag_verbosity = -1;
        reader = format_reader_by_name(reader_name);
        if (!reader) abort();
    }
    reader->sniff((const char *)data, size);
    read_opts_t o = {0};
    perf_read_opts_t po = {0}; /* the perf reader's own options; other readers ignore them */
    format_reader_opts_set(&o, "perf", &po);
    o.to_ms = 1e300;
    if (size > 0) {
        uint8_t f = data[0];
        po.with_pid = f & 1;
        po.with_tid = f & 2;
        po.annotate_kernel = po.annotate_jit = f & 4;
        po.with_addrs = f & 8;
        po.perl_compat = f & 16;
        po.no_process_frame = f & 32;
    }
    input_t *in = input_from_memory("fuzz", data, size);
    profile_t *p = profile_new();
    if (reader->read(in, p, &o) == 0) {
        fuzz_check_profile(p);
        buf_t b = {0};
        folded_write_buf(p, &b);
        buf_free(&b);
    }
    profile_free(p);
    input_close(in);
    return 0;
}
#endif
