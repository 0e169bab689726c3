#include "pkt.h"

/* the mark rules: stages of arithmetic over the packet */
static __attribute__((noinline)) uint32_t mark_0(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 2; r++) {
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		x = x * 31 + p->src;
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		x ^= x >> 7; x += p->dport;
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x ^= x >> 7; x += p->dport;
		if ((x & 0xff) == 135)
			p->mark |= 1u << 27;
	}
	return x;
}

static __attribute__((noinline)) uint32_t mark_1(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 3; r++) {
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		x ^= x >> 7; x += p->dport;
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x ^= x >> 7; x += p->dport;
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x += p->payload[(x >> 3) & 63] * 17;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		if ((x & 0xff) == 140)
			p->mark |= 1u << 28;
	}
	return x;
}

static __attribute__((noinline)) uint32_t mark_2(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 4; r++) {
		x ^= x >> 7; x += p->dport;
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x ^= x >> 7; x += p->dport;
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x += p->payload[(x >> 3) & 63] * 17;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x ^= x >> 7; x += p->dport;
		x ^= p->dst * 0x45d9f3bu;
		x = x * 31 + p->src;
		x += p->payload[(x >> 3) & 63] * 17;
		if ((x & 0xff) == 145)
			p->mark |= 1u << 29;
	}
	return x;
}

static __attribute__((noinline)) uint32_t mark_3(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 2; r++) {
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x ^= x >> 7; x += p->dport;
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x += p->payload[(x >> 3) & 63] * 17;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x ^= x >> 7; x += p->dport;
		x ^= p->dst * 0x45d9f3bu;
		x = x * 31 + p->src;
		x += p->payload[(x >> 3) & 63] * 17;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x ^= x >> 7; x += p->dport;
		x = x * 0x27d4eb2du + p->sport;
		x = x * 31 + p->src;
		if ((x & 0xff) == 150)
			p->mark |= 1u << 30;
	}
	return x;
}

static __attribute__((noinline)) uint32_t mark_4(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 3; r++) {
		x += p->payload[(x >> 3) & 63] * 17;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x ^= x >> 7; x += p->dport;
		x ^= p->dst * 0x45d9f3bu;
		x = x * 31 + p->src;
		x += p->payload[(x >> 3) & 63] * 17;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x ^= x >> 7; x += p->dport;
		x = x * 0x27d4eb2du + p->sport;
		x = x * 31 + p->src;
		x += p->payload[(x >> 3) & 63] * 17;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		if ((x & 0xff) == 155)
			p->mark |= 1u << 31;
	}
	return x;
}

static __attribute__((noinline)) uint32_t mark_5(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 4; r++) {
		x = x * 31 + p->src;
		x += p->payload[(x >> 3) & 63] * 17;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x ^= x >> 7; x += p->dport;
		x = x * 0x27d4eb2du + p->sport;
		x = x * 31 + p->src;
		x += p->payload[(x >> 3) & 63] * 17;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		x = x * 31 + p->src;
		x += p->payload[(x >> 3) & 63] * 17;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		if ((x & 0xff) == 160)
			p->mark |= 1u << 0;
	}
	return x;
}

static __attribute__((noinline)) uint32_t mark_6(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 2; r++) {
		x = x * 0x27d4eb2du + p->sport;
		x = x * 31 + p->src;
		x += p->payload[(x >> 3) & 63] * 17;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		x = x * 31 + p->src;
		x += p->payload[(x >> 3) & 63] * 17;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		x = x * 31 + p->src;
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		if ((x & 0xff) == 165)
			p->mark |= 1u << 1;
	}
	return x;
}

static __attribute__((noinline)) uint32_t mark_7(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 3; r++) {
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		x = x * 31 + p->src;
		x += p->payload[(x >> 3) & 63] * 17;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		x = x * 31 + p->src;
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		x ^= x >> 7; x += p->dport;
		x ^= p->dst * 0x45d9f3bu;
		if ((x & 0xff) == 170)
			p->mark |= 1u << 2;
	}
	return x;
}

static __attribute__((noinline)) uint32_t mark_8(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 4; r++) {
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		x = x * 31 + p->src;
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x = x * 0x27d4eb2du + p->sport;
		x ^= x >> 7; x += p->dport;
		x ^= p->dst * 0x45d9f3bu;
		x = (x ^ 0x5bd1e995u) * (p->ttl | 1);
		x = (x << 3) | (x >> 29); x -= p->len;
		x += p->payload[x & 63] ^ p->payload[(x >> 6) & 63];
		x ^= x >> 7; x += p->dport;
		if ((x & 0xff) == 175)
			p->mark |= 1u << 3;
	}
	return x;
}

uint32_t rules_mark(struct pkt *p, uint32_t x)
{
	x = mark_0(p, x);
	x = mark_1(p, x);
	x = mark_2(p, x);
	x = mark_3(p, x);
	x = mark_4(p, x);
	x = mark_5(p, x);
	x = mark_6(p, x);
	x = mark_7(p, x);
	x = mark_8(p, x);
	return x;
}
