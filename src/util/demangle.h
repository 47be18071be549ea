/* Symbol names for people: C++ and Rust (legacy and v0) demangled by libiberty, the GNU
 * toolchain's demangler (binutils, gdb and perf use it): "_ZN4node5StartEiPPc" ->
 * "node::Start(int, char**)". */
#ifndef UTIL_DEMANGLE_H
#define UTIL_DEMANGLE_H
#include "util/buf.h"
#include <stddef.h>

/* Appends the demangled form of name to out, or name itself when it is not a mangled name. */
void demangle_append(buf_t *out, const char *name);

/* Rust names as profilers print them, demangled without the legacy hash, as rustc-demangle
 * prints them by default: a mangled name (legacy "_ZN...17h<16 hex>E", v0 "_R..."), or a legacy
 * name a C++ demangler did only half ("gc::GcBox$LT$T$GT$::new::h0123456789abcdef" ->
 * "gc::GcBox<T>::new"). Returns 1 and appends the name to out when s[0..n) is one; else 0,
 * appending nothing. */
int demangle_rust(buf_t *out, const char *s, size_t n);

#endif
