/* jitdump files read into a perfmap_t (jitdump.h: the format), and a map file of either kind told
 * apart by the jitdump magic (jitdump_or_perfmap_load). */
#include "symbols/jitdump.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/file.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_MAGIC_SWAPPED 0x4454694Au
enum { JIT_CODE_LOAD = 0, JIT_CODE_MOVE = 1, JIT_CODE_DEBUG_INFO = 2, JIT_CODE_CLOSE = 3, JIT_CODE_UNWINDING_INFO = 4 };

typedef struct {
    const unsigned char *p;
    size_t len;
    int swap;
} reader_t;

static uint32_t rd32(const reader_t *r, size_t off)
{
    uint32_t v;
    memcpy(&v, r->p + off, 4);
    return r->swap ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const reader_t *r, size_t off)
{
    uint64_t v;
    memcpy(&v, r->p + off, 8);
    return r->swap ? __builtin_bswap64(v) : v;
}

static void add_entry(perfmap_t *m, size_t *cap, buf_t *names, uint64_t addr, uint64_t size, uint64_t time,
                      const char *name, size_t name_len)
{
    if (size == 0 || addr + size < addr || names->len + name_len + 1 > UINT32_MAX) return;
    XGROW(m->entries, *cap, m->n + 1);
    m->entries[m->n++] =
        (perfmap_entry_t){addr, size, time, (uint32_t)names->len, (uint32_t)name_len, (uint32_t)m->n + 1, 0, 0};
    buf_append(names, name, name_len);
    buf_putc(names, 0);
}

perfmap_t *jitdump_parse(const char *name, const unsigned char *data, size_t len, jitdump_info_t *info)
{
    jitdump_info_t dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    reader_t r = {data, len, 0};
    if (len < 40) {
        diag_error(name, 0, "not a jitdump: %zu bytes, shorter than its 40-byte header", len);
        return NULL;
    }
    uint32_t magic;
    memcpy(&magic, data, 4);
    if (magic == JITDUMP_MAGIC_SWAPPED) r.swap = info->byte_swapped = 1;
    else if (magic != JITDUMP_MAGIC) {
        diag_error(name, 0, "not a jitdump (magic 0x%08x, expected 0x%08x 'JiTD')", magic, JITDUMP_MAGIC);
        return NULL;
    }
    uint32_t header_size = rd32(&r, 8);
    info->elf_mach = rd32(&r, 12);
    info->pid = rd32(&r, 20);
    if (header_size < 40 || header_size > len) {
        diag_error(name, 0, "jitdump header size %u is impossible for a %zu-byte file", header_size, len);
        return NULL;
    }
    perfmap_t *m = xcalloc(1, sizeof *m);
    m->path = xstrdup(name);
    size_t cap = 0;
    buf_t names = {0};
    uint64_t last_time = 0;
    size_t off = header_size, src_cap = 0;
    /* DEBUG_INFO precedes the LOAD of the same code: its rows wait here */
    uint64_t pending_addr = 0;
    size_t pending_first = 0, pending_count = 0;
    while (off < len) {
        if (len - off < 16) {
            info->truncated = 1;
            break;
        }
        uint32_t id = rd32(&r, off), size = rd32(&r, off + 4);
        uint64_t time = rd64(&r, off + 8);
        if (size < 16 || size > len - off) {
            info->truncated = 1;
            break;
        }
        if (time < last_time) time = last_time; /* keep entries in time order */
        last_time = time;
        size_t body = off + 16, end = off + size;
        if (id == JIT_CODE_LOAD && end - body >= 40) {
            uint64_t code_addr = rd64(&r, body + 16), code_size = rd64(&r, body + 24);
            const char *nm = (const char *)data + body + 40;
            const char *nul = memchr(nm, 0, end - (body + 40));
            if (nul) {
                size_t before = m->n;
                add_entry(m, &cap, &names, code_addr, code_size, time, nm, (size_t)(nul - nm));
                if (m->n > before && pending_count && pending_addr == code_addr) {
                    m->entries[before].src_first = (uint32_t)pending_first;
                    m->entries[before].src_count = (uint32_t)pending_count;
                }
                pending_count = 0;
                info->loads++;
            }
        } else if (id == JIT_CODE_MOVE && end - body >= 48) {
            uint64_t old_addr = rd64(&r, body + 16), new_addr = rd64(&r, body + 24), code_size = rd64(&r, body + 32);
            /* the moved code keeps its name: the newest earlier entry at the old address */
            for (size_t i = m->n; i-- > 0;) {
                if (m->entries[i].start != old_addr) continue;
                buf_t tmp = {0};
                buf_append(&tmp, names.data + m->entries[i].name_off, m->entries[i].name_len);
                add_entry(m, &cap, &names, new_addr, code_size, time, tmp.data, tmp.len);
                buf_free(&tmp);
                break;
            }
            info->moves++;
        } else if (id == JIT_CODE_DEBUG_INFO && end - body >= 16) {
            /* {code_addr, nr_entry, entries {addr, line, discrim (column), name}} */
            pending_addr = rd64(&r, body);
            uint64_t nr = rd64(&r, body + 8);
            pending_first = m->nsrc;
            pending_count = 0;
            size_t at = body + 16;
            for (uint64_t e = 0; e < nr && end - at >= 17; e++) {
                const char *file = (const char *)data + at + 16;
                const char *nul = memchr(file, 0, end - (at + 16));
                if (!nul || names.len > UINT32_MAX - 4096) break;
                XGROW(m->src, src_cap, m->nsrc + 1);
                m->src[m->nsrc++] =
                    (perfmap_src_t){rd64(&r, at), rd32(&r, at + 8), rd32(&r, at + 12), (uint32_t)names.len};
                buf_append(&names, file, (size_t)(nul - file) + 1);
                pending_count++;
                at = (size_t)(nul + 1 - (const char *)data);
            }
            info->debug_records++;
        } else if (id == JIT_CODE_CLOSE) {
            break;
        } else if (id != JIT_CODE_UNWINDING_INFO) {
            info->unknown_records++;
        }
        off = end;
    }
    if (info->truncated)
        diag_warn(name, 0, "jitdump truncated at byte %zu of %zu; using the %lu code loads before it", off, len,
                  info->loads);
    m->text = names.data ? names.data : xcalloc(1, 1);
    m->text_len = names.len;
    for (size_t i = 0; i < m->n; i++) m->entries[i].line = (uint32_t)i + 1;
    perfmap_build_index(m);
    return m;
}

perfmap_t *jitdump_or_perfmap_load(const char *path)
{
    struct stat st;
    int fd = file_open_regular(path, "perf map", &st);
    if (fd < 0) return NULL;
    uint32_t magic;
    int jitdump = pread(fd, &magic, 4, 0) == 4 && (magic == JITDUMP_MAGIC || magic == JITDUMP_MAGIC_SWAPPED);
    close(fd);
    if (!jitdump) return perfmap_load(path);
    perfmap_t *m = jitdump_load(path, NULL);
    if (m) m->timestamps = 1;
    return m;
}

perfmap_t *jitdump_load(const char *path, jitdump_info_t *info)
{
    struct stat st;
    int fd = file_open_regular(path, "jitdump", &st);
    if (fd < 0) return NULL;
    size_t len = (size_t)st.st_size;
    void *data = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (data == MAP_FAILED) {
        diag_error(path, 0, len ? "cannot map jitdump: %s" : "empty file, not a jitdump%s", len ? strerror(errno) : "");
        return NULL;
    }
    perfmap_t *m = jitdump_parse(path, data, len, info);
    munmap(data, len);
    return m;
}
