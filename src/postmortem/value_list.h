/* Lists of values as `core v8print` and `core array` print them (postmortem/value_list.c): a JS
 * object's properties and elements, a FixedArray's or a Context's slots (locals by name), an API
 * object's embedder fields; as lines of text, or as elements of a JSON array. */
#ifndef POSTMORTEM_VALUE_LIST_H
#define POSTMORTEM_VALUE_LIST_H
#include "target/target.h"
#include "util/json_writer.h"
#include "v8/v8.h"
#include <stdio.h>

typedef struct {
    v8_t *v;
    FILE *out;          /* text: the lines go here */
    jw_t *j;            /* JSON: the values are elements of the array open in it; NULL: text */
    long shown, limit;  /* values seen so far; at most limit shown */
    int addresses;      /* text: " @0xADDR" after a heap value */
    const char *indent; /* text: before each line */
    int brackets;       /* text keys of elements as "[3]" (array) rather than "3" (v8print) */
} pm_value_list_t;

/* Callbacks of v8_object_properties and v8_object_elements (ctx: a pm_value_list_t): one value
   each, until limit; 1 stops the walk. */
int pm_value_list_property(void *ctx, const v8_property_t *p);
int pm_value_list_element(void *ctx, const v8_property_t *p);
/* The slots of a FixedArray-shaped object (FixedArray, Context), the first limit; a Context's
   locals by their ScopeInfo names ("[4] outerVar: ..."). 0, or -1 when unreadable. */
int pm_value_list_slots(pm_value_list_t *c, uint64_t addr);
/* Text: a line saying more were cut; JSON: closes the array and adds "WHAT_truncated". */
void pm_value_list_more(const pm_value_list_t *c, const char *what);

/* The members of one embedder field ("field", "offset", "kind", "raw", "text") in the object
   open in w. */
void pm_embedder_json(jw_t *w, int index, const v8_embedder_value_t *e, const char *text);
/* An API object's embedder fields: "  embedder fields (N):" and a line each to out, or with j the
   member "embedder_fields" of the object open in j. Nothing when it has none. */
void pm_embedder_fields_write(FILE *out, v8_t *v, target_t *t, uint64_t obj, jw_t *j);
/* v8print of the heap object at addr (v8_object_fields gave cls and fields): a header line, a line
   per field, the embedder fields, then a JS object's properties and elements or a Context's
   slots (the first limit of each); or with jp the members of the object open in jp. */
void pm_v8print_write(FILE *out, jw_t *jp, v8_t *v, target_t *t, uint64_t addr, const char *cls,
                      const v8_field_t *fields, size_t n, long limit, int addresses);

#endif
