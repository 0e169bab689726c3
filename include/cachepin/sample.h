/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Samples as every profile reader (perf.data, perf script, hot lists)
 * delivers them to the profile builder.  Readers own the memory of what
 * they pass; it is valid only during the callback.
 */
#ifndef CACHEPIN_SAMPLE_H
#define CACHEPIN_SAMPLE_H

#include "cachepin/cachepin.h"

enum cachepin_frame_flags {
	CACHEPIN_FRAME_KERNEL	= (1 << 0),	/* kernel context (vmlinux or module) */
	CACHEPIN_FRAME_HAS_IP	= (1 << 1),	/* ip is valid */
	CACHEPIN_FRAME_HAS_SYM	= (1 << 2),	/* sym is valid (the reader resolved it) */
	CACHEPIN_FRAME_HAS_OFF	= (1 << 3),	/* symoff is valid */
	CACHEPIN_FRAME_DSO_REL	= (1 << 4),	/* ip is relative to the dso (perf script user frames) */
	CACHEPIN_FRAME_HAS_FOFF	= (1 << 5),	/* file_off is valid */
};

/*
 * One frame of a sample.  frames[0] is where the sample hit; frames[1..]
 * are return addresses of its callers, innermost first.  Context markers
 * and the duplicated first frame of perf callchains are already removed.
 */
struct cachepin_frame {
	uint64_t ip;		/* as recorded (runtime address), see flags */
	uint64_t file_off;	/* user frames: ip - map start + map pgoff */
	const char *sym;	/* symbol name resolved by the producer */
	uint64_t symoff;	/* offset of ip into sym */
	const char *dso;	/* "[kernel.kallsyms]", "[nf_conntrack]", a path, or NULL */
	unsigned int flags;	/* enum cachepin_frame_flags */
};

struct cachepin_sample {
	uint64_t period;	/* weight: perf's period (ns for cpu-clock), or a list weight */
	uint32_t pid, tid;
	uint32_t nr;		/* number of frames, >= 1 */
	const struct cachepin_frame *frames;
	const char *event;	/* event name if known, else NULL */
};

/* Return 0 to go on, non-zero to stop (the value is passed back). */
typedef int (*cachepin_sample_fn_t)(void *ctx, const struct cachepin_sample *s);

#endif
