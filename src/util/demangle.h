/* C++ symbol names for people: "_ZN4node5StartEiPPc" -> "node::Start(int, char**)". */
#ifndef UTIL_DEMANGLE_H
#define UTIL_DEMANGLE_H
#include "util/buf.h"

/* Appends the demangled form of name to out, or name itself when it is not a C++ name. */
void demangle_append(buf_t *out, const char *name);

#endif
