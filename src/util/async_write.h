/* Writing a large output on a second thread: the kernel's copy of the bytes into the page
 * cache (a third of `collapse`'s time on a deep-stack input) overlaps the formatting of the
 * next ones. Bytes are gathered in 1 MiB buffers; a full buffer goes to the writing thread
 * while the caller fills the other. The thread starts with the first full buffer, so small
 * outputs are written as before, and not at all on a one-CPU machine. */
#ifndef NODESCOPE_ASYNC_WRITE_H
#define NODESCOPE_ASYNC_WRITE_H
#include <stddef.h>
#include <stdio.h>

typedef struct async_writer async_writer_t;

async_writer_t *async_writer_open(FILE *f);
void async_writer_put(async_writer_t *w, const char *s, size_t n);
/* Writes what is left, joins the thread, frees w. -1 when a write failed (f's error flag is set). */
int async_writer_close(async_writer_t *w);

#endif
