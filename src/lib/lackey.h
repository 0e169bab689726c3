/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * valgrind lackey traces (--tool=lackey --trace-mem=yes): the
 * instruction fetches, read as a stream.
 */
#ifndef CACHEPIN_LACKEY_H
#define CACHEPIN_LACKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Does BUF (the first LEN bytes of a file) start like such a trace? */
bool cachepin_lackey__detect(const char *buf, size_t len);

struct cachepin_lackey_stats {
	uint64_t lines, fetches, data;	/* lines; "I" lines; " L/S/M" lines */
	uint64_t other;			/* lines that are neither nor valgrind's "==PID==" */
	uint64_t first_other;		/* line number of the first of them */
	bool cut_last_line;		/* the trace ends inside a line (ignored) */
};

/* One instruction: SIZE bytes at ADDR. */
typedef int (*cachepin_lackey_fn_t)(void *ctx, uint64_t addr, uint32_t size);

/*
 * Read the trace from FD (named NAME in messages), whose first LEN bytes
 * HEAD were read already, calling FN for every instruction fetch in
 * order.  Returns 0, FN's non-zero value, or a negative errno after
 * logging "'NAME':LINE: <problem>".  FD stays open.
 */
int cachepin_lackey__read(int fd, const char *name, const char *head, size_t len,
			  cachepin_lackey_fn_t fn, void *ctx, struct cachepin_lackey_stats *st);

#endif
