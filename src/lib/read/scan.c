// SPDX-License-Identifier: GPL-2.0-or-later
/* The hex digit table and the line reader of scan.h. */
#include "internal.h"
#include "scan.h"

const unsigned char cachepin_scan_hexv1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

#define READ_FIRST	(256 * 1024)	/* the first buffer */
#define READ_MIN	4096		/* grow when less room than this is left */

int cachepin_scan_fill(struct scan_reader *r)
{
	size_t n;

	if (r->start) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->scanned -= r->start;
		r->start = 0;
	}
	if (r->cap - r->end < READ_MIN + 1) {
		size_t ncap = r->cap ? r->cap * 2 : READ_FIRST;
		char *nb = realloc(r->buf, ncap);

		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->cap = ncap;
	}
	n = fread(r->buf + r->end, 1, r->cap - r->end - 1, r->f);
	if (!n) {
		r->eof = true;
		if (ferror(r->f))
			r->error = true;
	}
	r->end += n;
	return 0;
}

int cachepin_scan_peek(struct scan_reader *r, size_t want)
{
	int err;

	while (!r->eof && r->end - r->start < want)
		if ((err = cachepin_scan_fill(r)))
			return err;
	return 0;
}

char *cachepin_scan_line(struct scan_reader *r, size_t *len, int *err)
{
	char *line, *nl;

	*err = 0;
	r->cut = false;
	for (;;) {
		nl = r->buf ? memchr(r->buf + r->scanned, '\n', r->end - r->scanned) : NULL;
		if (nl) {
			line = r->buf + r->start;
			*nl = '\0';
			*len = (size_t)(nl - line);
			r->start = r->scanned = (size_t)(nl + 1 - r->buf);
			return line;
		}
		r->scanned = r->end;
		if (r->end - r->start > CACHEPIN_SCAN_LINE_MAX) {
			*err = -EFBIG;
			return NULL;
		}
		if (r->eof) {
			if (r->start == r->end || !r->buf)
				return NULL;
			line = r->buf + r->start;
			r->buf[r->end] = '\0';
			*len = r->end - r->start;
			r->start = r->scanned = r->end;
			r->cut = true;
			return line;
		}
		*err = cachepin_scan_fill(r);
		if (*err)
			return NULL;
	}
}

char *cachepin_scan_text_line(struct scan_reader *r, const char *path, unsigned long *lineno,
			      int *err)
{
	size_t len;
	char *line = cachepin_scan_line(r, &len, err);

	if (line) {
		++*lineno;
		if (!memchr(line, '\0', len))
			return line;
		pr_warn("'%s':%lu: binary data (a NUL byte): not a text file\n", path, *lineno);
		*err = -EINVAL;
		return NULL;
	}
	if (*err == -EFBIG)
		pr_warn("'%s':%lu: a line longer than %u bytes: not a text file of ours\n", path,
			*lineno + 1, CACHEPIN_SCAN_LINE_MAX);
	else if (*err)
		pr_warn("out of memory\n");
	else if (r->error) {
		pr_warn("cannot read '%s': %s\n", path, strerror(errno ? errno : EIO));
		*err = -EIO;
	}
	return NULL;
}

void cachepin_scan_release(struct scan_reader *r)
{
	zfree(&r->buf);
	r->cap = r->start = r->end = r->scanned = 0;
}

static inline bool split_ws(char c)
{
	return scan_is_ws(c) || c == '\n';
}


static bool field_plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == '"' || *s == '\\' || *s == 0x7f)
			return false;
	return true;
}

void cachepin_scan_put_field(FILE *f, const char *s)
{
	if (field_plain(s)) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c < ' ' || c == 0x7f)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void cachepin_scan_put_opt(FILE *f, const char *s)
{
	if (s)
		cachepin_scan_put_field(f, s);
	else
		fputc('-', f);
}

/* Unquote the field at *P (after its '"') in place; *P past its end.  false: bad. */
static bool unquote(char **p)
{
	char *r = *p, *w = *p;

	for (;;) {
		char c = *r++;

		if (!c)
			return false;
		if (c == '"')
			break;
		if (c != '\\') {
			*w++ = c;
			continue;
		}
		c = *r++;
		if (c == '"' || c == '\\')
			*w++ = c;
		else if (c == 't')
			*w++ = '\t';
		else if (c == 'n')
			*w++ = '\n';
		else if (c == 'r')
			*w++ = '\r';
		else if (c >= '0' && c <= '3' && r[0] >= '0' && r[0] <= '7' && r[1] >= '0' && r[1] <= '7') {
			*w++ = (char)((c - '0') << 6 | (r[0] - '0') << 3 | (r[1] - '0'));
			r += 2;
		} else {
			return false;
		}
	}
	/* a quoted field ends at whitespace or the line's end */
	if (*r && !split_ws(*r))
		return false;
	*w = '\0';
	*p = *r ? r + 1 : r;
	return true;
}

/* The splitter of both: QUOTED takes a field that starts with '"' as quoted. */
static size_t split(char *line, char **fv, size_t max, bool quoted)
{
	size_t n = 0;

	while (*line && n < max) {
		while (split_ws(*line))
			line++;
		if (!*line)
			break;
		if (quoted && *line == '"') {
			fv[n++] = ++line;
			if (!unquote(&line))
				return SIZE_MAX;
			continue;
		}
		fv[n++] = line;
		while (*line && !split_ws(*line))
			line++;
		if (*line)
			*line++ = '\0';
	}
	return n;
}

size_t cachepin_scan_split(char *line, char **fv, size_t max)
{
	return split(line, fv, max, false);
}

size_t cachepin_scan_split_fields(char *line, char **fv, size_t max)
{
	return split(line, fv, max, true);
}
