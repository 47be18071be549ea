/* find's --where: a condition on an object's own property ("hits == 3", "url ~ /admin/",
 * "status != 'ok'"), parsed once and tested per object; where the property lives (in-object,
 * backing store, dictionary) is planned once per map. */
#include "postmortem/query.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The property's value as text (strings unquoted) and, when it is a number, as a number. */
static int property_text(v8_t *v, uint64_t obj, uint64_t map, const char *prop, const v8_property_plan_t *plan,
                         buf_t *out, int *is_num, double *num)
{
    uint64_t val;
    buf_clear(out);
    *is_num = 0;
    if (v8_property_plan_get(v, obj, map, prop, plan, &val) != 0) return -1;
    int type, trunc;
    if (v8_is_smi(v, val)) {
        *is_num = 1;
        *num = (double)v8_smi_value(v, val);
        buf_printf(out, "%lld", (long long)v8_smi_value(v, val));
        return 0;
    }
    if (v8_instance_type(v, val, &type) == 0 && v8_is_string_type(v, type))
        return v8_string(v, val, out, 1 << 20, &trunc);
    v8_describe(v, val, out);
    if (type >= 0 && v8_type_name(v, type) && !strcmp(v8_type_name(v, type), "HEAP_NUMBER_TYPE")) {
        char *end;
        *num = strtod(out->data, &end);
        *is_num = end != out->data && !*end;
    }
    return 0;
}

int pm_where_match(v8_t *v, pm_where_t *sel, const v8_heap_object_t *o, pm_map_entry_t *me)
{
    int is_num;
    double num = 0;
    if (!me->planned) { /* where the property lives: once per map */
        v8_property_plan(v, o->map, sel->prop, &me->plan);
        me->planned = 1;
    }
    if (property_text(v, o->addr, o->map, sel->prop, &me->plan, &sel->scratch, &is_num, &num) != 0) return 0;
    const char *text = sel->scratch.data ? sel->scratch.data : "";
    if (sel->op == PM_OP_MATCH) return regexec(&sel->re, text, 0, NULL, 0) == 0;
    int c;
    if (sel->value_is_number && is_num) c = num < sel->number ? -1 : num > sel->number;
    else if (sel->op == PM_OP_EQ || sel->op == PM_OP_NE) c = strcmp(text, sel->value) != 0;
    else return 0; /* < > on non-numbers: no match */
    switch (sel->op) {
    case PM_OP_EQ: return c == 0;
    case PM_OP_NE: return c != 0;
    case PM_OP_LT: return c < 0;
    case PM_OP_GT: return c > 0;
    case PM_OP_LE: return c <= 0;
    case PM_OP_GE: return c >= 0;
    default: return 0;
    }
}

int pm_where_parse(const char *where, pm_where_t *sel, char *err, size_t errlen)
{
    static const struct {
        const char *text;
        pm_op_t op;
    } ops[] = {
        {"==", PM_OP_EQ}, {"!=", PM_OP_NE}, {"<=", PM_OP_LE},   {">=", PM_OP_GE},
        {"<", PM_OP_LT},  {">", PM_OP_GT},  {"~", PM_OP_MATCH},
    };
    const char *p = where;
    while (*p == ' ') p++;
    const char *ps = p;
    while (*p && *p != ' ' && !strchr("=!<>~", *p)) p++;
    size_t plen = (size_t)(p - ps);
    if (!plen || plen >= sizeof sel->prop) return snprintf(err, errlen, "--where '%s': no property name", where), -1;
    memcpy(sel->prop, ps, plen);
    sel->prop[plen] = 0;
    while (*p == ' ') p++;
    size_t k;
    for (k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (!strncmp(p, ops[k].text, strlen(ops[k].text))) break;
    if (k == sizeof ops / sizeof ops[0])
        return snprintf(err, errlen, "--where '%s': no operator (==, !=, <, >, <=, >=, ~ /regex/)", where), -1;
    sel->op = ops[k].op;
    p += strlen(ops[k].text);
    while (*p == ' ') p++;
    size_t vlen = strlen(p);
    while (vlen && p[vlen - 1] == ' ') vlen--;
    if (vlen >= sizeof sel->value) return snprintf(err, errlen, "--where: the value is too long"), -1;
    if (vlen >= 2 && (p[0] == '"' || p[0] == '\'' || p[0] == '/') && p[vlen - 1] == p[0]) {
        memcpy(sel->value, p + 1, vlen - 2);
        sel->value[vlen - 2] = 0;
    } else {
        memcpy(sel->value, p, vlen);
        sel->value[vlen] = 0;
        char *end;
        sel->number = strtod(sel->value, &end);
        sel->value_is_number = vlen && !*end;
    }
    if (sel->op == PM_OP_MATCH) {
        if (p[0] != '/') return snprintf(err, errlen, "--where: ~ takes a /regex/"), -1;
        if (regcomp(&sel->re, sel->value, REG_EXTENDED | REG_NOSUB) != 0)
            return snprintf(err, errlen, "--where: bad regular expression /%s/", sel->value), -1;
    } else if ((sel->op != PM_OP_EQ && sel->op != PM_OP_NE) && !sel->value_is_number) {
        return snprintf(err, errlen, "--where: %s compares numbers, not '%s'", ops[k].text, sel->value), -1;
    }
    return 0;
}

void pm_where_free(pm_where_t *w)
{
    if (w->op == PM_OP_MATCH) regfree(&w->re);
    buf_free(&w->scratch);
}
