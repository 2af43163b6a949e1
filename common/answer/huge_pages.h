/* Huge pages for the snapshot's large bodies (BEHAVIOUR 10.17).
 *
 * A 4 KiB-paged memfd costs the kernel per page to send: vmsplice takes a reference per
 * page and the socket frees one per page, where an ext4 file's page cache (which nginx
 * sends from) is in large folios since Linux 6.x. With shmem_enabled "never" (a common
 * default) a memfd never gets huge pages by allocation, but madvise(MADV_COLLAPSE),
 * Linux 6.1, joins the 4 KiB pages of a block into one huge page whatever that setting
 * says ("deny" alone refuses): the load asks it for every whole block inside a body
 * that leaves by reference (benchmarks/reports/2026-12-06-send-pipes.md, section 8). */
#ifndef APOLLOD_COMMON_HUGE_PAGES_H
#define APOLLOD_COMMON_HUGE_PAGES_H

#include <stdint.h>

/* The kernel's PMD-mapped huge page size: 2 MiB with 4 KiB pages (x86_64, most aarch64
 * kernels), 32 MiB with 16 KiB pages, 512 MiB with 64 KiB pages. One line of decimal. */
#define HUGE_PAGE_SIZE_FILE "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"
#define HUGE_PAGE_SIZE_TEXT_MAX 24 /* a 64-bit decimal and its newline, with room */
/* The smallest body whose blocks are joined: one huge page. Under it a body shares its
 * huge page with every connection sending it, and sending got dearer: 1 MiB bodies cost
 * 154 -> 207 us of server CPU, keep-alive c=8, on a quiet machine (four runs, every one
 * dearer), where 2, 3, 4 and 16 MiB got cheaper in every run (2 MiB 197 -> 170 us
 * quiet; benchmarks/reports/2026-12-06-send-pipes.md, section 8). */
#define HUGE_JOIN_MIN ((uint64_t)2u << 20)

/* Returns the huge page size HUGE_PAGE_SIZE_FILE gives (a power of two of at least
 * 64 KiB), or 0 when it is unreadable or malformed (a kernel without transparent huge
 * pages): then nothing is joined. Read once per load. */
uint64_t huge_page_size(void);

/* Maps bytes of fd from offset 0 (prot and flags as mmap takes them; never MAP_FIXED)
 * at an address that is a multiple of align (a power of two; 0 or 1: anywhere), so
 * that the file's byte k and its address agree modulo align, as MADV_COLLAPSE needs.
 * It reserves bytes + align of address space, maps fd over the aligned part of it and
 * gives back both ends. Returns the address, or mmap's -errno. */
long huge_map_aligned(uint64_t bytes, int prot, int flags, int fd, uint64_t align);

/* Joins into huge pages the blocks of size `block` (huge_page_size) that make up
 * [from, to), both multiples of block, of the mapping at base (block-aligned, as
 * huge_map_aligned makes it): one MADV_COLLAPSE for the whole run (one system call, and
 * the kernel drains every CPU's page lists once per call), then, only when that fails,
 * one per block,
 * so each block is counted in huge_pages_joined or, refused (EINVAL on a kernel before
 * 6.1, "deny", ENOMEM or EAGAIN when no huge page can be had now), in
 * huge_pages_refused. The bytes read the same either way. Nothing when block is 0. */
void huge_join(const char *base, uint64_t from, uint64_t to, uint64_t block);

#endif
