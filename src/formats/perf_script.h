/* The perf script reader's lines and samples (perf_script.c): a reader set up, fed lines,
 * its samples folded into the profile, its messages; for perf_parallel.c (several readers)
 * and perf_read.c (the reader the registry lists). Not a public API: other modules use
 * format_perf_reader through the registry. */
#ifndef FORMATS_PERF_SCRIPT_H
#define FORMATS_PERF_SCRIPT_H
#include "formats/perf_reader.h"

/* po: the reader's own options (NULL: the defaults). */
void perf_reader_init(perf_reader_t *r, profile_t *p, const read_opts_t *o, const perf_read_opts_t *po, input_t *in);
void perf_reader_free(perf_reader_t *r);
/* Reads one line (without its '\n'; need not be NUL-terminated, is not modified). */
void perf_line(perf_reader_t *r, char *line, size_t len);
/* Folds the sample being read, if any, into r->p. */
void perf_end_sample(perf_reader_t *r);
/* r->defer: the text of the lines read so far is about to go; copy what later samples compare with. */
void perf_reader_detach(perf_reader_t *r);
/* Warnings and errors after reading (r->line numbers are file lines), and the profile's
 * weight unit (r->p->weight_unit) when r->p is set; 0 or -1. */
int perf_report(input_t *in, const perf_reader_t *r, int rc);
/* Reads all of in on this thread (--perl-compat and --inline read so). */
int perf_read_serial(input_t *in, profile_t *p, const read_opts_t *o, const perf_read_opts_t *po);

#endif
