/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scanning text inputs: whitespace, fields and numbers on a byte range
 * [p, e) of a line, and a reader that hands out the lines of a FILE.
 *
 * The range needs no NUL terminator and nothing is copied: results point
 * into it.  Whitespace is ' ', '\t', '\r', '\v' and '\f' (the reader has
 * taken the '\n' off).  A field is a run of bytes other than whitespace.
 * Number parsers come in two kinds: scan_hex()/scan_hex0x()/scan_u64()
 * want the whole range to be the number, scan_hex_digits()/scan_dec()
 * read the digits at the start and return where they end.
 */
#ifndef CACHEPIN_SCAN_H
#define CACHEPIN_SCAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A field of a line: the bytes [p, e). */
struct scan_field {
	const char *p, *e;
};

static inline bool scan_is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool scan_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The value of every hex digit plus one, 0 for every other byte (scan.c). */
extern const unsigned char cachepin_scan_hexv1[256];

/* The value of the hex digit C, or -1. */
static inline int scan_hexval(char c)
{
	return cachepin_scan_hexv1[(unsigned char)c] - 1;
}

/* The first byte at or after P that is no whitespace, or E. */
static inline const char *scan_skip_ws(const char *p, const char *e)
{
	while (p < e && scan_is_ws(*p))
		p++;
	return p;
}

/* The end of [p, e) without its trailing whitespace. */
static inline const char *scan_rtrim(const char *p, const char *e)
{
	while (e > p && scan_is_ws(e[-1]))
		e--;
	return e;
}

/*
 * The field splitter: the next field at or after *P into *F, and *P
 * moved past it.  False (and *P, *F untouched) when only whitespace is
 * left.
 */
static inline bool scan_field(const char **p, const char *e, struct scan_field *f)
{
	const char *q = scan_skip_ws(*p, e);

	if (q >= e)
		return false;
	f->p = q;
	while (q < e && !scan_is_ws(*q))
		q++;
	f->e = q;
	*p = q;
	return true;
}

/*
 * The start of the field that ends at E: E itself if whitespace comes
 * before E, P if there is no whitespace in [p, e).  Callers that want the
 * last field of a line trim it first.
 */
static inline const char *scan_field_back(const char *p, const char *e)
{
	while (e > p && !scan_is_ws(e[-1]))
		e--;
	return e;
}

/*
 * Split [p, e) into at most MAX fields (F[0..MAX)); returns how many.
 * The last one ends where its field ends: the rest of the line, if more
 * than MAX fields, is not looked at.
 */
static inline size_t scan_fields(const char *p, const char *e, struct scan_field *f, size_t max)
{
	size_t n = 0;

	while (n < max && scan_field(&p, e, &f[n]))
		n++;
	return n;
}

/* [p, e) is exactly the string S. */
static inline bool scan_eq(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(e - p) == n && !memcmp(p, s, n);
}

/* [p, e) starts with the string S. */
static inline bool scan_starts(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(e - p) >= n && !memcmp(p, s, n);
}

/*
 * The hex digits at P (no "0x"): their end, with the value in *V and
 * their number in *ND (if ND is not NULL); NULL if P starts with no hex
 * digit or with more than 16 of them (then *V and *ND are untouched).
 */
static inline const char *scan_hex_digits(const char *p, const char *e, uint64_t *v,
					  unsigned int *nd)
{
	const char *s = p;
	uint64_t x = 0;
	int d;

	while (p < e && (d = scan_hexval(*p)) >= 0) {
		x = x << 4 | (uint64_t)d;
		p++;
	}
	if (p == s || p - s > 16)
		return NULL;
	*v = x;
	if (nd)
		*nd = (unsigned int)(p - s);
	return p;
}

/* The same without the value: for fields that are checked, not needed. */
static inline const char *scan_skip_hex(const char *p, const char *e)
{
	const char *s = p;

	while (p < e && cachepin_scan_hexv1[(unsigned char)*p])
		p++;
	return p == s || p - s > 16 ? NULL : p;
}

/*
 * [p, e) is a hex number of 1 to 16 digits, with or without "0x" or
 * "0X" before them: true with the value in *V (else *V is untouched).
 */
static inline bool scan_hex(const char *p, const char *e, uint64_t *v)
{
	const char *end;
	uint64_t x;

	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	end = scan_hex_digits(p, e, &x, NULL);
	if (!end || end != e)
		return false;
	*v = x;
	return true;
}

/* The same, but the "0x" (lower case) is required: "0x1f", not "1f". */
static inline bool scan_hex0x(const char *p, const char *e, uint64_t *v)
{
	return e - p > 2 && p[0] == '0' && p[1] == 'x' && scan_hex(p, e, v);
}

/*
 * The decimal digits at P: their end, with the value in *V; NULL if P
 * starts with no digit or the value could pass UINT64_MAX (anything above
 * 18446744073709551609 is refused; *V is then untouched).
 */
static inline const char *scan_dec(const char *p, const char *e, uint64_t *v)
{
	const char *s = p;
	uint64_t x = 0;

	for (; p < e && scan_is_digit(*p); p++) {
		if (x > (UINT64_MAX - 9) / 10)
			return NULL;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return NULL;
	*v = x;
	return p;
}

/* [p, e) is a decimal number (digits only, no sign): true with *V set. */
static inline bool scan_u64(const char *p, const char *e, uint64_t *v)
{
	const char *end;
	uint64_t x;

	end = scan_dec(p, e, &x);
	if (!end || end != e)
		return false;
	*v = x;
	return true;
}

/*
 * The same splitter on a NUL-terminated line that may be changed: up to
 * MAX fields into FV, each ended in place by a NUL.  A '\n' separates as
 * whitespace does (a line from getline()).  Returns how many.
 */
size_t cachepin_scan_split(char *line, char **fv, size_t max);

/*
 * Fields of our own text files (profile, alignment file) that may hold
 * any byte (a path with a space, a symbol name that is not UTF-8): FV
 * split as cachepin_scan_split() does, but a field that starts with '"'
 * runs to the next unescaped '"' and is unquoted in place (\" \\ \t \n
 * \r and \ooo).  Returns how many, or SIZE_MAX for a quote that does not
 * end or an unknown escape.
 */
size_t cachepin_scan_split_fields(char *line, char **fv, size_t max);

/*
 * Write S as one field of such a file: as it is when it holds no
 * whitespace, '"', '\\' or control byte and is not empty, else quoted.
 */
void cachepin_scan_put_field(FILE *f, const char *s);

/* The same for a field that may be absent: NULL is "-". */
void cachepin_scan_put_opt(FILE *f, const char *s);

/*
 * The longest line a text input may have: a perf script line is under a
 * KiB, a profile's granule line a few.  Past it the input is no text of
 * ours (one line of /dev/zero would fill the memory).
 */
#define CACHEPIN_SCAN_LINE_MAX	(1u << 20)

/*
 * The line reader: lines of F up to CACHEPIN_SCAN_LINE_MAX, like getline(), but the
 * bytes read ahead stay in the buffer, so that a caller can look at the
 * start of a pipe (cachepin_scan_peek()) before it reads it as lines.
 * Start it zeroed with F set; F is the caller's to close.
 */
struct scan_reader {
	FILE *f;
	char *buf;		/* lines handed out are [start, ...) of it */
	size_t cap, start, end, scanned;
	bool eof;		/* F has no more bytes (or failed) */
	bool error;		/* ... because reading F failed (errno tells why) */
	bool cut;		/* the line returned last ends the input without a '\n' */
};

/* Read the next chunk of F into the buffer.  Returns 0 or -ENOMEM. */
int cachepin_scan_fill(struct scan_reader *r);

/*
 * Read until WANT bytes after the current line are buffered, or F ends;
 * they are r->buf[r->start, r->end).  Returns 0 or -ENOMEM.
 */
int cachepin_scan_peek(struct scan_reader *r, size_t want);

/*
 * The next line without its '\n', NUL-terminated (it may hold NUL bytes
 * of its own: LEN is its length), valid until the next call; sets
 * r->cut.  NULL at the end of the input (*ERR = 0; see r->error), when
 * memory runs out (*ERR = -ENOMEM) or at a line longer than
 * CACHEPIN_SCAN_LINE_MAX (*ERR = -EFBIG).
 */
char *cachepin_scan_line(struct scan_reader *r, size_t *len, int *err);

/*
 * The readers of line formats (alignment file, profile, System.map, edit
 * files): the next line of PATH through R, counted in *LINENO.  NULL at
 * the end (*ERR = 0), or with *ERR set after a message naming the file
 * and line: a NUL byte (-EINVAL: binary data), a line too long (-EFBIG),
 * a read error (-EIO), -ENOMEM.
 */
char *cachepin_scan_text_line(struct scan_reader *r, const char *path, unsigned long *lineno,
			      int *err);

/* Free the buffer (not F). */
void cachepin_scan_release(struct scan_reader *r);

#endif
