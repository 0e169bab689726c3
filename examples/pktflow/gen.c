#include "pkt.h"

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

void gen_packet(struct pkt *p, uint64_t *state)
{
	uint64_t r = next(state);
	int i;

	p->src = 0x0a000000u | (uint32_t)(r & 0x3ff);
	p->dst = 0xc0a80000u | (uint32_t)((r >> 10) & 0xff);
	p->sport = (uint16_t)(1024 + ((r >> 18) & 0x3fff));
	p->dport = (uint16_t)((r >> 32) % 5 == 0 ? 53 : (r >> 32) % 3 ? 443 : 80);
	p->proto = (uint8_t)((r >> 40) % 7 == 0 ? 17 : (r >> 40) % 11 == 0 ? 1 : 6);
	p->ttl = (uint8_t)(64 - ((r >> 48) & 7));
	p->len = (uint16_t)(40 + ((r >> 52) & 0x3ff));
	p->mark = 0;
	for (i = 0; i < 64; i++)
		p->payload[i] = (uint8_t)(next(state) >> 56);
}
