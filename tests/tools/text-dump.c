// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * text-dump: parse a text profile with cachepin_text__read() and print
 * each sample as "PERIOD NR FRAME0 FRAME1 ..." (see text-print.h).
 *
 *   text-dump [-f auto|script|hotlist|folded] [-p] [-q] [-D] FILE
 *     -p  print "PID/TID " before each sample
 *     -q  print only "samples N period P" at the end
 *     -D  print the detected format of FILE's first 64 KiB and exit
 * The event name, if the input names one, is printed last as "# event E".
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cachepin/textin.h"
#include "text-print.h"

struct dump {
	int with_pid, quiet;
	uint64_t samples, period;
};

static int dump_sample(void *ctx, const struct cachepin_sample *s)
{
	struct dump *d = ctx;

	d->samples++;
	d->period += s->period;
	if (!d->quiet)
		text_print_sample(stdout, s, d->with_pid);
	return 0;
}

static const char *const names[] = { "auto", "script", "hotlist", "folded" };

static int detect_file(const char *path)
{
	static char buf[64 * 1024];
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t n;

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	if (f != stdin)
		fclose(f);
	printf("%s\n", names[cachepin_text__detect(buf, n)]);
	return 0;
}

int main(int argc, char **argv)
{
	enum cachepin_text_format fmt = CACHEPIN_TEXT_AUTO;
	struct dump d = { 0 };
	char *event = NULL;
	int c, err, detect = 0;
	size_t i;

	while ((c = getopt(argc, argv, "f:pqD")) != -1) {
		switch (c) {
		case 'f':
			for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				if (!strcmp(optarg, names[i]))
					break;
			if (i == sizeof(names) / sizeof(names[0])) {
				fprintf(stderr, "text-dump: unknown format '%s'\n", optarg);
				return 129;
			}
			fmt = (enum cachepin_text_format)i;
			break;
		case 'p':
			d.with_pid = 1;
			break;
		case 'q':
			d.quiet = 1;
			break;
		case 'D':
			detect = 1;
			break;
		default:
			return 129;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: text-dump [-f auto|script|hotlist|folded] [-p] [-q] [-D] FILE\n");
		return 129;
	}
	if (detect)
		return detect_file(argv[optind]);
	err = cachepin_text__read(argv[optind], fmt, dump_sample, &d, &event);
	if (err) {
		fprintf(stderr, "text-dump: %s\n", strerror(-err));
		return 1;
	}
	if (d.quiet)
		printf("samples %llu period %llu\n", (unsigned long long)d.samples,
		       (unsigned long long)d.period);
	if (event)
		printf("# event %s\n", event);
	free(event);
	return 0;
}
