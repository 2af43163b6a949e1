/* vDSO lookup, the monotonic clock and the wall clock's seconds (see clock.h).
 *
 * The vDSO is a complete ELF shared object in memory, section headers included, so the
 * lookup walks SHT_DYNSYM and its linked string table instead of the hash tables. A
 * symbol's address is the mapping's base plus its st_value minus the first PT_LOAD's
 * p_vaddr (kernels since 3.x link the vDSO at 0, older ones at a fixed address). */
#include "common/base/clock.h"

#include <linux/auxvec.h>
#include <linux/elf.h>

#include "common/arch/arch.h"
#include "common/base/span.h"
#include "common/base/sys.h"

typedef long (*vdso_clock_gettime_fn)(int clockid, struct k_timespec *tp);

static vdso_clock_gettime_fn vdso_clock_gettime;

#define MS_PER_S 1000u
#define NS_PER_MS 1000000u
#define US_PER_S 1000000u
#define NS_PER_US 1000u

static void *vdso_lookup(const unsigned char *base, const char *name, uint64_t name_size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	if (!span_eq((const char *)eh->e_ident, ELFMAG, SELFMAG))
		return 0;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	uint64_t load_vaddr = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD) {
			load_vaddr = ph[i].p_vaddr - ph[i].p_offset;
			break;
		}
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(base + sh[i].sh_offset);
		const char *strtab = (const char *)(base + sh[sh[i].sh_link].sh_offset);
		uint64_t count = sh[i].sh_size / sizeof(Elf64_Sym);
		for (uint64_t k = 0; k < count; k++) {
			if (sym[k].st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC)
				continue;
			/* name_size counts the NUL, so a longer symbol cannot match */
			if (span_eq(strtab + sym[k].st_name, name, name_size))
				return (void *)(base + sym[k].st_value - load_vaddr);
		}
	}
	return 0;
}

int clock_init(const uint64_t *auxv)
{
	for (; auxv && auxv[0] != AT_NULL; auxv += 2)
		if (auxv[0] == AT_SYSINFO_EHDR) {
			vdso_clock_gettime = (vdso_clock_gettime_fn)vdso_lookup(
				(const unsigned char *)auxv[1], ARCH_VDSO_CLOCK_GETTIME,
				sizeof(ARCH_VDSO_CLOCK_GETTIME));
			break;
		}
	return vdso_clock_gettime != 0;
}

void clock_read(int clockid, struct k_timespec *ts)
{
	ts->tv_sec = ts->tv_nsec = 0;
	if (vdso_clock_gettime)
		vdso_clock_gettime(clockid, ts);
	else
		sys_clock_gettime(clockid, ts);
}

uint64_t clock_now_ms(void)
{
	struct k_timespec ts;
	clock_read(K_CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * MS_PER_S + (uint64_t)ts.tv_nsec / NS_PER_MS;
}

uint64_t clock_now_us(void)
{
	struct k_timespec ts;
	clock_read(K_CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * US_PER_S + (uint64_t)ts.tv_nsec / NS_PER_US;
}

uint64_t clock_now_unix_s(void)
{
	struct k_timespec ts;
	clock_read(K_CLOCK_REALTIME, &ts);
	return ts.tv_sec > 0 ? (uint64_t)ts.tv_sec : 0;
}
