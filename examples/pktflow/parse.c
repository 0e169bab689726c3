#include "pkt.h"

uint32_t checksum(const uint8_t *b, int n)
{
	uint32_t s = 0;
	int i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s & 0xffff;
}

static int parse_tcp(struct pkt *p)
{
	uint32_t c = checksum(p->payload, 20);

	if (p->payload[13] & 0x02)	/* SYN */
		p->mark |= 1;
	return (int)(c & 1);
}

static int parse_udp(struct pkt *p)
{
	uint32_t c = checksum(p->payload, 8);

	if (p->dport == 53)
		p->mark |= 2;
	return (int)(c & 1);
}

static int parse_icmp(struct pkt *p)
{
	p->mark |= 4;
	return p->payload[0] == 8;
}

int parse_packet(struct pkt *p)
{
	if (p->ttl <= 1 || p->len < 20)
		return -1;
	p->ttl--;
	switch (p->proto) {
	case 6:
		return parse_tcp(p);
	case 17:
		return parse_udp(p);
	case 1:
		return parse_icmp(p);
	}
	return -1;
}
