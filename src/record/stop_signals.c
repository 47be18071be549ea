#include "record/stop_signals.h"
#include <signal.h>
#include <stddef.h>

static volatile sig_atomic_t received, last_signal, last_from_terminal;
static int taken;
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSTOP ((int)(sizeof stop_signals / sizeof *stop_signals))
static struct sigaction saved[NSTOP];
static int depth; /* installs not yet restored: a caller may hold them around a session that installs too */

static void on_signal(int sig, siginfo_t *info, void *unused)
{
    (void)unused;
    last_signal = sig;
    last_from_terminal = info && info->si_code == SI_KERNEL;
    received = received + 1;
}

void stop_signals_install(void)
{
    struct sigaction sa = {0};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NSTOP; i++) sigaddset(&sa.sa_mask, stop_signals[i]);
    received = 0, taken = 0;
    if (depth++ == 0)
        for (int i = 0; i < NSTOP; i++) sigaction(stop_signals[i], &sa, &saved[i]);
}

void stop_signals_restore(void)
{
    if (depth > 0 && --depth == 0)
        for (int i = 0; i < NSTOP; i++) sigaction(stop_signals[i], &saved[i], NULL);
}

void stop_signals_default(void)
{
    for (int i = 0; i < NSTOP; i++) signal(stop_signals[i], SIG_DFL);
}

/* Two signals arriving between polls are both counted; the later one's details stand for both,
 * which only matters for the first (the second escalates whatever it is). */
int stop_signals_next(stop_request_t *req)
{
    if (taken >= received) return 0;
    taken++;
    req->signal = last_signal;
    req->from_terminal = last_from_terminal;
    return 1;
}
