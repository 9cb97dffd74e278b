/* What libquire.so does when the dynamic loader has loaded it (a constructor, nothing
 * exported), and the hook of the library's flavours (quire_load.h, at the end).
 *
 * The loader reads the library's table of relative relocations (.rela.dyn: about 90,000
 * entries, 2.1 MB, mostly the Swift metadata of the runtime, Foundation and SwiftNIO linked
 * in statically) to fix up pointers, and never reads it again. The pages it read stay
 * resident in every process that loaded the library: 2.1 MB of a Python process's 21 MB
 * after `import quire` (bench/PROFILE.md, "Memory"). Packed relocations (DT_RELR, lld's
 * -z pack-relative-relocs) would make the table 30 times smaller, but need glibc 2.36 at
 * run time, which would raise the wheel's manylinux_2_35 tag and leave Ubuntu 22.04 out.
 *
 * So once the relocations are applied, the whole pages of the table are given back with
 * MADV_DONTNEED: it is a read-only mapping of the file, never written, so the advice only
 * drops the pages from this process (the file's page cache keeps them for other processes)
 * and a later read, if anything ever made one, would read the same bytes from the file
 * again. Nothing depends on it succeeding; on failure nothing happens.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "quire_load.h"

struct quire_load_search {
    uintptr_t self;     /* an address inside this object */
    uintptr_t start;    /* the relocation table, found */
    uintptr_t size;
};

static int quire_load_find_table(struct dl_phdr_info *info, size_t info_size, void *data) {
    struct quire_load_search *search = data;
    (void)info_size;
    const ElfW(Dyn) *dynamic = NULL;
    int contains_self = 0;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && search->self >= start && search->self - start < ph->p_memsz) contains_self = 1;
        if (ph->p_type == PT_DYNAMIC) dynamic = (const ElfW(Dyn) *)start;
    }
    if (!contains_self) return 0;
    if (dynamic == NULL) return 1;
    uintptr_t rela = 0, size = 0;
    for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_RELA) rela = d->d_un.d_ptr;
        else if (d->d_tag == DT_RELASZ) size = d->d_un.d_val;
    }
    if (rela == 0 || size == 0) return 1;
    /* glibc rewrites the pointers of a writable dynamic section to run-time addresses when
     * it loads the object; other loaders may leave link-time ones. */
    if (rela < info->dlpi_addr) rela += info->dlpi_addr;
    search->start = rela;
    search->size = size;
    return 1;
}

__attribute__((constructor)) static void quire_load_release_relocations(void) {
    struct quire_load_search search = {(uintptr_t)&quire_load_release_relocations, 0, 0};
    dl_iterate_phdr(quire_load_find_table, &search);
    long page = sysconf(_SC_PAGESIZE);
    if (search.size == 0 || page <= 0) return;
    /* Only pages wholly inside the table: its neighbours (.dynsym before it, the Swift
     * metadata sections after it) are still read. */
    uintptr_t first = (search.start + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t end = (search.start + search.size) & ~((uintptr_t)page - 1);
    if (end > first) (void)madvise((void *)first, end - first, MADV_DONTNEED);
}

/* Set at load by a flavour of the library (quire_load.h); NULL in the default one. */
void (*quireload_store_registrar)(void) = NULL;

void quireload_register_stores(void) {
    if (quireload_store_registrar != NULL) quireload_store_registrar();
}
