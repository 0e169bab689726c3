/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU execution traces: the log that `-d in_asm,exec,nochain -D FILE`
 * writes (user and system mode; ARM, Thumb, MIPS, x86 as QEMU 7.2
 * prints them), read in one pass as the stream of executed translation
 * blocks, and turned into samples taken by instruction count, with
 * callchains from a shadow call stack.
 */
#ifndef CACHEPIN_QEMU_H
#define CACHEPIN_QEMU_H

#include "cachepin/sample.h"

struct cachepin_qtrace;

enum cachepin_qblock_flags {
	CACHEPIN_QBLOCK_CALL	= (1 << 0),	/* ends with a call (or its delay slot) */
	CACHEPIN_QBLOCK_RET	= (1 << 1),	/* ends with a return (or its delay slot) */
	CACHEPIN_QBLOCK_PARTIAL	= (1 << 2),	/* the disassembler stopped inside the block */
};

/* One executed block, as its latest in_asm translation describes it. */
struct cachepin_qblock {
	uint64_t pc;		/* guest address of the first instruction */
	uint32_t size;		/* bytes: last instruction's address + its length - pc */
	uint32_t nr_insns;
	const uint32_t *insn_off;	/* nr_insns offsets from pc, ascending */
	uint32_t call_off;	/* CALL: offset of the call instruction */
	uint32_t ret_off;	/* CALL: offset of its return address (past a delay slot) */
	unsigned int flags;	/* enum cachepin_qblock_flags */
	uint32_t cpu;		/* the exec line's cpu index */
	uint64_t line;		/* the exec line's line number */
};

struct cachepin_qtrace_stats {
	uint64_t bytes, lines;
	uint64_t nr_exec;		/* exec lines */
	uint64_t nr_blocks;		/* executed blocks delivered */
	uint64_t nr_insns;		/* their instructions */
	uint64_t nr_unknown;		/* exec lines whose pc never had an in_asm block */
	uint64_t nr_unknown_pcs;	/* distinct pcs among them */
	uint64_t first_unknown_line;	/* line of the first of them, 0 if none */
	uint64_t nr_stopped;		/* exec lines cancelled by "Stopped execution" */
	uint64_t nr_rewound;		/* blocks cut short at a device access (-icount) */
	uint64_t nr_translations;	/* in_asm blocks */
	uint64_t nr_retranslated;	/* of them, for a pc translated before */
	uint64_t nr_partial;		/* in_asm blocks the disassembler gave up on */
	uint32_t nr_cpus;		/* highest cpu index + 1 */
	uint32_t addr_digits;		/* of the exec lines' pc: 8 (32-bit guest) or 16 */
	bool cut_last_line;		/* the log ends inside a line (ignored) */
};

/* Does BUF (the first LEN bytes of a file) start like such a log? */
bool cachepin_qtrace__detect(const char *buf, size_t len);

/*
 * Open PATH ("-" for standard input; a pipe is fine).  Returns a reader
 * to be released with cachepin_qtrace__free(), or NULL with errno set
 * after logging "cannot open 'PATH': ...".
 */
struct cachepin_qtrace *cachepin_qtrace__open(const char *path);

/*
 * The same on an open descriptor FD (taken over: closed by
 * cachepin_qtrace__free()) named NAME in messages, whose first LEN bytes
 * HEAD were already read from it (a pipe that was sniffed).
 */
struct cachepin_qtrace *cachepin_qtrace__open_fd(int fd, const char *name,
						 const char *head, size_t len);

typedef int (*cachepin_qblock_fn_t)(void *ctx, const struct cachepin_qblock *b);

/*
 * Read the whole log, calling FN for every executed block in execution
 * order (the block is valid only during the call).  Exec lines whose pc
 * has no in_asm block are counted in the stats, not delivered.  Returns
 * 0, FN's non-zero value, or a negative errno after logging
 * "'PATH':LINE: <problem>" (with a hint where one helps).
 */
int cachepin_qtrace__for_each_block(struct cachepin_qtrace *t, cachepin_qblock_fn_t fn,
				    void *ctx);

/* Counters; complete after the last call of FN. */
const struct cachepin_qtrace_stats *cachepin_qtrace__stats(const struct cachepin_qtrace *t);

void cachepin_qtrace__free(struct cachepin_qtrace *t);

/*
 * Samples from the trace: one every PERIOD executed instructions (the
 * PERIOD-th, 2*PERIOD-th, ... of the whole trace), each of period
 * PERIOD, event "instructions".  frames[0] is the block's pc;
 * frames[1..] are the return addresses of a shadow call stack, innermost
 * first: a block that ends with a call pushes its return address, a
 * block that starts at the return address of a frame on the stack (any
 * frame after a return instruction, the innermost one otherwise) pops
 * back to below it.  The stack is kept per cpu.
 */
struct cachepin_qsample_opts {
	uint64_t period;	/* instructions per sample; 0 means 1 */
	bool kernel;		/* flag frames CACHEPIN_FRAME_KERNEL */
	uint32_t max_stack;	/* frames after the leaf; 0 means 127 */
	/*
	 * [start, end) of the functions that switch stacks (a kernel's
	 * __switch_to, resume): when execution leaves them other than by a
	 * call, another task runs and the stack is emptied, as its frames
	 * are not known.
	 */
	const uint64_t (*switch_ranges)[2];
	size_t nr_switch_ranges;
};

/*
 * N samples that share S's callchain (S->frames[1..]): sample k hit
 * S->frames[0].ip + LEAF_OFF[k].  cachepin_pbuild__add_leaves() is one.
 */
typedef int (*cachepin_qsample_fn_t)(void *ctx, const struct cachepin_sample *s,
				     const uint32_t *leaf_off, size_t n);

/*
 * Read the whole log as cachepin_qtrace__for_each_block() does, calling
 * FN for every block that holds samples.  Returns the same.
 */
int cachepin_qtrace__for_each_sample(struct cachepin_qtrace *t,
				     const struct cachepin_qsample_opts *opts,
				     cachepin_qsample_fn_t fn, void *ctx);

#endif
