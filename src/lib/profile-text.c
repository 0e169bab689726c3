// SPDX-License-Identifier: GPL-2.0-or-later
/* The text format of a profile, cachepin-profile(5): writer and reader. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <uthash.h>
#include "cachepin/profile.h"
#include "internal.h"
#include "profile-int.h"

static void put_num(FILE *f, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.9g", v);
}

int cachepin_profile__write(const struct cachepin_profile *p, FILE *f)
{
	size_t i, j;

	fprintf(f, "# cachepin-profile 1\n");
	fprintf(f, "event %s\n", p->event ? p->event : "-");
	fprintf(f, "binary %s\n", p->binary ? p->binary : "-");
	fprintf(f, "build-id %s\n", p->build_id && *p->build_id ? p->build_id : "-");
	fprintf(f, "granule %u\n", p->granule);
	fprintf(f, "samples %" PRIu64 " %" PRIu64 "\n", p->nr_samples, p->nr_matched);
	fprintf(f, "period ");
	put_num(f, p->period_sum);
	fputc(' ', f);
	put_num(f, p->matched_weight);
	fputc('\n', f);
	for (i = 0; i < p->nr_funcs; i++) {
		const struct cachepin_pfunc *pf = &p->funcs[i];

		fprintf(f, "f %s %s ", pf->name, pf->object ? pf->object : "-");
		put_num(f, pf->weight);
		fprintf(f, " %" PRIu64 " ", pf->samples);
		put_num(f, pf->incl);
		fprintf(f, " %" PRIu64 "\n", pf->size);
		for (j = 0; j < pf->nr_grans; j++) {
			fprintf(f, "g 0x%x ", pf->grans[j].off);
			put_num(f, pf->grans[j].weight);
			fputc('\n', f);
		}
	}
	for (i = 0; i < p->nr_edges; i++) {
		const struct cachepin_pedge *e = &p->edges[i];
		const struct cachepin_pfunc *a = &p->funcs[e->caller], *b = &p->funcs[e->callee];

		fprintf(f, "e %s %s %s %s ", a->name, a->object ? a->object : "-",
			b->name, b->object ? b->object : "-");
		if (e->callsite == UINT32_MAX)
			fprintf(f, "- ");
		else
			fprintf(f, "0x%x ", e->callsite);
		put_num(f, e->weight);
		fprintf(f, " %s%s\n", e->flags & CACHEPIN_PEDGE_DYNAMIC ? "d" : "",
			e->flags & CACHEPIN_PEDGE_STATIC ? "s" : "");
	}
	return ferror(f) ? -EIO : 0;
}

/* Split LINE in place into at most MAX whitespace-separated fields. */
static int split(char *line, char **fv, int max)
{
	int n = 0;

	while (*line && n < max) {
		while (isspace((unsigned char)*line))
			line++;
		if (!*line)
			break;
		fv[n++] = line;
		while (*line && !isspace((unsigned char)*line))
			line++;
		if (*line)
			*line++ = '\0';
	}
	return n;
}

static int parse_num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return (*end || errno || !isfinite(*v) || end == s) ? -EINVAL : 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return (*end || errno) ? -EINVAL : 0;
}

struct fkey_ent {
	char *key;		/* "name\tobject" */
	uint32_t idx;
	UT_hash_handle hh;
};

static char *fkey(const char *name, const char *obj)
{
	size_t a = strlen(name), b = obj ? strlen(obj) : 1;
	char *k = malloc(a + b + 2);

	if (!k)
		return NULL;
	memcpy(k, name, a);
	k[a] = '\t';
	memcpy(k + a + 1, obj ? obj : "-", b + 1);
	return k;
}

struct cachepin_profile *cachepin_profile__read(const char *path)
{
	struct cachepin_profile *p = NULL;
	struct cachepin_pfunc *cur = NULL;
	struct fkey_ent *idx = NULL, *ke, *ktmp;
	char *line = NULL, *fv[10];
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	const char *what = NULL;
	int err = 0, nf;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		errno = -err;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		err = -ENOMEM;
		goto out;
	}
	p->granule = CACHEPIN_PROFILE_GRANULE;
	while ((len = getline(&line, &cap, f)) > 0) {
		double v;
		uint64_t u;

		lineno++;
		if (lineno == 1) {
			if (strncmp(line, "# cachepin-profile 1", 20)) {
				what = "not a cachepin profile (no '# cachepin-profile 1' line)";
				goto bad;
			}
			continue;
		}
		if (line[0] == '#')
			continue;
		nf = split(line, fv, (int)ARRAY_SIZE(fv));
		if (!nf)
			continue;
		if (!strcmp(fv[0], "f")) {
			if (nf != 7) {
				what = "'f' needs name, object, weight, samples, inclusive, size";
				goto bad;
			}
			cur = cachepin_profile_add_func(p, fv[1], strcmp(fv[2], "-") ? fv[2] : NULL);
			if (!cur) {
				err = -ENOMEM;
				goto out;
			}
			if (parse_num(fv[3], &cur->weight) || parse_u64(fv[4], &cur->samples) ||
			    parse_num(fv[5], &cur->incl) || parse_u64(fv[6], &cur->size) ||
			    cur->weight < 0) {
				what = "bad number in 'f' line";
				goto bad;
			}
			ke = calloc(1, sizeof(*ke));
			if (!ke || !(ke->key = fkey(cur->name, cur->object))) {
				free(ke);
				err = -ENOMEM;
				goto out;
			}
			ke->idx = (uint32_t)(p->nr_funcs - 1);
			HASH_ADD_KEYPTR(hh, idx, ke->key, strlen(ke->key), ke);
		} else if (!strcmp(fv[0], "g")) {
			if (!cur || nf != 3 || parse_u64(fv[1], &u) || parse_num(fv[2], &v) ||
			    u > UINT32_MAX || v < 0) {
				what = "bad 'g' line (needs a preceding 'f', offset, weight)";
				goto bad;
			}
			if (cachepin_pfunc_add_gran(cur, (uint32_t)u, v)) {
				err = -ENOMEM;
				goto out;
			}
		} else if (!strcmp(fv[0], "e")) {
			struct fkey_ent *a, *b;
			char *k1, *k2;
			uint64_t cs = UINT32_MAX;
			unsigned int fl = 0;

			if (nf != 8 || (strcmp(fv[5], "-") && parse_u64(fv[5], &cs)) ||
			    parse_num(fv[6], &v)) {
				what = "bad 'e' line (caller, object, callee, object, callsite, weight, flags)";
				goto bad;
			}
			k1 = fkey(fv[1], strcmp(fv[2], "-") ? fv[2] : NULL);
			k2 = fkey(fv[3], strcmp(fv[4], "-") ? fv[4] : NULL);
			if (!k1 || !k2) {
				free(k1);
				free(k2);
				err = -ENOMEM;
				goto out;
			}
			HASH_FIND_STR(idx, k1, a);
			HASH_FIND_STR(idx, k2, b);
			free(k1);
			free(k2);
			if (!a || !b) {
				what = "edge names a function that has no 'f' line";
				goto bad;
			}
			if (strchr(fv[7], 'd'))
				fl |= CACHEPIN_PEDGE_DYNAMIC;
			if (strchr(fv[7], 's'))
				fl |= CACHEPIN_PEDGE_STATIC;
			if (cachepin_profile_add_edge(p, a->idx, b->idx, (uint32_t)cs, v, fl)) {
				err = -ENOMEM;
				goto out;
			}
		} else if (!strcmp(fv[0], "event") && nf == 2) {
			free(p->event);
			p->event = strcmp(fv[1], "-") ? strdup(fv[1]) : NULL;
		} else if (!strcmp(fv[0], "binary") && nf == 2) {
			free(p->binary);
			p->binary = strdup(fv[1]);
		} else if (!strcmp(fv[0], "build-id") && nf == 2) {
			free(p->build_id);
			p->build_id = strdup(strcmp(fv[1], "-") ? fv[1] : "");
		} else if (!strcmp(fv[0], "granule") && nf == 2) {
			if (parse_u64(fv[1], &u) || !u || u > 4096) {
				what = "bad granule";
				goto bad;
			}
			p->granule = (uint32_t)u;
		} else if (!strcmp(fv[0], "samples") && nf == 3) {
			if (parse_u64(fv[1], &p->nr_samples) || parse_u64(fv[2], &p->nr_matched)) {
				what = "bad 'samples' line";
				goto bad;
			}
		} else if (!strcmp(fv[0], "period") && nf == 3) {
			if (parse_num(fv[1], &p->period_sum) || parse_num(fv[2], &p->matched_weight)) {
				what = "bad 'period' line";
				goto bad;
			}
		} else {
			what = "unknown line";
			goto bad;
		}
	}
	if (lineno == 0) {
		what = "empty file";
		goto bad;
	}
	if (cachepin_profile_sort(p))
		err = -ENOMEM;
	goto out;
bad:
	pr_warn("'%s':%lu: %s\n", path, lineno ? lineno : 1, what);
	err = -EINVAL;
out:
	HASH_ITER(hh, idx, ke, ktmp) {
		HASH_DEL(idx, ke);
		free(ke->key);
		free(ke);
	}
	free(line);
	fclose(f);
	if (err) {
		cachepin_profile__free(p);
		errno = -err;
		return NULL;
	}
	return p;
}
