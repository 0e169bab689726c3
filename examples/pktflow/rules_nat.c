#include "pkt.h"

/* the nat rules: stages of arithmetic over the packet */
static __attribute__((noinline)) uint32_t nat_0(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 45)
			p->mark |= 1u << 9;
	}
	return x;
}

static __attribute__((noinline)) uint32_t nat_1(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 50)
			p->mark |= 1u << 10;
	}
	return x;
}

static __attribute__((noinline)) uint32_t nat_2(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 55)
			p->mark |= 1u << 11;
	}
	return x;
}

static __attribute__((noinline)) uint32_t nat_3(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 2; r++) {
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
		if ((x & 0xff) == 60)
			p->mark |= 1u << 12;
	}
	return x;
}

static __attribute__((noinline)) uint32_t nat_4(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 3; r++) {
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
		if ((x & 0xff) == 65)
			p->mark |= 1u << 13;
	}
	return x;
}

static __attribute__((noinline)) uint32_t nat_5(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 4; r++) {
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
		if ((x & 0xff) == 70)
			p->mark |= 1u << 14;
	}
	return x;
}

static __attribute__((noinline)) uint32_t nat_6(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 2; r++) {
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
		if ((x & 0xff) == 75)
			p->mark |= 1u << 15;
	}
	return x;
}

static __attribute__((noinline)) uint32_t nat_7(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 3; r++) {
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
		if ((x & 0xff) == 80)
			p->mark |= 1u << 16;
	}
	return x;
}

static __attribute__((noinline)) uint32_t nat_8(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 4; r++) {
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
		if ((x & 0xff) == 85)
			p->mark |= 1u << 17;
	}
	return x;
}

uint32_t rules_nat(struct pkt *p, uint32_t x)
{
	x = nat_0(p, x);
	x = nat_1(p, x);
	x = nat_2(p, x);
	x = nat_3(p, x);
	x = nat_4(p, x);
	x = nat_5(p, x);
	x = nat_6(p, x);
	x = nat_7(p, x);
	x = nat_8(p, x);
	return x;
}
