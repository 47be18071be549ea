/* A frozen process's core written to a file, atomically (target/core_file.c). */
#ifndef TARGET_CORE_FILE_H
#define TARGET_CORE_FILE_H
#include "target/target.h"

/* target_write_core into path, through util/output.h: a temporary file renamed into place, or
 * removed when the core could not be written whole. 0, or -1 (message printed). */
int target_write_core_path(target_t *t, const char *path);

#endif
