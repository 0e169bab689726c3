// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text profile inputs: format detection and the read loop, which hands
 * every line to the reader of its grammar:
 *
 *   CACHEPIN_TEXT_PERF_SCRIPT  `perf script` output     textin-script.c
 *   CACHEPIN_TEXT_HOTLIST      hot lists                textin-hot.c
 *                              perf report / perf top   textin-report.c
 *   CACHEPIN_TEXT_FOLDED       folded stacks            textin-folded.c
 *
 * textin-sample.c builds the samples they deliver; scan.h splits the lines.
 *
 * Detection classifies the first lines (up to DETECT_LINES in the first
 * DETECT_BYTES or so): the first perf script, folded or perf report line
 * decides; else hot list lines win if they are at least twice as many as
 * the unparsable ones.
 * cachepin_text__detect() returns CACHEPIN_TEXT_AUTO when nothing fits.
 */
#include <stdio.h>
#include <unistd.h>
#include "textin-int.h"

#define DETECT_BYTES	(64 * 1024)
#define DETECT_LINES	200

static const struct grammar {
	const char *name;
	int (*line)(struct textin *t, char *line, size_t len);
} grammars[] = {
	[CACHEPIN_TEXT_AUTO] = { "auto", NULL },
	[CACHEPIN_TEXT_PERF_SCRIPT] = { "perf script", cachepin_text_script_line },
	[CACHEPIN_TEXT_HOTLIST] = { "hot list", cachepin_text_hot_line },
	[CACHEPIN_TEXT_FOLDED] = { "folded stacks", cachepin_text_folded_line },
};

/* ---- detection ---- */

static enum line_class classify(const char *p, const char *e);

/* A line with escapes: classified without them. */
static enum line_class classify_unescaped(const char *p, const char *e)
{
	enum line_class lc;
	bool cleared;
	char *copy = strndup(p, (size_t)(e - p));

	if (!copy)
		return LC_SKIP;
	lc = classify(copy, cachepin_text_strip_escapes(copy, copy + (e - p), &cleared));
	free(copy);
	return lc;
}

static enum line_class classify(const char *p, const char *e)
{
	const char *q;

	e = scan_rtrim(p, e);
	q = scan_skip_ws(p, e);
	if (q >= e || *q == '#')
		return LC_SKIP;
	if (cachepin_text_has_ctl(q, e))
		return LC_BAD;
	if (memchr(q, 0x1b, (size_t)(e - q)))
		return classify_unescaped(q, e);
	if (cachepin_text_report_chatter(q, e))
		return LC_SKIP;
	if (cachepin_text_script_probe(p, e))
		return LC_SCRIPT;
	if (cachepin_text_folded_probe(q, e))
		return LC_FOLDED;
	return cachepin_text_hot_probe(q, e);
}

enum cachepin_text_format cachepin_text__detect(const char *buf, size_t len)
{
	const char *p = buf, *e = buf + len, *nl;
	int lines = 0, hot = 0, bad = 0;
	bool first_hot = false;	/* the first line that counts is a hot-list row */

	if (!buf)
		return CACHEPIN_TEXT_AUTO;
	if (len >= 8 && !memcmp(buf, "PERFILE2", 8))
		return CACHEPIN_TEXT_AUTO;
	while (p < e && lines < DETECT_LINES) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (!nl)
			nl = e;
		if (memchr(p, '\0', (size_t)(nl - p)))
			return CACHEPIN_TEXT_AUTO;
		switch (classify(p, nl)) {
		case LC_SCRIPT:
			return CACHEPIN_TEXT_PERF_SCRIPT;
		case LC_FOLDED:
			return CACHEPIN_TEXT_FOLDED;
		case LC_REPORT:
			return CACHEPIN_TEXT_HOTLIST;
		case LC_HOT:
			if (!lines)
				first_hot = true;
			hot++;
			lines++;
			break;
		case LC_BAD:
			bad++;
			lines++;
			break;
		default:
			break;
		}
		p = nl + 1;
	}
	/*
	 * A few bad lines in a hot list are better reported by line number,
	 * and so is a bad line after a first row that is a hot list's
	 */
	return hot && (!bad || first_hot || (hot >= 2 && hot >= 2 * bad)) ? CACHEPIN_TEXT_HOTLIST :
									    CACHEPIN_TEXT_AUTO;
}

/* ---- the reader ---- */

/* Open PATH ("-": stdin) into R->f.  Returns 0 or a negative errno (logged). */
static int text_open(struct scan_reader *r, const char *path)
{
	int err;

	if (!strcmp(path, "-")) {
		r->f = stdin;
		return 0;
	}
	r->f = fopen(path, "r");
	if (!r->f) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		return err;
	}
	return 0;
}

/*
 * Detect the format of the input from the lines at its start (read ahead
 * into R, not consumed) into *FORMAT.  Returns 0, or -EINVAL or -EIO after
 * saying why nothing fits, or -ENOMEM.
 */
static int text_detect(struct scan_reader *r, const char *path,
		       enum cachepin_text_format *format)
{
	size_t dlen;
	int err;

	if ((err = cachepin_scan_peek(r, DETECT_BYTES)))
		return err;
	dlen = r->end;
	if (!r->eof)
		while (dlen && r->buf[dlen - 1] != '\n')
			dlen--;
	*format = cachepin_text__detect(r->buf, dlen);
	if (*format != CACHEPIN_TEXT_AUTO) {
		pr_debug("'%s': reading as %s\n", path, grammars[*format].name);
		return 0;
	}
	if (r->error) {
		pr_warn("cannot read '%s': %s\n", path, strerror(errno));
		return -EIO;
	}
	if (!r->end)
		pr_warn("'%s': empty input, no samples\n", path);
	else if (r->end >= 8 && !memcmp(r->buf, "PERFILE2", 8))
		pr_warn("'%s': not a perf script output, hot list or perf report\n"
			"hint: this is a perf.data file; read it as such or convert it with 'perf script -i %s'\n",
			path, path);
	else
		pr_warn("'%s': not a perf script output, hot list or perf report\n"
			"hint: give 'perf script' or 'perf report --stdio' output, folded stacks, or a list of 'NAME [WEIGHT]' lines\n",
			path);
	return -EINVAL;
}

/*
 * Every line of R to the grammar of FORMAT, then the samples still held
 * back.  Returns 0, the sample function's value or a negative errno.
 */
static int text_lines(struct textin *t, struct scan_reader *r, enum cachepin_text_format format)
{
	int (*parse_line)(struct textin *t, char *line, size_t len) = grammars[format].line;
	size_t len;
	char *line;
	int err, rerr;

	while ((line = cachepin_scan_line(r, &len, &rerr))) {
		t->lineno++;
		t->cut_line = r->cut;
		/* (on a cut-off last line, 0 without the samples held back) */
		if (memchr(line, '\0', len))
			return cachepin_text_error(t, "binary data (NUL byte) in a text profile");
		err = parse_line(t, line, len);
		if (err)
			return err;
	}
	_Static_assert(CACHEPIN_SCAN_LINE_MAX == 1u << 20, "the message says 1 MiB");
	if (rerr == -EFBIG) {
		t->lineno++;
		t->cut_line = false;
		return cachepin_text_error(t, "a line longer than 1 MiB: not a text profile");
	}
	if (rerr)
		return rerr;
	if (r->error) {
		pr_warn("cannot read '%s': read error\n", t->path);
		return -EIO;
	}
	if (format == CACHEPIN_TEXT_HOTLIST)
		return cachepin_text_flush_rows(t);
	return cachepin_text_flush(t, false);
}

/* The reader of R (opened, maybe with bytes in its buffer) to the end. */
static int text_run(struct scan_reader *r, const char *path, enum cachepin_text_format format,
		    cachepin_sample_fn_t fn, void *ctx, char **event);

int cachepin_text__read(const char *path, enum cachepin_text_format format,
			cachepin_sample_fn_t fn, void *ctx, char **event)
{
	struct scan_reader r = { 0 };
	int err;

	if (event)
		*event = NULL;
	if (!path || !fn || (unsigned int)format >= ARRAY_SIZE(grammars))
		return -EINVAL;
	err = text_open(&r, path);
	if (err)
		return err;
	return text_run(&r, path, format, fn, ctx, event);
}

int cachepin_text__read_fd(int fd, const char *name, const char *head, size_t len,
			   enum cachepin_text_format format, cachepin_sample_fn_t fn, void *ctx,
			   char **event)
{
	struct scan_reader r = { 0 };

	if (event)
		*event = NULL;
	if (!name || !fn || (unsigned int)format >= ARRAY_SIZE(grammars)) {
		close(fd);
		return -EINVAL;
	}
	r.f = fdopen(fd, "r");
	if (!r.f) {
		close(fd);
		pr_warn("cannot read '%s': %s\n", name, strerror(errno));
		return -EIO;
	}
	/* the bytes read to tell what the input is come first */
	r.cap = len + 1 > 4096 ? len + 1 : 4096;
	r.buf = malloc(r.cap);
	if (!r.buf) {
		fclose(r.f);
		return -ENOMEM;
	}
	memcpy(r.buf, head, len);
	r.end = len;
	return text_run(&r, name, format, fn, ctx, event);
}

static int text_run(struct scan_reader *r0, const char *path, enum cachepin_text_format format,
		    cachepin_sample_fn_t fn, void *ctx, char **event)
{
	struct scan_reader r = *r0;
	struct textin t = { 0 };
	int err = 0;

	t.path = path;
	t.fn = fn;
	t.ctx = ctx;
	t.period = 1;
	if (format == CACHEPIN_TEXT_AUTO)
		err = text_detect(&r, path, &format);
	if (!err)
		err = text_lines(&t, &r, format);
	if (r.f != stdin)
		fclose(r.f);
	cachepin_scan_release(&r);
	if (!err && event) {
		*event = t.event;
		t.event = NULL;
	}
	cachepin_text_release(&t);
	return err;
}
