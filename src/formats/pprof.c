/* pprof writer: a gzip'ed profile.proto (github.com/google/pprof, proto/profile.proto),
 * protobuf encoded by hand.
 *
 * One pprof Function and one Location per profile frame (location id = function
 * id = frame + 1, the Location's line = the frame's line), one Sample per call-tree
 * node with self weight, its location ids leaf first as pprof wants.
 * Values: the profile's weight ("samples"/"count" by default); when the profile has
 * a timeline of more than one sample, a second value "cpu"/"nanoseconds" = weight x
 * the mean sampling interval, so `pprof -top` shows time too. */
#include "formats/format.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* --- protobuf wire encoding --- */

static void pb_varint(buf_t *b, uint64_t v)
{
    char tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    buf_append(b, tmp, n);
}

static void pb_key(buf_t *b, unsigned field, unsigned wire) { pb_varint(b, (uint64_t)field << 3 | wire); }

static void pb_int(buf_t *b, unsigned field, int64_t v)
{
    if (!v) return; /* proto3 default */
    pb_key(b, field, 0);
    pb_varint(b, (uint64_t)v);
}

static void pb_bytes(buf_t *b, unsigned field, const void *p, size_t n)
{
    pb_key(b, field, 2);
    pb_varint(b, n);
    buf_append(b, p, n);
}

/* --- string table: index 0 must be "" --- */

typedef struct {
    buf_t table;    /* encoded string_table fields, in index order */
    u64map_t index; /* interned pointer -> index + 1 */
    int64_t count;
} strtab_t;

static int64_t str_id(strtab_t *t, strpool_t *pool, const char *s)
{
    const char *key = strpool_intern(pool, s, strlen(s));
    int found;
    uint32_t *slot = u64map_upsert(&t->index, (uint64_t)(uintptr_t)key, &found);
    if (found) return (int64_t)*slot;
    int64_t id = t->count++;
    *slot = (uint32_t)id;
    pb_bytes(&t->table, 6, s, strlen(s));
    return id;
}

static void value_type(buf_t *out, unsigned field, int64_t type, int64_t unit)
{
    buf_t m = {0};
    pb_int(&m, 1, type);
    pb_int(&m, 2, unit);
    pb_bytes(out, field, m.data, m.len);
    buf_free(&m);
}

static int gzip_to(FILE *out, const buf_t *raw)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    unsigned char chunk[1 << 16];
    z.next_in = (unsigned char *)raw->data;
    z.avail_in = (uInt)raw->len;
    int rc;
    do {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        rc = deflate(&z, Z_FINISH);
        size_t have = sizeof chunk - z.avail_out;
        if (have && fwrite(chunk, 1, have, out) != have) {
            deflateEnd(&z);
            return -1;
        }
    } while (rc == Z_OK);
    deflateEnd(&z);
    return rc == Z_STREAM_END ? 0 : -1;
}

static int pprof_write(const profile_t *p, FILE *out, const write_opts_t *o)
{
    (void)o;
    if (p->total > 0 && p->nnodes && (uint64_t)p->total > (uint64_t)1 << 53) {
        diag_error(NULL, 0, "pprof: total weight too large");
        return -1;
    }
    strpool_t *pool = strpool_new();
    strtab_t st = {0};
    u64map_init(&st.index);
    str_id(&st, pool, "");
    buf_t msg = {0}, m = {0}, packed = {0}, name = {0};

    const char *unit = p->weight_unit && *p->weight_unit ? p->weight_unit : "samples";
    int counts = !strcmp(unit, "samples");
    value_type(&msg, 1, str_id(&st, pool, counts ? "samples" : "cpu"), str_id(&st, pool, counts ? "count" : unit));
    double interval_ns = 0;
    if (counts && p->nsamples > 1 && p->end_us > p->start_us)
        interval_ns = (p->end_us - p->start_us) * 1000.0 / (double)p->nsamples;
    if (interval_ns > 0) value_type(&msg, 1, str_id(&st, pool, "cpu"), str_id(&st, pool, "nanoseconds"));

    /* Samples: one per node with self weight. */
    uint32_t *stack = xmalloc(sizeof *stack * (p->nnodes + 1));
    for (uint32_t n = 1; n < p->nnodes; n++) {
        double w = p->nodes[n].self;
        if (!(w > 0)) continue;
        size_t depth = profile_stack_of(p, n, stack, p->nnodes);
        buf_clear(&m);
        buf_clear(&packed);
        for (size_t i = depth; i-- > 0;) pb_varint(&packed, (uint64_t)stack[i] + 1);
        pb_bytes(&m, 1, packed.data, packed.len);
        buf_clear(&packed);
        pb_varint(&packed, (uint64_t)llround(w));
        if (interval_ns > 0) pb_varint(&packed, (uint64_t)llround(w * interval_ns));
        pb_bytes(&m, 2, packed.data, packed.len);
        pb_bytes(&msg, 2, m.data, m.len);
    }
    free(stack);

    /* Locations and functions, one per frame. */
    for (size_t f = 0; f < p->nframes; f++) {
        const char *url;
        int32_t line, col;
        buf_clear(&name);
        profile_frame_split_v8(&p->frames[f], &name, &url, &line, &col);
        int64_t name_id = str_id(&st, pool, name.data ? name.data : "");
        int64_t file_id = str_id(&st, pool, url ? url : "");

        buf_t ln = {0};
        pb_int(&ln, 1, (int64_t)f + 1);
        pb_int(&ln, 2, line > 0 ? line : 0);
        buf_clear(&m);
        pb_int(&m, 1, (int64_t)f + 1);
        pb_bytes(&m, 4, ln.data ? ln.data : "", ln.len);
        pb_bytes(&msg, 4, m.data, m.len);
        buf_free(&ln);

        buf_clear(&m);
        pb_int(&m, 1, (int64_t)f + 1);
        pb_int(&m, 2, name_id);
        pb_int(&m, 3, name_id);
        pb_int(&m, 4, file_id);
        pb_int(&m, 5, line > 0 ? line : 0);
        pb_bytes(&msg, 5, m.data, m.len);
    }

    int64_t period_type = str_id(&st, pool, interval_ns > 0 ? "cpu" : "samples");
    int64_t period_unit = str_id(&st, pool, interval_ns > 0 ? "nanoseconds" : "count");
    buf_append(&msg, st.table.data, st.table.len);
    if (p->nsamples && p->end_us > p->start_us) pb_int(&msg, 10, (int64_t)((p->end_us - p->start_us) * 1000.0));
    value_type(&msg, 11, period_type, period_unit);
    pb_int(&msg, 12, interval_ns > 0 ? (int64_t)llround(interval_ns) : 1);

    int rc = gzip_to(out, &msg);
    if (rc) diag_error(NULL, 0, "pprof: cannot write compressed output");
    buf_free(&msg);
    buf_free(&m);
    buf_free(&packed);
    buf_free(&name);
    buf_free(&st.table);
    u64map_free(&st.index);
    strpool_free(pool);
    return rc;
}

const format_writer_t format_pprof_writer = {
    .name = "pprof",
    .extensions = ".pb.gz .pprof .pb",
    .write = pprof_write,
};
