// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What-if edits: parsed from the command line or a file, applied to an
 * editable link in order, each checked against the binary (the unit it
 * names, fixed code, the output section) and the result laid out, an
 * overlap named by the edit that made it.
 */
#include <inttypes.h>
#include "cachepin/whatif.h"
#include "internal.h"
#include "scan.h"

#define MOVE_PAST (1u << 20)	/* how far past its section's end a unit may move */

static const struct {
	const char *name;
	enum cachepin_edit_kind kind;
	int args;		/* after the function: 0, 1 number, 2 a function */
} kinds[] = {
	{ "move", CACHEPIN_EDIT_MOVE, 1 },
	{ "after", CACHEPIN_EDIT_AFTER, 2 },
	{ "swap", CACHEPIN_EDIT_SWAP, 2 },
	{ "align", CACHEPIN_EDIT_ALIGN, 1 },
	{ "grow", CACHEPIN_EDIT_GROW, 1 },
	{ "shrink", CACHEPIN_EDIT_SHRINK, 1 },
	{ "pad", CACHEPIN_EDIT_PAD, 1 },
	{ "pin", CACHEPIN_EDIT_PIN, 0 },
};

#define EDIT_HINT "hint: edits are move FUNC ADDR|+N|-N, after FUNC OTHER, swap FUNC OTHER, align FUNC N, grow FUNC N, shrink FUNC N, pad FUNC N, pin FUNC\n"

int cachepin_edit__read(const char *path, struct cachepin_edit **edits, size_t *nr, size_t *cap)
{
	struct scan_reader r = { 0 };
	unsigned long lineno = 0;
	char *line, where[4200];
	int err = 0;

	if (!(r.f = fopen(path, "r"))) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(-err));
		return err;
	}
	while (!err && (line = cachepin_scan_text_line(&r, path, &lineno, &err))) {
		char *hash = strchr(line, '#');

		if (hash)
			*hash = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line)
			continue;
		if (GROW(*edits, *cap, *nr + 1)) {
			pr_warn("out of memory\n");
			err = -ENOMEM;
			break;
		}
		snprintf(where, sizeof(where), "'%.4000s':%lu", path, lineno);
		if (!(err = cachepin_edit__parse(&(*edits)[*nr], line, where)))
			++*nr;
	}
	cachepin_scan_release(&r);
	fclose(r.f);
	return err;
}

void cachepin_edit__release(struct cachepin_edit *e)
{
	if (!e)
		return;
	free(e->text);
	free(e->where);
	free(e->func);
	free(e->other);
	memset(e, 0, sizeof(*e));
}

static char *dup_field(const struct scan_field *f)
{
	size_t n = (size_t)(f->e - f->p);
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, f->p, n);
		s[n] = '\0';
	}
	return s;
}

/* A number: decimal, or hex with 0x. */
static bool number(const struct scan_field *f, uint64_t *v)
{
	return scan_hex0x(f->p, f->e, v) || scan_u64(f->p, f->e, v);
}

int cachepin_edit__parse(struct cachepin_edit *e, const char *text, const char *where)
{
	const char *p = text, *end = text + strlen(text), *why = NULL;
	struct scan_field f[4];
	size_t nf, k;

	memset(e, 0, sizeof(*e));
	nf = scan_fields(p, end, f, ARRAY_SIZE(f));
	e->text = cachepin_strdup(text);
	e->where = cachepin_strdup(where);
	if (!e->text || !e->where)
		goto nomem;
	for (k = 0; nf && k < ARRAY_SIZE(kinds); k++)
		if (scan_eq(f[0].p, f[0].e, kinds[k].name))
			break;
	if (!nf || k == ARRAY_SIZE(kinds)) {
		why = "unknown edit";
		goto bad;
	}
	e->kind = kinds[k].kind;
	if (nf != (size_t)(kinds[k].args ? 3 : 2)) {
		why = kinds[k].args == 0 ? "it takes a function" :
		      kinds[k].args == 2 ? "it takes two functions" : "it takes a function and a number";
		goto bad;
	}
	if (!(e->func = dup_field(&f[1])))
		goto nomem;
	if (kinds[k].args == 2 && !(e->other = dup_field(&f[2])))
		goto nomem;
	if (kinds[k].args == 1) {
		struct scan_field num = f[2];

		if (e->kind == CACHEPIN_EDIT_MOVE && (*num.p == '+' || *num.p == '-')) {
			e->relative = true;
			e->backwards = *num.p == '-';
			num.p++;
		}
		if (!number(&num, &e->n)) {
			why = "not a number (decimal, or hex with 0x)";
			goto bad;
		}
		if (e->kind == CACHEPIN_EDIT_ALIGN && (!e->n || (e->n & (e->n - 1)) || e->n > (1u << 24))) {
			why = "the alignment is not a power of two up to 16 MiB";
			goto bad;
		}
		if ((e->kind == CACHEPIN_EDIT_GROW || e->kind == CACHEPIN_EDIT_SHRINK ||
		     e->kind == CACHEPIN_EDIT_PAD || e->relative) && e->n > (1u << 30)) {
			why = "more than 1 GiB";
			goto bad;
		}
	}
	return 0;
bad:
	/* an edit is a short line: a long one is no edit, and is not echoed whole */
	pr_warn("%s: bad edit '%.80s%s': %s\n", where, text, strlen(text) > 80 ? "..." : "", why);
	pr_warn(EDIT_HINT);
	cachepin_edit__release(e);
	return -EINVAL;
nomem:
	pr_warn("out of memory\n");
	cachepin_edit__release(e);
	return -ENOMEM;
}

/* The unit of function NAME ("NAME" or "OBJECT:NAME"), or -1 after logging. */
static int64_t edit_unit(const struct cachepin_relink *r, const struct cachepin_edit *e,
			 const char *name, bool movable)
{
	const struct cachepin_binary *bin = r->bin;
	const char *colon = strrchr(name, ':'), *fname = colon ? colon + 1 : name;
	char *object = colon ? strndup(name, (size_t)(colon - name)) : NULL;
	const struct cachepin_func *f;
	const struct cachepin_unit *u;
	bool amb = false;

	f = cachepin_binary__lookup(bin, fname, object, &amb);
	free(object);
	if (!f) {
		pr_warn("%s: %s: no function '%s' in '%s'\n", e->where, e->text, name, bin->path);
		return -1;
	}
	if (amb) {
		pr_warn("%s: %s: '%s' names several functions of '%s'\n", e->where, e->text, name,
			bin->path);
		pr_warn("hint: give OBJECT:NAME, the object as the link map names it\n");
		return -1;
	}
	u = cachepin_binary__func_unit(bin, f);
	if (!u || u->outsec < 0 || !bin->secs[u->outsec].exec) {
		pr_warn("%s: %s: '%s' is in no unit a linker script can place (no link map?)\n",
			e->where, e->text, name);
		pr_warn("hint: give the link map with -m\n");
		return -1;
	}
	if (movable && (u->flags & CACHEPIN_UNIT_FIXED)) {
		pr_warn("%s: %s: '%s' is in fixed code (%s)\n", e->where, e->text, name,
			u->fixed_why ? u->fixed_why : "fixed");
		return -1;
	}
	return u - bin->units;
}

/* The unit at ADDR in R's current layout, or -1. */
static int64_t unit_at(const struct cachepin_relink *r, uint64_t addr)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		uint32_t k = r->order[i];

		if (addr >= r->addr[k] && addr < r->addr[k] + r->size[k])
			return k;
	}
	return -1;
}

static int apply_move(struct cachepin_relink *r, const struct cachepin_edit *e, uint32_t u)
{
	const struct cachepin_binary *bin = r->bin;
	uint64_t to = e->n;
	int64_t at;
	size_t i;
	uint32_t culprit;

	if (cachepin_relink__lay(r, &culprit)) {
		if (culprit != UINT32_MAX)
			pr_warn("%s: %s: the edits before it make %s overlap what comes before it\n",
				e->where, e->text, bin->units[culprit].section);
		return -EINVAL;
	}
	if (e->relative) {
		if (e->backwards && e->n > r->addr[u]) {
			pr_warn("%s: %s: before address 0\n", e->where, e->text);
			return -EINVAL;
		}
		to = e->backwards ? r->addr[u] - e->n : r->addr[u] + e->n;
	}
	at = unit_at(r, to);
	if (at >= 0 && (uint32_t)at != u && (bin->units[at].flags & CACHEPIN_UNIT_FIXED)) {
		pr_warn("%s: %s: 0x%" PRIx64 " is inside fixed code (%s, %s)\n", e->where, e->text, to,
			bin->units[at].section, bin->units[at].fixed_why ? bin->units[at].fixed_why : "fixed");
		return -EINVAL;
	}
	if (to < bin->secs[bin->units[u].outsec].addr) {
		pr_warn("%s: %s: 0x%" PRIx64 " is outside '%s'\n", e->where, e->text, to,
			bin->secs[bin->units[u].outsec].name);
		return -EINVAL;
	}
	/*
	 * Past the section's end a unit opens a gap: 1 MiB reaches every set
	 * of any L1 cache, and a bigger one is padding a link would carry.
	 */
	if (to >= bin->secs[bin->units[u].outsec].addr + bin->secs[bin->units[u].outsec].size + MOVE_PAST) {
		pr_warn("%s: %s: 0x%" PRIx64 " is more than 1 MiB past the end of '%s'\n", e->where, e->text,
			to, bin->secs[bin->units[u].outsec].name);
		return -EINVAL;
	}
	/* into the link order before the first unit of its section laid at or after TO */
	for (i = 0; i < r->nr; i++) {
		uint32_t k = r->order[i];

		if (k != u && bin->units[k].outsec == bin->units[u].outsec && r->addr[k] >= to) {
			cachepin_relink__move(r, u, k, false);
			break;
		}
	}
	if (i == r->nr) {
		uint32_t last = UINT32_MAX;

		for (i = 0; i < r->nr; i++)
			if (r->order[i] != u && bin->units[r->order[i]].outsec == bin->units[u].outsec)
				last = r->order[i];
		if (last != UINT32_MAX)
			cachepin_relink__move(r, u, last, true);
	}
	r->at[u] = to;
	r->pad[u] = 0;
	return 0;
}

static int apply_one(struct cachepin_relink *r, const struct cachepin_edit *e, uint32_t *set_by,
		     uint32_t idx, const uint64_t *orig)
{
	bool movable = e->kind != CACHEPIN_EDIT_GROW && e->kind != CACHEPIN_EDIT_SHRINK &&
		       e->kind != CACHEPIN_EDIT_PIN;
	int64_t u = edit_unit(r, e, e->func, movable), o = -1;
	size_t i, iu = 0, io = 0;
	uint64_t t;

	if (u < 0)
		return -EINVAL;
	if (e->other) {
		o = edit_unit(r, e, e->other, true);
		if (o < 0)
			return -EINVAL;
		/*
		 * Across output sections only orphans move: a script rule
		 * (the fragment -o writes) pulls them into another section
		 */
		if (o == u || (r->sec[o] != r->sec[u] &&
			       !(e->kind == CACHEPIN_EDIT_AFTER && cachepin_relink__orphan(r, (uint32_t)u)) &&
			       !(e->kind == CACHEPIN_EDIT_SWAP && cachepin_relink__orphan(r, (uint32_t)u) &&
				 cachepin_relink__orphan(r, (uint32_t)o)))) {
			pr_warn("%s: %s: %s\n", e->where, e->text,
				o == u ? "both functions are in one unit" :
				"the two functions are in different output sections");
			return -EINVAL;
		}
		if (e->kind == CACHEPIN_EDIT_SWAP) {
			int t2 = r->sec[u];

			r->sec[u] = r->sec[o];
			r->sec[o] = t2;
		} else {
			r->sec[u] = r->sec[o];
		}
	}
	switch (e->kind) {
	case CACHEPIN_EDIT_MOVE:
		set_by[u] = idx;
		return apply_move(r, e, (uint32_t)u);
	case CACHEPIN_EDIT_AFTER:
		cachepin_relink__move(r, (uint32_t)u, (uint32_t)o, true);
		r->at[u] = 0;
		r->pad[u] = 0;
		return 0;
	case CACHEPIN_EDIT_SWAP:
		for (i = 0; i < r->nr; i++) {
			if (r->order[i] == u)
				iu = i;
			if (r->order[i] == o)
				io = i;
		}
		r->order[iu] = (uint32_t)o;
		r->order[io] = (uint32_t)u;
		/* units a plan pinned exchange their slots too */
		t = r->at[u], r->at[u] = r->at[o], r->at[o] = t;
		t = r->pad[u], r->pad[u] = r->pad[o], r->pad[o] = t;
		t = set_by[u], set_by[u] = set_by[o], set_by[o] = (uint32_t)t;
		return 0;
	case CACHEPIN_EDIT_ALIGN:
		r->align[u] = e->n;
		return 0;
	case CACHEPIN_EDIT_GROW:
		r->size[u] += e->n;
		return 0;
	case CACHEPIN_EDIT_SHRINK:
		if (e->n > r->size[u]) {
			pr_warn("%s: %s: the unit of '%s' has only %" PRIu64 " bytes\n", e->where, e->text,
				e->func, r->size[u]);
			return -EINVAL;
		}
		r->size[u] -= e->n;
		return 0;
	case CACHEPIN_EDIT_PAD:
		r->pad[u] += e->n;
		return 0;
	case CACHEPIN_EDIT_PIN:
		r->at[u] = orig[u];
		set_by[u] = idx;
		return 0;
	}
	return -EINVAL;
}

int cachepin_edit__apply(struct cachepin_relink *r, const struct cachepin_edit *e, size_t n)
{
	uint32_t *set_by = malloc((r->bin->nr_units + 1) * sizeof(*set_by)), culprit;
	uint64_t *orig = malloc((r->bin->nr_units + 1) * sizeof(*orig));
	size_t i;
	int err = 0;

	if (!set_by || !orig) {
		free(set_by);
		free(orig);
		pr_warn("out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < r->bin->nr_units; i++)
		set_by[i] = UINT32_MAX;
	/* pins hold the address the unit has before the edits */
	if ((err = cachepin_relink__lay(r, &culprit)))
		goto out;
	memcpy(orig, r->addr, r->bin->nr_units * sizeof(*orig));
	for (i = 0; i < n && !err; i++)
		err = apply_one(r, &e[i], set_by, (uint32_t)i, orig);
	if (err)
		goto out;
	if ((err = cachepin_relink__lay(r, &culprit))) {
		const struct cachepin_unit *u;

		if (culprit == UINT32_MAX)
			goto out;
		u = &r->bin->units[culprit];
		if (set_by[culprit] != UINT32_MAX)
			pr_warn("%s: %s: the code before it now reaches past 0x%" PRIx64 " (overlapping moves)\n",
				e[set_by[culprit]].where, e[set_by[culprit]].text, r->at[culprit]);
		else
			pr_warn("the edits make the code before %s overlap it at 0x%" PRIx64 ", where the plan puts it\n",
				u->section, r->at[culprit]);
		err = -EINVAL;
	}
out:
	free(set_by);
	free(orig);
	return err;
}
