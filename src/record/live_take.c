/* One sample taken (live_take_sample, live_internal.h): its stack unwound from its registers and
 * stack copy (sample_unwind.h), its frames decoded by v8/ as `core stack` decodes them, named, and
 * added to the profile under its thread; or left unnamed, under a frame that says why, where the
 * heap may have changed under it (read too late, a full GC since, the process exited) or the
 * stack was cut. Called by the drain of a thread's ring (live_drain.c) and by the events' samples
 * (live_events.c); the sampler's loop (live_sampler.c) is above all three. */
#include "record/live_internal.h"
#include "record/sample_unwind.h"
#include "symbols/journal.h"
#include "util/buf.h"
#include "util/demangle.h"
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#define MAX_NATIVE SAMPLE_MAX_NATIVE
#define MAX_FRAMES 1024
/* A sample's JS frames are named only if it is read within this time: a GC in between may have
 * moved the functions its stack points at and put others, even of the same shape, in their place.
 * Sampling reads within a few ms in the steady state; the first samples wait for caches to fill. */
#define MAX_LAG_NS (25 * 1000000ull)
/* ... unless the main thread ran no full GC since the sample (gc_watch.h): then only frames named
 * from their code or bytecode (v8_frame_t.stable) keep their names, however late. */
#define UNNAMED_LATE "(JS: read too late to name)"
#define UNNAMED_MOVED "(JS: moved before it was read)"
/* A process that exited before its samples were read: its JS frames (live_take_sample), or the
 * whole of a sample of one that could not be opened at all (live_sampler_early) */
#define UNNAMED_EXITED_JS "(JS: process exited before nodescope could read it)"
#define UNNAMED_EXITED "(process exited before nodescope could read it)"
/* the outer frames of a sample cut where a return address could not be one (unwind): its stack,
 * beyond the copy, changed before it was read; or its frame chain broke */
#define UNNAMED_CHANGED "(outer frames changed before they were read)"
#define UNNAMED_BROKEN "(outer frames lost: the frame chain broke)"
#define STRINGIFY(x) #x
#define STRING_OF(x) STRINGIFY(x)
#define UNNAMED_DEEP "(outer frames left out: a stack of over " STRING_OF(MAX_NATIVE) " native frames)"

static frame_kind_t kind_of(v8_tier_t t)
{
    switch (t) {
    case V8_TIER_TURBOFAN: return FRAME_JS_TURBOFAN;
    case V8_TIER_MAGLEV: return FRAME_JS_MAGLEV;
    case V8_TIER_BASELINE: return FRAME_JS_BASELINE;
    case V8_TIER_INTERPRETED: return FRAME_JS_INTERPRETED;
    default: return FRAME_JS;
    }
}

/* What a thread off the CPU waits in, from the innermost functions it entered the kernel from
 * (libc's own wrappers often have no symbol: their callers tell, "uv__io_poll", "FutexEmulation"). */
#define WAIT_LOOK 6
static const char *wait_name(target_t *t, const target_frame_t *native, size_t n, int preempted)
{
    static const struct {
        const char *part, *name;
    } kinds[] = {
        {"epoll", "(wait: epoll)"},        {"futex", "(wait: futex)"},         {"Futex", "(wait: futex)"},
        {"pthread_cond", "(wait: futex)"}, {"cond_wait", "(wait: futex)"},     {"sem_", "(wait: futex)"},
        {"Semaphore", "(wait: futex)"},    {"pthread_mutex", "(wait: futex)"}, {"Mutex", "(wait: futex)"},
        {"join", "(wait: futex)"},         {"nanosleep", "(wait: sleep)"},     {"sleep", "(wait: sleep)"},
        {"Sleep", "(wait: sleep)"},        {"poll", "(wait: poll)"},           {"select", "(wait: poll)"},
        {"accept", "(wait: accept)"},      {"recv", "(wait: recv)"},           {"send", "(wait: send)"},
        {"pread", "(wait: read)"},         {"read", "(wait: read)"},           {"Read", "(wait: read)"},
        {"write", "(wait: write)"},        {"Write", "(wait: write)"},         {"open", "(wait: open)"},
        {"fsync", "(wait: fsync)"},        {"wait", "(wait: wait)"},
    };
    if (preempted) return "(wait: preempted)"; /* runnable, but another task had the CPU */
    for (size_t f = 0; f < n && f < WAIT_LOOK; f++) {
        target_symbol_t sym;
        if (target_symbolize(t, f ? native[f].pc - 1 : native[f].pc, &sym) != 0 || !sym.name) continue;
        for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
            for (const char *at = sym.name; (at = strstr(at, kinds[i].part)) != NULL; at++)
                if (at == sym.name || (at[-1] != 'h' && at[-1] != 'H')) return kinds[i].name; /* not "thread" */
    }
    return "(wait: kernel)"; /* a page fault, or a system call not known by its callers */
}

/* A native frame's name, once per (pc, is a return address): symbol look-ups and C++ demangling
 * were a tenth of a sample's cost. NAME_SKIP: a frame left out (V8's builtins' own frames). Only
 * named frames are kept: an address without a symbol may get one once the maps are read again. */
#define NAME_SKIP UINT32_MAX
static uint64_t name_key(const v8_frame_t *f) { return f->pc * 2 + (f->return_address ? 1 : 0); }

/* The code at pc is no longer there: the process has exited, or is exiting (node disposes of its
 * isolate, and V8 unmaps its code space, before the process ends; a sample of its last JS read
 * then finds neither code nor heap). Read directly, not from the read cache. */
static int code_gone(int pid, uint64_t pc)
{
    uint8_t b;
    struct iovec here = {&b, 1}, there = {(void *)(uintptr_t)pc, 1};
    return process_vm_readv(pid, &here, 1, &there, 1, 0) < 0 && (errno == ESRCH || errno == EFAULT);
}

/* The same for the heap: the word a JS frame keeps its function in (fp - 16 on x64: V8's
 * StandardFrameConstants::kFunctionOffset), a tagged pointer to memory no longer mapped. */
static int heap_gone(target_t *t, int pid, const v8_frame_t *f)
{
    uint64_t w;
    return f->fp > 16 && target_read_u64(t, f->fp - 16, &w) == 0 && (w & 1) && w > 4096 && code_gone(pid, w & ~1ull);
}

/* Is any of the frames in anonymous executable memory (V8's code space)? */
static int in_jit_code(target_t *t, const target_frame_t *native, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const target_mapping_t *m = target_mapping_at(t, native[i].pc);
        if (m && !m->path && (m->prot & 4 /* PROT_EXEC */)) return 1;
    }
    return 0;
}

/* One sample: walk, decode, name, add (live_internal.h). time_ns is when the stack was last as
 * copied (the sample's time; for a thread off the CPU, when it came back); wait (a --wall stay's
 * leaf frame) or in->label, the leaf. */
uint32_t live_take_sample(live_sampler_t *s, thread_ev_t *te, const live_sample_in_t *in)
{
    target_t *t = s->t;
    v8_t *v = s->v;
    profile_t *p = s->out;
    u64map_t *names = &s->names;
    live_stats_t *st = &s->st;
    const uint64_t *regs = in->regs;
    uint64_t time_ns = in->time_ns, stack_len = in->stack_len;
    int off_cpu = in->off_cpu;
    static target_frame_t native[MAX_NATIVE];
    static v8_frame_t frames[MAX_FRAMES];
    static uint32_t ids[MAX_FRAMES + 1];
    if (!t) { /* the process exited before it could be opened (live_sampler_early): nothing to name */
        if (te->thread == NO_THREAD) te->thread = profile_thread(p, s->pid, te->tid, te->name, strlen(te->name));
        uint32_t two[2] = {p->threads[te->thread].frame,
                           profile_frame(p, UNNAMED_EXITED, strlen(UNNAMED_EXITED), NULL, 0, 0, FRAME_UNKNOWN)};
        uint32_t leaf = profile_add_stack(p, two, 2, in->weight);
        for (unsigned long i = 0; i < in->ticks; i++)
            profile_add_sample(p, (double)(in->tick0_ns + i * in->step_ns) / 1e3, leaf, in->weight / (double)in->ticks);
        st->samples += in->ticks ? in->ticks : 1;
        st->exited += in->ticks ? in->ticks : 1;
        if (off_cpu) st->off_cpu += in->ticks;
        return leaf;
    }
    const uint64_t sp = regs[target_arch(t)->sp];
    target_set_stack_copy(t, sp, in->stack, (size_t)stack_len);
    target_fresh_after(t, time_ns);
    int cut;
    size_t n = sample_unwind(t, te->tid, regs, stack_len, names, native, MAX_NATIVE, &cut);
    const char *wait = off_cpu ? wait_name(t, native, n, in->preempted) : in->label;
    size_t n_native = n;
    if (v) n = v8_stack_frames(v, native, n, regs, frames, MAX_FRAMES);
    else
        for (size_t i = 0; i < n; i++)
            frames[i] = (v8_frame_t){.kind = V8_FRAME_NATIVE,
                                     .pc = native[i].pc,
                                     .sp = native[i].sp,
                                     .fp = native[i].fp,
                                     .return_address = i > 0};
    if (!off_cpu) { /* (a --wall stay's sample is the switch event's, whose copy is fixed) */
        uint64_t js_end = 0;
        for (size_t i = 0; i < n; i++)
            if (frames[i].kind == V8_FRAME_JS && frames[i].fp + 16 > js_end) js_end = frames[i].fp + 16;
        /* a stack cut where it had changed beyond the copy reached at least the frame it was cut at
           (native[n_native], still there): the next copies should hold that much */
        stack_need_note(&te->need, sp, native, n_native + (cut == CUT_CHANGED), js_end);
    }
    /* JS frames are named from the heap as it is now. A frame named from its code or bytecode
     * (stable: a scavenge does not move those) keeps its name however late the sample is read, if
     * no full GC ran on the main thread since (gc_watch, quiet), which could have freed them and
     * put another function's in their place; so does one whose slot names another function
     * (adopted). Without that, a JS frame whose function has moved since the sample
     * (v8_frame_current: its context no longer leads to it), and every JS frame of a sample read
     * too late for the heap to be trusted, is left unnamed rather than named after whatever is at
     * that address now. */
    int late = monotonic_ns() - time_ns > MAX_LAG_NS, torn, unnamed;
    /* (a sample taken before the watch was opened: live_sampler_early without it) */
    gc_since_t gc = te->gc && time_ns >= s->gc_from_ns ? gc_watch_since(te->gc, time_ns) : GC_UNKNOWN;
    int quiet = gc == GC_QUIET;
    /* A full GC that began after the sample may have freed its functions and put others in their
     * place whole: function, code and bytecode at the same addresses, agreeing with each other
     * (the churn workload does it every 40 ms), so no check tells; its JS frames stay unnamed,
     * however soon they are read (the rings are read up to LIVE_READ_MS late: open_event). A
     * sample taken during a GC has live functions on its stack: the checks below see them moved. */
    int collected = gc == GC_BEGAN;
    uint64_t torn_fp;
    size_t k;
    int leaf_line; /* the line the leaf JS frame executes: V8's positionTicks */
    buf_t b = {0};
    int named_js; /* a JS frame named: the sample's JIT code named */
    int exited;   /* a frame left unnamed because the process's memory is gone (it exited) */
name:
    torn = unnamed = named_js = exited = 0;
    for (size_t i = 0; v && i < n; i++) {
        v8_frame_t *f = &frames[i];
        if (f->kind != V8_FRAME_JS) continue;
        /* named from code or bytecode against its slot: right only if no full GC replaced them */
        if (f->adopted && !quiet) f->moved = 1, f->stable = 0;
        if (collected || (late && !(quiet && f->stable))) unnamed = 1;
        else if (!(quiet && f->stable) && v8_frame_current(v, f) == 0) torn = unnamed = 1;
    }
    torn_fp = 0;
    k = 0;
    leaf_line = 0;
    ids[k++] = p->threads[te->thread].frame;
    if (cut) {
        const char *why = cut == CUT_CHANGED ? UNNAMED_CHANGED : cut == CUT_BROKEN ? UNNAMED_BROKEN : UNNAMED_DEEP;
        ids[k++] = profile_frame(p, why, strlen(why), NULL, 0, 0, FRAME_UNKNOWN);
    }
    for (size_t i = n; i-- > 0;) {
        const v8_frame_t *f = &frames[i];
        uint32_t known;
        int found;
        if (f->kind == V8_FRAME_NATIVE && u64map_get(names, name_key(f), &known)) {
            if (known == NAME_SKIP) continue;
            leaf_line = 0;
            ids[k++] = known;
            continue;
        }
        v8_frame_record_t r;
        v8_frame_record_facts(t, v, f, &r); /* names are V8's own: no display name */
        /* an API function's frame: its FunctionTemplateInfo and SharedFunctionInfo were read from
           the heap as it is now, trusted as JS frames named from their code are */
        int api = f->kind == V8_FRAME_API && r.has_function && !collected && (!late || quiet);
        if (r.internal || (f->kind == V8_FRAME_API && !api)) {
            if (f->kind == V8_FRAME_NATIVE) *u64map_upsert(names, name_key(f), &found) = NAME_SKIP;
            v8_frame_record_free(&r);
            continue;
        }
        buf_clear(&b);
        leaf_line = 0;
        if (collected && f->kind == V8_FRAME_JS) {
            ids[k++] = profile_frame(p, UNNAMED_MOVED, strlen(UNNAMED_MOVED), NULL, 0, 0, FRAME_UNKNOWN);
        } else if (late && f->kind == V8_FRAME_JS && !(quiet && f->stable)) {
            ids[k++] = profile_frame(p, UNNAMED_LATE, strlen(UNNAMED_LATE), NULL, 0, 0, FRAME_UNKNOWN);
        } else if (torn && f->kind == V8_FRAME_JS && !(quiet && f->stable) &&
                   (f->fp == torn_fp || v8_frame_current(v, f) == 0)) {
            torn_fp = f->fp;                /* the frames inlined into it follow with the same fp */
            exited = target_memory_gone(t); /* not moved: nothing could be read */
            const char *why = exited ? UNNAMED_EXITED_JS : UNNAMED_MOVED;
            ids[k++] = profile_frame(p, why, strlen(why), NULL, 0, 0, FRAME_UNKNOWN);
        } else if (f->kind == V8_FRAME_JS && r.has_function) {
            /* V8's own name for the function (its name, else the inferred one), as --cpu-prof's
               callFrame has it, so live and V8 profiles merge and diff function by function */
            const char *nm = *r.fn.name ? r.fn.name : r.fn.inferred && *r.fn.inferred ? r.fn.inferred : "(anonymous)";
            buf_puts(&b, nm);
            ids[k++] = profile_frame(p, b.data, b.len, r.fn.script_name ? r.fn.script_name : "", r.fn.def_line,
                                     r.fn.def_col, kind_of(f->tier));
            named_js = 1;
            if (!f->position_is_definition && f->line > 0) leaf_line = f->line;
        } else if (api) {
            /* as V8's profiler names the callback: the function's name, no script */
            ids[k++] = profile_frame(p, r.fn.name, strlen(r.fn.name), NULL, 0, 0, FRAME_NATIVE);
        } else if (r.symbol) {
            demangle_append(&b, r.symbol);
            ids[k++] = profile_frame(p, b.data, b.len, NULL, 0, 0, FRAME_NATIVE);
            if (f->kind == V8_FRAME_NATIVE) *u64map_upsert(names, name_key(f), &found) = ids[k - 1];
        } else if (!r.module && (target_memory_gone(t) || code_gone(s->pid, f->pc) || heap_gone(t, s->pid, f))) {
            /* V8's code, or memory mapped since the maps were last read, after the exit (or while
               node exits: its isolate torn down, the code it ran unmapped) */
            exited = 1;
            ids[k++] = profile_frame(p, UNNAMED_EXITED_JS, strlen(UNNAMED_EXITED_JS), NULL, 0, 0, FRAME_UNKNOWN);
        } else {
            buf_printf(&b, "0x%llx", (unsigned long long)f->pc);
            if (r.module) buf_printf(&b, " (%s+0x%llx)", r.module, (unsigned long long)r.module_offset);
            ids[k++] = profile_frame(p, b.data, b.len, NULL, 0, 0, FRAME_UNKNOWN);
        }
        v8_frame_record_free(&r);
    }
    if (quiet && (gc = gc_watch_since(te->gc, time_ns)) != GC_QUIET) { /* a full GC began while it was named */
        quiet = 0, collected = gc == GC_BEGAN;
        goto name;
    }
    if (exited) st->exited += in->ticks ? in->ticks : 1; /* (apart: not partial, not JIT unnamed) */
    else if (unnamed) st->partial++;
    if (unnamed && late && !exited && !collected) st->late++; /* (collected: moved, as its frames say) */
    /* in V8's JIT code (anonymous executable memory: V8's code space), by the leaf or a return
       address, and not left unnamed on purpose (late, moved, exited): a sample that should name JS */
    if (!unnamed && !exited && in_jit_code(t, native, n_native)) {
        st->jit++;
        if (!named_js) st->jit_unnamed++;
    }
    if (!unnamed && late && quiet) st->late_named++;
    if (cut) st->cut++;
    buf_free(&b);
    target_set_stack_copy(t, 0, NULL, 0);
    if (k == 1) st->empty++;
    else profile_thread_note_stack(p, te->thread, ids + 1, k - 1); /* the stack tells its role */
    if (wait) {
        ids[k++] = profile_frame(p, wait, strlen(wait), NULL, 0, 0, off_cpu ? FRAME_KERNEL : in->label_kind);
        leaf_line = 0;
        if (off_cpu) st->off_cpu += in->ticks;
    }
    uint32_t leaf = profile_add_stack(p, ids, k, in->weight);
    for (unsigned long i = 0; i < in->ticks; i++)
        profile_add_sample(p, (double)(in->tick0_ns + i * in->step_ns) / 1e3, leaf, in->weight / (double)in->ticks);
    if (leaf_line && in->ticks) profile_add_line_ticks(p, leaf, leaf_line, (double)in->ticks);
    st->samples += in->ticks ? in->ticks : 1;
    return leaf;
}
