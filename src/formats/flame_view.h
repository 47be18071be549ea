/* The profiles a flame graph draws, from the profiles read (formats/flame_view.c). */
#ifndef FORMATS_FLAME_VIEW_H
#define FORMATS_FLAME_VIEW_H
#include "formats/format.h"

/* *p, and *before when not NULL (a differential graph's), replaced by their thread view
 * (wo->thread's threads, a root per thread role, or one root with wo->threads_merge: BEFORE gets
 * the same roots as AFTER), then with reverse every stack reversed (leaf at the bottom). The
 * profiles replaced are freed. 0, or -1 (said; *p and *before are still the caller's to free). */
int flame_view(profile_t **p, profile_t **before, const write_opts_t *wo, int reverse);

#endif
