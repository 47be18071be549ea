/* V8 layout constants read from the node binary's v8dbg_* symbols (postmortem metadata).
 * v8/ never prints: it returns data; cli/ formats it. */
#ifndef V8_METADATA_H
#define V8_METADATA_H
#include "target/target.h"
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *name;    /* without the "v8dbg_" prefix */
    int64_t value; /* contents of the symbol (4-byte values sign-extended) */
} v8_constant_t;

typedef struct {
    v8_constant_t *items; /* sorted by name */
    size_t count;
} v8_metadata_t;

/* Loads every v8dbg_ constant of the target's executable; 0 on success, -1 when there are none
 * (not a node binary, or a stripped one). */
int v8_metadata_load(target_t *t, v8_metadata_t *md);
/* Looks a constant up by name (without "v8dbg_"); 0 and *out set when present, -1 when absent. */
int v8_metadata_get(const v8_metadata_t *md, const char *name, int64_t *out);
/* The first constant whose name starts with prefix (class fields change their type suffix between
 * V8 versions: "class_Script__source__Object" vs "..._Tagged_Object_"); 0 when found. */
int v8_metadata_get_prefix(const v8_metadata_t *md, const char *prefix, int64_t *out);
void v8_metadata_free(v8_metadata_t *md);

#endif
