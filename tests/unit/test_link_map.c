/* target/link_map.c: a core without NT_FILE (as qemu-user writes them) names its files from NT_AUXV
 * and the dynamic linker's list in its memory. A small core is made here: one PT_LOAD holding an
 * executable's program headers (at AT_PHDR), its dynamic section (DT_DEBUG), r_debug, a link_map
 * list (the executable, a library whose ELF header is in memory, an entry with a bad name, and
 * l_next back to the library: a cycle), and AT_EXECFN /bin/true. Checked: the files and their
 * ranges as the kernel would map them; then every word of those structures set in turn to
 * hostile values (0, ~0, a pointer to itself, one into another entry): each core opens or fails
 * cleanly, never a crash or a hang (ASan). And a core without the executable's and a library's
 * program headers in memory (qemu leaves out a segment that begins with an ELF header and is
 * executable: every aarch64 library's first): they are read from /bin/true and /bin/false; there
 * an AT_ENTRY that is not /bin/true's entry point refuses the core. With LINK_MAP_CORE=PATH it writes the intact core
 * there (fuzz/corpus/core/qemu_link_map was made so). */
#include "check.h"
#include "target/target.h"
#include "util/diag.h"
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libdw.so"; }

#define BASE 0x400000ull /* the PT_LOAD's address */
#define MEM 0x3000       /* its bytes */
#define NOTE_OFF 0x200   /* the notes' file offset */
#define MEM_OFF 0x1000   /* the memory's file offset */

#define MEM2                                                                                                           \
    0x508000ull /* a second PT_LOAD, 0x2000 bytes: where /bin/true's dynamic section is
                            when its program headers say it is mapped at 0x500000 */
static uint8_t core[MEM_OFF + MEM + 0x2000];
static uint8_t *mem = core + MEM_OFF;

static void put64(uint64_t addr, uint64_t v) { memcpy(mem + (addr - BASE), &v, 8); }
static void put_phdr(uint64_t addr, uint32_t type, uint64_t off, uint64_t vaddr, uint64_t filesz, uint64_t memsz)
{
    Elf64_Phdr p = {type, PF_R, off, vaddr, vaddr, filesz, memsz, 0x1000};
    memcpy(mem + (addr - BASE), &p, sizeof p);
}

static void make_core(void)
{
    memset(core, 0, sizeof core);
    Elf64_Ehdr *eh = (Elf64_Ehdr *)core;
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64, eh->e_ident[EI_DATA] = ELFDATA2LSB, eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_type = ET_CORE, eh->e_machine = EM_X86_64, eh->e_version = EV_CURRENT;
    eh->e_phoff = sizeof *eh, eh->e_phentsize = sizeof(Elf64_Phdr), eh->e_phnum = 3, eh->e_ehsize = sizeof *eh;
    /* the notes: NT_AUXV only */
    uint64_t auxv[] = {AT_PHDR, BASE + 0x40, AT_PHNUM, 3, AT_ENTRY, BASE + 0x100, AT_EXECFN, BASE + 0xd00, AT_NULL, 0};
    uint32_t nh[3] = {5, sizeof auxv, NT_AUXV};
    memcpy(core + NOTE_OFF, nh, 12);
    memcpy(core + NOTE_OFF + 12, "CORE\0\0\0", 8);
    memcpy(core + NOTE_OFF + 20, auxv, sizeof auxv);
    Elf64_Phdr ph[3] = {{PT_NOTE, 0, NOTE_OFF, 0, 0, 20 + sizeof auxv, 0, 4},
                        {PT_LOAD, PF_R | PF_W, MEM_OFF, BASE, 0, MEM, MEM, 0x1000},
                        {PT_LOAD, PF_R | PF_W, MEM_OFF + MEM, MEM2, 0, 0x2000, 0x2000, 0x1000}};
    memcpy(core + sizeof *eh, ph, sizeof ph);
    /* the executable: program headers at BASE + 0x40 (PT_PHDR's p_vaddr 0x40: bias BASE) */
    put_phdr(BASE + 0x40, PT_PHDR, 0x40, 0x40, 3 * 56, 3 * 56);
    put_phdr(BASE + 0x40 + 56, PT_LOAD, 0, 0, 0x1000, 0x1000);
    put_phdr(BASE + 0x40 + 112, PT_DYNAMIC, 0x800, 0x800, 0x40, 0x40);
    put64(BASE + 0x800, DT_DEBUG), put64(BASE + 0x808, BASE + 0x900); /* then DT_NULL */
    put64(BASE + 0x900, 1), put64(BASE + 0x908, BASE + 0xa00);        /* r_version, r_map */
    /* link_map: l_addr, l_name, l_ld, l_next, l_prev */
    uint64_t lm[3][5] = {{BASE, BASE + 0xc00, BASE + 0x800, BASE + 0xa40, 0},
                         {BASE + 0x1000, BASE + 0xc10, BASE + 0x1200, BASE + 0xa80, BASE + 0xa00},
                         {BASE + 0x2000, 0xdead0000, BASE + 0x2200, BASE + 0xa40, BASE + 0xa40}};
    for (int i = 0; i < 3; i++) memcpy(mem + 0xa00 + 0x40 * i, lm[i], sizeof lm[i]);
    strcpy((char *)mem + 0xc10, "/nonexistent/libfake.so");
    strcpy((char *)mem + 0xd00, "/bin/true");
    /* the library: its ELF header at l_addr, a PT_LOAD of one file page and two of .bss */
    Elf64_Ehdr *lh = (Elf64_Ehdr *)(mem + 0x1000);
    memcpy(lh->e_ident, ELFMAG, SELFMAG);
    lh->e_ident[EI_CLASS] = ELFCLASS64, lh->e_type = ET_DYN, lh->e_machine = EM_X86_64;
    lh->e_phoff = 64, lh->e_phentsize = 56, lh->e_phnum = 2;
    put_phdr(BASE + 0x1040, PT_LOAD, 0, 0, 0x1000, 0x3000);
    put_phdr(BASE + 0x1040 + 56, PT_DYNAMIC, 0x200, 0x200, 0x10, 0x10);
}

static void write_core(const char *path)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK_EQ_INT(fwrite(core, 1, sizeof core, f), sizeof core);
    fclose(f);
}

static const target_mapping_t *mapping_named(target_t *t, const char *path)
{
    for (size_t i = 0; i < target_mapping_count(t); i++) {
        const target_mapping_t *m = target_mapping(t, i);
        if (m->path && strcmp(m->path, path) == 0) return m;
    }
    return NULL;
}

/* A file's ELF header, its PT_PHDR's and PT_DYNAMIC's p_vaddr; 0, or -1 */
static int elf_facts(const char *file, Elf64_Ehdr *eh, uint64_t *phdr_va, uint64_t *dyn_va)
{
    FILE *f = fopen(file, "rb");
    Elf64_Phdr ph[32];
    int ok = f && fread(eh, sizeof *eh, 1, f) == 1 && eh->e_phnum <= 32 && fseek(f, (long)eh->e_phoff, SEEK_SET) == 0 &&
             fread(ph, sizeof *ph, eh->e_phnum, f) == eh->e_phnum;
    if (f) fclose(f);
    for (int i = 0; ok && i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_PHDR) *phdr_va = ph[i].p_vaddr;
        if (ph[i].p_type == PT_DYNAMIC) *dyn_va = ph[i].p_vaddr;
    }
    return ok ? 0 : -1;
}

int main(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_link_map.%d", (int)getpid());
    make_core();
    if (getenv("LINK_MAP_CORE")) write_core(getenv("LINK_MAP_CORE"));
    write_core(path);
    target_t *t = target_open_core(path, NULL);
    diag_verbosity = -1;
    CHECK(t != NULL);
    if (t) {
        CHECK_STR(target_exe_path(t), "/bin/true"); /* from AT_EXECFN */
        const target_mapping_t *exe = mapping_named(t, "/bin/true"), *lib = mapping_named(t, "/nonexistent/libfake.so");
        CHECK(exe && exe->start == BASE && exe->end == BASE + 0x1000 && exe->file_offset == 0);
        CHECK(lib && lib->start == BASE + 0x1000 && lib->end == BASE + 0x2000);
        const target_mapping_t *bss = target_mapping_at(t, BASE + 0x2800);
        CHECK(bss && !bss->path && bss->start == BASE + 0x2000 && bss->end == BASE + 0x4000);
        /* and the second PT_LOAD's anonymous mapping: the bad name and the cycle add nothing */
        CHECK_EQ_INT(target_mapping_count(t), 4);
        target_close(t);
    }
    /* --node names the executable when AT_EXECFN is no absolute path */
    strcpy((char *)mem + 0xd00, "true");
    write_core(path);
    t = target_open_core(path, "/bin/true");
    CHECK(t != NULL && t && mapping_named(t, "/bin/true") != NULL);
    target_close(t);
    /* not dumped (qemu leaves out an executable segment that begins with an ELF header: aarch64's
       libraries and node): the program headers are read from the files. /bin/true stands for both
       the executable (AT_PHDR at 0x500040, nothing there in the core) and a library at 0x600000 */
    Elf64_Ehdr te;
    uint64_t phdr_va = 0, dyn_va = 0, lib_dyn_va = 0;
    CHECK(elf_facts("/bin/true", &te, &phdr_va, &dyn_va) == 0);
    Elf64_Ehdr le;
    CHECK(elf_facts("/bin/false", &le, &phdr_va, &lib_dyn_va) == 0 &&
          elf_facts("/bin/true", &te, &phdr_va, &dyn_va) == 0);
    make_core();
    strcpy((char *)mem + 0xd00, "true");
    memcpy(core + NOTE_OFF + 20 + 8, &(uint64_t){0x500000 + te.e_phoff}, 8); /* AT_PHDR */
    memcpy(core + NOTE_OFF + 20 + 24, &(uint64_t){te.e_phnum}, 8);           /* AT_PHNUM */
    uint64_t lm1[4] = {0x600000, BASE + 0xc30, 0x600000 + lib_dyn_va, 0};
    memcpy(mem + 0xa00, lm1, sizeof lm1); /* the list: this one entry */
    uint64_t dyn_at = 0x500000 - (phdr_va - te.e_phoff) + dyn_va, dt[2] = {DT_DEBUG, BASE + 0x900};
    CHECK(dyn_at >= MEM2 && dyn_at + 16 <= MEM2 + 0x2000);
    if (dyn_at >= MEM2 && dyn_at + 16 <= MEM2 + 0x2000) memcpy(core + MEM_OFF + MEM + (dyn_at - MEM2), dt, 16);
    strcpy((char *)mem + 0xc30, "/bin/false");
    /* AT_ENTRY: first not /bin/true's entry point, biased (another node given): refused */
    uint64_t entry = 0x500000 - (phdr_va - te.e_phoff) + te.e_entry;
    memcpy(core + NOTE_OFF + 20 + 40, &(uint64_t){entry + 0x10}, 8);
    write_core(path);
    diag_verbosity = -1;
    t = target_open_core(path, "/bin/true");
    CHECK(t == NULL);
    if (t) target_close(t);
    memcpy(core + NOTE_OFF + 20 + 40, &entry, 8);
    write_core(path);
    t = target_open_core(path, "/bin/true");
    CHECK(t != NULL);
    if (t) {
        uint64_t exe_at = 0x500000 - (phdr_va - te.e_phoff); /* AT_PHDR - PT_PHDR's p_vaddr */
        const target_mapping_t *e = target_mapping_at(t, exe_at);
        CHECK(e && e->path && strcmp(e->path, "/bin/true") == 0 && e->start == exe_at);
        const target_mapping_t *l = target_mapping_at(t, 0x600000);
        CHECK(l && l->path && strcmp(l->path, "/bin/false") == 0 && l->start == 0x600000);
        target_close(t);
    }
    /* hostile words in every structure the walk reads */
    static const uint64_t spots[][2] = {
        {0x40, 3 * 56}, {0x800, 0x20}, {0x900, 0x10}, {0xa00, 0xa8}, {0x1000, 0x40 + 112}};
    int opened = 0, tried = 0;
    for (size_t s = 0; s < sizeof spots / sizeof spots[0]; s++)
        for (uint64_t off = spots[s][0]; off < spots[s][0] + spots[s][1]; off += 8)
            for (int k = 0; k < 4; k++) {
                make_core();
                uint64_t v = k == 0 ? 0 : k == 1 ? ~0ull : k == 2 ? BASE + off : BASE + 0xa40;
                put64(BASE + off, v);
                write_core(path);
                target_t *c = target_open_core(path, k & 1 ? "/bin/true" : NULL);
                tried++;
                if (c) {
                    opened++;
                    for (size_t i = 0; i < target_mapping_count(c); i++) {
                        const target_mapping_t *m = target_mapping(c, i);
                        CHECK(m->end > m->start);
                    }
                }
                target_close(c);
            }
    fprintf(stderr, "test_link_map: %d hostile cores, %d opened\n", tried, opened);
    CHECK(opened > 0);
    unlink(path);
    return check_summary("test_link_map");
}
