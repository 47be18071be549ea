/* A tracked copy: what target_freeze does, when target_track_want asked for it and the kernel can,
 * without a fork. nodescope keeps an image of the process's memory in its own address space and, at
 * each freeze, brings it up to date by reading only the pages the process wrote since the last one.
 * The kernel tracks the writes: a userfaultfd in asynchronous write-protect mode (Linux 6.7+:
 * a write to a protected page is let through by the kernel at once, nothing waits, and the page is
 * marked written) registered on the process's mappings, and PAGEMAP_SCAN on /proc/PID/pagemap, which
 * lists the pages written since the last scan and protects them again in the same walk.
 *
 * A freeze: the pages written since the last freeze are read while the process runs (the first
 * time: all of them); then every thread is stopped (target_stop: the registers), the pages written
 * in those milliseconds are read, with the mappings made meanwhile, and the process runs on. The
 * stop is a page-table walk and a few pages, not a fork (which copies the page tables of the whole
 * process: 40 ms at 1 GB). Reads then come from the image (target_track_read, target_direct): the
 * memory as it was at the stop. Mappings of files that are not writable are read from the process
 * itself (they do not change).
 *
 * What the process keeps: nothing of its own. The userfaultfd must be made by the process (it is
 * for the caller's own memory): its main thread is made to call userfaultfd() and close() by a
 * guard process, as freeze_guard.c makes it clone, and the descriptor is taken over with
 * pidfd_getfd and passed here. Only nodescope holds it: when nodescope closes it or dies, the
 * kernel unregisters every mapping and takes the protection off every page. Meanwhile the process
 * takes a minor fault the first time it writes a page after each freeze (the fork's copy-on-write
 * took one too, and copied the page). Not used for a process under a seccomp filter (the call
 * might kill it, not fail), nor where the kernel lacks the features: a forked copy then. */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/procfs.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* linux/fs.h of Linux 6.7 (older headers lack them) */
#define PAGE_IS_WPALLOWED (1 << 0)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#define PM_SCAN_WP_MATCHING (1 << 0)
typedef struct {
    uint64_t start, end, categories;
} page_region_t;
typedef struct {
    uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted, category_mask,
        category_anyof_mask, return_mask;
} pm_scan_arg_t;
#define PAGEMAP_SCAN_IOCTL _IOWR('f', 16, pm_scan_arg_t)
#define FEAT_WP_UNPOPULATED (1ull << 13)
#define FEAT_WP_ASYNC (1ull << 15)
#define UFFD_USER_MODE_ONLY_FLAG 1
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#define USER_END 0x7ffffffff000ull /* TASK_SIZE: the scan refuses an end beyond (EFAULT) */
#define ZONE_BITS 32               /* the image is kept in 4 GiB zones, each at the same offset as in the process */
#define VEC_CAP 65536
#define RUNNING_SCAN_PAGES 16384 /* 64 MiB a walk while the process runs */
#define PRECOPY_PASSES 3
#define PRECOPY_ENOUGH (8u << 20) /* a pass that read less is the last before the stop */
#define IOV_BATCH 1024
#define PAGE 4096ull

typedef struct {
    uint64_t key; /* address >> ZONE_BITS */
    uint8_t *base;
    uint64_t *held; /* a bit per page the image holds (read, not dropped since) */
} zone_t;
#define ZONE_PAGES ((1ull << ZONE_BITS) / PAGE)
#define ZSLOTS 1024

typedef struct {
    uint64_t start, end;
} span_t;

struct target_track {
    int uffd;    /* nodescope's: the process has none */
    int pagemap; /* /proc/PID/pagemap */
    zone_t *zones;
    size_t nzones, zcap;
    u64map_t zone_of;       /* key -> index + 1 */
    uint32_t zslot[ZSLOTS]; /* zone(): index + 1 by key */
    span_t *imaged;         /* the mappings whose bytes are the image's, at the last stop (sorted) */
    size_t nimaged;
    size_t last; /* the span found last (reads come in runs) */
    page_region_t *vec;
    page_region_t *unreg; /* the ranges no userfaultfd tracks (register_new) */
    size_t nunreg, unreg_cap;
    uint64_t bytes_read; /* by the last freeze */
    span_t *changed;     /* what the last freeze read or dropped (note_changed) */
    size_t nchanged, changed_cap;
    uint64_t attempts;   /* freezes begun */
    uint64_t generation; /* the number of the last freeze that succeeded (target_copy_generation) */
};

/* The zone of key, if made. */
static zone_t *zone_found(struct target_track *k, uint64_t key)
{
    /* a direct-mapped table of zone numbers + 1 by key first: V8 without a pointer cage (Node's
       own builds) puts its pages at random addresses, a 1 GB heap in 3,678 zones */
    uint32_t *slot = &k->zslot[key & (ZSLOTS - 1)], i;
    if (*slot && k->zones[*slot - 1].key == key) return &k->zones[*slot - 1];
    if (!u64map_get(&k->zone_of, key, &i)) return NULL;
    *slot = i;
    return &k->zones[i - 1];
}

/* The zone holding addr, made on first use (address space only: pages are taken as written) */
static zone_t *zone(struct target_track *k, uint64_t addr)
{
    uint64_t key = addr >> ZONE_BITS;
    zone_t *z = zone_found(k, key);
    if (z) return z;
    void *p = mmap(NULL, 1ull << ZONE_BITS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return NULL;
    xgrow((void **)&k->zones, &k->zcap, k->nzones + 1, sizeof *k->zones);
    k->zones[k->nzones] = (zone_t){key, p, xcalloc(ZONE_PAGES / 64, sizeof(uint64_t))};
    int found;
    *u64map_upsert(&k->zone_of, key, &found) = (uint32_t)k->nzones + 1;
    k->zslot[key & (ZSLOTS - 1)] = (uint32_t)k->nzones + 1;
    return &k->zones[k->nzones++];
}

static uint8_t *image_at(struct target_track *k, uint64_t addr)
{
    zone_t *z = zone(k, addr);
    return z ? z->base + (addr & ((1ull << ZONE_BITS) - 1)) : NULL;
}

/* Sets (on) or clears the held bits of the pages [a, b) of zone z; clearing: whether any was set. */
static int held_bits(zone_t *z, uint64_t a, uint64_t b, int on)
{
    uint64_t p = (a & ((1ull << ZONE_BITS) - 1)) / PAGE, q = p + (b - a + PAGE - 1) / PAGE;
    int any = 0;
    while (p < q) {
        if (!(p & 63) && q - p >= 64) {
            any |= z->held[p / 64] != 0;
            z->held[p / 64] = on ? ~0ull : 0;
            p += 64;
            continue;
        }
        uint64_t bit = 1ull << (p & 63);
        any |= (z->held[p / 64] & bit) != 0;
        z->held[p / 64] = on ? z->held[p / 64] | bit : z->held[p / 64] & ~bit;
        p++;
    }
    return any;
}

/* [a, b) of the image changed at this freeze (target_copy_unchanged): a list of ranges, not a
   bitmap: a heap's pages are in thousands of zones where V8 has no pointer cage. */
static void note_changed(struct target_track *k, uint64_t a, uint64_t b)
{
    if (k->nchanged && a >= k->changed[k->nchanged - 1].start && a <= k->changed[k->nchanged - 1].end) {
        if (b > k->changed[k->nchanged - 1].end) k->changed[k->nchanged - 1].end = b;
        return;
    }
    xgrow((void **)&k->changed, &k->changed_cap, k->nchanged + 1, sizeof *k->changed);
    k->changed[k->nchanged++] = (span_t){a, b};
}

static int by_start(const void *x, const void *y)
{
    const span_t *a = x, *b = y;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* The changed ranges in address order, overlaps merged. */
static void sort_changed(struct target_track *k)
{
    if (k->nchanged > 1) qsort(k->changed, k->nchanged, sizeof *k->changed, by_start);
    size_t n = 0;
    for (size_t i = 0; i < k->nchanged; i++) {
        if (n && k->changed[i].start <= k->changed[n - 1].end) {
            if (k->changed[i].end > k->changed[n - 1].end) k->changed[n - 1].end = k->changed[i].end;
        } else k->changed[n++] = k->changed[i];
    }
    k->nchanged = n;
}

/* Forgets the image's bytes of [a, b): zero pages again, their memory given back. */
static void image_drop(struct target_track *k, uint64_t a, uint64_t b)
{
    while (a < b) {
        uint64_t zend = ((a >> ZONE_BITS) + 1) << ZONE_BITS, e = b < zend ? b : zend;
        uint64_t key = a >> ZONE_BITS;
        zone_t *z = zone_found(k, key);
        if (z && held_bits(z, a, e, 0)) {
            madvise(z->base + (a & ((1ull << ZONE_BITS) - 1)), e - a, MADV_DONTNEED);
            note_changed(k, a, e);
        }
        a = e;
    }
}

/* Reads the n ranges r of the process into the image, in batches; a range that cannot be read
 * whole (unmapped meanwhile) is read page by page, what fails is dropped. Bytes read. */
static uint64_t image_read(target_t *t, const page_region_t *r, size_t n)
{
    struct target_track *k = t->track;
    struct iovec l[IOV_BATCH], rm[IOV_BATCH];
    uint64_t total = 0;
    size_t i = 0;
    uint64_t at = n ? r[0].start : 0;
    while (i < n) {
        size_t m = 0;
        uint64_t want = 0;
        while (i < n && m < IOV_BATCH) {
            /* a piece never crosses a zone */
            uint64_t zend = ((at >> ZONE_BITS) + 1) << ZONE_BITS, e = r[i].end < zend ? r[i].end : zend;
            zone_t *z = zone(k, at);
            if (!z) return total;
            uint8_t *dst = z->base + (at & ((1ull << ZONE_BITS) - 1));
            held_bits(z, at, e, 1);
            note_changed(k, at, e);
            l[m] = (struct iovec){dst, e - at};
            rm[m] = (struct iovec){(void *)(uintptr_t)at, e - at};
            want += e - at, m++;
            if (e == r[i].end) {
                if (++i < n) at = r[i].start;
            } else at = e;
        }
        ssize_t got = process_vm_readv(t->pid, l, m, rm, m, 0);
        if (got == (ssize_t)want) {
            total += want;
            continue;
        }
        /* again, page by page: the pages that are gone are forgotten */
        for (size_t j = 0; j < m; j++)
            for (uint64_t a = (uint64_t)(uintptr_t)rm[j].iov_base, e = a + rm[j].iov_len; a < e; a += PAGE) {
                struct iovec ll = {image_at(k, a), PAGE}, rr = {(void *)(uintptr_t)a, PAGE};
                if (process_vm_readv(t->pid, &ll, 1, &rr, 1, 0) == (ssize_t)PAGE) total += PAGE;
                else image_drop(k, a, a + PAGE);
            }
    }
    return total;
}

/* Lists what PAGEMAP_SCAN finds over the whole address space for the given categories, calling
 * each(t, regions, n) per batch; wp: write-protect what matches. A walk holds the process's
 * mmap lock for reading: its own mmap, munmap and mprotect wait for the walk's end. max_pages
 * (0: no limit) ends a walk after that many matching pages: a process that runs is held back
 * for one piece at most (the first census protects every page: a 1 GB program's longest delay
 * during a first census was 12-41 ms in one walk, 8.5-10.7 ms in pieces, of which 7 the stop).
 * 0, or -1 (errno). */
static int scan(target_t *t, uint64_t inverted, uint64_t mask, uint64_t ret_mask, int wp, uint64_t max_pages,
                void (*each)(target_t *, const page_region_t *, size_t))
{
    struct target_track *k = t->track;
    uint64_t start = 0;
    while (start < USER_END) {
        pm_scan_arg_t a = {.size = sizeof a,
                           .flags = wp ? PM_SCAN_WP_MATCHING : 0,
                           .start = start,
                           .end = USER_END,
                           .vec = (uint64_t)(uintptr_t)k->vec,
                           .vec_len = VEC_CAP,
                           .max_pages = max_pages,
                           .category_inverted = inverted,
                           .category_mask = mask,
                           .return_mask = ret_mask};
        long nr = ioctl(k->pagemap, PAGEMAP_SCAN_IOCTL, &a);
        if (nr < 0) return -1;
        if (nr > 0) each(t, k->vec, (size_t)nr);
        if (a.walk_end <= start || a.walk_end >= USER_END) break;
        start = a.walk_end;
    }
    return 0;
}

static void read_written(target_t *t, const page_region_t *r, size_t n) { t->track->bytes_read += image_read(t, r, n); }

static void drop_absent(target_t *t, const page_region_t *r, size_t n)
{
    for (size_t i = 0; i < n; i++) image_drop(t->track, r[i].start, r[i].end);
}

/* Brings the image up to date: the pages written since the last scan are read (and protected
   again); running (before the stop), also the pages the process no longer has (given back: MADV_DONTNEED, MADV_FREE
   reclaimed, which a write-protect scan does not list) are zero pages again in the image. The
   second walk costs as much as the first (4-5 ms at 1 GB): it is done while the process runs, not
   in the stop, so a page given back in the milliseconds between the two keeps its old bytes in the
   image. What a process gives back is memory it freed (V8: the inside of free space, which no
   object covers), which no census reads. */
static int catch_up(target_t *t, int running)
{
    if (scan(t, 0, PAGE_IS_WRITTEN, PAGE_IS_WRITTEN, 1, running ? RUNNING_SCAN_PAGES : 0, read_written) != 0) return -1;
    if (!running) return 0;
    return scan(t, PAGE_IS_PRESENT | PAGE_IS_SWAPPED, PAGE_IS_PRESENT | PAGE_IS_SWAPPED | PAGE_IS_WPALLOWED,
                PAGE_IS_PRESENT, 0, 0, drop_absent);
}

/* The mappings worth an image: readable or not, anonymous or writable; not the kernel's ([vdso],
 * [vvar], [vsyscall]). Files mapped without write stay the file's. */
static int wanted(const target_mapping_t *m)
{
    if (m->path && m->path[0] == '[' && strcmp(m->path, "[heap]") && strcmp(m->path, "[stack]") &&
        strncmp(m->path, "[anon:", 6))
        return 0;
    return !(m->path && m->path[0] == '/' && !(m->prot & 2));
}

/* Tracked: anonymous memory, whose pages the process has not touched are zero pages. A file's
 * (a library's data, a shared mapping) is read whole at each stop: a page of it that is not
 * present holds the file's bytes, not zeros (they are small: node's and its libraries' data). */
static int trackable(const target_mapping_t *m) { return !(m->path && m->path[0] == '/'); }

static void collect_unregistered(target_t *t, const page_region_t *r, size_t n)
{
    struct target_track *k = t->track;
    for (size_t i = 0; i < n; i++) {
        if (k->nunreg && k->unreg[k->nunreg - 1].end == r[i].start) {
            k->unreg[k->nunreg - 1].end = r[i].end;
            continue;
        }
        xgrow((void **)&k->unreg, &k->unreg_cap, k->nunreg + 1, sizeof *k->unreg);
        k->unreg[k->nunreg++] = r[i];
    }
}

/* Registers the wanted mappings that are not yet (new since the last freeze, or mapped again over
 * old ones): their image is forgotten first, and their pages are all "written" to the next scan.
 * During the stop, the wanted mappings that are not registered (files', the kernel's refusals)
 * are read whole. */
static int register_new(target_t *t, int stopped)
{
    struct target_track *k = t->track;
    k->nunreg = 0;
    if (scan(t, PAGE_IS_WPALLOWED, PAGE_IS_WPALLOWED, PAGE_IS_WPALLOWED, 0, 0, collect_unregistered) != 0) return -1;
    size_t j = 0;
    page_region_t whole[256];
    size_t nwhole = 0;
    for (size_t i = 0; i < t->nmaps; i++) {
        const target_mapping_t *m = &t->maps[i];
        while (j < k->nunreg && k->unreg[j].end <= m->start) j++;
        if (j == k->nunreg) break;
        if (k->unreg[j].start >= m->end || !wanted(m)) continue;
        struct uffdio_register reg = {.range = {m->start, m->end - m->start}, .mode = UFFDIO_REGISTER_MODE_WP};
        image_drop(k, m->start, m->end);
        if ((trackable(m) && ioctl(k->uffd, UFFDIO_REGISTER, &reg) == 0) || !(m->prot & 1) || !stopped) continue;
        whole[nwhole++] = (page_region_t){m->start, m->end, 0};
        if (nwhole == sizeof whole / sizeof *whole) {
            k->bytes_read += image_read(t, whole, nwhole);
            nwhole = 0;
        }
    }
    if (nwhole) k->bytes_read += image_read(t, whole, nwhole);
    return 0;
}

/* The image's spans: the wanted readable mappings at the stop. What the process no longer maps is
 * forgotten. */
static void set_imaged(target_t *t)
{
    struct target_track *k = t->track;
    span_t *old = k->imaged;
    size_t nold = k->nimaged, j = 0;
    k->imaged = xcalloc(t->nmaps ? t->nmaps : 1, sizeof *k->imaged);
    k->nimaged = 0;
    for (size_t i = 0; i < t->nmaps; i++) {
        const target_mapping_t *m = &t->maps[i];
        if (!(m->prot & 1) || !wanted(m)) continue;
        if (k->nimaged && k->imaged[k->nimaged - 1].end == m->start) k->imaged[k->nimaged - 1].end = m->end;
        else k->imaged[k->nimaged++] = (span_t){m->start, m->end};
    }
    /* old spans' parts outside every new span */
    for (size_t i = 0; i < nold; i++) {
        uint64_t a = old[i].start;
        while (a < old[i].end) {
            while (j < k->nimaged && k->imaged[j].end <= a) j++;
            uint64_t b = j < k->nimaged && k->imaged[j].start < old[i].end ? k->imaged[j].start : old[i].end;
            if (b > a) image_drop(k, a, b);
            a = j < k->nimaged && k->imaged[j].start < old[i].end ? k->imaged[j].end : old[i].end;
        }
    }
    free(old);
    k->last = 0;
}

/* Whether this kernel and process allow tracking; NULL when they do, else why not. */
static const char *unavailable(target_t *t)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", t->pid);
    if (proc_field(path, "Seccomp:") != 0) return "the process runs under a seccomp filter";
    /* the image takes as much memory as the process's resident writable memory, for the whole
       watch (a fork's copy takes only what the process writes while it lives) */
    long long avail = proc_field("/proc/meminfo", "MemAvailable:"), anon = proc_field(path, "RssAnon:");
    if (avail > 0 && anon > 0 && anon * 3 / 2 > avail) return "too little memory available for an image of its memory";
    /* our own pagemap: not readable when nodescope has file capabilities (not dumpable) */
    int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (pm < 0) return NULL;
    page_region_t r;
    pm_scan_arg_t a = {.size = sizeof a,
                       .start = 0,
                       .end = PAGE,
                       .vec = (uint64_t)(uintptr_t)&r,
                       .vec_len = 1,
                       .category_mask = PAGE_IS_WRITTEN,
                       .return_mask = PAGE_IS_WRITTEN};
    long nr = ioctl(pm, PAGEMAP_SCAN_IOCTL, &a);
    close(pm);
    if (nr < 0) return "the kernel has no PAGEMAP_SCAN (Linux 6.7+)";
    return NULL;
}

/* Receives one descriptor on the socket s; -1 when none came. */
static int recv_fd(int s)
{
    char c;
    struct iovec io = {&c, 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr msg = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    ssize_t n;
    while ((n = recvmsg(s, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
    struct cmsghdr *h = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
    if (!h || h->cmsg_type != SCM_RIGHTS) return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(h), sizeof fd);
    return fd;
}

/* The guard: makes the target's main thread call userfaultfd(), takes the descriptor, makes the
 * thread close it, and sends it up. Deaf to the signals that stop nodescope, like freeze_guard.c's:
 * the target's registers are not its own while it runs our calls. Never returns. */
static void inject_guard(target_t *t, uint64_t insn, int s)
{
    setpgid(0, 0);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    int st, pending = 0, got = -1, err = EIO;
    uint64_t saved[ARCH_MAX_REGS] = {0};
    if (ptrace(PTRACE_SEIZE, t->pid, 0, 0) != 0) _exit(1);
    if (ptrace(PTRACE_INTERRUPT, t->pid, 0, 0) == 0 && waitpid(t->pid, &st, __WALL) == t->pid && WIFSTOPPED(st) &&
        target_ptrace_regs(t->pid, saved, 0) == 0) {
        long fd = -1, r;
        const uint64_t a[5] = {O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY_FLAG, 0, 0, 0, 0};
        if (target_inject_syscall(t->pid, saved, insn, SYS_userfaultfd, a, &fd, &pending) == 0 && fd >= 0) {
            int pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
            got = pidfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0) : -1;
            if (got < 0) err = errno;
            if (pidfd >= 0) close(pidfd);
            const uint64_t c[5] = {(uint64_t)fd, 0, 0, 0, 0};
            target_inject_syscall(t->pid, saved, insn, SYS_close, c, &r, &pending);
        } else if (fd < 0) err = (int)-fd;
    }
    ptrace(PTRACE_DETACH, t->pid, 0, (void *)(uintptr_t)pending);
    char c = 0;
    struct iovec io = {&c, 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    memset(&u, 0, sizeof u);
    struct msghdr msg = {.msg_iov = &io, .msg_iovlen = 1};
    if (got >= 0) {
        msg.msg_control = u.buf, msg.msg_controllen = sizeof u.buf;
        struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
        h->cmsg_level = SOL_SOCKET, h->cmsg_type = SCM_RIGHTS, h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &got, sizeof got);
    } else c = (char)err;
    (void)!sendmsg(s, &msg, MSG_NOSIGNAL);
    _exit(0);
}

/* The process's userfaultfd, in nodescope; -1 (errno) when it could not be made. */
static int take_uffd(target_t *t)
{
    uint64_t insn = t->syscall_insn ? t->syscall_insn : target_find_syscall(t);
    if (!insn) return errno = ENOEXEC, -1;
    t->syscall_insn = insn;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t g = fork();
    if (g == 0) {
        close(sv[0]);
        inject_guard(t, insn, sv[1]);
    }
    close(sv[1]);
    int fd = g > 0 ? recv_fd(sv[0]) : -1, e = errno;
    close(sv[0]);
    if (g > 0)
        while (waitpid(g, NULL, 0) < 0 && errno == EINTR) {}
    errno = fd < 0 ? (e ? e : EPERM) : 0;
    return fd;
}

static int setup(target_t *t)
{
    const char *why = unavailable(t);
    if (why) {
        t->track_why = why;
        diag_info("%s: no write tracking (%s): a forked copy instead", t->name, why);
        return 1;
    }
    struct target_track *k = xcalloc(1, sizeof *k);
    k->uffd = k->pagemap = -1;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/pagemap", t->pid);
    k->pagemap = open(path, O_RDONLY | O_CLOEXEC);
    if (k->pagemap >= 0) k->uffd = take_uffd(t);
    struct uffdio_api api = {.api = UFFD_API, .features = FEAT_WP_ASYNC | FEAT_WP_UNPOPULATED};
    if (k->pagemap < 0 || k->uffd < 0 || ioctl(k->uffd, UFFDIO_API, &api) != 0) {
        t->track_why = k->pagemap < 0 ? "its /proc/PID/pagemap cannot be opened (another user's: mode 0400)"
                       : k->uffd < 0  ? "the process could not make a userfaultfd"
                                      : "the kernel's userfaultfd has no asynchronous write-protection";
        diag_info("%s: no write tracking (%s): a forked copy instead", t->name, t->track_why);
        if (k->uffd >= 0) close(k->uffd);
        if (k->pagemap >= 0) close(k->pagemap);
        free(k);
        return 1;
    }
    k->vec = xmalloc(VEC_CAP * sizeof *k->vec);
    t->track = k;
    return 0;
}

int target_track_freeze(target_t *t, double *stopped_ms)
{
    if (!t->track && setup(t) != 0) {
        t->track_want = 0;
        return 1;
    }
    struct target_track *k = t->track;
    k->bytes_read = 0;
    k->attempts++;
    k->nchanged = 0;
    /* while it runs: what was written since the last freeze (the first time: everything) */
    double p0 = target_now_ms();
    target_mapping_t *maps;
    size_t n;
    if (target_live_read_maps(t->pid, &maps, &n) == 0) target_live_set_maps(t, maps, n);
    if (register_new(t, 0) != 0) goto failed;
    /* again while a pass read much: the first census's pass takes seconds, and what a busy
       process wrote meanwhile would all be read in the stop */
    for (int pass = 0; pass < PRECOPY_PASSES; pass++) {
        uint64_t b0 = k->bytes_read;
        if (catch_up(t, 1) != 0) goto failed;
        if (k->bytes_read - b0 < PRECOPY_ENOUGH) break;
    }
    uint64_t before = k->bytes_read;
    /* the stop: what was written since, and the mappings as they are then */
    double t0 = target_now_ms();
    if (target_stop(t) != 0) return -1;
    double t1 = target_now_ms();
    int rc = 0;
    if (target_live_read_maps(t->pid, &maps, &n) == 0) target_live_set_maps(t, maps, n);
    double t2 = target_now_ms();
    if (register_new(t, 1) != 0 || catch_up(t, 0) != 0) rc = -1;
    int e = errno;
    double t3 = target_now_ms();
    target_resume(t);
    double t4 = target_now_ms();
    if (stopped_ms) *stopped_ms = t4 - t0;
    diag_info("%s: tracked copy: %.1f MB read in %.1f ms while it ran; stopped %.2f ms (threads %.2f, maps %.2f, "
              "%.2f MB written meanwhile read in %.2f, resume %.2f)",
              t->name, before / 1e6, t0 - p0, t4 - t0, t1 - t0, t2 - t1, (k->bytes_read - before) / 1e6, t3 - t2,
              t4 - t3);
    if (rc != 0) {
        errno = e;
        goto failed;
    }
    set_imaged(t);
    sort_changed(k);
    k->generation = k->attempts;
    t->track_frozen = 1;
    t->ops = &target_frozen_ops;
    return 0;
failed:
    diag_error(t->name, 0, "cannot bring its tracked copy up to date: %s", strerror(errno));
    return -1;
}

/* The span holding [addr, addr + n), or NULL */
static const span_t *imaged(struct target_track *k, uint64_t addr, size_t n)
{
    const span_t *s = k->last < k->nimaged ? &k->imaged[k->last] : NULL;
    if (!s || addr < s->start || addr >= s->end) {
        size_t lo = 0, hi = k->nimaged;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (k->imaged[mid].end <= addr) lo = mid + 1;
            else hi = mid;
        }
        if (lo == k->nimaged || addr < k->imaged[lo].start) return NULL;
        k->last = lo, s = &k->imaged[lo];
    }
    return n <= s->end - addr ? s : NULL;
}

const void *target_track_direct(target_t *t, uint64_t addr, size_t n)
{
    struct target_track *k = t->track;
    if (!k || !t->track_frozen || !n || !imaged(k, addr, n)) return NULL;
    if ((addr >> ZONE_BITS) != ((addr + n - 1) >> ZONE_BITS)) return NULL;
    return image_at(k, addr);
}

/* 1 when [addr, addr + n) lies in mappings of the stop whose bytes do not change: files mapped
   without write, the kernel's [vdso] and [vsyscall]; what else the image does not hold was not
   readable at the stop (V8's reserved pages: PROT_NONE then, maybe made readable since, and a read
   of the process now would find a page the copy did not have). */
static int unchanging(const target_t *t, uint64_t addr, size_t n)
{
    while (n > 0) {
        const target_mapping_t *m = target_mapping_at(t, addr);
        if (!m || !(m->prot & PROT_READ) || (m->prot & PROT_WRITE) || !m->path ||
            (m->path[0] != '/' && strncmp(m->path, "[v", 2)))
            return 0;
        uint64_t k = m->end - addr < n ? m->end - addr : n;
        addr += k, n -= k;
    }
    return 1;
}

int target_track_read(target_t *t, uint64_t addr, void *dst, size_t n)
{
    struct target_track *k = t->track;
    if (!k || !t->track_frozen) return 1;
    uint8_t *out = dst;
    while (n > 0) {
        const span_t *s = imaged(k, addr, 1);
        if (!s) return out == dst && unchanging(t, addr, n) ? 1 : -1;
        uint64_t zend = ((addr >> ZONE_BITS) + 1) << ZONE_BITS, e = s->end < zend ? s->end : zend;
        size_t m = e - addr < n ? (size_t)(e - addr) : n;
        const uint8_t *src = image_at(k, addr);
        if (!src) return -1;
        memcpy(out, src, m);
        out += m, addr += m, n -= m;
    }
    return 0;
}

uint64_t target_copy_read_bytes(const target_t *t) { return t->track ? t->track->bytes_read : 0; }

uint64_t target_copy_generation(const target_t *t) { return t->track && t->track_frozen ? t->track->generation : 0; }

int target_copy_unchanged(const target_t *t, uint64_t addr, uint64_t n)
{
    struct target_track *k = t->track;
    if (!k || !t->track_frozen || !n || !imaged(k, addr, n)) return 0;
    size_t lo = 0, hi = k->nchanged; /* the first range that ends after addr */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (k->changed[mid].end <= addr) lo = mid + 1;
        else hi = mid;
    }
    return lo == k->nchanged || k->changed[lo].start >= addr + n;
}

const char *target_copy_kind(const target_t *t, const char **why)
{
    if (why) *why = t->track_why;
    return t->track ? "tracked" : "fork";
}

void target_track_want(target_t *t, int on) { t->track_want = on; }

void target_track_free(target_t *t)
{
    struct target_track *k = t->track;
    if (!k) return;
    /* the kernel takes the protection off the process's pages and unregisters its mappings */
    if (k->uffd >= 0) close(k->uffd);
    if (k->pagemap >= 0) close(k->pagemap);
    for (size_t i = 0; i < k->nzones; i++) {
        munmap(k->zones[i].base, 1ull << ZONE_BITS);
        free(k->zones[i].held);
    }
    free(k->zones);
    u64map_free(&k->zone_of);
    free(k->imaged);
    free(k->vec);
    free(k->unreg);
    free(k->changed);
    free(k);
    t->track = NULL;
    t->track_frozen = 0;
}

const void *target_direct(target_t *t, uint64_t addr, size_t n)
{
    if (!t->core) return t->track_frozen ? target_track_direct(t, addr, n) : NULL;
    return target_core_direct(t, addr, n);
}
