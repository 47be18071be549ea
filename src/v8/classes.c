/* The metadata's class descriptions: `class_<Class>__<field>__<type>` gives each field's offset
 * and `parent_<Class>__<Parent>` the inheritance, so an object's fields can be listed by class
 * (v8print) without knowing any class here. */
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdlib.h>
#include <string.h>

#define MAX_CLASS_DEPTH 16

/* The parent class named by parent_<cls>__<Parent>, or NULL. */
static const char *parent_of(const v8_t *v, const char *cls)
{
    size_t n = strlen(cls);
    for (size_t i = 0; i < v->md.count; i++) {
        const char *name = v->md.items[i].name;
        if (!strncmp(name, "parent_", 7) && !strncmp(name + 7, cls, n) && !strncmp(name + 7 + n, "__", 2))
            return name + 7 + n + 2;
    }
    return NULL;
}

static void add_fields(const v8_t *v, const char *cls, size_t cls_len, v8_field_t **out, size_t *n, size_t *cap)
{
    for (size_t i = 0; i < v->md.count; i++) {
        const char *name = v->md.items[i].name;
        if (strncmp(name, "class_", 6) || strncmp(name + 6, cls, cls_len) || strncmp(name + 6 + cls_len, "__", 2))
            continue;
        const char *field = name + 6 + cls_len + 2, *sep = strstr(field, "__");
        if (!sep) continue;
        XGROW(*out, *cap, *n + 1);
        (*out)[*n].class_name = NULL;
        (*out)[*n].field = xstrndup(field, (size_t)(sep - field));
        (*out)[*n].type = xstrdup(sep + 2);
        (*out)[*n].offset = v->md.items[i].value;
        (*n)++;
    }
}

static int by_offset(const void *a, const void *b)
{
    const v8_field_t *x = a, *y = b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

int v8_object_fields(v8_t *v, uint64_t obj, const char **class_name, v8_field_t **fields, size_t *n)
{
    int type;
    size_t cap = 0;
    *fields = NULL;
    *n = 0;
    *class_name = NULL;
    if (v8_instance_type(v, obj, &type) != 0) return -1;
    const char *cls = v8_class_name(v, type);
    v8_function_t fi;
    if (!cls && v8_function_info(v, obj, &fi) == 0) { /* the JSFunction subtypes are not all listed */
        cls = "JSFunction";
        v8_function_free(&fi);
    }
    *class_name = cls;
    /* the class names come from the metadata's own strings ("type_<Class>__..." / "parent_...") */
    for (int depth = 0; cls && depth < MAX_CLASS_DEPTH; depth++) {
        size_t before = *n, len;
        /* class names have no "__"; a parent name ends where the metadata name ends */
        const char *end = strstr(cls, "__");
        len = end ? (size_t)(end - cls) : strlen(cls);
        add_fields(v, cls, len, fields, n, &cap);
        for (size_t i = before; i < *n; i++) (*fields)[i].class_name = cls;
        char buf[128];
        if (len >= sizeof buf) break;
        memcpy(buf, cls, len);
        buf[len] = 0;
        cls = parent_of(v, buf);
    }
    /* V8 12 and later export almost no parent_ entries: supply the common ancestors */
    static const char *const js_chain[] = {"JSObject", "JSReceiver", "HeapObject"};
    const char *tn = v8_type_name(v, type);
    int js = tn && !strncmp(tn, "JS_", 3);
    for (size_t k = js ? 0 : 2; k < 3; k++) {
        int present = 0;
        for (size_t i = 0; i < *n && !present; i++) present = !strcmp((*fields)[i].class_name, js_chain[k]);
        if (present) continue;
        size_t before = *n;
        add_fields(v, js_chain[k], strlen(js_chain[k]), fields, n, &cap);
        for (size_t i = before; i < *n; i++) (*fields)[i].class_name = js_chain[k];
    }
    if (*n) qsort(*fields, *n, sizeof **fields, by_offset);
    /* V8 12+ lists some fields twice, under the old and the new type name ("Context" and
     * "Tagged_Context_"): keep one, the plainer name */
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        v8_field_t *f = &(*fields)[i], *last = kept ? &(*fields)[kept - 1] : NULL;
        if (last && last->offset == f->offset && !strcmp(last->field, f->field) &&
            !strcmp(last->class_name, f->class_name)) {
            if (strlen(f->type) < strlen(last->type)) {
                v8_field_t tmp = *last;
                *last = *f;
                *f = tmp;
            }
            free(f->field);
            free(f->type);
            continue;
        }
        (*fields)[kept++] = *f;
    }
    *n = kept;
    return 0;
}

void v8_fields_free(v8_field_t *fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(fields[i].field);
        free(fields[i].type);
    }
    free(fields);
}
