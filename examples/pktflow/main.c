#include <stdio.h>
#include <stdlib.h>
#include "pkt.h"

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000, i;
	uint64_t state = 0x2545f4914f6cdd1dULL;
	struct pkt p;

	if (options_0(argc, argv) + options_1(argc, argv) + options_2(argc, argv) +
	    options_3(argc, argv) + options_4(argc, argv) < argc - 2)
		return 2;
	for (i = 0; i < n; i++) {
		int v;

		gen_packet(&p, &state);
		v = parse_packet(&p);
		if (v >= 0)
			v = (int)(rules_log(&p, rules_mark(&p, rules_qos(&p, rules_nat(&p,
				 rules_acl(&p, flow_lookup(&p)))))) & 3);
		stats_count(&p, v < 0 ? 3 : v);
		if (i % 65536 == 65535)
			flow_expire((uint32_t)(i >> 16));
	}
	stats_print();
	return 0;
}
