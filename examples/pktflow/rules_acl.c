#include "pkt.h"

/* the acl rules: stages of arithmetic over the packet */
static __attribute__((noinline)) uint32_t acl_0(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 2; r++) {
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
		if ((x & 0xff) == 0)
			p->mark |= 1u << 0;
	}
	return x;
}

static __attribute__((noinline)) uint32_t acl_1(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 3; r++) {
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
		if ((x & 0xff) == 5)
			p->mark |= 1u << 1;
	}
	return x;
}

static __attribute__((noinline)) uint32_t acl_2(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 4; r++) {
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
		if ((x & 0xff) == 10)
			p->mark |= 1u << 2;
	}
	return x;
}

static __attribute__((noinline)) uint32_t acl_3(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 15)
			p->mark |= 1u << 3;
	}
	return x;
}

static __attribute__((noinline)) uint32_t acl_4(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 20)
			p->mark |= 1u << 4;
	}
	return x;
}

static __attribute__((noinline)) uint32_t acl_5(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 25)
			p->mark |= 1u << 5;
	}
	return x;
}

static __attribute__((noinline)) uint32_t acl_6(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 30)
			p->mark |= 1u << 6;
	}
	return x;
}

static __attribute__((noinline)) uint32_t acl_7(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 35)
			p->mark |= 1u << 7;
	}
	return x;
}

static __attribute__((noinline)) uint32_t acl_8(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 40)
			p->mark |= 1u << 8;
	}
	return x;
}

uint32_t rules_acl(struct pkt *p, uint32_t x)
{
	x = acl_0(p, x);
	x = acl_1(p, x);
	x = acl_2(p, x);
	x = acl_3(p, x);
	x = acl_4(p, x);
	x = acl_5(p, x);
	x = acl_6(p, x);
	x = acl_7(p, x);
	x = acl_8(p, x);
	return x;
}
