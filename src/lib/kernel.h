/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the library knows of architectures, linkers and the Linux kernel,
 * all in kernel.c: a new SoC, toolchain or kernel version is taught there.
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

#endif
