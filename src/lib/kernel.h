/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the library knows of architectures, linkers and the Linux kernel,
 * all in kernel.c: a new SoC, toolchain or kernel version is taught there.
 * Its public part, cachepin_kernel__switchers(), is declared in
 * cachepin/binary.h; cachepin_binary__is_kernel() is the binary's own
 * (binary.c), by CACHEPIN_KERNEL_START_SYM.  Nothing here asks the binary
 * whether it is a kernel: the callers do.
 */
#ifndef CACHEPIN_KERNEL_H
#define CACHEPIN_KERNEL_H

#include "cachepin/binary.h"

/* ---- architectures ---- */

/* The name of the ELF machine MACHINE (EM_*): "arm", "mips", ...; "unknown". */
const char *cachepin_arch_name(uint16_t machine);

/* Is NAME an ARM/AArch64 mapping symbol ($a, $d, $t, $x and "$a.N" forms)? */
bool cachepin_arch_mapping_sym(const char *name);

/*
 * ARM Thumb code: clears bit 0 of *VALUE, the value of a symbol of TYPE
 * (STT_*) in a file for MACHINE (EM_*), if it is a function (STT_FUNC,
 * STT_GNU_IFUNC) of Thumb code, as nm shows it.  True if it did.
 */
bool cachepin_arch_thumb(uint16_t machine, uint8_t type, uint64_t *value);

/* ---- linkers and kernels ---- */

/* The symbol every Linux image has and nothing else: what makes a binary a kernel. */
#define CACHEPIN_KERNEL_START_SYM "start_kernel"

/*
 * Is NAME a symbol that linker scripts and section bounds define (_text,
 * _etext, __start_X, __stop_X, _X_start, _X_end, ...), not code?
 */
bool cachepin_kernel_marker_sym(const char *name);

/*
 * Why the input section SECTION of OBJECT (may be NULL) of a binary for
 * MACHINE (EM_*) must stay where the linker put it, or NULL if a linker
 * script may move it.
 */
const char *cachepin_kernel_fixed_why(uint16_t machine, const char *section,
				      const char *object);

/*
 * Does the kernel's linker script place SECTION right after TEXT_TEXT
 * (SCHED_TEXT, CPUIDLE_TEXT, LOCK_TEXT, KPROBES_TEXT)?  The text-layout
 * hook ends TEXT_TEXT on the plan's block alignment, so a relink with a
 * plan moves this text to that alignment (see cachepin_plan.tail_shift).
 */
bool cachepin_kernel_after_text(const char *section);

/*
 * Does F, a function of the kernel BIN, wait rather than run: the idle
 * loop's code where a sample measures time spent waiting for an
 * interrupt, not fetches (the .cpuidle.text section, and the idle
 * entries of the architectures that a WFI, wait or hlt returns to)?
 * For a kernel's functions (the caller asks cachepin_binary__is_kernel()).
 */
bool cachepin_kernel_idle(const struct cachepin_binary *bin, const struct cachepin_func *f);

/*
 * Is NAME a kernel function that turns interrupts back on
 * (_raw_spin_unlock_irqrestore and the like), where the samples that
 * code run with interrupts off could not take wait?
 */
bool cachepin_kernel_irqs_on(const char *name);

/* ---- kernel DSO names (perf script, perf report, perf.data) ---- */

enum cachepin_kernel_dso {
	KERNEL_DSO_NONE,	/* user space */
	KERNEL_DSO_IMAGE,	/* the kernel image, vmlinux */
	KERNEL_DSO_MODULE,	/* other kernel code: modules, a guest's kernel */
};

/*
 * What the dso name NAME[0..LEN) is, in order:
 *  - "[kernel.kallsyms]..." (perf also appends a symbol) and "[kernel]":
 *    the image;
 *  - other "[...]" names: a module ("[nf_conntrack]"), unless perf's user
 *    space maps ("[vdso]", "[heap]", "[stack:N]", "[anon:X]", "[JIT]...");
 *  - a file named "*.ko" or "*.ko.*" (compressed): a module;
 *  - a file named "vmlinux" or "vmlinux-*": the image;
 *  - anything else: user space.
 */
enum cachepin_kernel_dso cachepin_kernel_dso(const char *name, size_t len);

/*
 * Is DSO, the dso of a kernel frame, the kernel image?  True for NULL
 * too: a kernel frame without a dso is the image's.
 */
bool cachepin_kernel_dso_is_image(const char *dso);

/*
 * The reference symbol in NAME, perf's name of the kernel image's map in
 * a perf.data mmap event ("_text" of "[kernel.kallsyms]_text", "" of
 * "[kernel.kallsyms]"), or NULL if NAME is another map's.
 */
const char *cachepin_kernel_mmap_ref(const char *name);

/* ---- the exception base of 32-bit MIPS kernels (ebase.c) ---- */

#define MIPS_KSEG0		0x80000000ULL
#define MIPS_KSEG2		0xc0000000ULL	/* the exception base is in KSEG0 or KSEG1 */
#define MIPS_EBASE_ALIGN	0x1000ULL	/* EBase holds bits 31:12 */
#define MIPS_EBASE_SPAN		0xa00ULL	/* the end of the last handler */
#define MIPS_EBASE_WHY		"exception handler at ebase"

/* A handler the kernel writes at the exception base at boot. */
struct cachepin_mips_handler {
	const char *name;	/* in brackets: no C symbol can have it */
	uint32_t off, size;	/* from the exception base */
};

#define MIPS_NR_HANDLERS 3
extern const struct cachepin_mips_handler cachepin_mips_handlers[MIPS_NR_HANDLERS];

/*
 * Is BIN a linked 32-bit MIPS binary (EM_MIPS, ELFCLASS32)?  If it is a
 * kernel (cachepin_binary__is_kernel()), its handlers are at its
 * exception base.
 */
bool cachepin_kernel_is_mips32(const struct cachepin_binary *bin);

#endif
