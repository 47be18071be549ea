/* The perf events the live sampler opens on each thread, and record's -e EVENT list.
 *
 * By default a thread is sampled on its CPU clock (events_open_cpu) and, with --wall, on its
 * context switches (events_open_switch). With -e, on the events named instead: each occurrence
 * (or every Nth: EVENT/N) is a sample with the user registers and the top of the stack, as the
 * CPU clock's are, so the JS frames are named the same way (live_sampler.c):
 *   syscall:NAME   the syscalls:sys_enter_NAME tracepoint (its id and fields from tracefs);
 *   syscall:*      raw_syscalls:sys_enter, each sample labelled with its syscall's name;
 *   page-faults, major-faults, context-switches, cpu-migrations   software events;
 *   gc             uprobes at the entry and return of V8's Heap::Scavenge, MinorMarkSweep and
 *                  MarkCompact: the stack at the entry (the JS that allocated), the pause as weight;
 *   u:LIB:FUNC     a uprobe on a function of the executable (LIB "node") or a library mapped by the
 *                  process (libc, libuv, ...: the file whose name starts with LIB), from its symbols.
 * All of a thread's events write into one ring (PERF_EVENT_IOC_SET_OUTPUT), each sample starting
 * with its event's id (PERF_SAMPLE_IDENTIFIER). Tracepoints and uprobes need root or CAP_PERFMON
 * (CAP_SYS_ADMIN before Linux 5.8), and the tracepoints' ids a readable tracefs: when tracefs is not
 * mounted, root reads it through a private mount in a child process (nothing is left mounted). */
#ifndef RECORD_EVENTS_H
#define RECORD_EVENTS_H
#include "target/target.h"
#include <stddef.h>
#include <stdint.h>

typedef enum { EVK_SYSCALL, EVK_SYSCALL_ALL, EVK_SOFTWARE, EVK_GC, EVK_UPROBE } event_kind_t;

typedef struct {
    char name[192]; /* as given, without /N: "syscall:write", "u:libc:malloc" */
    event_kind_t kind;
    uint64_t sw_config;      /* EVK_SOFTWARE: PERF_COUNT_SW_... */
    char sys[64];            /* EVK_SYSCALL: the syscall */
    char lib[64], func[128]; /* EVK_UPROBE */
    uint64_t every;          /* /N: a sample every Nth occurrence (1) */
    /* tracepoints, from tracefs (events_prepare) */
    int tp_id;
    int fd_off, count_off, nr_off; /* where the raw data has the fd, count and syscall nr (-1: none) */
} record_event_t;

#define EVENTS_MAX 8
typedef struct record_events {
    record_event_t ev[EVENTS_MAX];
    int n;
    int weight_bytes; /* --weight bytes: a syscall's count argument */
    double max_rate;  /* --max-rate: samples a second per event and process (0: no limit) */
} record_events_t;

/* Adds the events of spec ("syscall:write,page-faults/10"): 0, or -1 with the reason in err. */
int events_parse(record_events_t *e, const char *spec, char *err, size_t cap);
/* What the events need before anything runs: tracepoint ids and fields, --weight's field. 0, or
 * -1 (error printed with what would fix it). */
int events_prepare(record_events_t *e);
/* The profile's weight unit: the event's name, "ns" for gc's pauses, "bytes" with --weight bytes,
 * the names joined by ',' for several. */
void events_unit(const record_events_t *e, char *out, size_t cap);

/* One process's probes: the file and offset of each uprobe (u:, gc), resolved from the target's
 * symbols. */
#define EVENT_PROBES_MAX 16
typedef struct {
    int ev;        /* index in record_events_t.ev */
    int ret;       /* a return probe: its time only (gc's pause ends) */
    int time_only; /* its time only: a return probe, or gc's pause starting (CollectGarbage) */
    int gc_kind;   /* gc: 0 scavenge, 1 minor mark-sweep, 2 mark-compact; EVENT_GC_BY_ARG:
                              every GC, its kind its first argument (GarbageCollector) */
    char path[96]; /* /proc/PID/exe, /proc/PID/root/LIB-PATH */
    uint64_t offset;
} event_probe_t;
#define EVENT_GC_BY_ARG 3
#define EVENT_GC_COLLECT_END 4 /* CollectGarbage's return (EVENT_GC_BY_ARG's pause starts at its entry) */
#define EVENT_GC_PAUSE_END 5   /* GCTracer::StopObservablePause: the open GC's pause ends */
#define EVENT_GC_PAUSE_START 6 /* GCTracer::StartObservablePause: the next GC's pause starts */
typedef struct {
    event_probe_t probe[EVENT_PROBES_MAX];
    int n;
} event_probes_t;
/* 0, or -1 with the error printed (a symbol not found, no uprobe PMU). */
int events_resolve(const record_events_t *e, target_t *t, int pid, event_probes_t *out);

/* A thread's events, writing into the ring of the first. */
#define EVENT_FDS_MAX (EVENTS_MAX + EVENT_PROBES_MAX)
typedef struct {
    int fd[EVENT_FDS_MAX];
    uint64_t id[EVENT_FDS_MAX];   /* the kernel's id of each (PERF_EVENT_IOC_ID) */
    int ev[EVENT_FDS_MAX];        /* its event's index */
    int probe[EVENT_FDS_MAX];     /* its probe's index in event_probes_t, or -1 */
    int ret[EVENT_FDS_MAX];       /* a probe of time only (a return, a GC's start): not an event counted */
    uint64_t type[EVENT_FDS_MAX]; /* its samples' sample_type */
    int n;
    int failed_ev; /* after a failure: the event that could not be opened */
} event_set_t;
/* Opens every event on thread tid, copying copy bytes of its stack; wakes the reader per sample
 * (woken) or at a watermark of wake_bytes. 0, or -1 with errno set and nothing left open. A thread
 * that runs no JS (js_thread 0) gets no gc probes. The events are opened disabled: one that fired
 * before its ring was mapped (or its output set) would be counted with its sample lost, unsaid
 * (2-4 of 600 uprobe hits, where a thread's stack copy was resized); events_enable_set starts
 * them once their ring is there. */
int events_open_set(const record_events_t *e, const event_probes_t *pr, int tid, uint32_t copy, int woken,
                    uint32_t wake_bytes, int js_thread, event_set_t *out);
int events_enable_set(const event_set_t *s);
void events_close_set(event_set_t *s);
/* The sample type of every sample of a set (the return probes': identifier and time only). */
/* No PERF_SAMPLE_PERIOD: with it a software event or tracepoint is sampled at every occurrence
 * whatever its period (the kernel's perf_swevent_event), so a sample's weight is the period set. */
#define EVENTS_SAMPLE_TYPE                                                                                             \
    (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER |           \
     PERF_SAMPLE_STACK_USER)

/* The default events. cpu clock at hz; with_kernel set to 0 when the kernel's samples are not
 * allowed (then user time only). fd or -1 with errno. */
int events_open_cpu(int tid, double hz, int woken, uint32_t copy, uint32_t wake_bytes);
int events_open_switch(int tid, uint32_t copy, uint32_t wake_bytes);
int events_open_uprobe(int type, const char *path, uint64_t offset, int ret, int tid, const uint64_t *sample_type);
int events_uprobe_type(void);
extern int events_with_kernel;

/* A sample, parsed. regs in the host's arch order (arch_host: perf samples are a live process's). */
typedef struct {
    uint64_t id, time, period;
    uint32_t pid, tid;
    const uint8_t *raw;
    uint32_t raw_len;
    uint64_t regs[ARCH_MAX_REGS];
    int has_regs; /* user registers (not a kernel thread's sample) */
    const uint8_t *stack;
    uint64_t stack_len;
} event_sample_t;
/* Parses the body of a PERF_RECORD_SAMPLE of sample_type (the bits above that apply). 0 or -1. */
int events_parse_sample(const uint8_t *q, const uint8_t *end, uint64_t sample_type, event_sample_t *out);
#define EVENTS_CPU_SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

/* A raw field of a tracepoint's sample (8 bytes at off): 0 or -1. */
int events_raw_u64(const event_sample_t *s, int off, uint64_t *out);
/* x86-64 syscall nr's name in buf, or NULL (syscall_names.c). */
const char *events_syscall_name(unsigned nr, char *buf, size_t cap);
/* What perf_event_open's errno means for event e, on stderr as a hint. */
void events_permission_hint(const record_event_t *e, int err);
#endif
