#include <stdio.h>
#include "pkt.h"

static unsigned long verdicts[4], protos[256], bytes;

void stats_count(const struct pkt *p, int verdict)
{
	verdicts[verdict & 3]++;
	protos[p->proto]++;
	bytes += p->len;
}

void stats_print(void)
{
	printf("tcp %lu udp %lu icmp %lu\n", protos[6], protos[17], protos[1]);
	printf("verdicts %lu %lu %lu %lu, %lu bytes\n", verdicts[0], verdicts[1], verdicts[2],
	       verdicts[3], bytes);
}
