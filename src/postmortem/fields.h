/* The text of raw V8 and embedder words (postmortem/fields.c), for the low-level inspectors
 * (`v8print`, `internal`, `array`): a field of V8's metadata read by its C type, an embedder
 * field (a Smi, a V8 value, or a C++ object named by its vtable's symbol), a context slot's
 * variable name. */
#ifndef POSTMORTEM_FIELDS_H
#define POSTMORTEM_FIELDS_H
#include "target/target.h"
#include "util/buf.h"
#include "v8/v8.h"
#include <stdint.h>

/* Field f of the object at obj into b (cleared first): integers in decimal, words in hex, a
   double as JavaScript prints it, a tagged field as "0xADDR <description>"; "<unreadable>". */
void pm_field_text(v8_t *v, uint64_t obj, const v8_field_t *f, buf_t *b);
/* An embedder field into b (cleared first): "Smi N", "0xADDR <description>", or a C++ pointer as
   "0xADDR (C++ node::TCPWrap)" (its vtable's class), "0xADDR (&symbol+0x10)", "0xADDR (null)",
   "0xADDR (native pointer)". */
void pm_embedder_text(v8_t *v, target_t *t, const v8_embedder_value_t *e, buf_t *b);
/* The name of slot i of a Context (its ScopeInfo's local there) into name (n bytes): 1 when it
   has one ("" and 0 otherwise, or for what is not a Context). */
int pm_context_slot_name(v8_t *v, uint64_t context, int64_t i, char *name, size_t n);

#endif
