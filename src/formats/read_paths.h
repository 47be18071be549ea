/* Several inputs read into one profile (formats/read_paths.c). */
#ifndef FORMATS_READ_PATHS_H
#define FORMATS_READ_PATHS_H
#include "formats/format.h"

/* Reads every path (none: stdin, "-") into p with o, each by format_read_path; the inputs must
 * weigh in one unit (an error names the file that differs and the first's unit). 0, or -1 after
 * the error was said. */
int format_read_paths(char **paths, int npaths, profile_t *p, const read_opts_t *o);

#endif
