/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cachepin: common definitions.  The library never prints on its own;
 * everything goes through the print callback set here.
 */
#ifndef CACHEPIN_CACHEPIN_H
#define CACHEPIN_CACHEPIN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

enum cachepin_print_level {
	CACHEPIN_WARN,	/* errors and warnings: printed by default */
	CACHEPIN_INFO,	/* progress: printed with -v */
	CACHEPIN_DEBUG,	/* printed with -vv */
};

typedef int (*cachepin_print_fn_t)(enum cachepin_print_level level,
				   const char *fmt, va_list args);

/* Set the print callback; returns the previous one.  NULL silences. */
cachepin_print_fn_t cachepin_set_print(cachepin_print_fn_t fn);

/*
 * Progress of long work (cachepin_plan__run()), for a front end to show:
 * LABEL says what runs now ("candidate 3 of 5 (search)"), DONE of TOTAL
 * (TOTAL > 0, DONE <= TOTAL) how far the whole call is.  Called often,
 * many times a second; the callback decides what to show and when.
 * LABEL is valid during the call only.
 */
typedef void (*cachepin_progress_fn_t)(const char *label, uint64_t done, uint64_t total);

/* Set the progress callback; returns the previous one.  NULL (the default): none. */
cachepin_progress_fn_t cachepin_set_progress(cachepin_progress_fn_t fn);

/* The library version, "MAJOR.MINOR.PATCH". */
const char *cachepin_version(void);

#endif
