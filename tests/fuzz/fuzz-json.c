// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz the reports' text writers (src/tool/json.c, utf8.c): the input's
 * NUL-separated pieces as names, its bytes as numbers, written as a JSON
 * document and as XML character data, and each output checked: UTF-8
 * throughout, JSON by its grammar (RFC 8259), XML 1.0 characters with
 * only the entities the writer makes.  A check that fails aborts.
 */
#include <string.h>
#include "fuzz.h"
#include "tool.h"

static const char *p, *end;

static void fail(const char *what)
{
	fprintf(stderr, "fuzz-json: %s\n", what);
	abort();
}

static void ws(void)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
}

static void lit(const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(end - p) < n || memcmp(p, s, n))
		fail("bad literal");
	p += n;
}

static void str(void)
{
	for (lit("\""); p < end && *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			fail("raw control byte in a string");
		if (*p != '\\')
			continue;
		if (++p >= end || !strchr("\"\\/bfnrtu", *p))
			fail("bad escape");
		if (*p == 'u') {
			int i;

			for (i = 0; i < 4; i++)
				if (++p >= end || !strchr("0123456789abcdefABCDEF", *p))
					fail("bad \\u escape");
		}
	}
	lit("\"");
}

static void num(void)
{
	const char *s = p;

	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			;
	if (p == s || (*s == '-' && p == s + 1))
		fail("bad number");
	if (p < end && *p == '.')
		for (p++, s = p; p < end && *p >= '0' && *p <= '9'; p++)
			;
	if (p < end && (*p == 'e' || *p == 'E')) {
		if (++p < end && (*p == '+' || *p == '-'))
			p++;
		for (s = p; p < end && *p >= '0' && *p <= '9'; p++)
			;
		if (p == s)
			fail("bad exponent");
	}
}

static void value(int depth)
{
	ws();
	if (p >= end || depth > 64)
		fail("value expected");
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		int obj = *p++ == '{';

		ws();
		if (p < end && *p == close) {
			p++;
			return;
		}
		for (;;) {
			if (obj) {
				ws();
				str();
				ws();
				lit(":");
			}
			value(depth + 1);
			ws();
			if (p < end && *p == ',') {
				p++;
				continue;
			}
			lit(close == '}' ? "}" : "]");
			return;
		}
	}
	if (*p == '"')
		str();
	else if (*p == 't')
		lit("true");
	else if (*p == 'f')
		lit("false");
	else if (*p == 'n')
		lit("null");
	else
		num();
}

static void utf8(const char *s, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i += k)
		if (!(k = s[i] ? tool_utf8_len(s + i) : 1))
			fail("not UTF-8");
}

static void xml(const char *s, size_t n)
{
	static const char *const ent[] = { "lt;", "gt;", "amp;", "quot;", "apos;" };
	const unsigned char *u = (const unsigned char *)s;
	size_t i, k;

	utf8(s, n);
	for (i = 0; i < n; i++) {
		if ((u[i] < 0x20 && u[i] != '\t') || strchr("<>\"'", u[i]))
			fail("XML: a character it cannot hold raw");
		if (i + 2 < n && u[i] == 0xef && u[i + 1] == 0xbf && u[i + 2] >= 0xbe)
			fail("XML: U+FFFE or U+FFFF");
		if (u[i] != '&')
			continue;
		for (k = 0; k < 5; k++)
			if (!strncmp(s + i + 1, ent[k], strlen(ent[k])))
				break;
		if (k == 5) {
			char *e;
			unsigned long c = strncmp(s + i + 1, "#x", 2) ? 0 : strtoul(s + i + 3, &e, 16);

			if (!c || *e != ';' || (c < 0x20 && c != '\t') || (c >= 0xd800 && c < 0xe000) ||
			    c == 0xfffe || c == 0xffff || c > 0x10ffff)
				fail("XML: bad entity");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *buf = NULL, *xbuf = NULL, *name;
	size_t len = 0, xlen = 0, off, n = 0;
	struct tool_json j;
	FILE *f, *x;
	double d;

	cachepin_set_print(fuzz_quiet);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	f = open_memstream(&buf, &len);
	x = open_memstream(&xbuf, &xlen);
	if (!f || !x)
		abort();
	tool_json_init(&j, f);
	tool_json_open(&j, NULL, '{', false);
	tool_json_open(&j, "names", '[', false);
	for (off = 0; off <= size && n < 64; off += strlen(text + off) + 1, n++) {
		name = text + off;
		tool_xml_str(x, name);
		tool_json_open(&j, NULL, '{', n & 1);
		tool_json_str(&j, name, name);
		d = 0.5;
		if (off + 8 <= size)
			memcpy(&d, data + off, 8);
		tool_json_num(&j, "w", n & 2 ? 3 : -6, d);
		tool_json_i64(&j, "i", -(int64_t)off);
		tool_json_close(&j);
	}
	tool_json_end(&j);
	fclose(f);
	fclose(x);
	p = buf;
	end = buf + len;
	utf8(buf, len);
	value(0);
	ws();
	if (p != end)
		fail("text after the document");
	xml(xbuf, xlen);
	free(buf);
	free(xbuf);
	free(text);
	return 0;
}
