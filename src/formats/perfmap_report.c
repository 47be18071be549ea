/* The text of `nodescope map find` and `map stats` (formats/perfmap_report.h): the entries that
 * cover an address, newest last, with their jitdump source; a map's counts by kind. */
#include "formats/perfmap_report.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdlib.h>

size_t perfmap_find_write(perfmap_t *m, uint64_t addr, FILE *f)
{
    size_t total = perfmap_covering(m, addr, NULL, 0);
    uint32_t *cand = xmalloc((total + 1) * sizeof *cand);
    perfmap_covering(m, addr, cand, total);
    if (!total) {
        fprintf(f, "no entry of %s covers 0x%llx\n", m->path, (unsigned long long)addr);
        free(cand);
        return 0;
    }
    for (size_t i = 0; i < total; i++) {
        const perfmap_entry_t *e = &m->entries[cand[i]];
        fprintf(f, "%s:%u: %llx %llx %s%s\n", m->path, e->line, (unsigned long long)e->start,
                (unsigned long long)e->size, perfmap_name(m, e), i == total - 1 && total > 1 ? "   <- newest" : "");
        const perfmap_src_t *src = m->nsrc ? perfmap_source(m, cand[i], addr) : NULL;
        if (src)
            fprintf(f, "    source: %s:%u:%u (jitdump debug info)\n", m->text + src->file_off, src->line, src->column);
    }
    if (total > 1)
        fprintf(f, "%zu entries cover 0x%llx; perf may label it with any of them\n", total, (unsigned long long)addr);
    free(cand);
    return total;
}

int perfmap_stats_write(perfmap_t *m, FILE *f)
{
    perfmap_stats_t st;
    perfmap_stats(m, &st);
    fprintf(f, "map:                 %s\n", m->path);
    fprintf(f, "entries:             %zu%s\n", m->n, m->malformed ? " (plus malformed lines skipped)" : "");
    if (m->n) fprintf(f, "address span:        %llx-%llx\n", (unsigned long long)st.lo, (unsigned long long)st.hi);
    fprintf(f, "overlapped by later: %zu (%.1f%%): their addresses were reused; perf may name samples after them\n",
            st.overlapped, m->n ? 100.0 * (double)st.overlapped / (double)m->n : 0.0);
    fprintf(f, "same range again:    %zu entries repeat an earlier entry's exact address and size\n", st.reused);
    fprintf(f, "kinds:\n");
    const struct {
        const char *label;
        unsigned long n;
    } rows[] = {{"JS TurboFan (*)", st.js_turbofan},
                {"JS Maglev (+)", st.js_maglev},
                {"JS Sparkplug (^)", st.js_sparkplug},
                {"JS interpreted (~)", st.js_interpreted},
                {"JS other", st.js_other},
                {"eval", st.eval},
                {"Builtin", st.builtin},
                {"BytecodeHandler", st.bytecode},
                {"RegExp", st.regexp},
                {"other", st.other}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) fprintf(f, "  %-20s %lu\n", rows[i].label, rows[i].n);
    /* an empty map is what a process started without --perf-basic-prof (or a wrong path) leaves:
     * say so and fail, so a script checking its map notices */
    if (m->n == 0) {
        diag_error(m->path, 0, "no symbols: %s",
                   m->malformed ? "every line is malformed (not a perf map?)"
                                : "the map is empty (was node run with --perf-basic-prof?)");
        return -1;
    }
    return 0;
}
