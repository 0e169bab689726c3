#include <string.h>
#include "pkt.h"

#define NFLOW 4096

static struct flow {
	uint32_t src, dst, ports, last, hits;
} table[NFLOW];

static uint32_t flow_hash(const struct pkt *p)
{
	uint32_t h = p->src * 0x9e3779b1u ^ p->dst * 0x85ebca6bu;

	h ^= ((uint32_t)p->sport << 16 | p->dport) * 0xc2b2ae35u;
	h ^= h >> 15;
	return h % NFLOW;
}

uint32_t flow_lookup(const struct pkt *p)
{
	uint32_t h = flow_hash(p), ports = (uint32_t)p->sport << 16 | p->dport, i;

	for (i = 0; i < 8; i++) {
		struct flow *f = &table[(h + i) % NFLOW];

		if (f->hits && f->src == p->src && f->dst == p->dst && f->ports == ports) {
			f->hits++;
			return (h + i) % NFLOW;
		}
		if (!f->hits) {
			f->src = p->src;
			f->dst = p->dst;
			f->ports = ports;
			f->hits = 1;
			return (h + i) % NFLOW;
		}
	}
	return h;
}

void flow_expire(uint32_t now)
{
	uint32_t i;

	for (i = 0; i < NFLOW; i++)
		if (table[i].hits && now - table[i].last > 3)
			memset(&table[i], 0, sizeof(table[i]));
		else
			table[i].last = now;
}
