/* A process's mappings as /proc/PID/maps lists them (target_internal.h): for a live target's open
 * and refreshes (live.c), a copy's (gcore.c, track.c), the library V8 is in (v8_object.c). Below
 * every file that reads a process. */
#include "target/target_internal.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <string.h>

/* Reads /proc/PID/maps into a new array (sorted by address, as the kernel lists them); -1 when
 * the file cannot be read. */
int target_live_read_maps(int pid, target_mapping_t **out, size_t *nout)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[4096];
    size_t cap = 0, n = 0;
    target_mapping_t *maps = NULL;
    while (fgets(line, sizeof line, f)) {
        unsigned long long s, e, off;
        char perms[8];
        int pos = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4) continue;
        xgrow((void **)&maps, &cap, n + 1, sizeof *maps);
        target_mapping_t *m = &maps[n++];
        char *name = line + pos;
        name[strcspn(name, "\n")] = 0;
        *m = (target_mapping_t){s,
                                e,
                                off,
                                (perms[0] == 'r') | (perms[1] == 'w') << 1 | (perms[2] == 'x') << 2,
                                *name ? xstrdup(name) : NULL,
                                1};
    }
    fclose(f);
    *out = maps;
    *nout = n;
    return 0;
}
