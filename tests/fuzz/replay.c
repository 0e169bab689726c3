// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fuzz target without libFuzzer: each file on the command line is
 * given to LLVMFuzzerTestOneInput() once, so that a corpus or a crash
 * replays under gcc, valgrind or a plain sanitizer build.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf = NULL;
		size_t cap = 0, n = 0, r;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		do {
			if (n == cap) {
				uint8_t *nb = realloc(buf, cap ? cap * 2 : 65536);

				if (!nb)
					return 1;
				buf = nb;
				cap = cap ? cap * 2 : 65536;
			}
			r = fread(buf + n, 1, cap - n, f);
			n += r;
		} while (r);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
	}
	printf("replayed %d inputs\n", argc - 1);
	return 0;
}
