/* What every kind of target answers alike (target.h), from the shared data (target_internal.h):
 * reads through the kind's ops, its mappings by address, its threads and their registers by the
 * target's arch, its names. Below every other file of target/: each kind (core.c, live.c, memory.c,
 * exe_file.c) fills the data these read. */
#include "target/target_internal.h"

int target_read(target_t *t, uint64_t addr, void *dst, size_t n) { return t->ops->read(t, addr, dst, n); }
const char *target_kind(const target_t *t) { return t->ops->kind; }

int target_read_u64(target_t *t, uint64_t a, uint64_t *o) { return target_read(t, a, o, 8); }
int target_read_u32(target_t *t, uint64_t a, uint32_t *o) { return target_read(t, a, o, 4); }
int target_read_u16(target_t *t, uint64_t a, uint16_t *o) { return target_read(t, a, o, 2); }
int target_read_u8(target_t *t, uint64_t a, uint8_t *o) { return target_read(t, a, o, 1); }

size_t target_mapping_count(const target_t *t) { return t->nmaps; }
const target_mapping_t *target_mapping(const target_t *t, size_t i) { return i < t->nmaps ? &t->maps[i] : NULL; }

const target_mapping_t *target_mapping_at(const target_t *t, uint64_t addr)
{
    size_t lo = 0, hi = t->nmaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->maps[mid].start <= addr) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 && addr < t->maps[lo - 1].end ? &t->maps[lo - 1] : NULL;
}

size_t target_thread_count(const target_t *t) { return t->nthreads; }
const arch_t *target_arch(const target_t *t) { return t->arch; }
void target_thread_set_regs(const target_t *t, target_thread_t *th)
{
    th->pc = th->regs[t->arch->pc];
    th->sp = th->regs[t->arch->sp];
    th->fp = th->regs[t->arch->fp];
}
const target_thread_t *target_thread(const target_t *t, size_t i) { return i < t->nthreads ? &t->threads[i] : NULL; }
const char *target_exe_path(const target_t *t) { return t->exe_path; }
const char *target_name(const target_t *t) { return t->name; }
