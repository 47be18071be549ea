/* Privilege: what nodescope may do when it runs with capabilities its user was not given.
 *
 * `make install-caps` gives the binary cap_perfmon and cap_sys_ptrace (file capabilities; mode
 * 0750, group nodescope): a member of the group reads the memory of every process on the machine.
 * Such a run is in secure mode: the kernel set AT_SECURE, or the effective or permitted set holds
 * capabilities while the real uid is not root. Then (docs/security.md):
 *  - environment switches are ignored: priv_env() is NULL (NODESCOPE_*, DEBUGINFOD_URLS, TMPDIR);
 *  - libraries are loaded by absolute path, from the system's root-owned library directories
 *    (priv_dlopen);
 *  - paths the user names are opened with the user's own rights, the effective set cleared for
 *    the call (priv_open, priv_user_begin/priv_user_end), or checked first with access(), which
 *    the kernel answers for the real uid without capabilities (priv_check_path): /proc/PID/root
 *    of a process the user could not read without the capabilities is refused;
 *  - capabilities are dropped for good (priv_drop) where a command stops needing them: at the
 *    start of every command that reads only files.
 * Outside secure mode (root, or a user without capabilities) each call is the plain one. The
 * capability sets are per thread: priv_drop is called before a command starts threads, and
 * priv_user_begin/end act on the calling thread only (which is the one that opens). */
#ifndef UTIL_PRIVILEGE_H
#define UTIL_PRIVILEGE_H

/* How a user gets the capabilities, for the hints that name them: a group's, not everyone's. */
#define PRIV_CAPS_HOWTO                                                                                           \
    "be a member of the group that 'sudo make install-caps' gives the binary to (nodescope, mode 0750, "     \
    "setcap cap_perfmon,cap_sys_ptrace+ep; docs/security.md)"

/* 1 in secure mode (decided once, at the first call). */
int priv_secure(void);
/* getenv(name) outside secure mode; NULL in it. */
const char *priv_env(const char *name);
/* In secure mode, removes from the environment what a library loaded later acts on by itself:
 * libdw's DEBUGINFOD_URLS (a download, and a dlopen of libdebuginfod) and its cache path. */
void priv_scrub_env(void);
/* Clears the permitted, effective, inheritable and ambient sets for good (secure mode only). */
void priv_drop(void);
/* Between these, the calling thread has only its user's rights (the effective set cleared and
 * put back; nestable). */
void priv_user_begin(void);
void priv_user_end(void);
/* open(2) with the user's own rights. */
int priv_open(const char *path, int flags, int mode);
/* In secure mode: 0 when the user could reach path with access mode (R_OK, W_OK, X_OK) without
 * the capabilities, else "error: OPTION PATH: ..." and -1. Always 0 outside it. */
int priv_check_path(const char *option, const char *path, int mode);
/* dlopen(soname, flags) outside secure mode; in it, the same library by absolute path from a
 * root-owned system library directory, NULL when none holds it. */
void *priv_dlopen(const char *soname, int flags);

#endif
