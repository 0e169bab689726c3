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

/* The library version, "MAJOR.MINOR.PATCH". */
const char *cachepin_version(void);

#endif
