// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf-dump: print what the perf.data reader delivers, for tests.
 *
 *   perf-dump [-f] [-m] FILE|-
 *
 * One line per sample: "PERIOD NR IP0 IP1 ..." (hex ips).  -f prints
 * one line per frame instead: "  IP FLAGS DSO FILE_OFF".  -m appends the
 * meta data after the samples.  -s prints perf script's view instead:
 * "P PERIOD" on a line, then one line per frame (hex, dso-relative for
 * user frames in a known map).  -q prints no samples.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "cachepin/perf.h"

static int frames_mode, script_mode;

/*
 * perf script's view: the period, then one line per frame with the
 * address perf prints (dso-relative where a user map is known).
 */
static void print_script(FILE *out, const struct cachepin_sample *s)
{
	uint32_t i;

	fprintf(out, "P %" PRIu64 "\n", s->period);
	for (i = 0; i < s->nr; i++) {
		const struct cachepin_frame *f = &s->frames[i];

		fprintf(out, "%" PRIx64 "\n",
			f->flags & CACHEPIN_FRAME_HAS_FOFF ? f->file_off : f->ip);
	}
}

static int print_sample(void *ctx, const struct cachepin_sample *s)
{
	FILE *out = ctx;
	uint32_t i;

	if (script_mode) {
		print_script(out, s);
		return 0;
	}
	fprintf(out, "%" PRIu64 " %u", s->period, s->nr);
	for (i = 0; i < s->nr; i++)
		fprintf(out, " %" PRIx64, s->frames[i].ip);
	fputc('\n', out);
	if (!frames_mode)
		return 0;
	for (i = 0; i < s->nr; i++) {
		const struct cachepin_frame *f = &s->frames[i];

		fprintf(out, "  %" PRIx64 " %c %s", f->ip,
			f->flags & CACHEPIN_FRAME_KERNEL ? 'k' : 'u',
			f->dso ? f->dso : "-");
		if (f->flags & CACHEPIN_FRAME_HAS_FOFF)
			fprintf(out, " %#" PRIx64, f->file_off);
		fputc('\n', out);
	}
	return 0;
}

static void print_meta(const struct cachepin_perf_meta *m)
{
	size_t i, j;

	printf("# endian %s\n", m->big_endian ? "big" : "little");
	printf("# pipe %d\n# compressed %d\n", m->pipe, m->compressed);
	printf("# event %s\n", m->event ? m->event : "-");
	printf("# arch %s\n", m->arch ? m->arch : "-");
	printf("# osrelease %s\n", m->osrelease ? m->osrelease : "-");
	printf("# hostname %s\n", m->hostname ? m->hostname : "-");
	printf("# samples %" PRIu64 "\n# period %" PRIu64 "\n# lost %" PRIu64 "\n",
	       m->nr_samples, m->period_sum, m->nr_lost);
	printf("# kernel %s %#" PRIx64 " %d\n",
	       m->kernel_ref_sym ? m->kernel_ref_sym : "-", m->kernel_ref_addr,
	       m->has_kernel_map);
	for (i = 0; i < m->nr_kmaps; i++)
		printf("# kmap %#" PRIx64 " %#" PRIx64 " %#" PRIx64 " %s\n",
		       m->kmaps[i].start, m->kmaps[i].len, m->kmaps[i].pgoff,
		       m->kmaps[i].name);
	for (i = 0; i < m->nr_buildids; i++) {
		printf("# buildid ");
		for (j = 0; j < m->buildids[i].size; j++)
			printf("%02x", m->buildids[i].id[j]);
		printf(" %s\n", m->buildids[i].name);
	}
	for (i = 0; i < m->nr_caches; i++)
		printf("# cache L%u %s sets %u ways %u line %u size %s\n", m->caches[i].level,
		       m->caches[i].type, m->caches[i].sets, m->caches[i].ways, m->caches[i].line,
		       m->caches[i].size);
}

int main(int argc, char **argv)
{
	const char *usage = "usage: perf-dump [-f|-s] [-m] [-q] FILE|-\n";
	struct cachepin_perf *p;
	int opt, meta = 0, quiet = 0, err;

	while ((opt = getopt(argc, argv, "fmqs")) != -1) {
		switch (opt) {
		case 'f':
			frames_mode = 1;
			break;
		case 'm':
			meta = 1;
			break;
		case 's':
			script_mode = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			fputs(usage, stderr);
			return 129;
		}
	}
	if (optind + 1 != argc) {
		fputs(usage, stderr);
		return 129;
	}
	p = cachepin_perf__open(argv[optind]);
	if (!p)
		return 1;
	err = cachepin_perf__for_each_sample(p, quiet ? NULL : print_sample, stdout);
	if (!err && meta)
		print_meta(cachepin_perf__meta(p));
	cachepin_perf__free(p);
	return err ? 1 : 0;
}
