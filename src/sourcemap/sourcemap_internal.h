/* The source map's representation, shared by sourcemap/sourcemap.c (the JSON scanned in place
 * into it) and sourcemap/mappings.c (the mappings decoded line by line, and looked up; above
 * sourcemap.c). sourcemap.c's private half: nothing outside sourcemap/ includes this. */
#ifndef SOURCEMAP_INTERNAL_H
#define SOURCEMAP_INTERNAL_H
#include "sourcemap/sourcemap.h"
#include <stddef.h>
#include <stdint.h>

/* Index maps nest; deeper than this is not a bundler's output but an attack on the stack. */
#define MAX_NESTING 8
/* Nesting of the JSON values a map's unknown members hold (as util/json's bound). */
#define MAX_JSON_DEPTH 512
/* Offsets into a map's text are 32 bits (the cache reads no file over 1 GiB). */
#define MAX_TEXT ((size_t)1 << 31)

/* A JSON string's body in the map's text, as written (escapes not undone). */
typedef struct {
    uint32_t off, len;
} span_t;
#define SPAN_ESC 0x80000000u /* in len: the body has escapes */
#define SPAN_NULL UINT32_MAX /* in off: a JSON null */

typedef struct {
    int32_t src, oline, ocol, name; /* src -1: a segment with no source (1 field); name -1: none */
} seg_t;

typedef struct {
    int32_t line, column; /* the section's offset in the generated file */
    smap_t *map;          /* NULL: a url section not loaded (yet) */
    char *url;            /* a url section's map, resolved; NULL for an inline map */
    int loaded;           /* the url was given to the loader */
} section_t;

struct smap {
    char *name; /* the map, for messages */
    char *text; /* the JSON, NUL-terminated; owned by the outermost map */
    int owns_text;
    /* a regular map */
    char **sources;
    uint8_t *ignored;
    size_t nsources;
    span_t *contents, *names;
    char **contents_dec, **names_dec; /* unescaped on first use */
    size_t ncontents, nnames;
    const char *mappings; /* in text (or mappings_owned when the JSON string had escapes) */
    char *mappings_owned;
    size_t mappings_len;
    int32_t gen_lines; /* smap_generated_lines, -1 until computed */
    /* the decoded prefix of the mappings: lines [0, nlines) */
    const char *dp;                                 /* the next line's first byte; NULL when all are decoded */
    int64_t acc_src, acc_oline, acc_ocol, acc_name; /* VLQ fields are relative across lines */
    int bad;                                        /* the mappings are bad (warned): every lookup says so */
    int started;
    uint32_t *line_start; /* nlines + 1 entries into gcols/segs */
    size_t nlines, lines_cap;
    int32_t *gcols; /* generated columns apart, for a binary search that stays in cache */
    seg_t *segs;
    size_t nsegs, segs_cap;
    void *region; /* gcols and segs, one allocation (see region_alloc) */
    /* an index map */
    int is_index;
    section_t *sections;
    size_t nsections;
    smap_loader_fn loader;
    void *loader_ctx;
    int busy; /* being looked into: a url section naming its own index map is a cycle */
};

/* sourcemap.c */
void smap_b64_init(void);
extern signed char smap_b64_val[256];              /* after smap_b64_init: a base64 digit's value, or -1 */
char *smap_span_str(const char *base, span_t sp);  /* a span's string, unescaped, malloc'ed */
smap_t *smap_section_map(smap_t *m, section_t *s); /* a section's map, loaded on first use */

#endif
