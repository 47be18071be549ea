/* The registry of readers and writers: every format listed once, picked by name, by content
 * (format_detect) or by a path's extension; format_read_path and format_write on top. */
#include "formats/format.h"
#include "util/buf.h"
#include "util/diag.h"
#include <string.h>

extern const format_reader_t format_folded_reader;
extern const format_reader_t format_perf_reader;
extern const format_reader_t format_dtrace_reader;
extern const format_writer_t format_folded_writer;
extern const format_writer_t format_svg_writer;
extern const format_reader_t format_cpuprofile_reader;
extern const format_writer_t format_cpuprofile_writer;
extern const format_writer_t format_pprof_writer;
extern const format_writer_t format_txt_writer;
extern const format_writer_t format_trace_writer;

/* Readers, most specific first: ties in sniff confidence go to the earlier one. */
static const format_reader_t *const readers[] = {
    &format_cpuprofile_reader,
    &format_perf_reader,
    &format_dtrace_reader,
    &format_folded_reader,
};

static const format_writer_t *const writers[] = {
    &format_folded_writer, &format_svg_writer, &format_cpuprofile_writer,
    &format_pprof_writer,  &format_txt_writer, &format_trace_writer,
};

#define COUNT(a) (sizeof(a) / sizeof *(a))

const format_reader_t *format_reader_by_name(const char *name)
{
    for (size_t i = 0; i < COUNT(readers); i++)
        if (!strcmp(readers[i]->name, name)) return readers[i];
    return NULL;
}

_Static_assert(COUNT(readers) <= FORMAT_READERS_MAX, "FORMAT_READERS_MAX is too small");

const format_reader_t *format_reader_at(int i) { return i >= 0 && (size_t)i < COUNT(readers) ? readers[i] : NULL; }

int format_reader_index(const format_reader_t *r)
{
    for (size_t i = 0; i < COUNT(readers); i++)
        if (readers[i] == r) return (int)i;
    return -1;
}

int format_reader_opts_set(read_opts_t *o, const char *name, const void *opts)
{
    const format_reader_t *r = format_reader_by_name(name);
    int i = format_reader_index(r);
    if (i < 0) return -1;
    o->reader_opts[i] = (format_reader_opts_t){r, opts};
    return 0;
}

const char *format_reader_names(void)
{
    static buf_t names;
    if (!names.len)
        for (size_t i = 0; i < COUNT(readers); i++) buf_printf(&names, "%s%s", i ? ", " : "", readers[i]->name);
    return names.data;
}

const format_reader_t *format_detect(input_t *in)
{
    const char *head;
    size_t n = input_peek(in, &head, 64 * 1024);
    if (in->error) return NULL;
    if (n == 0) {
        diag_error(in->name, 0, "empty input: nothing to read");
        return NULL;
    }
    const format_reader_t *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < COUNT(readers); i++) {
        int s = readers[i]->sniff(head, n);
        if (s > best_score) best = readers[i], best_score = s;
    }
    if (!best && !input_looks_binary(in)) {
        /* nothing looks right: a name that says the format (x.cpuprofile, x.folded) picks the reader,
         * whose errors then say what is wrong, on which line */
        const format_writer_t *w = format_writer_for_path(in->name);
        if (w && (best = format_reader_by_name(w->name))) return best;
    }
    if (!best) {
        if (input_looks_binary(in))
            diag_error(in->name, 0, "binary data, not a profile (for perf.data, run 'perf script' first)");
        else
            diag_error(in->name, 0, "unrecognised input; expected one of: %s (force one with --format)",
                       format_reader_names());
    }
    return best;
}

int format_read_path(const char *path, profile_t *p, const read_opts_t *o)
{
    input_t *in = input_open(path);
    if (!in) return -1;
    const format_reader_t *r;
    if (o && o->format) {
        r = format_reader_by_name(o->format);
        if (!r) {
            diag_error(NULL, 0, "unknown input format '%s'; known: %s", o->format, format_reader_names());
            input_close(in);
            return -1;
        }
        const char *head;
        if (input_peek(in, &head, 1) == 0 && !in->error) {
            diag_error(in->name, 0, "empty input: nothing to read");
            input_close(in);
            return -1;
        }
    } else {
        r = format_detect(in);
    }
    read_opts_t defaults = {0};
    int rc = r ? r->read(in, p, o ? o : &defaults) : -1;
    input_close(in);
    return rc;
}

const char *format_writer_names(void)
{
    static buf_t names;
    if (!names.len)
        for (size_t i = 0; i < COUNT(writers); i++) buf_printf(&names, "%s%s", i ? ", " : "", writers[i]->name);
    return names.data;
}

const char *format_writer_names_ext(void)
{
    static buf_t names;
    if (!names.len)
        for (size_t i = 0; i < COUNT(writers); i++)
            buf_printf(&names, "  %-12s %s\n", writers[i]->name, writers[i]->extensions);
    return names.data;
}

const format_writer_t *format_writer_by_name(const char *name)
{
    for (size_t i = 0; i < COUNT(writers); i++)
        if (!strcmp(writers[i]->name, name)) return writers[i];
    return NULL;
}

const format_writer_t *format_writer_for_path(const char *path)
{
    size_t plen = strlen(path);
    const format_writer_t *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < COUNT(writers); i++) {
        const char *e = writers[i]->extensions;
        while (*e) {
            size_t k = strcspn(e, " ");
            if (k <= plen && k > best_len && !strncmp(path + plen - k, e, k)) best = writers[i], best_len = k;
            e += k;
            while (*e == ' ') e++;
        }
    }
    return best;
}

const char *format_writer_extensions(void)
{
    static buf_t list;
    if (!list.len)
        for (size_t i = 0; i < COUNT(writers); i++) buf_printf(&list, "%s%s", i ? " " : "", writers[i]->extensions);
    return list.data;
}

int format_write(const format_writer_t *w, const profile_t *p, FILE *out, const write_opts_t *o)
{
    write_opts_t defaults = {0};
    if (!o) o = &defaults;
    if (w->picks_threads || (!p->nthreads && !o->thread)) return w->write(p, out, o);
    profile_t *view;
    if (format_thread_view(p, o, "all", o->threads_merge ? THREAD_ROOTS_MERGE : THREAD_ROOTS_ROLES, &view, NULL) != 0)
        return -2;
    int rc = w->write(view ? view : p, out, o);
    profile_free(view);
    return rc;
}
