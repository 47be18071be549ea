/* Source map v3: parse a map, look up generated positions in it.
 *
 * What is read: `sources` resolved with `sourceRoot` against the map's directory,
 * `sourcesContent`, `names`, `ignoreList` / `x_google_ignoreList`, `mappings`, and index
 * maps (`sections`, nested, with an inline `map` or a `url` loaded through a loader the
 * caller sets). Parsing only scans the JSON: strings stay in the map's text until used
 * (`names` and `sourcesContent` entries are unescaped on first use), and `mappings` are
 * decoded straight from the text, line by line as far as a lookup needs, into one flat array
 * of segments; an index map's sections are decoded (and url sections loaded) only when a
 * lookup falls in them, so a profile that touches one file of a bundle never decodes the others.
 *
 * Lookup has @jridgewell/trace-mapping's `originalPositionFor` semantics: on the same
 * generated line, the first segment at exactly the column, else the last segment before it;
 * none, or a segment without a source, is "unmapped".
 *
 * A map is untrusted input: a bad map (malformed JSON, bad VLQ, an index out of range)
 * gives one warning naming the map and the problem, never a crash. Depends on util/ only. */
#ifndef SOURCEMAP_SOURCEMAP_H
#define SOURCEMAP_SOURCEMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct smap smap_t;

typedef struct {
    const char *source;   /* resolved path (absolute, no file://) or URL as the map gives it */
    const char *name;     /* the segment's `names` entry, or NULL */
    int32_t line, column; /* original position, 0-based */
    int ignored;          /* the source is in the map's ignoreList */
    smap_t *map_;         /* private: the (section) map the position is from, for smap_pos_content */
    int32_t src_;
} smap_pos_t;

/* Parses data[0..n) (copied). name names the map in messages; dir is the directory relative
 * `sources` and section urls resolve against ("" = leave them relative). NULL after a warning. */
smap_t *smap_parse(const char *name, const char *dir, const char *data, size_t n);
/* The same without the copy: text is a malloc'ed buffer of n + 1 bytes with text[n] == 0,
 * which the map takes over (freed with it, or at once when the map is bad). */
smap_t *smap_parse_owned(const char *name, const char *dir, char *text, size_t n);
void smap_free(smap_t *m);
const char *smap_name(const smap_t *m);

/* Loads the map an index map section's "url" names (a path resolved against the index map's
 * directory, or a URL as given): the map, owned by the loader (it outlives m), or NULL when
 * it cannot (the loader warns). Called at most once per section, on the section's first use. */
typedef smap_t *(*smap_loader_fn)(void *ctx, const smap_t *index_map, const char *url);
/* Sets the loader of m's url sections, nested ones included; without one they stay unmapped. */
void smap_set_loader(smap_t *m, smap_loader_fn fn, void *ctx);

/* The sourcesContent entry of a looked-up position's source (unescaped on first use), or NULL. */
const char *smap_pos_content(const smap_pos_t *pos);

/* Looks up a generated position (0-based line and column). 1 = mapped (*out filled),
 * 0 = unmapped, -1 = the mappings this position needs are bad (warned once). */
int smap_lookup(smap_t *m, int32_t line, int32_t column, smap_pos_t *out);
/* The original line (0-based) a generated line shows of a source: the first segment on the
 * line whose source is `source` (an smap_pos_t.source pointer; NULL = any). 1, or 0 when none. */
int smap_line(smap_t *m, int32_t line, const char *source, int32_t *orig_line);
/* Generated lines the map covers: the last generated line with a segment, plus one (read from
 * the mappings' text, not decoded; of an index map: its last section's). For telling a map
 * that does not fit its file. */
int32_t smap_generated_lines(smap_t *m);
/* For tests and benchmarks: how many maps (a regular map: 1; an index map: its sections, and
 * theirs) have decoded some of their mappings, and how many generated lines all of them have. */
size_t smap_decoded_count(smap_t *m);
size_t smap_decoded_lines(smap_t *m);

/* One base64 VLQ value from [*p, e): 0 and *p past it, or -1 (bad digit, too long, truncated). */
int smap_vlq_decode(const char **p, const char *e, int32_t *out);
/* Decodes standard base64 (padding optional, no whitespace); malloc'ed result, or NULL when bad. */
char *smap_base64_decode(const char *s, size_t n, size_t *out_len);

#endif
