/* nodescope map find|tidy|update|stats: inspect and repair perf-PID.map files. */
#include "cli/cli.h"
#include "formats/perf_grammar.h"
#include "profile/profile.h"
#include "symbols/jit_resolver.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/input.h"
#include "util/options.h"
#include "util/output.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

static int parse_addr(const char *s, uint64_t *out)
{
    char *end;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    *out = strtoull(s, &end, 16);
    if (!*s || *end) {
        diag_error(NULL, 0, "'%s' is not a hexadecimal address", s);
        return -1;
    }
    return 0;
}

static int map_find(perfmap_t *m, const char *addr_text)
{
    uint64_t addr;
    if (parse_addr(addr_text, &addr)) return EXIT_USAGE;
    size_t total = perfmap_covering(m, addr, NULL, 0);
    uint32_t *cand = xmalloc((total + 1) * sizeof *cand);
    perfmap_covering(m, addr, cand, total);
    if (!total) {
        printf("no entry of %s covers 0x%llx\n", m->path, (unsigned long long)addr);
        free(cand);
        return EXIT_FAIL;
    }
    for (size_t i = 0; i < total; i++) {
        const perfmap_entry_t *e = &m->entries[cand[i]];
        printf("%s:%u: %llx %llx %s%s\n", m->path, e->line, (unsigned long long)e->start, (unsigned long long)e->size,
               perfmap_name(m, e), i == total - 1 && total > 1 ? "   <- newest" : "");
        const perfmap_src_t *src = m->nsrc ? perfmap_source(m, cand[i], addr) : NULL;
        if (src) printf("    source: %s:%u:%u (jitdump debug info)\n", m->text + src->file_off, src->line, src->column);
    }
    if (total > 1) printf("%zu entries cover 0x%llx; perf may label it with any of them\n", total, (unsigned long long)addr);
    free(cand);
    return EXIT_OK;
}

static int map_tidy(perfmap_t *m, const char *out_path, char **inputs)
{
    uint8_t *over = xmalloc(m->n + 1);
    perfmap_overlapped_by_later(m, over);
    /* the map's index is already sorted by start */
    uint32_t *keep = xmalloc((m->n + 1) * sizeof *keep);
    size_t nkeep = 0;
    for (size_t i = 0; i < m->n; i++)
        if (!over[m->by_start[i]]) keep[nkeep++] = m->by_start[i];
    output_t out;
    int rc = EXIT_FAIL;
    if (output_open(&out, out_path, inputs, 1) == 0) {
        buf_t b = {0};
        for (size_t i = 0; i < nkeep; i++) {
            const perfmap_entry_t *e = &m->entries[keep[i]];
            buf_put_hex(&b, e->start);
            buf_putc(&b, ' ');
            buf_put_hex(&b, e->size);
            buf_putc(&b, ' ');
            buf_append(&b, perfmap_name(m, e), e->name_len);
            buf_putc(&b, '\n');
            if (b.len > (1 << 20)) fwrite(b.data, 1, b.len, out.f), buf_clear(&b);
        }
        fwrite(b.data ? b.data : "", 1, b.len, out.f);
        buf_free(&b);
        if (output_commit(&out) == 0) rc = EXIT_OK;
        diag_info("%s: kept %zu of %zu entries (%zu overlapped by a later entry)", m->path, nkeep, m->n, m->n - nkeep);
    }
    free(over);
    free(keep);
    return rc;
}

/* A perf script callchain line "\t  ADDR SYM+0xOFF (MODULE)" whose module a JIT symbol source may
 * rename (the reader's rule, perf_module_is_jit_like): its address and symbol. */
static int jit_frame_line(const char *s, size_t n, perf_frame_t *f)
{
    size_t i = 0;
    while (i < n && perf_is_space(s[i])) i++;
    if (i == 0 || i == n) return 0;
    return perf_parse_frame(s + i, n - i, f) && f->has_mod && perf_module_is_jit_like(perf_module_class(f->mod, f->mod_len));
}

static int map_update(const char *map_path, const char *stacks, const char *out_path, jit_ambiguous_t policy,
                      const char *journal, char **inputs)
{
    jit_resolver_t *r = jit_resolver_new(map_path, policy);
    if (!r) return EXIT_FAIL;
    if (journal && jit_resolver_load_journal(r, journal) != 0) {
        jit_resolver_free(r);
        return EXIT_FAIL;
    }
    input_t *in = input_open(stacks);
    output_t out;
    if (!in || output_open(&out, out_path, inputs, 2) != 0) {
        input_close(in);
        jit_resolver_free(r);
        return EXIT_FAIL;
    }
    uint64_t now = 0;
    char *line;
    size_t len;
    int rc;
    while ((rc = input_getline(in, &line, &len)) > 0) {
        perf_frame_t f;
        perf_event_t ev;
        const char *name;
        size_t nl;
        if (len && line[0] != ' ' && line[0] != '\t' && line[0] != '#')
            now = perf_parse_event(line, len, &ev) && ev.has_time ? ev.time_ns : 0;
        if (jit_frame_line(line, len, &f) && jit_resolver_lookup(r, 0, f.addr, now, &name, &nl)) {
            /* the symbol's text is replaced; the address, the blanks and " (MODULE)" pass through */
            size_t sym = (size_t)(f.sym - line), sym_end = sym + f.sym_len;
            jit_resolver_note(r, f.sym, f.sym_len, name);
            fwrite(line, 1, sym, out.f);
            fwrite(name, 1, nl, out.f);
            fwrite(line + sym_end, 1, len - sym_end, out.f);
            fputc('\n', out.f);
            continue;
        }
        fwrite(line, 1, len, out.f);
        fputc('\n', out.f);
    }
    input_close(in);
    if (rc < 0) {
        output_abort(&out);
        jit_resolver_free(r);
        return EXIT_FAIL;
    }
    if (diag_verbosity > 0) jit_resolver_print_stats(r);
    jit_resolver_free(r);
    return output_commit(&out) == 0 ? EXIT_OK : EXIT_FAIL;
}

static int map_stats(perfmap_t *m)
{
    uint8_t *over = xmalloc(m->n + 1);
    perfmap_overlapped_by_later(m, over);
    size_t overlapped = 0, reused = 0;
    for (size_t i = 0; i < m->n; i++) overlapped += over[i];
    /* reused ranges: entries whose exact (start, size) appeared before */
    u64map_t seen;
    u64map_init(&seen);
    unsigned long kinds[FRAME_KIND_COUNT] = {0};
    unsigned long regexp = 0, bytecode = 0, builtin = 0, eval = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < m->n; i++) {
        const perfmap_entry_t *e = &m->entries[i];
        int found;
        u64map_upsert(&seen, hash_u64(e->start) ^ e->size, &found);
        reused += found;
        const char *name = perfmap_name(m, e);
        kinds[profile_classify_name(name, e->name_len)]++;
        regexp += !strncmp(name, "RegExp:", 7);
        bytecode += !strncmp(name, "BytecodeHandler:", 16);
        builtin += !strncmp(name, "Builtin:", 8);
        eval += !strncmp(name, "Eval:", 5);
        if (e->start < lo) lo = e->start;
        if (e->start + e->size > hi) hi = e->start + e->size;
    }
    u64map_free(&seen);
    printf("map:                 %s\n", m->path);
    printf("entries:             %zu%s\n", m->n, m->malformed ? " (plus malformed lines skipped)" : "");
    if (m->n) printf("address span:        %llx-%llx\n", (unsigned long long)lo, (unsigned long long)hi);
    printf("overlapped by later: %zu (%.1f%%): their addresses were reused; perf may name samples after them\n",
           overlapped, m->n ? 100.0 * (double)overlapped / (double)m->n : 0.0);
    printf("same range again:    %zu entries repeat an earlier entry's exact address and size\n", reused);
    printf("kinds:\n");
    static const frame_kind_t order[] = {FRAME_JS_TURBOFAN, FRAME_JS_MAGLEV, FRAME_JS_BASELINE, FRAME_JS_INTERPRETED, FRAME_JS};
    static const char *const label[] = {"JS TurboFan (*)", "JS Maglev (+)", "JS Sparkplug (^)", "JS interpreted (~)", "JS other"};
    for (size_t i = 0; i < 5; i++) printf("  %-20s %lu\n", label[i], kinds[order[i]]);
    printf("  %-20s %lu\n", "eval", eval);
    printf("  %-20s %lu\n", "Builtin", builtin);
    printf("  %-20s %lu\n", "BytecodeHandler", bytecode);
    printf("  %-20s %lu\n", "RegExp", regexp);
    printf("  %-20s %lu\n", "other", kinds[FRAME_NATIVE] + kinds[FRAME_UNKNOWN] + kinds[FRAME_BUILTIN] - builtin - bytecode - regexp);
    free(over);
    /* an empty map is what a process started without --perf-basic-prof (or a wrong path) leaves:
     * say so and fail, so a script checking its map notices */
    if (m->n == 0) {
        diag_error(m->path, 0, "no symbols: %s", m->malformed ? "every line is malformed (not a perf map?)"
                                                              : "the map is empty (was node run with --perf-basic-prof?)");
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

static int set_ambiguous(void *t, const char *arg)
{
    if ((*(int *)t = jit_ambiguous_parse(arg)) < 0) return opt_fail("--ambiguous takes newest, oldest or mark, not '%s'", arg);
    return 0;
}

int cli_map(int argc, char **argv)
{
    const char *out = NULL, *journal = NULL;
    int policy = JIT_AMBIGUOUS_MARK;
    const opt_t opts[] = {
        OPT_STR("output", 'o', "FILE", "write here instead of stdout (atomic; never the input)", &out),
        OPT_FN("ambiguous", 0, "newest|oldest|mark", "update: the name of an address several entries cover", &policy,
               set_ambiguous),
        OPT_STR("map-journal", 0, "J", "update: the map's growth over time, from 'nodescope record --keep'", &journal),
        OPT_VERBOSITY,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {
        "map",
        "usage: nodescope map find MAP ADDR\n"
        "       nodescope map tidy MAP [-o OUT]\n"
        "       nodescope map update MAP STACKS [-o OUT] [--ambiguous newest|oldest|mark] [--map-journal J]\n"
        "       nodescope map stats MAP\n"
        "\n"
        "perf-PID.map files (V8 --perf-basic-prof, JSC, Java perf-map-agent, Python -X perf, .NET)\n"
        "list 'START SIZE name'. Runtimes reuse freed code space, so later entries claim\n"
        "addresses earlier ones had, and perf labels samples with stale names.\n"
        "\n"
        "  find    every entry covering ADDR (hex) in file order with its line number; the newest is marked\n"
        "  tidy    drop entries overlapped by a later one; print the rest sorted by address (perf-map format)\n"
        "  update  rewrite 'perf script' text: frames the map covers get the chosen name, other lines\n"
        "          pass through byte for byte (--ambiguous: mark [default], newest, oldest; with\n"
        "          --map-journal J from 'nodescope record --keep', each sample by its time)\n"
        "  stats   entries, overlapping entries, reused ranges, and kinds of code; a map without\n"
        "          entries is an error (exit 1): the process wrote none, or this is not a perf map\n",
        tables, 0, NULL};
    int nargs = opt_parse(&cmd, argc, argv);
    if (nargs < 0) return opt_exit_code(nargs);
    char **args = argv + 1;
    static const struct { const char *name; int nargs; const char *operands; } subs[] = {
        {"find", 3, "MAP ADDR"}, {"tidy", 2, "MAP"}, {"update", 3, "MAP STACKS"}, {"stats", 2, "MAP"}};
    if (nargs == 0) return opt_usage_error(&cmd, "which map command? (find, tidy, update, stats)");
    int which = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(args[0], subs[i].name)) which = i;
    if (which < 0) return opt_usage_error(&cmd, "unknown map command '%s' (find, tidy, update, stats)", args[0]);
    if (nargs != subs[which].nargs)
        return opt_usage_error(&cmd, "map %s takes %s, not %d argument%s", subs[which].name, subs[which].operands,
                               nargs - 1, nargs == 2 ? "" : "s");
    if (which == 2) return map_update(args[1], args[2], out, (jit_ambiguous_t)policy, journal, args + 1);
    perfmap_t *m = perfmap_load(args[1]);
    if (!m) return EXIT_FAIL;
    int rc;
    switch (which) {
    case 0: rc = map_find(m, args[2]); break;
    case 1: rc = map_tidy(m, out, args + 1); break;
    default: rc = map_stats(m); break;
    }
    perfmap_free(m);
    return rc;
}
