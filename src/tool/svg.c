// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A picture of the cache (score --svg, diff --svg, whatif --svg): one
 * panel per layout, the sets along the x axis, each set's hot lines as
 * a bar against a line at the number of ways; over-full sets in red;
 * each bar's tooltip names the set, its lines, misses and functions.
 * Plain SVG 1.1, no script: any browser shows it, tooltips included.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cachepin/score.h"
#include "tool.h"

#define PANEL_H 220	/* plot height of a panel */
#define TOP_PAD 44	/* its title and legend */
#define BOTTOM_PAD 34	/* set numbers */
#define LEFT 56
#define RIGHT 24

struct svg_ctx {
	const struct cachepin_binary *const *bin;	/* per panel */
	const struct cachepin_score *const *s;
	const char *const *titles;
	size_t n;
};

/* Per set of S: its lines' indices grouped, START[set]..START[set+1]. */
static int lines_by_set(const struct cachepin_score *s, size_t **start, size_t **idx)
{
	uint32_t sets = s->cache.sets, k;
	size_t i, *st = calloc((size_t)sets + 2, sizeof(*st)), *ix = malloc((s->nr_lines + 1) * sizeof(*ix));
	size_t *fill = calloc((size_t)sets + 1, sizeof(*fill));

	if (!st || !ix || !fill) {
		free(st);
		free(ix);
		free(fill);
		return -1;
	}
	for (i = 0; i < s->nr_lines; i++)
		st[(s->line_no[i] & (sets - 1)) + 1]++;
	for (k = 0; k < sets; k++)
		st[k + 1] += st[k];
	for (i = 0; i < s->nr_lines; i++) {
		k = (uint32_t)(s->line_no[i] & (sets - 1));
		ix[st[k] + fill[k]++] = i;
	}
	free(fill);
	*start = st;
	*idx = ix;
	return 0;
}

/* The tooltip of SET: its numbers, then each function with its lines there. */
static void tooltip(FILE *f, const struct cachepin_binary *bin, const struct cachepin_score *s,
		    uint32_t set, const size_t *idx, size_t n)
{
	const struct cachepin_score_set *ss = &s->sets[set];
	size_t i, j, shown = 0;

	fprintf(f, "<title>set %u: %u hot lines in %u ways, %" PRIu64 " LRU misses", set, ss->lines,
		s->cache.ways, ss->miss[CACHEPIN_REPL_LRU]);
	/* functions in order of first appearance, with their line counts */
	for (i = 0; i < n; i++) {
		uint32_t fi = s->line_func[idx[i]];
		size_t cnt = 0;

		for (j = 0; j < i; j++)
			if (s->line_func[idx[j]] == fi)
				break;
		if (j < i)
			continue;
		for (j = i; j < n; j++)
			cnt += s->line_func[idx[j]] == fi;
		if (shown++ == 12) {
			fprintf(f, "&#10;...");
			break;
		}
		fprintf(f, "&#10;");
		tool_xml_str(f, fi < bin->nr_funcs ? bin->funcs[fi].name : "?");
		fprintf(f, " (%zu)", cnt);
	}
	fprintf(f, "</title>");
}

/* Width of a set's bar for a cache of SETS sets. */
static double bar_width(uint32_t sets)
{
	double bw = 1200.0 / sets;

	return bw > 16 ? 16 : bw < 1 ? 1 : bw;
}

static int svg_write(FILE *f, void *ctx)
{
	const struct svg_ctx *c = ctx;
	uint32_t maxl = 0, k;
	size_t p, width = 640, height;

	for (p = 0; p < c->n; p++) {
		const struct cachepin_cache *cc = &c->s[p]->cache;
		size_t w = LEFT + (size_t)(bar_width(cc->sets) * cc->sets + 0.5) + RIGHT;

		if (w > width)
			width = w;
		if (cc->ways * 2 > maxl)
			maxl = cc->ways * 2;
		for (k = 0; k < cc->sets; k++)
			if (c->s[p]->sets[k].lines > maxl)
				maxl = c->s[p]->sets[k].lines;
	}
	height = c->n * (TOP_PAD + PANEL_H + BOTTOM_PAD);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%zu\" height=\"%zu\" "
		"viewBox=\"0 0 %zu %zu\" font-family=\"sans-serif\" font-size=\"12\">\n", width, height, width,
		height);
	fprintf(f, "<style>.set { fill: #4a7bb7; } .set.over { fill: #c0392b; } .ways { stroke: #222; "
		"stroke-dasharray: 5 3; } .axis { stroke: #888; } rect.set:hover { fill: #f39c12; }</style>\n");
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	for (p = 0; p < c->n; p++) {
		const struct cachepin_score *s = c->s[p];
		const struct cachepin_cache *cc = &s->cache;
		uint32_t sets = cc->sets;
		double bw = bar_width(sets);
		double y0 = (double)p * (TOP_PAD + PANEL_H + BOTTOM_PAD) + TOP_PAD, base = y0 + PANEL_H;
		double wy = base - (double)PANEL_H * cc->ways / maxl;
		size_t *start, *idx;
		uint32_t over = 0;

		if (lines_by_set(s, &start, &idx))
			return -ENOMEM;
		for (k = 0; k < sets; k++)
			over += s->sets[k].lines > cc->ways;
		fprintf(f, "<g class=\"panel\" id=\"panel%zu\">\n<text class=\"title\" x=\"%d\" y=\"%.0f\" font-size=\"14\">",
			p, LEFT, y0 - 24);
		tool_xml_str(f, c->titles[p]);
		fprintf(f, "</text>\n<text class=\"legend\" x=\"%d\" y=\"%.0f\">%s: %u sets, %u over-full (red); "
			"%" PRIu64 " modelled LRU misses; bars: hot lines per set</text>\n", LEFT, y0 - 8, cc->name,
			sets, over, s->miss[CACHEPIN_REPL_LRU]);
		fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LEFT, base,
			LEFT + bw * sets, base);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">0</text>\n", LEFT - 6, base + 4);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%u</text>\n", LEFT - 6, y0 + 4, maxl);
		for (k = 0; k < sets; k++) {
			const struct cachepin_score_set *ss = &s->sets[k];
			double h = (double)PANEL_H * ss->lines / maxl;

			if (!ss->lines)
				continue;
			fprintf(f, "<rect class=\"set%s\" data-set=\"%u\" data-lines=\"%u\" x=\"%.2f\" y=\"%.2f\" "
				"width=\"%.2f\" height=\"%.2f\">", ss->lines > cc->ways ? " over" : "", k, ss->lines,
				LEFT + bw * k, base - h, bw > 2 ? bw - 0.5 : bw, h);
			tooltip(f, c->bin[p], s, k, idx + start[k], start[k + 1] - start[k]);
			fprintf(f, "</rect>\n");
		}
		fprintf(f, "<line class=\"ways\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LEFT, wy,
			LEFT + bw * sets, wy);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%u ways</text>\n",
			LEFT + bw * sets, wy - 4, cc->ways);
		for (k = 0; k <= sets; k += sets / 8 ? sets / 8 : 1)
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">%u</text>\n",
				LEFT + bw * k, base + 16, k);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">cache set</text>\n</g>\n",
			LEFT + bw * sets / 2, base + 30);
		free(start);
		free(idx);
	}
	fprintf(f, "</svg>\n");
	return 0;	/* a failed write: the flush says why (ENOSPC, EIO) */
}

int tool_svg_write(const char *path, const struct cachepin_binary *const *bin,
		   const struct cachepin_score *const *s, const char *const *titles, size_t n)
{
	struct svg_ctx c = { bin, s, titles, n };

	return tool_write_file(path, svg_write, &c);
}
