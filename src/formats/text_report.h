/* The `top` report as text or JSON; see text_report.c. */
#ifndef FORMATS_TEXT_REPORT_H
#define FORMATS_TEXT_REPORT_H
#include "formats/format.h"
#include "util/buf.h"

typedef struct {
    double limit;                /* rows; 0 = 20 */
    int by_file;                 /* group by source file instead of function */
    int sort_total;              /* order by total instead of self */
    int json;                    /* JSON document instead of the table */
    const profile_t *threads_of; /* when it has threads: the split of its weight by thread role first */
    const char *json_extra;      /* JSON: members added after "by" (",\"k\":v,..."), or NULL */
} text_report_opts_t;

void text_report(const profile_t *p, const text_report_opts_t *o, buf_t *out);

#endif
