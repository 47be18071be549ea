/* The system libraries only some commands need (libdw, libelf, libedit; liblzma and libdebuginfod
 * when a file asks for them), and what this build of nodescope has of them.
 *
 * The normal build loads each on first use (lazylib.c); the static build (`make static`,
 * -DNODESCOPE_STATIC) has them linked in, but for libdebuginfod, which needs libcurl and is left
 * out. The code that uses a library calls its functions alike in both builds: libdw's, libelf's and
 * libedit's by their names, an optional library's through lazylib_optional. */
#ifndef UTIL_LAZYLIB_H
#define UTIL_LAZYLIB_H

/* The address of symbol in the optional library soname ("liblzma.so.5", "libdebuginfod.so.1"):
 * loaded once (priv_dlopen) in the normal build, linked in or absent in the static build. NULL
 * when this machine or this build does not have it: the caller does without, nothing is said. */
void *lazylib_optional(const char *soname, const char *symbol);

/* What this build has and lacks, one line for `nodescope --version`: "static; has ...; lacks ...". */
const char *lazylib_build(void);

#endif
