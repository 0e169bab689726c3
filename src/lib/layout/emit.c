// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Emitters of a plan: the GNU ld fragment, the lld symbol-ordering file,
 * the GNU ld section-ordering file (the alignment file: align.c).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <uthash.h>
#include "cachepin/emit.h"
#include "emit-int.h"
#include "internal.h"

struct secname {
	const char *name;
	unsigned int n;
	UT_hash_handle hh;
};

static void free_sections(struct secname *h)
{
	struct secname *e, *tmp;

	HASH_ITER(hh, h, e, tmp) {
		HASH_DEL(h, e);
		free(e);
	}
}

/*
 * How many units carry each section name: unique ones need no object.
 * 0 or -ENOMEM (a partial count would leave patterns unqualified).
 */
static int count_sections(const struct cachepin_binary *bin, struct secname **out)
{
	struct secname *h = NULL, *e;
	size_t i;

	*out = NULL;
	for (i = 0; i < bin->nr_units; i++) {
		const char *n = bin->units[i].section;

		HASH_FIND_STR(h, n, e);
		if (!e) {
			e = calloc(1, sizeof(*e));
			if (!e) {
				free_sections(h);
				pr_warn("out of memory\n");
				return -ENOMEM;
			}
			e->name = n;
			HASH_ADD_KEYPTR(hh, h, n, strlen(n), e);
		}
		e->n++;
	}
	*out = h;
	return 0;
}

/*
 * A file pattern in a linker script: as it is, or quoted where a byte
 * would end it (a space, parentheses, a comma: "my dir/a.o"); ld's
 * quoted names still match as wildcards, and have no escape for '"'.
 * Returns 0 or -EINVAL after a message.
 */
static int put_file(FILE *f, const char *pat, const char *object)
{
	const char *c;

	if (strchr(pat, '"')) {
		pr_warn("'%s': a '\"' in an object's path cannot be written in a linker script\n", object);
		pr_warn("hint: link it from a path without one\n");
		return -EINVAL;
	}
	for (c = pat; *c; c++)
		if ((unsigned char)*c <= ' ' || strchr("(),;={}!'", *c))
			break;
	fprintf(f, *c ? "\"%s\"" : "%s", pat);
	return 0;
}

/*
 * The file pattern of an object as ld's map names it: "a.a(m.o)" ->
 * "*a.a:m.o", then the section.  Returns 0 or -EINVAL (see put_file), -ENOMEM.
 */
static int put_pattern(FILE *f, const struct cachepin_unit *u, struct secname *names)
{
	struct secname *e;
	const char *o = u->object, *paren;
	char *pat;
	int err;

	HASH_FIND_STR(names, u->section, e);
	if (!o || (e && e->n == 1)) {
		fprintf(f, "*(%s)", u->section);
		return 0;
	}
	paren = strchr(o, '(');
	if (paren && o[strlen(o) - 1] == ')')
		err = asprintf(&pat, "*%.*s:%.*s", (int)(paren - o), o, (int)(strlen(paren) - 2), paren + 1);
	else
		err = asprintf(&pat, "%s%s", o[0] == '/' ? "" : "*", o);
	if (err < 0)
		return -ENOMEM;
	err = put_file(f, pat, o);
	free(pat);
	if (!err)
		fprintf(f, "(%s)", u->section);
	return err;
}

void emit_header(FILE *f, const struct cachepin_layout *l, const struct cachepin_emit_info *info,
		 const char *lead)
{
	size_t i;

	fprintf(f, "%s cachepin %s; binary build-id %s; profile %016" PRIx64 "\n", lead,
		info->version, *info->build_id ? info->build_id : "-", info->profile_digest);
	if (l->unchanged) {
		fprintf(f, "%s no block: the link stays\n", lead);
	} else {
		fprintf(f, "%s block aligned to %" PRIu64 " bytes, %" PRIu64 " bytes: %zu hot units, %zu fill units, %" PRIu64
			" bytes of padding", lead, l->block_align, l->block_size, l->nr_hot, l->nr_fill, l->pad);
		if (l->growth)
			fprintf(f, " (%" PRIu64 " of them room for %" PRIu64 " bytes of growth)", l->pad_growth,
				l->growth);
		fputc('\n', f);
	}
	for (i = 0; i < info->nr_scores; i++) {
		const struct cachepin_emit_score *s = &info->scores[i];

		fprintf(f, "%s cache %s (%s): modelled misses before %" PRIu64 " after %" PRIu64
			" of %" PRIu64 " fetches (%+.1f %%)\n", lead, s->cache, s->repl, s->before,
			s->after, s->fetches,
			s->before ? 100.0 * ((double)s->after - (double)s->before) / (double)s->before : 0);
	}
}

/*
 * The standalone script's block is the start of the .text output
 * section, not an output section of its own: valgrind takes a program's
 * code, its symbols' files and lines from the bounds of the section
 * named .text, and gave every function of a .text.hot section to "???".
 * An INSERTed .text is a second output section of that name, so it
 * takes what GNU ld's default scripts put in .text (all targets' lists
 * in one; patterns that match nothing cost nothing), and the default
 * .text, left empty, is dropped.  It goes before the default .text (GNU
 * ld gives an input section to the first statement that matches it),
 * so every other section stays where the link had it.  lld cannot
 * insert a .text before the .text it replaces; after .init it can.
 */
static const char *const default_text[] = {
	"*(.text.unlikely .text.*_unlikely .text.unlikely.*)",
	"*(.text.exit .text.exit.*)",
	"*(.text.startup .text.startup.*)",
	"*(.text.hot .text.hot.*)",
	"*(SORT(.text.sorted.*))",
	"*(.text .stub .text.* .gnu.linkonce.t.*)",
	"*(.gnu.warning)",
	"*(.glue_7t) *(.glue_7) *(.vfp11_veneer) *(.v4_bx)",	/* ARM */
	"*(.mips16.fn.*) *(.mips16.call.*)",			/* MIPS */
};

int cachepin_emit__ldscript(FILE *f, const struct cachepin_layout *l,
			    const struct cachepin_emit_info *info)
{
	const struct cachepin_binary *bin = l->bin;
	const char *ind = info->standalone ? "\t\t" : "";
	struct secname *names;
	uint64_t end = 0;	/* of the units emitted */
	size_t i;
	int err;

	if (count_sections(bin, &names))
		return -ENOMEM;
	fprintf(f, "/*\n");
	emit_header(f, l, info, " *");
	if (l->unchanged) {
		/* no ALIGN either: the kernel hook copies the first one to the end of TEXT_TEXT */
		fprintf(f, " * No layout: no candidate beat the link, so nothing moves.\n */\n");
		if (info->standalone)
			fprintf(f, "SECTIONS\n{\n}\nINSERT BEFORE .text;\n");
		free_sections(names);
		return ferror(f) ? -EIO : 0;
	}
	fprintf(f, " * Hot units sit at fixed offsets from __cachepin_start; cold units fill the gaps.\n */\n");
	if (info->standalone)
		fprintf(f, "SECTIONS\n{\n\t.text : {\n");
	if (info->head_object) {
		char *pat;

		if (asprintf(&pat, "*%s", info->head_object) < 0) {
			free_sections(names);
			return -ENOMEM;
		}
		fputs(ind, f);
		err = put_file(f, pat, info->head_object);
		free(pat);
		if (err) {
			free_sections(names);
			return err;
		}
		fprintf(f, "(.text)\t/* entry code: must stay first */\n");
	}
	fprintf(f, "%s. = ALIGN(0x%" PRIx64 ");\n%s__cachepin_start = .;\n", ind, l->block_align, ind);
	for (i = 0; i < l->nr_units; i++) {
		const struct cachepin_layout_unit *pu = &l->units[i];
		const struct cachepin_unit *u = &bin->units[pu->unit];

		/*
		 * A hot unit is pinned at its offset; so is a fill unit after
		 * padding: its alignment may be the map's guess, larger than
		 * the object's, and the "keep" fill leaves a unit at its
		 * distance from the next hot one, past its alignment.  Without
		 * the pin ld would put it sooner than the plan says.
		 */
		if ((pu->hot && pu->off) || (!pu->hot && pu->off > end))
			fprintf(f, "%s. = MAX(., __cachepin_start + 0x%" PRIx64 ");\n", ind, pu->off);
		end = pu->off + pu->size;
		fputs(ind, f);
		if ((err = put_pattern(f, u, names))) {
			free_sections(names);
			return err;
		}
		if (!pu->hot)
			fprintf(f, "\t/* fill */");
		fputc('\n', f);
	}
	fprintf(f, "%s__cachepin_end = .;\n", ind);
	if (info->standalone) {
		fprintf(f, "\t\t/* the rest of .text, as in GNU ld's default scripts */\n");
		for (i = 0; i < ARRAY_SIZE(default_text); i++)
			fprintf(f, "\t\t%s\n", default_text[i]);
		fprintf(f, "\t}\n}\nINSERT BEFORE .text;\t/* lld: INSERT AFTER .init; */\n");
	}
	free_sections(names);
	return ferror(f) ? -EIO : 0;
}

int cachepin_emit__lld_order(FILE *f, const struct cachepin_layout *l)
{
	const struct cachepin_binary *bin = l->bin;
	size_t i, j;

	fprintf(f, "# lld --symbol-ordering-file: order only, no alignment or padding\n");
	for (i = 0; i < l->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[l->units[i].unit];

		for (j = 0; j < u->nr_funcs; j++)
			fprintf(f, "%s\n", bin->funcs[u->first_func + j].name);
	}
	return ferror(f) ? -EIO : 0;
}

int cachepin_emit__section_order(FILE *f, const struct cachepin_layout *l)
{
	const struct cachepin_binary *bin = l->bin;
	struct secname *names;
	size_t i;
	int err;

	if (count_sections(bin, &names))
		return -ENOMEM;
	fprintf(f, "/* GNU ld >= 2.43 --section-ordering-file: prepended to .text, no padding */\n");
	fprintf(f, ".text : {\n");
	for (i = 0; i < l->nr_units; i++) {
		fputc('\t', f);
		if ((err = put_pattern(f, &bin->units[l->units[i].unit], names))) {
			free_sections(names);
			return err;
		}
		fputc('\n', f);
	}
	fprintf(f, "}\n");
	free_sections(names);
	return ferror(f) ? -EIO : 0;
}

