/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the text profile readers: textin.c (detection, the read loop),
 * textin-sample.c (the sample being built), and one file per grammar:
 * textin-script.c (perf script), textin-hot.c (hot lists and the rows of
 * the hot list format), textin-report.c (perf report / perf top),
 * textin-folded.c (folded stacks); the fields they share, textin-field.c.
 */
#ifndef CACHEPIN_TEXTIN_INT_H
#define CACHEPIN_TEXTIN_INT_H

#include "cachepin/textin.h"
#include "internal.h"
#include "scan.h"

#define NO_STR		((size_t)-1)

/* A frame as parsed: its strings point into the line. */
struct pframe {
	uint64_t ip, symoff, period;
	const char *sym, *sym_end;	/* NULL: none */
	const char *dso, *dso_end;
	unsigned int flags;
};

/* A frame (or a hot list row) kept until its sample is delivered. */
struct pend {
	uint64_t ip, symoff, period;
	size_t sym, dso;	/* arena offsets or NO_STR */
	unsigned int flags;
};

/* What the "# Overhead ... Symbol" header of perf report says. */
struct report_cols {
	bool seen;		/* a "# Overhead"/"# Children" header was read */
	bool dso;		/* it has a Shared Object column */
	bool dso_after_sym;
};

struct textin {
	const char *path;
	unsigned long lineno;
	bool cut_line;		/* the current line is a last line without its newline */
	cachepin_sample_fn_t fn;
	void *ctx;
	char *event;		/* first event named by the input */
	char *cur_event;	/* event of the sample being built */

	/* the sample (script, folded) or the rows (hot list) being built */
	uint64_t period;
	uint32_t pid, tid;
	bool pending;		/* a header or callchain block is open */
	bool warning;		/* inside a multi-line perf warning */
	struct pend *pf;
	size_t npf, pf_cap;
	char *arena;
	size_t alen, acap;
	struct cachepin_frame *frames;
	size_t frames_cap;

	/* perf report state */
	struct report_cols cols;
	bool graph, other_event;
};

/* What a line looks like to format detection. */
enum line_class {
	LC_SKIP, LC_SCRIPT, LC_FOLDED, LC_REPORT, LC_HOT, LC_BAD,
};

/* What a hot list row parser made of a line. */
enum { ROW_NONE, ROW_OK, ROW_BAD };

/* ---- textin-sample.c ---- */

/* SYM[+0xOFF] (the offset only if OFFSETS) into F; "[unknown]" is no symbol. */
void cachepin_text_frame_sym(struct pframe *f, const char *p, const char *e, bool offsets);
/* DSO into F, with CACHEPIN_FRAME_KERNEL if it names the kernel or a module. */
void cachepin_text_frame_dso(struct pframe *f, const char *p, const char *e);

/* Log "'PATH':LINE: WHAT" and return -EINVAL (0 on a cut-off last line). */
int cachepin_text_error(struct textin *t, const char *what);
/* Keep F (its strings copied) for the sample being built: 0 or -ENOMEM. */
int cachepin_text_add(struct textin *t, const struct pframe *f);
/* Forget the frames kept, start a new sample. */
void cachepin_text_reset(struct textin *t);
/* Deliver the frames kept as one sample (REVERSE: kept root first). */
int cachepin_text_flush(struct textin *t, bool reverse);
/* Deliver each frame kept as a sample of its own (hot list rows). */
int cachepin_text_flush_rows(struct textin *t);
/* The event of the samples that follow is [p, e): 0 or -ENOMEM. */
int cachepin_text_set_event(struct textin *t, const char *p, const char *e);
void cachepin_text_release(struct textin *t);

/*
 * ---- the grammars ----
 * A reader of lines (*_line()) takes LINE, NUL-terminated and LEN bytes
 * long without its '\n' (it may change the bytes), and returns 0 or a
 * negative errno.  A probe (*_probe()) says what a line [p, e) is to
 * format detection; P is past the line's leading blanks (the script
 * probe's P is the start of the line), E before its trailing ones.
 */

/* textin-script.c */
bool cachepin_text_script_probe(const char *p, const char *e);
int cachepin_text_script_line(struct textin *t, char *line, size_t len);

/* textin-hot.c */
/* A hot list line or perf report row into F: ROW_NONE, ROW_OK or ROW_BAD. */
int cachepin_text_row(const char *p, const char *e, const struct report_cols *cols,
		      struct pframe *f);
enum line_class cachepin_text_hot_probe(const char *p, const char *e);
int cachepin_text_hot_line(struct textin *t, char *line, size_t len);

/* textin-report.c */
/* The columns of a perf report row after its first percentage PCT, into F. */
int cachepin_text_report_row(const char *p, const char *e, uint64_t pct,
			     const struct report_cols *cols, struct pframe *f);
/* perf's own lines (warnings, PerfTop:, rules) that carry no rows. */
bool cachepin_text_report_chatter(const char *p, const char *e);
/* A line of a call graph under a row ("|", "--"). */
bool cachepin_text_report_graph(const char *p, const char *e);
/* The same on a line of T, dropping the rows read so far on a screen clear. */
char *cachepin_text_top_unescape(struct textin *t, char *line, char *end);
/* A blank, header, chatter or call graph line, taken note of: true; a row: false. */
bool cachepin_text_report_skip(struct textin *t, const char *p, const char *e);

/* textin-folded.c */
bool cachepin_text_folded_probe(const char *p, const char *e);
int cachepin_text_folded_line(struct textin *t, char *line, size_t len);

/* textin-field.c */
/* "12.34%" -> 123400 (parts per million); false if [p, e) is none. */
bool cachepin_text_parse_pct(const char *p, const char *e, uint64_t *ppm);
/* NAME[@OBJECT] into F; false if NAME is no symbol name. */
bool cachepin_text_hot_name(const char *p, const char *e, struct pframe *f);
/* [p, e) holds control characters other than tab, CR and ESC. */
bool cachepin_text_has_ctl(const char *p, const char *e);
/* Remove terminal escapes in place: the new end; *CLEARED if one cleared the screen. */
char *cachepin_text_strip_escapes(char *p, char *e, bool *cleared);

#endif
