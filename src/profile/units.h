/* What a profile's weights count (profile_t.weight_unit), and the check that two profiles count
 * the same thing before they are added or compared (merge, diff). Depends on util/ only. */
#ifndef PROFILE_UNITS_H
#define PROFILE_UNITS_H
#include "profile/profile.h"

/* The unit of p's weights ("samples", "ns", "cycles", ...). */
const char *profile_weight_unit(const profile_t *p);
/* 0 when a and b weigh in the same unit; otherwise prints an error naming both files and units
 * (what = "merge", "diff") and returns -1. */
int profile_check_units(const char *what, const char *path_a, const profile_t *a, const char *path_b,
                        const profile_t *b);

#endif
