/* util/privilege: outside secure mode every call is the plain one; in it (a child made uid 65534
 * holding CAP_SYS_PTRACE, as a member running the install-caps binary does, when the test runs as
 * root): NODESCOPE_* reads as unset, priv_user_begin/end clear and put back the effective set, a
 * path reached only through the capability (/proc/PARENT/root) is refused by priv_open and
 * priv_check_path, and priv_drop empties every set. */
#include "check.h"
#include "util/privilege.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int caps(struct __user_cap_data_struct d[2], int set)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    return (int)syscall(set ? SYS_capset : SYS_capget, &h, d);
}

/* In a child: its failures are its exit status. */
static void secure_child(void)
{
    struct __user_cap_data_struct d[2] = {{0}};
    if (prctl(PR_SET_KEEPCAPS, 1) != 0 || setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(0);
    d[0].effective = d[0].permitted = 1u << CAP_SYS_PTRACE;
    if (caps(d, 1) != 0) _exit(0); /* not allowed here: nothing to test */
    setenv("NODESCOPE_TEST_SWITCH", "1", 1);
    CHECK(priv_secure() == 1);
    CHECK(priv_env("NODESCOPE_TEST_SWITCH") == NULL);
    setenv("DEBUGINFOD_URLS", "http://localhost:1", 1);
    priv_scrub_env();
    CHECK(getenv("DEBUGINFOD_URLS") == NULL);
    priv_user_begin();
    priv_user_begin(); /* nested: the inner end puts nothing back */
    priv_user_end();
    CHECK(caps(d, 0) == 0 && d[0].effective == 0 && d[0].permitted == 1u << CAP_SYS_PTRACE);
    priv_user_end();
    CHECK(caps(d, 0) == 0 && d[0].effective == 1u << CAP_SYS_PTRACE);
    char root[64]; /* the parent's, root's */
    snprintf(root, sizeof root, "/proc/%d/root", (int)getppid());
    int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && access(root, X_OK) != 0) { /* the capability reaches it, uid 65534 does not */
        close(fd);
        fprintf(stderr, "%s: open with CAP_SYS_PTRACE, not without\n", root);
        CHECK(priv_open(root, O_PATH | O_DIRECTORY | O_CLOEXEC, 0) < 0);
        CHECK(priv_check_path("--root", root, R_OK | X_OK) == -1);
    }
    CHECK(priv_check_path("--root", "/", R_OK | X_OK) == 0);
    CHECK(priv_dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD) != NULL); /* from a root-owned directory */
    CHECK(priv_dlopen("no-such-library.so.1", RTLD_NOW) == NULL);
    priv_drop();
    CHECK(caps(d, 0) == 0 && d[0].effective == 0 && d[0].permitted == 0 && d[1].permitted == 0);
    fprintf(stderr, "secure mode (uid 65534, CAP_SYS_PTRACE): %d checks, %d failed\n", check_count, check_failures);
    _exit(check_failures);
}

int main(void)
{
    if (getuid() == 0) { /* before this process asks priv_secure(): the child decides for itself */
        pid_t c = fork();
        if (c == 0) secure_child();
        int st;
        CHECK(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    /* root, or a user without capabilities: not secure, every call the plain one */
    setenv("NODESCOPE_TEST_SWITCH", "1", 1);
    CHECK(priv_secure() == 0);
    CHECK_STR(priv_env("NODESCOPE_TEST_SWITCH"), "1");
    CHECK(priv_check_path("--root", "/nonexistent/dir", R_OK) == 0);
    int fd = priv_open("/dev/null", O_RDONLY | O_CLOEXEC, 0);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    priv_user_begin();
    priv_user_end();
    priv_drop(); /* nothing to drop */
    CHECK(priv_dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD) != NULL);
    return check_summary("test_privilege");
}
