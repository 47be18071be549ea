/* A profile written to a file with a writer (formats/write_file.c). */
#ifndef FORMATS_WRITE_FILE_H
#define FORMATS_WRITE_FILE_H
#include "formats/format.h"

/* Writes p to path ("-" or NULL: stdout) with writer, or the one path's extension names when
 * writer is NULL; atomically (util/output.h: a temporary file renamed into place), never over
 * one of the inputs (ninputs paths). 0, or -1 (error said). */
int format_write_file(const profile_t *p, const char *path, const format_writer_t *writer, const write_opts_t *wo,
                      char **inputs, int ninputs);

/* Whether path's directory is writable, to learn before a long recording that OUT cannot be
 * written: 0, or -1 with the error said (naming path and its directory). */
int format_check_output_dir(const char *path);

#endif
