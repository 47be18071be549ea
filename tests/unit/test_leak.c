/* The growth fit of watch --heap (postmortem/leak.c, pm_fit_trend): a steady leak (with and
 * without jitter in the census times) is growing at its rate; a cache that fills and stops is a
 * plateau; objects made and dropped (a sawtooth, random counts) are noisy; a constant count is
 * flat; a series that drains is shrinking; fewer than 3 censuses give no trend. */
#include "check.h"
#include "postmortem/leak.h"
#include <math.h>
#include <stdlib.h>

static pm_trend_t fit(const double *y, size_t n, double *slope)
{
    double x[64];
    for (size_t i = 0; i < n; i++) x[i] = 2.0 * (double)i + (i % 3 ? 0.05 * (double)(i % 5) : 0); /* jitter */
    double late, r2, rising;
    return pm_fit_trend(x, y, n, slope, &late, &r2, &rising);
}

int main(void)
{
    double y[64], s;
    size_t n = 11;
    for (size_t i = 0; i < n; i++) y[i] = 300 + 400.0 * (double)i; /* 200 a second, every 2 s */
    CHECK_EQ_INT(fit(y, n, &s), PM_TREND_GROWING);
    CHECK(fabs(s - 200) < 10);
    for (size_t i = 0; i < n; i++) y[i] = i < 4 ? 600.0 * (double)i : 2400; /* fills in 6 s, then stays */
    CHECK_EQ_INT(fit(y, n, &s), PM_TREND_PLATEAU);
    for (size_t i = 0; i < 8; i++) y[i] = i < 5 ? 500.0 * (double)i : 2400; /* fills late in a short watch */
    CHECK_EQ_INT(fit(y, 8, &s), PM_TREND_PLATEAU);
    srand(7);
    for (size_t i = 0; i < n; i++) y[i] = 2000 + rand() % 15000; /* churn */
    CHECK_EQ_INT(fit(y, n, &s), PM_TREND_NOISY);
    for (size_t i = 0; i < n; i++) y[i] = 1000 + (double)(i % 3) * 3000; /* a sawtooth: garbage and GCs */
    CHECK(fit(y, n, &s) != PM_TREND_GROWING);
    for (size_t i = 0; i < n; i++) y[i] = 480 + (double)(i % 2);
    CHECK_EQ_INT(fit(y, n, &s), PM_TREND_FLAT);
    for (size_t i = 0; i < n; i++) y[i] = 5000 - 300.0 * (double)i;
    CHECK_EQ_INT(fit(y, n, &s), PM_TREND_SHRINKING);
    CHECK_EQ_INT(fit(y, 2, &s), PM_TREND_UNKNOWN);
    /* a leak under GC noise: the leaked class itself rises at every step, a little unevenly */
    for (size_t i = 0; i < n; i++) y[i] = 100 + 400.0 * (double)i + (i % 2 ? 60 : -60);
    CHECK_EQ_INT(fit(y, n, &s), PM_TREND_GROWING);
    double r2, xs[3] = {0, 1, 2}, ys[3] = {1, 3, 5};
    CHECK(fabs(pm_fit_slope(xs, ys, 3, &r2) - 2) < 1e-9 && fabs(r2 - 1) < 1e-9);
    CHECK_STR(pm_trend_name(PM_TREND_PLATEAU), "plateau");
    return check_summary("test_leak");
}
