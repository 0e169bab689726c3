// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one JSON writer of the reports (score, diff, whatif, simulate).
 *
 * A container is a block (one member per line, indented two spaces per
 * level) or a line (all of it on one line: `{ "set": 3, "lru": 12 }`,
 * `[1, 2]`); whatever opens inside a line is on that line too.  Names
 * are bytes: a byte that starts no UTF-8 sequence is written as the code
 * point of its number, control bytes and DEL as \u escapes, so that the
 * output is UTF-8 JSON whatever the symbols hold.  A number that is not
 * finite is null.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "tool.h"

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	while (s && *s) {
		unsigned char c = (unsigned char)*s;
		size_t n = tool_utf8_len(s);

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f || !n)
			fprintf(f, "\\u%04x", c);
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
	}
	fputc('"', f);
}

static void indent(FILE *f, unsigned int depth)
{
	fputc('\n', f);
	while (depth--)
		fputs("  ", f);
}

/* What goes before a member: the comma, the line break or space, the key. */
static void member(struct tool_json *j, const char *key)
{
	unsigned int d = j->depth;

	if (d) {
		bool first = !j->count[d - 1]++;

		if (!first)
			fputc(',', j->f);
		if (!j->line[d - 1])
			indent(j->f, d);
		else if (!first || j->kind[d - 1] == '{')
			fputc(' ', j->f);
	}
	if (key) {
		put_str(j->f, key);
		fputs(": ", j->f);
	}
}

void tool_json_init(struct tool_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

void tool_json_open(struct tool_json *j, const char *key, char kind, bool line)
{
	member(j, key);
	fputc(kind, j->f);
	if (j->depth >= TOOL_JSON_DEPTH) {	/* a writer's bug: stay valid, go flat */
		j->overflow++;
		return;
	}
	j->kind[j->depth] = kind;
	j->line[j->depth] = line || (j->depth && j->line[j->depth - 1]);
	j->count[j->depth] = 0;
	j->depth++;
}

void tool_json_close(struct tool_json *j)
{
	unsigned int d;

	if (j->overflow) {
		j->overflow--;
		return;
	}
	if (!j->depth)
		return;
	d = --j->depth;
	if (j->count[d] && !j->line[d])
		indent(j->f, d);
	else if (j->count[d] && j->kind[d] == '{')
		fputc(' ', j->f);
	fputc(j->kind[d] == '{' ? '}' : ']', j->f);
}

void tool_json_str(struct tool_json *j, const char *key, const char *s)
{
	member(j, key);
	put_str(j->f, s);
}

void tool_json_u64(struct tool_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void tool_json_i64(struct tool_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void tool_json_num(struct tool_json *j, const char *key, int digits, double v)
{
	member(j, key);
	if (!isfinite(v))
		fputs("null", j->f);
	else if (digits < 0)
		fprintf(j->f, "%.*g", -digits, v);
	else
		fprintf(j->f, "%.*f", digits, v);
}

void tool_json_bool(struct tool_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void tool_json_end(struct tool_json *j)
{
	while (j->depth || j->overflow)
		tool_json_close(j);
	fputc('\n', j->f);
}

void tool_json_cache(struct tool_json *j, const struct cachepin_cache *c)
{
	tool_json_open(j, NULL, '{', false);
	tool_json_str(j, "cache", c->name);
	tool_json_u64(j, "size", c->size);
	tool_json_u64(j, "ways", c->ways);
	tool_json_u64(j, "line", c->line);
	tool_json_u64(j, "sets", c->sets);
}
