/* Lists of values as text lines or JSON array elements (postmortem/value_list.h). */
#include "postmortem/value_list.h"
#include "postmortem/fields.h"
#include "util/buf.h"
#include <stdlib.h>
#include <string.h>

/* A text member ("" for none: these documents never say null). */
static void json_text(jw_t *w, const char *key, const char *text) { jw_string(w, key, text ? text : ""); }

/* One value of a list: key (a property name, an index, a slot with its variable's name); name is
 * a slot's variable name for JSON (NULL if none). */
static void print_value(pm_value_list_t *c, const char *key, int numeric_key, const char *name, const v8_property_t *p)
{
    buf_t d = {0};
    if (p->is_double) v8_put_number(&d, p->d);
    else if (p->is_accessor) buf_puts(&d, "<accessor>");
    else v8_describe(c->v, p->value, &d);
    int has_addr = !p->is_double && v8_is_heap_object(c->v, p->value);
    if (c->j) {
        jw_object_begin(c->j, NULL);
        if (numeric_key) jw_int(c->j, "index", strtoll(key, NULL, 10)); /* the decimal index v8/ gave */
        else json_text(c->j, "key", key);
        if (name) json_text(c->j, "name", name);
        if (!p->is_double) jw_address(c->j, "value", p->value);
        json_text(c->j, "text", d.data);
        jw_end(c->j);
    } else if (c->addresses && has_addr)
        fprintf(c->out, "%s%s: %s @0x%llx\n", c->indent, key, d.data ? d.data : "", (unsigned long long)p->value);
    else fprintf(c->out, "%s%s: %s\n", c->indent, key, d.data ? d.data : "");
    buf_free(&d);
}

int pm_value_list_property(void *vctx, const v8_property_t *p)
{
    pm_value_list_t *c = vctx;
    if (c->shown++ >= c->limit) return 1;
    print_value(c, p->key, 0, NULL, p);
    return 0;
}

int pm_value_list_element(void *vctx, const v8_property_t *p)
{
    pm_value_list_t *c = vctx;
    if (c->shown++ >= c->limit) return 1;
    char key[48];
    snprintf(key, sizeof key, c->brackets && !c->j ? "[%s]" : "%s", p->key);
    print_value(c, key, 1, NULL, p);
    return 0;
}

/* Text: a line saying more were cut; JSON: closes the array and adds "NAME_truncated". */
void pm_value_list_more(const pm_value_list_t *c, const char *what)
{
    if (c->j) {
        char key[64];
        snprintf(key, sizeof key, "%s_truncated", what);
        jw_end(c->j);
        jw_bool(c->j, key, c->shown > c->limit);
    } else if (c->shown > c->limit) fprintf(c->out, "%s... (more %s; --limit N shows more)\n", c->indent, what);
}

/* The slots of a FixedArray-shaped object (FixedArray, Context), the first c->limit, as a list;
 * a Context's locals by their ScopeInfo names ("[4] outerVar: ..."). */
int pm_value_list_slots(pm_value_list_t *c, uint64_t addr)
{
    int64_t len;
    if (v8_fixed_array_length(c->v, addr, &len) != 0) return -1;
    for (int64_t i = 0; i < len && i < c->limit + 1; i++) {
        v8_property_t p = {0};
        if (v8_fixed_array_get(c->v, addr, i, &p.value) != 0) return -1;
        if (c->shown++ >= c->limit) break;
        char name[128], key[192];
        int named = pm_context_slot_name(c->v, addr, i, name, sizeof name);
        if (c->j) snprintf(key, sizeof key, "%lld", (long long)i);
        else if (named) snprintf(key, sizeof key, "[%lld] %s", (long long)i, name);
        else snprintf(key, sizeof key, "[%lld]", (long long)i);
        print_value(c, key, 1, named ? name : NULL, &p);
    }
    return 0;
}

/* The members of one embedder field (for internal --json and v8print --json), in the object open in w. */
void pm_embedder_json(jw_t *w, int index, const v8_embedder_value_t *e, const char *text)
{
    static const char *kinds[] = {"smi", "tagged", "pointer"};
    jw_int(w, "field", index);
    jw_int(w, "offset", e->offset);
    jw_string(w, "kind", kinds[e->kind]);
    jw_address(w, "raw", e->raw);
    json_text(w, "text", text);
}

/* The embedder fields of an API object, as lines or as a JSON array ("embedder_fields"). */
void pm_embedder_fields_write(FILE *out, v8_t *v, target_t *t, uint64_t obj, jw_t *j)
{
    int n = v8_embedder_field_count(v, obj, NULL);
    if (n <= 0) return;
    if (j) jw_array_begin(j, "embedder_fields");
    else fprintf(out, "  embedder fields (%d):\n", n);
    buf_t b = {0};
    for (int i = 0; i < n; i++) {
        v8_embedder_value_t e;
        if (v8_embedder_field(v, obj, i, &e) != 0) break;
        pm_embedder_text(v, t, &e, &b);
        if (!j) {
            fprintf(out, "    [%d] +%lld: %s\n", i, (long long)e.offset, b.data);
            continue;
        }
        jw_object_begin(j, NULL);
        pm_embedder_json(j, i, &e, b.data);
        jw_end(j);
    }
    if (j) jw_end(j);
    buf_free(&b);
}

/* ---- v8print ---- */

void pm_v8print_write(FILE *out, jw_t *jp, v8_t *v, target_t *t, uint64_t addr, const char *cls,
                      const v8_field_t *fields, size_t n, long limit, int addresses)
{
    buf_t b = {0}, ctor = {0};
    int type = -1;
    v8_instance_type(v, addr, &type);
    int is_js = v8_constructor_name(v, addr, &ctor) == 0;
    if (jp) {
        jw_address(jp, "address", addr);
        json_text(jp, "class", cls);
        jw_int(jp, "type", type);
        json_text(jp, "type_name", v8_type_name(v, type));
        if (is_js) json_text(jp, "constructor", ctor.data);
        jw_array_begin(jp, "fields");
    } else {
        if (v8_type_name(v, type))
            fprintf(out, "0x%llx: %s (%s)", (unsigned long long)addr, cls ? cls : "?", v8_type_name(v, type));
        else fprintf(out, "0x%llx: %s (instance type %d)", (unsigned long long)addr, cls ? cls : "?", type);
        if (is_js) fprintf(out, ", constructor %s", ctor.data);
        fputc('\n', out);
    }
    for (size_t i = 0; i < n; i++) {
        pm_field_text(v, addr, &fields[i], &b);
        if (!jp) {
            fprintf(out, "  +%-4lld %s.%s (%s): %s\n", (long long)fields[i].offset, fields[i].class_name,
                    fields[i].field, fields[i].type, b.data);
            continue;
        }
        jw_object_begin(jp, NULL);
        jw_int(jp, "offset", fields[i].offset);
        json_text(jp, "class", fields[i].class_name);
        json_text(jp, "name", fields[i].field);
        json_text(jp, "type", fields[i].type);
        json_text(jp, "text", b.data);
        jw_end(jp);
    }
    if (jp) jw_end(jp);
    buf_free(&b);
    pm_embedder_fields_write(out, v, t, addr, jp);
    pm_value_list_t c = {.v = v, .out = out, .j = jp, .limit = limit, .addresses = addresses, .indent = "    "};
    /* JavaScript objects (those with a constructor) also get their properties and elements */
    if (is_js) {
        jp ? jw_array_begin(jp, "properties") : (void)fprintf(out, "  properties:\n");
        v8_object_properties(v, addr, pm_value_list_property, &c);
        pm_value_list_more(&c, "properties");
        c.shown = 0;
        jp ? jw_array_begin(jp, "elements") : (void)fprintf(out, "  elements:\n");
        v8_object_elements(v, addr, pm_value_list_element, &c, limit + 1);
        pm_value_list_more(&c, "elements");
    } else if (cls && !strcmp(cls, "Context")) { /* a context is its slots: scope info, previous, locals */
        jp ? jw_array_begin(jp, "slots") : (void)fprintf(out, "  slots:\n");
        pm_value_list_slots(&c, addr);
        pm_value_list_more(&c, "slots");
    }
    buf_free(&ctor);
}
