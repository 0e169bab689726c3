/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How text-dump and the textin unit test print a sample:
 *   PERIOD NR FRAME0 FRAME1 ...
 * with a frame as SYM[+0xOFF][@0xIP][[DSO]]/FLAGS or 0xIP[[DSO]]/FLAGS,
 * FLAGS being K (kernel), I (ip), S (symbol), O (offset), R (dso-relative).
 */
#ifndef TEXT_PRINT_H
#define TEXT_PRINT_H
#include <inttypes.h>
#include <stdio.h>
#include "cachepin/sample.h"

static void text_print_frame(FILE *out, const struct cachepin_frame *f)
{
	static const struct { unsigned int bit; char c; } fl[] = {
		{ CACHEPIN_FRAME_KERNEL, 'K' }, { CACHEPIN_FRAME_HAS_IP, 'I' },
		{ CACHEPIN_FRAME_HAS_SYM, 'S' }, { CACHEPIN_FRAME_HAS_OFF, 'O' },
		{ CACHEPIN_FRAME_DSO_REL, 'R' },
	};
	size_t i;

	if (f->flags & CACHEPIN_FRAME_HAS_SYM) {
		fputs(f->sym ? f->sym : "(null)", out);
		if (f->flags & CACHEPIN_FRAME_HAS_OFF)
			fprintf(out, "+%#" PRIx64, f->symoff);
		if (f->flags & CACHEPIN_FRAME_HAS_IP)
			fprintf(out, "@%#" PRIx64, f->ip);
	} else if (f->flags & CACHEPIN_FRAME_HAS_IP) {
		fprintf(out, "%#" PRIx64, f->ip);
	} else {
		fputc('?', out);
	}
	if (f->dso)
		fprintf(out, "[%s]", f->dso);
	fputc('/', out);
	for (i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
		if (f->flags & fl[i].bit)
			fputc(fl[i].c, out);
}

static void text_print_sample(FILE *out, const struct cachepin_sample *s, int with_pid)
{
	uint32_t i;

	if (with_pid)
		fprintf(out, "%" PRIu32 "/%" PRIu32 " ", s->pid, s->tid);
	fprintf(out, "%" PRIu64 " %" PRIu32, s->period, s->nr);
	for (i = 0; i < s->nr; i++) {
		fputc(' ', out);
		text_print_frame(out, &s->frames[i]);
	}
	fputc('\n', out);
}
#endif
