/* Source map v3: parse a map, look up generated positions in it.
 *
 * What is read: `sources` resolved with `sourceRoot` against the map's directory,
 * `sourcesContent`, `names`, `ignoreList` / `x_google_ignoreList`, `mappings`, and index
 * maps (`sections`, nested). Parsing keeps the `mappings` text as it is: a map's (or an
 * index map section's) mappings are decoded on its first lookup, so a profile that touches
 * one file of a bundle never decodes the others.
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
    const char *source;     /* resolved path (absolute, no file://) or URL as the map gives it */
    const char *content;    /* the source's sourcesContent entry, or NULL */
    const char *name;       /* the segment's `names` entry, or NULL */
    int32_t line, column;   /* original position, 0-based */
    int ignored;            /* the source is in the map's ignoreList */
} smap_pos_t;

/* Parses data[0..n). name names the map in messages; dir is the directory relative
 * `sources` resolve against ("" = leave them relative). NULL after a warning. */
smap_t *smap_parse(const char *name, const char *dir, const char *data, size_t n);
void smap_free(smap_t *m);
const char *smap_name(const smap_t *m);

/* Looks up a generated position (0-based line and column). 1 = mapped (*out filled),
 * 0 = unmapped, -1 = the mappings this position needs are bad (warned once). */
int smap_lookup(smap_t *m, int32_t line, int32_t column, smap_pos_t *out);
/* The original line (0-based) a generated line shows of a source: the first segment on the
 * line whose source is `source` (an smap_pos_t.source pointer; NULL = any). 1, or 0 when none. */
int smap_line(smap_t *m, int32_t line, const char *source, int32_t *orig_line);
/* Generated lines the map covers (of a regular map: the mappings' lines, decoding them; of
 * an index map: up to its last section's start). For telling a map that does not fit its file. */
int32_t smap_generated_lines(smap_t *m);
/* How many maps (a regular map: 1; an index map: its sections) have had their mappings decoded. */
size_t smap_decoded_count(const smap_t *m);

/* One base64 VLQ value from [*p, e): 0 and *p past it, or -1 (bad digit, too long, truncated). */
int smap_vlq_decode(const char **p, const char *e, int32_t *out);
/* Decodes standard base64 (padding optional, no whitespace); malloc'ed result, or NULL when bad. */
char *smap_base64_decode(const char *s, size_t n, size_t *out_len);

#endif
