/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text profile inputs: `perf script` output (default format with and
 * without callchains, -F ip,sym,symoff,dso), hot-function lists (a name
 * per line with an optional weight or percentage), `perf report --stdio`
 * and `perf top --stdio` as pasted, and folded stacks.
 */
#ifndef CACHEPIN_TEXTIN_H
#define CACHEPIN_TEXTIN_H

#include <stdio.h>
#include "cachepin/sample.h"

enum cachepin_text_format {
	CACHEPIN_TEXT_AUTO = 0,
	CACHEPIN_TEXT_PERF_SCRIPT,
	CACHEPIN_TEXT_HOTLIST,		/* also perf report / perf top lines */
	CACHEPIN_TEXT_FOLDED,		/* comm;f1;f2 N */
};

/*
 * Guess the format from the first meaningful lines of BUF (LEN bytes, no
 * NUL terminator needed).  Returns CACHEPIN_TEXT_AUTO when nothing fits,
 * for a NULL BUF, a perf.data file or a NUL byte in the lines looked at.
 */
enum cachepin_text_format cachepin_text__detect(const char *buf, size_t len);

/*
 * Parse PATH ("-" for stdin) in FORMAT (AUTO detects), calling FN for
 * every sample (the sample and its strings are valid during the call
 * only; a non-zero return stops the reading).  Hot lists yield one sample
 * per line with period = the weight (percentages are scaled to parts per
 * million) and a single frame: its symbol or address, and its object if
 * the row names one.  Returns 0, FN's value, or a negative errno: -EINVAL
 * for a NULL PATH or FN or an unknown FORMAT and -ENOMEM without a
 * message, any other after logging why ("'PATH':LINE: <problem>" for a
 * bad line).  If EVENT is not NULL, *EVENT is set to the event name if
 * the input names one, else to NULL (the caller frees it); it is NULL on
 * error.
 */
int cachepin_text__read(const char *path, enum cachepin_text_format format,
			cachepin_sample_fn_t fn, void *ctx, char **event);

/*
 * The same on an open descriptor FD (taken over and closed) named NAME in
 * messages, whose first LEN bytes HEAD were already read from it (a pipe
 * that was sniffed): nothing of it is lost.
 */
int cachepin_text__read_fd(int fd, const char *name, const char *head, size_t len,
			   enum cachepin_text_format format, cachepin_sample_fn_t fn, void *ctx,
			   char **event);

#endif
