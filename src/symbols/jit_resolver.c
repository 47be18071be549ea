/* JIT names for perf samples from perf maps: by time when a journal says how the
 * map grew, otherwise honestly (--ambiguous) where several entries claim an address. */
#include "symbols/jit_resolver.h"
#include "symbols/jitdump.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_CANDIDATES 64
#define MAX_NAMED 4

typedef struct {
    int pid;
    perfmap_t *map; /* NULL when it could not be loaded */
} pid_map_t;

typedef struct {
    uint64_t time_ns, size;
} journal_point_t;

struct jit_resolver {
    char *perf_map;
    int is_dir;
    jit_ambiguous_t policy;
    perfmap_t *single; /* when perf_map names one file */
    pid_map_t *maps;
    size_t nmaps, maps_cap;
    journal_point_t *journal;
    size_t njournal;
    strpool_t *names;
    buf_t scratch;
    jit_resolver_stats_t stats;
};

int jit_ambiguous_parse(const char *s)
{
    if (!strcmp(s, "mark")) return JIT_AMBIGUOUS_MARK;
    if (!strcmp(s, "newest")) return JIT_AMBIGUOUS_NEWEST;
    if (!strcmp(s, "oldest")) return JIT_AMBIGUOUS_OLDEST;
    return -1;
}

jit_resolver_t *jit_resolver_new(const char *perf_map, jit_ambiguous_t policy)
{
    jit_resolver_t *r = xcalloc(1, sizeof *r);
    r->policy = policy;
    r->names = strpool_new();
    if (perf_map) {
        struct stat st;
        r->perf_map = xstrdup(perf_map);
        r->is_dir = stat(perf_map, &st) == 0 && S_ISDIR(st.st_mode);
        if (!r->is_dir && !(r->single = jitdump_or_perfmap_load(perf_map))) {
            jit_resolver_free(r);
            return NULL;
        }
    }
    return r;
}

void jit_resolver_free(jit_resolver_t *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->nmaps; i++) perfmap_free(r->maps[i].map);
    free(r->maps);
    perfmap_free(r->single);
    free(r->perf_map);
    free(r->journal);
    strpool_free(r->names);
    buf_free(&r->scratch);
    free(r);
}

int jit_resolver_load_journal(jit_resolver_t *r, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        diag_error(path, 0, "cannot open map journal");
        return -1;
    }
    size_t cap = 0;
    unsigned long long t, sz;
    long line = 0;
    char text[256];
    while (fgets(text, sizeof text, f)) {
        line++;
        if (sscanf(text, "%llu %llu", &t, &sz) != 2) {
            diag_warn(path, line, "skipping malformed journal line (expected 'MONOTONIC_NS SIZE')");
            continue;
        }
        XGROW(r->journal, cap, r->njournal + 1);
        r->journal[r->njournal++] = (journal_point_t){t, sz};
    }
    fclose(f);
    return 0;
}

static int thread_group_of(int tid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", tid);
    FILE *f = fopen(path, "r");
    int tgid = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Tgid: %d", &tgid) == 1) break;
    fclose(f);
    return tgid;
}

static perfmap_t *map_for_pid(jit_resolver_t *r, int pid)
{
    if (r->single) return r->single;
    for (size_t i = 0; i < r->nmaps; i++)
        if (r->maps[i].pid == pid) return r->maps[i].map;
    char path[4096];
    snprintf(path, sizeof path, "%s/perf-%d.map", r->is_dir ? r->perf_map : "/tmp", pid);
    struct stat st;
    perfmap_t *m = NULL;
    if (stat(path, &st) != 0 && !r->is_dir) {
        /* perf script prints thread ids by default; a live thread tells its process id */
        int tgid = thread_group_of(pid);
        if (tgid > 0 && tgid != pid) snprintf(path, sizeof path, "/tmp/perf-%d.map", tgid);
    }
    if (stat(path, &st) == 0) m = jitdump_or_perfmap_load(path);
    else if (r->is_dir) diag_warn(path, 0, "no perf map for pid %d; its JIT frames keep perf's labels", pid);
    else diag_info("%s: no perf map for pid %d; its JIT frames keep perf's labels", path, pid);
    XGROW(r->maps, r->maps_cap, r->nmaps + 1);
    r->maps[r->nmaps++] = (pid_map_t){pid, m};
    return m;
}

/* The map size the runtime had written by time t (UINT64_MAX without a journal). */
static uint64_t journal_size_at(const jit_resolver_t *r, uint64_t t)
{
    if (!r->njournal || !t) return UINT64_MAX;
    size_t lo = 0, hi = r->njournal;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->journal[mid].time_ns <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo ? r->journal[lo - 1].size : 0;
}

const char *jit_choose_name(jit_resolver_t *r, const perfmap_t *m, const uint32_t *cand, size_t n, size_t total,
                            size_t *len_out)
{
    const perfmap_entry_t *newest = &m->entries[cand[n - 1]], *oldest = &m->entries[cand[0]];
    const perfmap_entry_t *pick = r->policy == JIT_AMBIGUOUS_OLDEST ? oldest : newest;
    if (total == 1 || r->policy != JIT_AMBIGUOUS_MARK) {
        *len_out = pick->name_len;
        return perfmap_name(m, pick);
    }
    /* "[ambiguous: 3] newest | older | oldest": distinct names, newest first. */
    buf_t *b = &r->scratch;
    buf_clear(b);
    buf_printf(b, "[ambiguous: %zu] ", total);
    size_t named = 0;
    for (size_t i = n; i-- > 0 && named < MAX_NAMED;) {
        const perfmap_entry_t *e = &m->entries[cand[i]];
        int dup = 0;
        for (size_t j = n; j-- > i + 1;)
            if (m->entries[cand[j]].name_len == e->name_len &&
                !memcmp(perfmap_name(m, &m->entries[cand[j]]), perfmap_name(m, e), e->name_len))
                dup = 1;
        if (dup) continue;
        if (named++) buf_puts(b, " | ");
        buf_append(b, perfmap_name(m, e), e->name_len);
    }
    if (total > named && total > n) buf_printf(b, " | +%zu more", total - n);
    const char *s = strpool_intern(r->names, b->data, b->len);
    *len_out = b->len;
    return s;
}

int jit_resolver_lookup(jit_resolver_t *r, int pid, uint64_t addr, uint64_t time_ns, const char **name_out,
                        size_t *len_out)
{
    perfmap_t *m = map_for_pid(r, pid);
    if (!m) {
        r->stats.unresolved++;
        return 0;
    }
    if ((r->njournal || m->timestamps) && time_ns) {
        /* by time: a jitdump carries each entry's creation time, a journal the map's size over time */
        long k = perfmap_newest_before(m, addr, m->timestamps ? time_ns : journal_size_at(r, time_ns));
        if (k < 0) {
            r->stats.unresolved++;
            return 0;
        }
        r->stats.resolved++;
        *name_out = perfmap_name(m, &m->entries[k]);
        *len_out = m->entries[k].name_len;
        return 1;
    }
    uint32_t cand[MAX_CANDIDATES];
    size_t total = perfmap_covering(m, addr, cand, MAX_CANDIDATES);
    if (!total) {
        r->stats.unresolved++;
        return 0;
    }
    size_t n = total < MAX_CANDIDATES ? total : MAX_CANDIDATES;
    r->stats.resolved++;
    if (total > 1) {
        /* several entries, one name: not really ambiguous */
        const perfmap_entry_t *a = &m->entries[cand[0]];
        int same = 1;
        for (size_t i = 1; i < n && same; i++)
            same = m->entries[cand[i]].name_len == a->name_len &&
                   !memcmp(perfmap_name(m, &m->entries[cand[i]]), perfmap_name(m, a), a->name_len);
        if (same) total = n = 1;
        else r->stats.ambiguous++;
    }
    *name_out = jit_choose_name(r, m, cand, n, total, len_out);
    return 1;
}

int jit_resolver_note(jit_resolver_t *r, const char *old_name, size_t old_len, const char *new_name)
{
    size_t nl = strlen(new_name);
    /* perf appends "+0x1f" offsets to map symbols; compare without them */
    const char *plus = NULL;
    for (size_t i = old_len; i-- > 0;)
        if (old_name[i] == '+') {
            plus = old_name + i;
            break;
        }
    size_t ol = plus && plus[1] == '0' && plus[2] == 'x' ? (size_t)(plus - old_name) : old_len;
    if (ol == nl && !memcmp(old_name, new_name, nl)) return 0;
    r->stats.relabelled++;
    return 1;
}

const jit_resolver_stats_t *jit_resolver_stats(const jit_resolver_t *r) { return &r->stats; }

void jit_resolver_add_stats(jit_resolver_t *r, const jit_resolver_stats_t *d)
{
    r->stats.relabelled += d->relabelled;
    r->stats.ambiguous += d->ambiguous;
    r->stats.unresolved += d->unresolved;
    r->stats.resolved += d->resolved;
}

int jit_resolver_timeless(jit_resolver_t *r, int pid)
{
    const perfmap_t *m = map_for_pid(r, pid);
    return !r->njournal && !(m && m->timestamps);
}

void jit_resolver_print_stats(const jit_resolver_t *r)
{
    const jit_resolver_stats_t *s = &r->stats;
    unsigned long all = s->resolved + s->unresolved;
    fprintf(stderr,
            "JIT frames: %lu looked up, %lu resolved from perf maps%s, %lu relabelled (perf named them otherwise), "
            "%lu ambiguous (several entries claim the address, no time to choose), %lu not in any map\n",
            all, s->resolved,
            r->njournal                          ? " by time (journal)"
            : r->single && r->single->timestamps ? " by time (jitdump)"
                                                 : "",
            s->relabelled, s->ambiguous, s->unresolved);
}
