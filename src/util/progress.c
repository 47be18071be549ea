#include "util/progress.h"
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_init(progress_t *p, const char *what, const char *unit)
{
    p->what = what;
    p->unit = unit;
    p->enabled = isatty(2);
    p->last = 0;
    p->calls = 0;
}

void progress_update_now(progress_t *p, uint64_t done, uint64_t total)
{
    if (!p->enabled) return;
    double t = now_s();
    if (t - p->last < 0.2) return;
    p->last = t;
    if (total > 0)
        fprintf(stderr, "\r%s: %.0f%% (%llu of %llu %s)\033[K", p->what, 100.0 * (double)done / (double)total,
                (unsigned long long)done, (unsigned long long)total, p->unit);
    else fprintf(stderr, "\r%s: %llu %s\033[K", p->what, (unsigned long long)done, p->unit);
}

void progress_update(progress_t *p, uint64_t done, uint64_t total)
{
    if (!p->enabled || (++p->calls & 4095) != 0) return;
    progress_update_now(p, done, total);
}

void progress_done(progress_t *p)
{
    if (p->enabled && p->last > 0) fputs("\r\033[K", stderr);
    p->last = 0;
}
