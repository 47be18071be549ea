/* find's --where condition (postmortem/query.c). */
#ifndef POSTMORTEM_QUERY_H
#define POSTMORTEM_QUERY_H
#include "postmortem/walk.h"
#include "util/buf.h"
#include "v8/v8.h"
#include <regex.h>
#include <stddef.h>

typedef enum { PM_OP_EQ, PM_OP_NE, PM_OP_LT, PM_OP_GT, PM_OP_LE, PM_OP_GE, PM_OP_MATCH } pm_op_t;

typedef struct {
    char prop[256];
    pm_op_t op;
    char value[1024]; /* unquoted */
    int value_is_number;
    double number;
    regex_t re; /* PM_OP_MATCH */
    buf_t scratch;
} pm_where_t;

/* "PROP OP VALUE" (OP: ==, !=, <, >, <=, >=, ~ /regex/; VALUE bare, "quoted" or 'quoted'):
 * 0, or -1 with the reason in err. */
int pm_where_parse(const char *where, pm_where_t *w, char *err, size_t errlen);
/* 1 when object o (its map's entry me, where the property's place is remembered) matches:
 * numbers compare as numbers, strings as text; < and > only numbers. */
int pm_where_match(v8_t *v, pm_where_t *w, const v8_heap_object_t *o, pm_map_entry_t *me);
void pm_where_free(pm_where_t *w);

#endif
