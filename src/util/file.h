/* Opening input files that must be regular files (not directories, FIFOs or
 * devices: readers map or size them), with the error message every command uses. */
#ifndef UTIL_FILE_H
#define UTIL_FILE_H
#include <sys/stat.h>

/* Opens path read-only; what names the expected content in messages ("perf map").
 * Returns the fd and fills *st, or -1 after printing an error naming the file. */
int file_open_regular(const char *path, const char *what, struct stat *st);

#endif
