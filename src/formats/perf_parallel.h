/* perf script: large inputs folded on several threads (perf_parallel.c), for perf_read.c. */
#ifndef FORMATS_PERF_PARALLEL_H
#define FORMATS_PERF_PARALLEL_H
#include "formats/perf_reader.h"

/* Reads in with nworkers threads (0: on this thread), blocks of about block_size bytes. */
int perf_read_parallel(input_t *in, profile_t *p, const read_opts_t *o, const perf_read_opts_t *po, int nworkers,
                       size_t block_size);
/* Reads a regular file in up to nparts contiguous parts, each cut at a sample boundary and
 * folded on its own thread (this one the first), blocks of about block_size bytes; returns
 * as perf_read_parallel, or PERF_SPLIT_NO (nothing read) when the input cannot be split:
 * not a seekable file, already consumed, or no sample boundary near the cuts. */
enum { PERF_SPLIT_NO = -2 };
int perf_read_split(input_t *in, profile_t *p, const read_opts_t *o, const perf_read_opts_t *po, int nparts,
                    size_t block_size);

#endif
