/* util/output: a result replaces its file only when complete, never an input, and a path that
 * is not a regular file (/dev/null, a FIFO) is written as it is: renaming a temporary file over
 * /dev/null, as root, had made it a regular file. */
#include "check.h"
#include "util/output.h"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_regular(void)
{
    char dir[] = "/tmp/test_output.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    output_t o;
    CHECK(output_open(&o, path, NULL, 0) == 0);
    fputs("hello\n", o.f);
    struct stat st;
    CHECK(stat(path, &st) != 0); /* not there until committed */
    CHECK(output_commit(&o) == 0);
    CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 6);
    /* an input is never the output */
    char *inputs[] = {path};
    CHECK(output_open(&o, path, inputs, 1) == -1);
    unlink(path);
    rmdir(dir);
}

static void test_device(void)
{
    struct stat before, after;
    if (stat("/dev/null", &before) != 0 || !S_ISCHR(before.st_mode)) return; /* no /dev/null to test with */
    output_t o;
    CHECK(output_open(&o, "/dev/null", NULL, 0) == 0);
    CHECK(o.tmp == NULL);
    fputs("discarded\n", o.f);
    CHECK(output_commit(&o) == 0);
    CHECK(stat("/dev/null", &after) == 0 && S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev);
}

int main(void)
{
    test_regular();
    test_device();
    return check_summary("test_output");
}
