// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Progress of long work on standard error: one line that overwrites
 * itself, only where standard error is a terminal (tests and logs stay
 * byte-identical), shown once the work has taken a moment, redrawn a few
 * times a second, erased before anything else is printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tool.h"

#define PROGRESS_DELAY 1.0	/* seconds of work before the line appears */
#define PROGRESS_EVERY 0.2	/* seconds between redraws */

static const char *progress_name;
static struct timespec progress_t0, progress_last;
static bool progress_shown;

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void progress_show(const char *label, uint64_t done, uint64_t total)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (since(&progress_t0, &now) < PROGRESS_DELAY ||
	    (progress_shown && since(&progress_last, &now) < PROGRESS_EVERY))
		return;
	progress_last = now;
	/* \r and erase to the end of the line: the line overwrites itself */
	fprintf(tool_stderr_raw, "\r%s: %s, %u %%\033[K", progress_name, label,
		(unsigned int)(done * 100 / total));
	fflush(tool_stderr_raw);
	progress_shown = true;
}

void tool_progress_start(const char *name)
{
	const char *term = getenv("TERM");

	if (!isatty(STDERR_FILENO) || (term && !strcmp(term, "dumb")))
		return;
	progress_name = name;
	clock_gettime(CLOCK_MONOTONIC, &progress_t0);
	cachepin_set_progress(progress_show);
}

void tool_progress_clear(void)
{
	if (!progress_shown)
		return;
	fputs("\r\033[K", tool_stderr_raw);
	fflush(tool_stderr_raw);
	progress_shown = false;
}

void tool_progress_stop(void)
{
	tool_progress_clear();
	cachepin_set_progress(NULL);
	progress_name = NULL;
}
