/* Finding the source map of a script, once per script, and mapping one JS position.
 *
 * A script's map is what Node's --enable-source-maps finds: the last
 * `//# sourceMappingURL=` comment in the file on disk (a path relative to the script, a
 * file:// URL, or an inline `data:application/json[;charset=utf-8];base64,` map), else a
 * sidecar `FILE.map`. `--source-map-path OLD=NEW` rewrites recorded script paths (also
 * file:// URLs, as V8 records ES modules) that were recorded on another machine or in a
 * container. Each script is read once; a bad map warns once and its frames stay generated. */
#ifndef SOURCEMAP_CACHE_H
#define SOURCEMAP_CACHE_H
#include "sourcemap/sourcemap.h"
#include <stdint.h>

typedef struct smap_cache smap_cache_t;

smap_cache_t *smap_cache_new(void);
void smap_cache_free(smap_cache_t *c);
/* --source-map-path OLD=NEW; 0, or -1 when spec has no '='. */
int smap_cache_add_rewrite(smap_cache_t *c, const char *spec);

/* The map of the script a frame names (a path or file:// URL), loaded on first use; NULL
 * when the script names none, cannot be read, or its map is bad (warned once). */
smap_t *smap_cache_get(smap_cache_t *c, const char *script_url);
/* How many scripts had a map, and how many maps failed to load. */
void smap_cache_counts(const smap_cache_t *c, size_t *with_map, size_t *bad);

typedef struct {
    const char *url;      /* original source: a path (as file:// when script_url was one) or URL */
    const char *name;     /* the original function name, or NULL (keep the generated one) */
    int32_t line, column; /* 1-based */
    int ignored;          /* the source is in the map's ignoreList */
    smap_t *map;
    const char *source; /* the map's source pointer (for smap_line) */
} smap_frame_t;

/* Maps a JS function at its definition site (1-based line and column, as profiles and V8
 * report them). The original name is the `names` entry of the mapping at the definition
 * site, as Node's --enable-source-maps and DevTools take it. 1 = mapped, 0 = the script has
 * a map but not this position, -1 = no (usable) map. The strings live as long as c. */
int smap_cache_map(smap_cache_t *c, const char *script_url, int32_t line, int32_t column, smap_frame_t *out);

#endif
