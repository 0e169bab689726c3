#include "pkt.h"

/* the log rules: stages of arithmetic over the packet */
static __attribute__((noinline)) uint32_t log_0(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 180)
			p->mark |= 1u << 4;
	}
	return x;
}

static __attribute__((noinline)) uint32_t log_1(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 185)
			p->mark |= 1u << 5;
	}
	return x;
}

static __attribute__((noinline)) uint32_t log_2(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 190)
			p->mark |= 1u << 6;
	}
	return x;
}

static __attribute__((noinline)) uint32_t log_3(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 195)
			p->mark |= 1u << 7;
	}
	return x;
}

static __attribute__((noinline)) uint32_t log_4(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 200)
			p->mark |= 1u << 8;
	}
	return x;
}

static __attribute__((noinline)) uint32_t log_5(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 205)
			p->mark |= 1u << 9;
	}
	return x;
}

static __attribute__((noinline)) uint32_t log_6(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 210)
			p->mark |= 1u << 10;
	}
	return x;
}

static __attribute__((noinline)) uint32_t log_7(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 215)
			p->mark |= 1u << 11;
	}
	return x;
}

static __attribute__((noinline)) uint32_t log_8(struct pkt *p, uint32_t x)
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
		if ((x & 0xff) == 220)
			p->mark |= 1u << 12;
	}
	return x;
}

uint32_t rules_log(struct pkt *p, uint32_t x)
{
	x = log_0(p, x);
	x = log_1(p, x);
	x = log_2(p, x);
	x = log_3(p, x);
	x = log_4(p, x);
	x = log_5(p, x);
	x = log_6(p, x);
	x = log_7(p, x);
	x = log_8(p, x);
	return x;
}
