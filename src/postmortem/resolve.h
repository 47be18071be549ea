/* Addresses and JavaScript paths to values, as commands take them (postmortem/resolve.c). */
#ifndef POSTMORTEM_RESOLVE_H
#define POSTMORTEM_RESOLVE_H
#include "v8/v8.h"
#include <stdint.h>

/* Parses an address ("0x7f...", decimal); prints a usage error for `core CMD` and returns -1
 * when it is not one. */
int pm_parse_addr(const char *cmd, const char *s, uint64_t *out);
/* An address ("0x...") or a path to a value: from the global object ("globalThis.a.b[3]", a
 * global's name), require.cache["/x.js"], module, or an address ("0x1234.a[3]"). Prints why not
 * (as command cmd). EXIT_OK, or the exit code (EXIT_USAGE for a malformed path). */
int pm_resolve(v8_t *v, const char *cmd, const char *expr, uint64_t *out);
/* obj's own property key (an index, a name), or -1 (absent), -2 (an accessor), -3 or > 0 (a
 * number, not an object). */
int pm_lookup(v8_t *v, uint64_t obj, const char *key, uint64_t *out);

#endif
