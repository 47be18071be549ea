#include "sourcemap/cache.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/privilege.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Scripts and maps larger than this are not read (a bound on untrusted input, far above
 * the largest bundles' maps). */
#define MAX_FILE ((off_t)1 << 30)

typedef struct {
    smap_t *map; /* NULL: none */
} entry_t;

typedef struct {
    char *from, *to;
} rewrite_t;

struct smap_cache {
    strpool_t *strings;
    u64map_t index; /* interned script url -> entry + 1 */
    entry_t *entries;
    size_t nentries, entries_cap;
    u64map_t section_index; /* interned map path -> section_maps entry + 1 */
    entry_t *section_maps;  /* maps that index map sections name by "url" */
    size_t nsection_maps, section_maps_cap;
    rewrite_t *rewrites;
    size_t nrewrites, rewrites_cap;
    size_t bad;
};

smap_cache_t *smap_cache_new(void)
{
    smap_cache_t *c = xcalloc(1, sizeof *c);
    c->strings = strpool_new();
    u64map_init(&c->index);
    u64map_init(&c->section_index);
    return c;
}

void smap_cache_free(smap_cache_t *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->nentries; i++) smap_free(c->entries[i].map);
    free(c->entries);
    for (size_t i = 0; i < c->nsection_maps; i++) smap_free(c->section_maps[i].map);
    free(c->section_maps);
    u64map_free(&c->section_index);
    for (size_t i = 0; i < c->nrewrites; i++) free(c->rewrites[i].from), free(c->rewrites[i].to);
    free(c->rewrites);
    u64map_free(&c->index);
    strpool_free(c->strings);
    free(c);
}

int smap_cache_add_rewrite(smap_cache_t *c, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec) return -1;
    XGROW(c->rewrites, c->rewrites_cap, c->nrewrites + 1);
    /* script URLs are matched as paths: a file:// OLD names the same prefix */
    size_t skip = !strncmp(spec, "file://", 7) && eq - spec > 7 ? 7 : 0;
    c->rewrites[c->nrewrites].from = xstrndup(spec + skip, (size_t)(eq - spec) - skip);
    c->rewrites[c->nrewrites].to = xstrdup(eq + 1);
    c->nrewrites++;
    return 0;
}

void smap_cache_counts(const smap_cache_t *c, size_t *with_map, size_t *bad)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nentries; i++) n += c->entries[i].map != NULL;
    *with_map = n;
    *bad = c->bad;
}

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* A file:// URL's path, percent-decoded; other strings as they are. */
static char *url_to_path(const char *url)
{
    if (strncmp(url, "file://", 7)) return xstrdup(url);
    const char *s = url + 7;
    if (strncmp(s, "localhost/", 10) == 0) s += 9;
    buf_t b = {0};
    for (; *s; s++) {
        int h, l;
        if (*s == '%' && (h = hexval(s[1])) >= 0 && (l = hexval(s[2])) >= 0) {
            buf_putc(&b, (char)(h << 4 | l));
            s += 2;
        } else if (*s == '?' || *s == '#') break;
        else buf_putc(&b, *s);
    }
    if (!b.data) buf_puts(&b, "");
    return b.data;
}

/* Reads a whole regular file; NULL with errno set when it cannot. */
static char *read_file(const char *path, size_t *len)
{
    int fd = priv_open(path, O_RDONLY | O_CLOEXEC, 0); /* named by the user or a script: the user's rights */
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE) {
        if (errno == 0 || S_ISREG(st.st_mode)) errno = EFBIG;
        if (!S_ISREG(st.st_mode)) errno = EISDIR;
        close(fd);
        return NULL;
    }
    size_t n = (size_t)st.st_size, got = 0;
    char *data = xmalloc(n + 1);
    while (got < n) {
        ssize_t r = read(fd, data + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    data[got] = 0;
    *len = got;
    return data;
}

/* The value of the last sourceMappingURL comment ("//# " or the old "//@ ", also in a block
 * comment), as Node's regular expression finds it; NULL when there is none. */
static char *find_comment(const char *s, size_t n)
{
    static const char key[] = "sourceMappingURL=";
    const size_t klen = sizeof key - 1;
    const char *best = NULL;
    for (const char *p = s; (p = memmem(p, n - (size_t)(p - s), key, klen)) != NULL; p += klen) {
        /* preceded by "//# ", "//@ " or a block comment's "/\*# " (any whitespace after the marker) */
        const char *q = p;
        int ws = 0;
        while (q > s && (q[-1] == ' ' || q[-1] == '\t')) q--, ws++;
        if (!ws || q - s < 3 || (q[-1] != '#' && q[-1] != '@') || q[-3] != '/' || (q[-2] != '/' && q[-2] != '*'))
            continue;
        best = p + klen;
    }
    if (!best) return NULL;
    const char *e = best;
    while (e < s + n && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r' &&
           !(e[0] == '*' && e + 1 < s + n && e[1] == '/'))
        e++;
    if (e == best) return NULL;
    return xstrndup(best, (size_t)(e - best));
}

/* The last TAIL_BYTES of a script are searched first: bundlers end the file with the comment,
 * and a valid comment in the tail is the last one in the file (Node takes the last). Only
 * without one there is the whole text read and searched (tsc's 6 MB _tsc.js: 64 KB read). */
#define TAIL_BYTES ((size_t)64 << 10)

/* The sourceMappingURL comment's value of the script at path (*ref, NULL for none). *text and
 * *n are the whole text when it had to be read, else NULL. Returns -1 when the file cannot be
 * read (*ref and *text NULL). */
static int script_comment(const char *path, char **ref, char **text, size_t *n)
{
    *ref = NULL, *text = NULL, *n = 0;
    int fd = priv_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size > TAIL_BYTES && st.st_size <= MAX_FILE) {
        char *tail = xmalloc(TAIL_BYTES + 1);
        size_t got = 0;
        off_t at = st.st_size - (off_t)TAIL_BYTES;
        while (got < TAIL_BYTES) {
            ssize_t r = pread(fd, tail + got, TAIL_BYTES - got, at + (off_t)got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        tail[got] = 0;
        if (got == TAIL_BYTES) *ref = find_comment(tail, got);
        free(tail);
    }
    close(fd);
    if (*ref) return 0;
    if (!(*text = read_file(path, n))) return -1;
    *ref = find_comment(*text, *n);
    return 0;
}

static char *dir_of(const char *path)
{
    const char *sl = strrchr(path, '/');
    if (!sl) return xstrdup(".");
    return xstrndup(path, sl == path ? 1 : (size_t)(sl - path));
}

static char *join(const char *dir, const char *rel)
{
    if (rel[0] == '/') return xstrdup(rel);
    buf_t b = {0};
    buf_printf(&b, "%s/%s", dir, rel);
    return b.data;
}

static smap_t *load_section(void *ctx, const smap_t *index_map, const char *url);

static smap_t *load_data_url(smap_cache_t *c, const char *script, const char *dir, const char *url)
{
    const char *comma = strchr(url, ',');
    buf_t name = {0};
    buf_printf(&name, "%s (inline source map)", script);
    smap_t *m = NULL;
    size_t n = 0;
    char *json;
    if (!comma || !memmem(url, (size_t)(comma - url), ";base64", 7) || strncmp(url, "data:application/json", 21)) {
        diag_warn(script, 0, "inline source map is not a base64 application/json data URL; ignored");
    } else if (!(json = smap_base64_decode(comma + 1, strlen(comma + 1), &n))) {
        diag_warn(script, 0, "inline source map: bad base64; ignored");
    } else {
        m = smap_parse_owned(name.data, dir, json, n);
    }
    if (m) smap_set_loader(m, load_section, c);
    buf_free(&name);
    return m;
}

/* When map_path cannot be read, a warning on file says "<what> <map_path>, which cannot be
 * read" (none when file is NULL: a sidecar map is looked for, not named). */
static smap_t *load_file_map(smap_cache_t *c, const char *map_path, const char *file, const char *what)
{
    size_t n;
    char *json = read_file(map_path, &n);
    if (!json) {
        /* A package that names a map it does not ship (typescript's _tsc.js) is not the user's to
           fix: said with --verbose only. The user's own code missing its map is warned about. */
        int err = errno;
        if (file && err == ENOENT && strstr(file, "/node_modules/"))
            diag_info("%s: %s %s, which does not exist; frames keep their generated positions", file, what, map_path);
        else if (file)
            diag_warn(file, 0, "%s %s, which cannot be read (%s); frames keep their generated positions", what,
                      map_path, strerror(err));
        return NULL;
    }
    char *dir = dir_of(map_path);
    smap_t *m = smap_parse_owned(map_path, dir, json, n);
    free(dir);
    if (m) smap_set_loader(m, load_section, c);
    return m;
}

/* The smap_loader_fn of every map the cache loads: a section's "url" map, read once. */
static smap_t *load_section(void *ctx, const smap_t *index_map, const char *url)
{
    smap_cache_t *c = ctx;
    char *path = url_to_path(url);
    const char *key = strpool_cstr(c->strings, path);
    int found;
    uint32_t *slot = u64map_upsert(&c->section_index, (uint64_t)(uintptr_t)key, &found);
    if (found) {
        free(path);
        return c->section_maps[*slot - 1].map;
    }
    XGROW(c->section_maps, c->section_maps_cap, c->nsection_maps + 1);
    size_t i = c->nsection_maps++;
    *slot = (uint32_t)(i + 1);
    c->section_maps[i].map = NULL;
    smap_t *m = NULL;
    if (path[0] == '/') m = load_file_map(c, path, smap_name(index_map), "a section's url names");
    else
        diag_warn(smap_name(index_map), 0,
                  "a section's url %s is not a local file; its frames keep their generated positions", url);
    if (!m) c->bad++;
    c->section_maps[i].map = m;
    free(path);
    return m;
}

/* Lines of a script's text: the last one counts without its newline. */
static int64_t count_lines(const char *s, size_t n)
{
    int64_t lines = n && s[n - 1] != '\n';
    for (const char *p = s; (p = memchr(p, '\n', n - (size_t)(p - s))); p++) lines++;
    return lines;
}

static smap_t *load(smap_cache_t *c, const char *script_url)
{
    char *path = url_to_path(script_url);
    for (size_t i = 0; i < c->nrewrites; i++) {
        const rewrite_t *r = &c->rewrites[i];
        size_t fl = strlen(r->from);
        if (!strncmp(path, r->from, fl)) {
            buf_t b = {0};
            buf_printf(&b, "%s%s", r->to, path + fl);
            free(path);
            path = b.data;
            break;
        }
    }
    smap_t *m = NULL;
    size_t n = 0;
    /* "node:internal/...", "https://..." and the like are not files */
    char *text = NULL, *ref = NULL;
    if ((path[0] == '/' || !strchr(path, ':')) && script_comment(path, &ref, &text, &n) == 0) {
        char *dir = dir_of(path);
        if (ref && !strncmp(ref, "data:", 5)) {
            m = load_data_url(c, path, dir, ref);
            if (!m) c->bad++;
        } else if (ref) {
            char *rel = url_to_path(ref);
            char *mp = join(dir, rel);
            m = load_file_map(c, mp, path, "its sourceMappingURL names");
            if (!m) c->bad++;
            free(mp);
            free(rel);
        } else {
            buf_t side = {0};
            buf_printf(&side, "%s.map", path);
            m = load_file_map(c, side.data, NULL, NULL);
            if (!m && access(side.data, F_OK) == 0) c->bad++;
            buf_free(&side);
        }
        /* a map made for another build of the script: its mappings reach past the script's end
         * (lines counted only then: most scripts have no map) */
        if (m && !text) text = read_file(path, &n);
        int64_t lines = !m ? 0 : text ? count_lines(text, n) : INT64_MAX; /* unreadable now: not judged */
        free(text);
        if (m && smap_generated_lines(m) > lines) {
            diag_warn(
                smap_name(m), 0,
                "source map does not match %s, ignored: its mappings cover %d generated lines, the script has %lld",
                path, (int)smap_generated_lines(m), (long long)lines);
            smap_free(m);
            m = NULL;
            c->bad++;
        }
        free(ref);
        free(dir);
    }
    free(path);
    return m;
}

smap_t *smap_cache_get(smap_cache_t *c, const char *script_url)
{
    if (!script_url || !*script_url) return NULL;
    const char *key = strpool_cstr(c->strings, script_url);
    int found;
    uint32_t *slot = u64map_upsert(&c->index, (uint64_t)(uintptr_t)key, &found);
    if (found) return c->entries[*slot - 1].map;
    XGROW(c->entries, c->entries_cap, c->nentries + 1);
    size_t i = c->nentries++;
    *slot = (uint32_t)(i + 1);
    c->entries[i].map = load(c, script_url);
    return c->entries[i].map;
}

int smap_cache_map(smap_cache_t *c, const char *script_url, int32_t line, int32_t column, smap_frame_t *out)
{
    smap_t *m = smap_cache_get(c, script_url);
    if (!m) return -1;
    smap_pos_t pos;
    int rc = smap_lookup(m, line - 1, column - 1, &pos);
    if (rc < 0) return -1;
    if (rc == 0) return 0;
    out->map = m;
    out->source = pos.source;
    out->name = pos.name;
    out->line = pos.line + 1;
    out->column = pos.column + 1;
    out->ignored = pos.ignored;
    if (!strncmp(script_url, "file://", 7) && pos.source[0] == '/') {
        buf_t b = {0};
        buf_printf(&b, "file://%s", pos.source);
        out->url = strpool_intern(c->strings, b.data, b.len);
        buf_free(&b);
    } else {
        out->url = pos.source;
    }
    return 1;
}
