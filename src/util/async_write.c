#include "util/async_write.h"
#include "util/xalloc.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CHUNK = 1 << 20 };

struct async_writer {
    FILE *f;
    char *fill; /* the buffer the caller fills */
    size_t len;
    char *pending; /* a full buffer handed to the thread, NULL once written */
    size_t pending_len;
    char *spare; /* the buffer the thread gave back */
    int failed, done, threaded, use_thread;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static void *writer_main(void *arg)
{
    async_writer_t *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->pending && !w->done) pthread_cond_wait(&w->cv, &w->mu);
        if (!w->pending) break;
        char *b = w->pending;
        size_t n = w->pending_len;
        pthread_mutex_unlock(&w->mu);
        int bad = fwrite(b, 1, n, w->f) != n;
        pthread_mutex_lock(&w->mu);
        if (bad) w->failed = 1;
        w->spare = b;
        w->pending = NULL;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

async_writer_t *async_writer_open(FILE *f)
{
    async_writer_t *w = xcalloc(1, sizeof *w);
    w->f = f;
    w->fill = xmalloc(CHUNK);
    w->use_thread = sysconf(_SC_NPROCESSORS_ONLN) > 1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    return w;
}

/* Hands the filled buffer over (or writes it here without a thread) and takes an empty one. */
static void flush_fill(async_writer_t *w)
{
    if (!w->len) return;
    if (!w->use_thread) {
        if (fwrite(w->fill, 1, w->len, w->f) != w->len) w->failed = 1;
        w->len = 0;
        return;
    }
    if (!w->threaded) {
        fflush(w->f); /* what the caller wrote to f before comes first */
        if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
            w->use_thread = 0;
            flush_fill(w);
            return;
        }
        w->threaded = 1;
    }
    pthread_mutex_lock(&w->mu);
    while (w->pending) pthread_cond_wait(&w->cv, &w->mu);
    w->pending = w->fill, w->pending_len = w->len;
    char *next = w->spare;
    w->spare = NULL;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    w->fill = next ? next : xmalloc(CHUNK);
    w->len = 0;
}

void async_writer_put(async_writer_t *w, const char *s, size_t n)
{
    while (n) {
        if (w->len == CHUNK) flush_fill(w);
        size_t k = CHUNK - w->len < n ? CHUNK - w->len : n;
        memcpy(w->fill + w->len, s, k);
        w->len += k, s += k, n -= k;
    }
}

int async_writer_close(async_writer_t *w)
{
    if (w->threaded) {
        flush_fill(w);
        pthread_mutex_lock(&w->mu);
        w->done = 1;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
    } else if (w->len && fwrite(w->fill, 1, w->len, w->f) != w->len) {
        w->failed = 1;
    }
    int rc = w->failed ? -1 : 0;
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w->fill);
    free(w->spare);
    free(w);
    return rc;
}
