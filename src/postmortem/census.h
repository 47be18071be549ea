/* JavaScript objects counted by constructor: the name an object goes by (postmortem/census.c),
 * and per constructor the instances, their shallow size and the memory they retain over the object
 * graph's dominator tree (`objects --retained`, `dominators`). */
#ifndef POSTMORTEM_CENSUS_H
#define POSTMORTEM_CENSUS_H
#include "util/buf.h"
#include "util/hash.h"
#include "v8/graph.h"
#include "v8/v8.h"
#include <stdint.h>

/* The name `objects` groups an object under: its constructor's name (a derived class by its own),
 * else its V8 class in parentheses ("(Object)"); a prototype as "Point.prototype". Appended to b. */
void pm_constructor_label(v8_t *v, uint64_t addr, int type, int prototype, buf_t *b);

typedef struct {
    const char *name; /* interned in the census's pool */
    uint64_t count, self, retained;
} pm_class_t;

typedef struct {
    strpool_t *names;
    pm_class_t *classes;
    size_t n;
    uint32_t *of; /* per graph node: its class's index + 1; 0 for what is not a JS object */
} pm_census_t;

/* How a census names graph node i (a JS object): appended to b. Objects of one map (prototypes
 * apart) always get one name, so names are worked out once per map. */
typedef void (*pm_namer_fn)(v8_t *v, v8_graph_t *g, uint32_t i, buf_t *b);
/* pm_constructor_label of the node: `objects`' names. */
void pm_name_by_constructor(v8_t *v, v8_graph_t *g, uint32_t i, buf_t *b);
/* pm_describe_node of the node, every closure as "(closure)": `dominators`' names. */
void pm_name_described(v8_t *v, v8_graph_t *g, uint32_t i, buf_t *b);

/* Node i's map: the target of its edge from slot 0 (the graph has it: no read of the core, whose
 * pages a pass over every object would fault in), else read. 0, or -1 when unreadable. */
int pm_node_map(v8_t *v, v8_graph_t *g, uint32_t i, uint64_t *map);

/* Every JS object of g by class (name()), with counts, shallow and retained sizes: an instance
 * dominated by another of its class is counted in that one only, so a class's retained size is
 * what freeing all its instances would free (DevTools' "Retained Size"). Computes the dominator
 * tree if needed; -1 (message printed) when that runs out of memory. */
int pm_census_retained(v8_t *v, v8_graph_t *g, pm_namer_fn name, pm_census_t *out);
void pm_census_free(pm_census_t *c);

/* The census's classes sorted (a malloc'ed copy: c->of keeps indexing c->classes):
   PM_BY_RETAINED: retained size, then name (`dominators`); PM_BY_RETAINED_COUNT: retained size,
   then count, then name; PM_BY_SELF: shallow size, then as PM_BY_RETAINED_COUNT. */
typedef enum { PM_BY_RETAINED, PM_BY_RETAINED_COUNT, PM_BY_SELF } pm_class_order_t;
pm_class_t *pm_census_sorted(const pm_census_t *c, pm_class_order_t order);

/* The k JS objects (of the census) retaining the most, most first (then by node index), into
   *out (malloc'ed): how many (k at most). A heap of the k best so far, its worst on top: sorting
   millions of objects for 20 was most of the command. */
typedef struct {
    uint32_t node;
    uint64_t retained;
} pm_top_t;
size_t pm_top_retained(v8_graph_t *g, const pm_census_t *c, size_t k, pm_top_t **out);

#endif
