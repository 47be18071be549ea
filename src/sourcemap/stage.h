/* The source-map stage of the profile pipeline: after a profile is read, every JS frame
 * with a script position is mapped to its original file, line, column and function name.
 * Nodes whose frames become equal merge (the tree stays keyed on definition sites), line
 * ticks are mapped line by line, and with hide_ignored the frames of ignoreList sources
 * fold into their callers. A frame whose script has a map that does not cover its position
 * keeps its generated location, marked " [unmapped]". */
#ifndef SOURCEMAP_STAGE_H
#define SOURCEMAP_STAGE_H
#include "profile/profile.h"
#include "sourcemap/cache.h"

typedef struct {
    size_t frames, mapped, unmapped, ignored; /* JS frames with a position / mapped / not covered / folded */
} smap_stage_stats_t;

/* Rewrites p in place. stats may be NULL. */
void smap_stage_apply(profile_t *p, smap_cache_t *c, int hide_ignored, smap_stage_stats_t *stats);

/* The stage with the defaults (maps found next to the scripts, nothing hidden): for commands
 * without the input options (record). Returns 0. */
int smap_stage_default(profile_t *p);

#endif
