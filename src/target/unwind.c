/* Native unwinding, cores and live processes alike: elfutils libdwfl CFI first (threads blocked in
 * libc have no frame pointer), then, where CFI stops (V8 JIT code has no CFI), the frame-pointer
 * chain from the last frame's frame pointer. Registers and the frame record are the target's arch's
 * (arch/arch.h: DWARF numbers, fp, the record's layout). */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    target_frame_t *frames;
    size_t n, max;
    target_t *t;
    uint64_t last_site; /* where the last frame's CFI was looked up (its pc, or its return address - 1) */
} cfi_ctx_t;

/* Where CFI has no rule for a frame, libdwfl falls back on the arch's frame-pointer unwinder
 * (elfutils' backends). x86-64's pops the record ([fp] and [fp + 8]): right. aarch64's takes the
 * caller's pc from lr and the next lr from [fp + 8], which is right only for a leaf that has not
 * pushed its record: from a V8 frame, which always has, every pc after it lagged a frame (the
 * frame below a JS frame repeated the pc above it, a baseline frame took its callee's pc). So on
 * an arch whose return address is in lr, a frame CFI did not give is dropped and the walk goes on
 * along the frame records (chain below), from the last frame CFI gave. So it does after a return
 * address signed by pointer authentication (arch_t.ret_mask). */
static int cfi_frame(Dwfl_Frame *state, void *arg)
{
    cfi_ctx_t *c = arg;
    Dwarf_Addr pc;
    bool activation;
    if (c->n >= c->max || !dwfl_frame_pc(state, &pc, &activation)) return DWARF_CB_ABORT;
    if (c->n > 0 && !c->t->arch->entry_ret_on_stack && target_leaf_framed(c->t, c->last_site) < 0)
        return DWARF_CB_ABORT;
    const arch_t *a = c->t->arch;
    int signed_pc = (pc & ~a->ret_mask) != 0;
    pc &= a->ret_mask;
    c->last_site = activation ? pc : pc - 1;
    Dwarf_Word sp = 0, fp = 0;
    dwfl_frame_reg(state, (unsigned)a->dwarf_sp, &sp);
    dwfl_frame_reg(state, (unsigned)a->dwarf_fp, &fp);
    c->frames[c->n++] = (target_frame_t){pc, sp, fp};
    /* libdwfl looks the next rules up at the signed pc, finds none and falls back (above) */
    if (signed_pc) return DWARF_CB_ABORT;
    return DWARF_CB_OK;
}

/* libdwfl unwinds with the modules' CFI, but every register and memory read goes through our
 * target: the core stays mapped and untouched except for the stack words actually read (letting
 * libdwfl open the core itself made it fault in hundreds of MB of a large core). */
typedef struct {
    target_t *t;
    const target_thread_t *th;
    int given; /* next_thread has handed out our one thread */
} cfi_state_t;

static pid_t cfi_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
    cfi_state_t *st = arg;
    (void)dwfl;
    if (st->given) return 0;
    st->given = 1;
    *thread_argp = st;
    return st->th->tid;
}

static bool cfi_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    cfi_state_t *st = arg;
    uint64_t w;
    (void)dwfl;
    if (target_read_u64(st->t, addr, &w) != 0) return false;
    *result = w;
    return true;
}

static bool cfi_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
    const cfi_state_t *st = arg;
    const arch_t *a = st->t->arch;
    const uint64_t *r = st->th->regs; /* the arch's order, by DWARF number */
    Dwarf_Word dw[ARCH_MAX_REGS];
    for (size_t i = 0; i < a->ndwarf; i++) dw[i] = r[a->dwarf_regs[i]];
    if (a->dwarf_pc < 0) dwfl_thread_state_register_pc(thread, r[a->pc]);
    return dwfl_thread_state_registers(thread, 0, a->ndwarf, dw);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = cfi_next_thread,
    .memory_read = cfi_memory_read,
    .set_initial_registers = cfi_set_initial_registers,
};

/* A Dwfl with the target's modules, its thread callbacks reading through st; NULL on failure. */
static Dwfl *cfi_open(target_t *t, cfi_state_t *st)
{
    static const Dwfl_Callbacks callbacks = {.find_elf = dwfl_build_id_find_elf,
                                             .find_debuginfo = dwfl_standard_find_debuginfo};
    Dwfl *d = dwfl_begin(&callbacks);
    if (!d) return NULL;
    dwfl_report_begin(d);
    for (size_t i = 0; i < t->nmods; i++)
        dwfl_report_elf(d, t->mods[i].path, t->mods[i].file, -1, t->mods[i].bias, false);
    if (dwfl_report_end(d, NULL, NULL) != 0 ||
        !dwfl_attach_state(d, NULL, t->pid ? t->pid : st->th->tid, &thread_callbacks, st)) {
        dwfl_end(d);
        return NULL;
    }
    return d;
}

/* The target's Dwfl, kept: reporting every module to a new one for each thread of a core, or
 * each sample of the sampler, would cost more than the unwind. Opened again when the target
 * has loaded more modules. */
#define CFI_FRAMED_BITS 10
struct target_cfi {
    Dwfl *d;
    size_t nmods;
    int failed;
    target_thread_t th; /* the thread being unwound */
    cfi_state_t st;     /* the callbacks' argument: its address is the Dwfl's */
    struct cfi_framed {
        uint64_t pc;
        int framed;
    } framed[1 << CFI_FRAMED_BITS]; /* target_leaf_framed's answers */
};

void target_cfi_free(target_t *t)
{
    if (!t->cfi) return;
    if (t->cfi->d) dwfl_end(t->cfi->d);
    free(t->cfi);
    t->cfi = NULL;
}

/* The target's kept Dwfl, opened again when it has loaded more modules; NULL when it cannot be.
 * th (may be NULL): the thread to unwind, set first (a core's Dwfl is attached with its id). */
static Dwfl *cfi_dwfl(target_t *t, const target_thread_t *th)
{
    if (!t->cfi) t->cfi = xcalloc(1, sizeof *t->cfi);
    struct target_cfi *c = t->cfi;
    if (th) c->th = *th;
    if (c->d && c->nmods != t->nmods) {
        dwfl_end(c->d), c->d = NULL, c->failed = 0;
        memset(c->framed, 0, sizeof c->framed);
    }
    if (!c->d && !c->failed) {
        c->nmods = t->nmods;
        c->st = (cfi_state_t){t, &c->th, 0};
        if (!(c->d = cfi_open(t, &c->st))) c->failed = 1;
    }
    return c->d;
}

/* CFI unwind of one thread (core or live) with the target's modules: the frame count, 0 when CFI
 * gives nothing from the thread's own pc. */
static size_t cfi_unwind(target_t *t, const target_thread_t *th, target_frame_t *frames, size_t max)
{
    Dwfl *d = cfi_dwfl(t, th);
    if (!d) return 0;
    struct target_cfi *c = t->cfi;
    c->st = (cfi_state_t){t, &c->th, 0};
    cfi_ctx_t x = {frames, 0, max, t, 0};
    dwfl_getthread_frames(d, th->tid, cfi_frame, &x);
    return x.n && frames[0].pc == th->pc ? x.n : 0;
}

/* The CFI rules at pc of the module holding it (free() them), or NULL: no CFI covers pc. */
static Dwarf_Frame *cfi_rules(Dwfl *d, uint64_t pc)
{
    Dwfl_Module *m = dwfl_addrmodule(d, pc);
    Dwarf_Addr bias = 0;
    Dwarf_CFI *cfi = m ? dwfl_module_eh_cfi(m, &bias) : NULL;
    if (!cfi && m) cfi = dwfl_module_dwarf_cfi(m, &bias);
    Dwarf_Frame *f = NULL;
    return cfi && dwarf_cfi_addrframe(cfi, pc - bias, &f) == 0 ? f : NULL;
}

/* By the module's CFI at pc: 1 the function's frame is set up (the CFA is fp-based), 0 it is not
 * (sp-based: built without frame pointers, or caught in its prologue or epilogue), -1 no CFI covers
 * pc (V8's code). Kept per pc: the sampler asks for every sample. */
int target_leaf_framed(target_t *t, uint64_t pc)
{
    Dwfl *d = cfi_dwfl(t, NULL);
    if (!d) return -1;
    struct target_cfi *c = t->cfi;
    struct cfi_framed *slot = &c->framed[hash_slot(pc, CFI_FRAMED_BITS)];
    if (slot->pc == pc && slot->pc) return slot->framed;
    int framed = -1;
    Dwarf_Frame *f = cfi_rules(d, pc);
    Dwarf_Op *ops = NULL;
    size_t nops = 0;
    if (f) {
        if (dwarf_frame_cfa(f, &ops, &nops) == 0 && nops == 1 && ops[0].atom == DW_OP_bregx)
            framed = ops[0].number == (Dwarf_Word)t->arch->dwarf_fp;
        free(f);
    }
    *slot = (struct cfi_framed){pc, framed};
    return framed;
}

/* The sp of a frame reached along the frame records, from its CFI at pc (a return address - 1)
 * and its own fp (its record's address): where CFI says the caller's fp is saved, CFA + k, is
 * that record, so the CFA is fp - k, and an sp-based CFA (sp + off) gives sp = CFA - off. On
 * x86-64 the caller's sp is the callee's fp + 16, the record popped; on aarch64 a function's record
 * sits anywhere in its frame (GCC: at its bottom, below the locals only when they are big), and
 * CFI resumed from fp + 16 read garbage. 0 when CFI does not say. */
static uint64_t cfi_sp_from_fp(target_t *t, uint64_t pc, uint64_t fp)
{
    Dwfl *d = cfi_dwfl(t, NULL);
    Dwarf_Frame *f = d ? cfi_rules(d, pc) : NULL;
    if (!f) return 0;
    uint64_t sp = 0;
    Dwarf_Op *cfa = NULL, mem[3], *reg = NULL;
    size_t ncfa = 0, nreg = 0;
    if (dwarf_frame_cfa(f, &cfa, &ncfa) == 0 && ncfa == 1 && cfa[0].atom == DW_OP_bregx &&
        cfa[0].number == (Dwarf_Word)t->arch->dwarf_sp &&
        dwarf_frame_register(f, t->arch->dwarf_fp, mem, &reg, &nreg) == 0 && reg && reg[0].atom == DW_OP_call_frame_cfa &&
        (nreg == 1 || (nreg == 2 && reg[1].atom == DW_OP_plus_uconst))) /* saved at CFA + k: libdw's ops */
        sp = fp - (nreg == 2 ? reg[1].number : 0) - cfa[0].number2;
    free(f);
    return sp;
}

/* The frame-pointer chain from frames[n - 1] (its fp and sp); frames appended after it. Stops
 * where a return address lands in a function built without frame pointers (its CFI's CFA is
 * sp-based: Debian's libuv.so.1) and the chain would go on (a saved fp not 0: the chain ends
 * at __libc_start_call_main as it did): that frame is appended, and *resume says CFI can go on
 * from it (its caller's fp is the value the callee saved: fp's word). warn: a chain that goes
 * backwards is reported (a core's thread; a sampled thread's chain may end anywhere). */
static size_t fp_walk(target_t *t, target_frame_t *frames, size_t n, size_t max, int warn, int *resume)
{
    const arch_t *a = t->arch;
    uint64_t fp = frames[n - 1].fp, sp = frames[n - 1].sp;
    *resume = 0;
    while (n < max && fp && fp >= sp && (fp & 7) == 0) {
        uint64_t next_fp, ret;
        if (target_read_u64(t, fp + (uint64_t)a->frame_fp_off, &next_fp) != 0 ||
            target_read_u64(t, fp + (uint64_t)a->frame_ret_off, &ret) != 0 || (ret &= a->ret_mask) == 0)
            break;
        frames[n++] = (target_frame_t){ret, fp + (uint64_t)a->frame_size, next_fp};
        if (next_fp && target_leaf_framed(t, ret - 1) == 0) {
            *resume = 1;
            break;
        }
        if (next_fp <= fp) { /* the stack grows down: a chain that does not go up is corrupt */
            if (next_fp && warn)
                diag_warn(t->name, 0, "frame chain goes backwards at fp 0x%llx (-> 0x%llx): corrupt stack; stopped",
                          (unsigned long long)fp, (unsigned long long)next_fp);
            break;
        }
        sp = fp + (uint64_t)a->frame_size;
        fp = next_fp;
    }
    return n;
}

/* From frames[n - 1] on, alternately: the frame-pointer chain (V8's code, node's), and CFI where it
 * returns into a function without frame pointers (uv__run_check in a distribution's libuv.so.1
 * called node's callbacks: without CFI there the chain broke and the stack was cut at it). CFI
 * starts from that frame's pc - 1 (within its call: the CFA rule of the return site), sp and fp. */
static size_t chain(target_t *t, int tid, target_frame_t *frames, size_t n, size_t max, int warn)
{
    for (int round = 0; round < 64 && n < max; round++) {
        int resume;
        n = fp_walk(t, frames, n, max, warn, &resume);
        if (!resume) break;
        const target_frame_t from = frames[n - 1];
        target_thread_t th = {.tid = tid, .pc = from.pc - 1, .sp = from.sp, .fp = from.fp};
        if (!t->arch->entry_ret_on_stack) { /* the record need not end the frame: its sp from CFI */
            uint64_t sp = cfi_sp_from_fp(t, th.pc, th.fp);
            if (!sp) break;
            th.sp = sp;
        }
        th.regs[t->arch->pc] = th.pc, th.regs[t->arch->sp] = th.sp, th.regs[t->arch->fp] = th.fp;
        size_t k = cfi_unwind(t, &th, frames + n - 1, max - (n - 1));
        frames[n - 1] = from;
        if (k > 1) n += k - 1; /* else no CFI there: the chain goes on from the saved fp, as it did */
    }
    return n;
}

size_t target_unwind(target_t *t, size_t thread_index, target_frame_t *frames, size_t max)
{
    const target_thread_t *th = target_thread(t, thread_index);
    if (!th || max == 0) return 0;
    size_t n = cfi_unwind(t, th, frames, max);
    if (n == 0) frames[n++] = (target_frame_t){th->pc, th->sp, th->fp};
    /* CFI stopped (JIT code or missing CFI): on along the frame-pointer chain from its last frame */
    return chain(t, th->tid, frames, n, max, 1);
}

size_t target_unwind_regs(target_t *t, uint64_t pc, uint64_t sp, uint64_t fp, target_frame_t *frames, size_t max)
{
    if (max == 0) return 0;
    frames[0] = (target_frame_t){pc, sp, fp};
    return chain(t, t->pid > 0 ? t->pid : 1, frames, 1, max, 0); /* (the Dwfl's thread: any id) */
}

size_t target_unwind_sample(target_t *t, int tid, const uint64_t regs[ARCH_MAX_REGS], target_frame_t *frames, size_t max)
{
    if (max == 0) return 0;
    target_thread_t th = {.tid = tid};
    memcpy(th.regs, regs, sizeof th.regs);
    target_thread_set_regs(t, &th);
    size_t n = cfi_unwind(t, &th, frames, max);
    if (n == 0) return 0;
    /* CFI stopped (JIT code has none): on along the frame-pointer chain from its last frame,
       silently (a sampled thread's chain may end anywhere) */
    return chain(t, tid, frames, n, max, 0);
}
