// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The exception handlers of a 32-bit MIPS kernel.  Linux copies or
 * generates them at the exception base at boot, so vmlinux has no symbol
 * for them; but the TLB refill handler runs on every TLB miss and the
 * general vector on every other exception and interrupt, so their lines
 * hold cache ways that the planner must not count as free.  They become
 * synthetic fixed functions (binary.c keeps them through link maps and
 * --fixed); which handlers, where and how long: kernel.c.
 *
 * Their names are in brackets, which no C symbol can be, and hold no
 * whitespace, so the profile text carries them as any other function.
 */
#include <inttypes.h>
#include "internal.h"
#include "binary-int.h"
#include "kernel.h"

/*
 * Place the handlers at EBASE.  A handler that would start inside an
 * executable section of the binary is refused when STRICT (the user gave
 * that base), else left out; one that runs into a section is cut there.
 */
static int ebase_place(struct cachepin_binary *bin, uint64_t ebase, bool strict)
{
	struct cachepin_synth syn[MIPS_NR_HANDLERS];
	size_t n = 0, i, j;
	int err;

	for (i = 0; i < MIPS_NR_HANDLERS; i++) {
		const struct cachepin_mips_handler *h = &cachepin_mips_handlers[i];
		uint64_t lo = ebase + h->off, hi = lo + h->size;
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
				bin->path, ebase, h->name, lo, inside);
			return -EINVAL;
		}
		if (inside) {
			pr_info("'%s': %s at 0x%" PRIx64 " is inside section '%s': not added\n",
				bin->path, h->name, lo, inside);
			continue;
		}
		syn[n++] = (struct cachepin_synth){ h->name, lo, hi - lo };
	}
	err = cachepin_binary_set_synthetic(bin, syn, n, MIPS_EBASE_WHY);
	if (err)
		return err;
	bin->ebase = ebase;
	pr_info("'%s': %zu exception handlers at ebase 0x%" PRIx64 "\n", bin->path, n, ebase);
	return 0;
}

int cachepin_binary__set_ebase(struct cachepin_binary *bin, uint64_t ebase)
{
	if (!cachepin_kernel_is_mips32(bin) || !cachepin_binary__is_kernel(bin))
		return 1;
	if (ebase >> 32 == 0xffffffffULL)
		ebase &= 0xffffffffULL;	/* as nm and System.map print KSEG0 */
	if (ebase < MIPS_KSEG0 || ebase > MIPS_KSEG2 - MIPS_EBASE_SPAN || ebase % MIPS_EBASE_ALIGN) {
		pr_warn("'%s': 0x%" PRIx64 " is not an exception base\n"
			"hint: a 32-bit MIPS kernel's exception base is a multiple of 0x1000 "
			"from 0x80000000 to 0xbffff000\n", bin->path, ebase);
		return -EINVAL;
	}
	return ebase_place(bin, ebase, true);
}

int cachepin_binary_ebase_init(struct cachepin_binary *bin)
{
	if (!cachepin_kernel_is_mips32(bin) || !cachepin_binary__is_kernel(bin))
		return 0;
	return ebase_place(bin, CACHEPIN_MIPS_EBASE_DEFAULT, false);
}
