/* Uses the C++ runtime's own demangler (libstdc++'s __cxa_demangle, linked with -lstdc++):
 * writing a demangler is a project of its own, and the system one is exact. */
#include "util/demangle.h"
#include <stdlib.h>
#include <string.h>

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

void demangle_append(buf_t *out, const char *name)
{
    int status = -1;
    char *d = !strncmp(name, "_Z", 2) ? __cxa_demangle(name, NULL, NULL, &status) : NULL;
    buf_puts(out, status == 0 && d ? d : name);
    free(d);
}
