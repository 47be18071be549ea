/* A target closed, whatever its kind: what its kind owns (its ops' close: a live process's threads
 * let go, its copy killed), then what every kind shares (the unwinder's Dwfl, the modules and their
 * symbols, the mappings, the threads). Below the kinds' files, which close a target they failed to
 * open; above the modules it frees. */
#include "target/target_internal.h"
#include <stdlib.h>
#include <sys/mman.h>

void target_close(target_t *t)
{
    if (!t) return;
    if (t->ops && t->ops->close) t->ops->close(t);
    target_cfi_free(t);
    target_elf_free_modules(t);
    target_symbol_cache_free(t);
    if (t->core && !t->core_borrowed) munmap((void *)t->core, t->core_size);
    for (size_t i = 0; i < t->nmaps; i++) free((char *)t->maps[i].path);
    free(t->maps);
    free(t->segs);
    free(t->threads);
    free(t->name);
    free(t->exe_path);
    free(t->root);
    free(t->problem);
    free(t->exe_map_path);
    free(t);
}
