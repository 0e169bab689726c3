#include "pkt.h"

/* the qos rules: stages of arithmetic over the packet */
static __attribute__((noinline)) uint32_t qos_0(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 2; r++) {
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
		if ((x & 0xff) == 90)
			p->mark |= 1u << 18;
	}
	return x;
}

static __attribute__((noinline)) uint32_t qos_1(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 3; r++) {
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
		if ((x & 0xff) == 95)
			p->mark |= 1u << 19;
	}
	return x;
}

static __attribute__((noinline)) uint32_t qos_2(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 4; r++) {
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
		if ((x & 0xff) == 100)
			p->mark |= 1u << 20;
	}
	return x;
}

static __attribute__((noinline)) uint32_t qos_3(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 2; r++) {
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
		if ((x & 0xff) == 105)
			p->mark |= 1u << 21;
	}
	return x;
}

static __attribute__((noinline)) uint32_t qos_4(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 3; r++) {
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
		if ((x & 0xff) == 110)
			p->mark |= 1u << 22;
	}
	return x;
}

static __attribute__((noinline)) uint32_t qos_5(struct pkt *p, uint32_t x)
{
	int r;

	for (r = 0; r < 4; r++) {
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
		if ((x & 0xff) == 115)
			p->mark |= 1u << 23;
	}
	return x;
}

static __attribute__((noinline)) uint32_t qos_6(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 120)
			p->mark |= 1u << 24;
	}
	return x;
}

static __attribute__((noinline)) uint32_t qos_7(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 125)
			p->mark |= 1u << 25;
	}
	return x;
}

static __attribute__((noinline)) uint32_t qos_8(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 130)
			p->mark |= 1u << 26;
	}
	return x;
}

uint32_t rules_qos(struct pkt *p, uint32_t x)
{
	x = qos_0(p, x);
	x = qos_1(p, x);
	x = qos_2(p, x);
	x = qos_3(p, x);
	x = qos_4(p, x);
	x = qos_5(p, x);
	x = qos_6(p, x);
	x = qos_7(p, x);
	x = qos_8(p, x);
	return x;
}
