// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Architectures, linkers and the Linux kernel: the names, sections and
 * rules the rest of the library asks about.  Nothing here reads a file.
 */
#include <elf.h>
#include <fnmatch.h>
#include "internal.h"
#include "kernel.h"
#include "perf-format.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

/* ------------------------------------------------------------------ */
/* Architectures                                                      */

const char *cachepin_arch_name(uint16_t machine)
{
	switch (machine) {
	case EM_ARM:		return "arm";
	case EM_MIPS:		return "mips";
	case EM_X86_64:		return "x86_64";
	case EM_AARCH64:	return "aarch64";
	case EM_386:		return "x86";
	case EM_PPC:		return "powerpc";
	case EM_PPC64:		return "powerpc64";
	case EM_RISCV:		return "riscv";
	default:		return "unknown";
	}
}

bool cachepin_arch_mapping_sym(const char *n)
{
	/* $a $d $t $x, and the "$a.N" / "$x.foo" forms */
	return n[0] == '$' && n[1] && strchr("adtx", n[1]) && (!n[2] || n[2] == '.');
}

bool cachepin_arch_thumb(uint16_t machine, uint8_t type, uint64_t *value)
{
	if (machine != EM_ARM || (type != STT_FUNC && type != STT_GNU_IFUNC) || !(*value & 1))
		return false;
	*value &= ~1ULL;
	return true;
}

/* ------------------------------------------------------------------ */
/* Linker-script symbols                                              */

static bool ends_with(const char *s, const char *suf)
{
	size_t ls = strlen(s), lf = strlen(suf);

	return ls >= lf && !strcmp(s + ls - lf, suf);
}

bool cachepin_kernel_marker_sym(const char *n)
{
	static const char *const exact[] = {
		"_text", "_stext", "_etext", "_sinittext", "_einittext",
		"_end", "_edata", "__bss_start", "_exiprom", "_sdata",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(exact); i++)
		if (!strcmp(n, exact[i]))
			return true;
	if (!strncmp(n, "__start_", 8) || !strncmp(n, "__stop_", 7))
		return true;
	if (!strcmp(n, "_start"))	/* the entry of assembly programs */
		return false;
	return n[0] == '_' && (ends_with(n, "_start") || ends_with(n, "_end"));
}

/* ------------------------------------------------------------------ */
/* Fixed sections                                                     */

static const struct {
	const char *pat;	/* fnmatch pattern on the input section name */
	const char *why;
} fixed_rules[] = {
	{ ".head.text", "kernel-bounded section" },
	{ ".idmap.text", "kernel-bounded section" },
	{ ".hyp.idmap.text", "kernel-bounded section" },
	{ ".entry.text", "kernel-bounded section" },
	{ ".irqentry.text", "kernel-bounded section" },
	{ ".softirqentry.text", "kernel-bounded section" },
	{ ".sched.text", "kernel-bounded section" },
	{ ".spinlock.text", "kernel-bounded section" },
	{ ".cpuidle.text", "kernel-bounded section" },
	{ ".noinstr.text", "kernel-bounded section" },
	{ ".kprobes.text", "kernel-bounded section" },
	{ ".lock.text", "kernel-bounded section" },
	{ "*..*", "kernel-bounded section" },	/* .text..ftrace, .text..refcount, ... */
	{ ".init.text", "init/exit code" },
	{ ".exit.text", "init/exit code" },
	{ ".vectors*", "exception vectors" },
	{ ".stubs*", "exception vectors" },
	{ ".glue_7*", "linker veneer" },
	{ ".vfp11_veneer", "linker veneer" },
	{ ".v4_bx", "linker veneer" },
	{ ".plt", "procedure linkage table" },
	{ ".iplt", "procedure linkage table" },
	{ ".init", "init/fini code" },
	{ ".fini", "init/fini code" },
};

/*
 * The idle entries: where a CPU waits for an interrupt (WFI, wait, hlt,
 * mwait, a poll loop) or where the wait returns to and the interrupt
 * that ends it is taken (ARM's arch_cpu_idle enables interrupts after
 * cpu_do_idle's WFI, so the timer's samples land there).
 */
static const char *const idle_funcs[] = {
	"arch_cpu_idle", "cpu_idle_poll", "default_idle_call", "default_idle",
	"arch_safe_halt", "native_safe_halt", "cpu_do_idle", "cpu_v7_do_idle",
	"r4k_wait", "r4k_wait_irqoff", "__r4k_wait", "rm7k_wait_irqoff", "au1k_wait",
	"mwait_idle", "intel_idle", "acpi_idle_do_entry", "acpi_safe_halt", "poll_idle",
};

bool cachepin_kernel_idle(const struct cachepin_binary *bin, const struct cachepin_func *f)
{
	const char *sec;
	size_t i;

	sec = f->unit >= 0 ? bin->units[f->unit].section : NULL;
	if (sec && !strcmp(sec, ".cpuidle.text"))
		return true;
	for (i = 0; i < ARRAY_SIZE(idle_funcs); i++)
		if (!strcmp(f->name, idle_funcs[i]))
			return true;
	/* the processors' idle entries of arch/arm/mm/proc-*.S */
	return !strncmp(f->name, "cpu_", 4) && ends_with(f->name, "_do_idle");
}

/*
 * Where a kernel turns interrupts back on out of line: a sample that
 * needs an interrupt (a timer's, or a PMU's that is no NMI, as on ARM32
 * and MIPS) cannot stop the code that runs with them off, and lands here.
 */
static const char *const irqs_on_funcs[] = {
	"_raw_spin_unlock_irqrestore", "_raw_spin_unlock_irq",
	"_raw_read_unlock_irqrestore", "_raw_read_unlock_irq",
	"_raw_write_unlock_irqrestore", "_raw_write_unlock_irq",
};

bool cachepin_kernel_irqs_on(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(irqs_on_funcs); i++)
		if (!strcmp(name, irqs_on_funcs[i]))
			return true;
	return false;
}

bool cachepin_kernel_after_text(const char *section)
{
	static const char *const after[] = {
		".sched.text", ".cpuidle.text", ".spinlock.text", ".kprobes.text",
	};
	size_t i;

	for (i = 0; section && i < ARRAY_SIZE(after); i++)
		if (!strcmp(section, after[i]))
			return true;
	return false;
}

/* Is OBJECT BASE, ".../BASE" or "lib.a(BASE)"? */
static bool obj_is(const char *object, const char *base)
{
	size_t lo, lb = strlen(base);

	if (!object)
		return false;
	lo = strlen(object);
	if (lo >= lb + 1 && object[lo - 1] == ')')	/* lib.a(head.o) */
		return lo >= lb + 2 && !strncmp(object + lo - 1 - lb, base, lb) &&
		       object[lo - 2 - lb] == '(';
	return lo >= lb && !strcmp(object + lo - lb, base) &&
	       (lo == lb || object[lo - lb - 1] == '/');
}

const char *cachepin_kernel_fixed_why(uint16_t machine, const char *section,
				      const char *object)
{
	size_t i;

	if (!section)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(fixed_rules); i++)
		if (!fnmatch(fixed_rules[i].pat, section, 0))
			return fixed_rules[i].why;
	/* veneers ld makes itself: no linker script can name them */
	if (object && !strcmp(object, "linker stubs"))
		return "linker veneer";
	/* MIPS kernels enter at the start of .text: head.o must stay first. */
	if (machine == EM_MIPS && !strcmp(section, ".text") && obj_is(object, "head.o"))
		return "entry code";
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Kernel DSO names                                                   */


/* perf's user-space special maps, which look like "[module]" names. */
static const char *const user_special_maps[] = {
	"unknown", "vdso", "vsyscall", "vvar", "heap", "stack", "anon",
	"vectors", "sigpage", "uprobes", "sigreturn", "vdso32", "vdso64",
};

static bool slice_is(const char *p, size_t n, const char *s)
{
	return strlen(s) == n && !memcmp(p, s, n);
}

static bool slice_starts(const char *p, size_t n, const char *s)
{
	size_t l = strlen(s);

	return n >= l && !memcmp(p, s, l);
}

static enum cachepin_kernel_dso bracketed_dso(const char *in, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(user_special_maps); i++)
		if (slice_is(in, n, user_special_maps[i]))
			return KERNEL_DSO_NONE;
	if (slice_starts(in, n, "stack:") || slice_starts(in, n, "anon:") ||
	    slice_starts(in, n, "JIT"))
		return KERNEL_DSO_NONE;
	return KERNEL_DSO_MODULE;
}

enum cachepin_kernel_dso cachepin_kernel_dso(const char *d, size_t n)
{
	const char *base = d + n;
	size_t i, bn;

	if (slice_starts(d, n, KALLSYMS) || slice_is(d, n, "[kernel]"))
		return KERNEL_DSO_IMAGE;
	if (n >= 3 && d[0] == '[' && d[n - 1] == ']')
		return bracketed_dso(d + 1, n - 2);
	while (base > d && base[-1] != '/')
		base--;
	bn = (size_t)(d + n - base);
	if (bn >= 3 && !memcmp(base + bn - 3, ".ko", 3))
		return KERNEL_DSO_MODULE;
	for (i = 0; i + 4 <= bn; i++)
		if (!memcmp(base + i, ".ko.", 4))
			return KERNEL_DSO_MODULE;
	if (slice_is(base, bn, "vmlinux") || slice_starts(base, bn, "vmlinux-"))
		return KERNEL_DSO_IMAGE;
	return KERNEL_DSO_NONE;
}

bool cachepin_kernel_dso_is_image(const char *dso)
{
	return !dso || cachepin_kernel_dso(dso, strlen(dso)) == KERNEL_DSO_IMAGE;
}

const char *cachepin_kernel_mmap_ref(const char *name)
{
	return strncmp(name, KALLSYMS, strlen(KALLSYMS)) ? NULL : name + strlen(KALLSYMS);
}

/* ------------------------------------------------------------------ */
/* Kernel symbols                                                     */

const char *const *cachepin_kernel__switchers(size_t *n)
{
	static const char *const switchers[] = {
		"__switch_to",		/* ARM, arm64, x86-64 */
		"__switch_to_asm",	/* x86-64 */
		"resume",		/* MIPS */
		"cpu_switch_to",	/* arm64 */
	};

	*n = ARRAY_SIZE(switchers);
	return switchers;
}

/* ------------------------------------------------------------------ */
/* The exception base of 32-bit MIPS kernels                          */

/*
 * Linux copies or generates them at boot (arch/mips/kernel/traps.c,
 * arch/mips/mm/tlbex.c):
 *
 *   ebase + 0x000  TLB refill: tlbex.c builds at most 32 instructions
 *   ebase + 0x100  cache error: cold, not modelled
 *   ebase + 0x180  general exception: except_vec3_generic, 0x80 bytes
 *   ebase + 0x200  interrupt: one jump on divec CPUs; vectored interrupts
 *                  (VInt) put vector n at 0x200 + n * 0x100 (VECTORSPACING)
 *
 * MIPS_EBASE_SPAN is where the last one ends.
 */
const struct cachepin_mips_handler cachepin_mips_handlers[MIPS_NR_HANDLERS] = {
	{ "[ebase.tlb_refill]", 0x000, 0x80 },
	{ "[ebase.general]", 0x180, 0x80 },
	{ "[ebase.interrupt]", 0x200, 0x800 },	/* VInt vectors 0-7 */
};

bool cachepin_kernel_is_mips32(const struct cachepin_binary *bin)
{
	return bin->machine == EM_MIPS && bin->elf_class == 32 && !bin->relocatable;
}
