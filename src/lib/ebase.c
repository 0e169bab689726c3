// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The exception handlers of a 32-bit MIPS kernel.  Linux copies or
 * generates them at the exception base (arch/mips/kernel/traps.c,
 * arch/mips/mm/tlbex.c) at boot, so vmlinux has no symbol for them; but
 * the TLB refill handler runs on every TLB miss and the general vector on
 * every other exception and interrupt, so their lines hold cache ways
 * that the planner must not count as free.  They become synthetic fixed
 * functions (elf.c keeps them through link maps and --fixed):
 *
 *   ebase + 0x000  TLB refill: tlbex.c builds at most 32 instructions
 *   ebase + 0x100  cache error: cold, not modelled
 *   ebase + 0x180  general exception: except_vec3_generic, 0x80 bytes
 *   ebase + 0x200  interrupt: one jump on divec CPUs; vectored interrupts
 *                  (VInt) put vector n at 0x200 + n * 0x100 (VECTORSPACING)
 *
 * Their names are in brackets, which no C symbol can be, and hold no
 * whitespace, so the profile text carries them as any other function.
 */
#include <gelf.h>
#include <inttypes.h>
#include "internal.h"
#include "binary-int.h"

#define EBASE_WHY	"exception handler at ebase"
#define KSEG0		0x80000000ULL
#define KSEG2		0xc0000000ULL	/* the exception base is in KSEG0 or KSEG1 */
#define EBASE_ALIGN	0x1000ULL	/* EBase holds bits 31:12 */

static const struct {
	const char *name;
	uint32_t off, size;
} handlers[] = {
	{ "[ebase.tlb_refill]", 0x000, 0x80 },
	{ "[ebase.general]", 0x180, 0x80 },
	{ "[ebase.interrupt]", 0x200, 0x800 },	/* VInt vectors 0-7 */
};

#define EBASE_SPAN	0xa00ULL	/* the end of the last handler */

static bool is_mips32_kernel(const struct cachepin_binary *bin)
{
	uint64_t v;

	return bin->machine == EM_MIPS && bin->elf_class == 32 && !bin->relocatable &&
	       cachepin_binary__sym_value(bin, "start_kernel", &v) == 0;
}

/*
 * Place the handlers at EBASE.  A handler that would start inside an
 * executable section of the binary is refused when STRICT (the user gave
 * that base), else left out; one that runs into a section is cut there.
 */
static int ebase_place(struct cachepin_binary *bin, uint64_t ebase, bool strict)
{
	struct cachepin_synth syn[ARRAY_SIZE(handlers)];
	size_t n = 0, i, j;
	int err;

	for (i = 0; i < ARRAY_SIZE(handlers); i++) {
		uint64_t lo = ebase + handlers[i].off, hi = lo + handlers[i].size;
		const char *inside = NULL;

		for (j = 0; j < bin->nr_secs; j++) {
			const struct cachepin_section *s = &bin->secs[j];

			if (!s->exec || !s->size)
				continue;
			if (lo >= s->addr && lo - s->addr < s->size) {
				inside = s->name;
				break;
			}
			if (s->addr > lo && s->addr < hi)
				hi = s->addr;
		}
		if (inside && strict) {
			pr_warn("'%s': exception base 0x%" PRIx64 " puts %s at 0x%" PRIx64
				", inside its section '%s'\n"
				"hint: the exception base is where the kernel copies its handlers at boot, "
				"outside vmlinux's code; see 'ebase' in cachepin-score(1)\n",
				bin->path, ebase, handlers[i].name, lo, inside);
			return -EINVAL;
		}
		if (inside) {
			pr_info("'%s': %s at 0x%" PRIx64 " is inside section '%s': not added\n",
				bin->path, handlers[i].name, lo, inside);
			continue;
		}
		syn[n++] = (struct cachepin_synth){ handlers[i].name, lo, hi - lo };
	}
	err = cachepin_binary_set_synthetic(bin, syn, n, EBASE_WHY);
	if (err)
		return err;
	bin->ebase = ebase;
	pr_info("'%s': %zu exception handlers at ebase 0x%" PRIx64 "\n", bin->path, n, ebase);
	return 0;
}

int cachepin_binary__set_ebase(struct cachepin_binary *bin, uint64_t ebase)
{
	if (!is_mips32_kernel(bin))
		return 1;
	if (ebase >> 32 == 0xffffffffULL)
		ebase &= 0xffffffffULL;	/* as nm and System.map print KSEG0 */
	if (ebase < KSEG0 || ebase > KSEG2 - EBASE_SPAN || ebase % EBASE_ALIGN) {
		pr_warn("'%s': 0x%" PRIx64 " is not an exception base\n"
			"hint: a 32-bit MIPS kernel's exception base is a multiple of 0x1000 "
			"from 0x80000000 to 0xbffff000\n", bin->path, ebase);
		return -EINVAL;
	}
	return ebase_place(bin, ebase, true);
}

int cachepin_binary_ebase_init(struct cachepin_binary *bin)
{
	if (!is_mips32_kernel(bin))
		return 0;
	return ebase_place(bin, CACHEPIN_MIPS_EBASE_DEFAULT, false);
}
