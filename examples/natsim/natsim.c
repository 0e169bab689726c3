// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * natsim: a user-space stand-in for a router's NAT forwarding path.
 *
 * Each "packet" runs through a chain of functions named after the Linux
 * path they imitate (driver poll, receive, conntrack, NAT, routing,
 * forward, transmit).  The hot functions are separated by cold code in
 * the source, as in a kernel, so that the default link scatters them
 * over the cache sets.  The per-packet footprint is about 20 KiB of
 * code: bigger than a 16 KiB L1I, close to a 32 KiB one.
 *
 * Usage: natsim [PACKETS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct pkt {
	uint32_t hash, saddr, daddr, sport, dport, len, mark, ct;
};

#define NI __attribute__((noinline))

#define STEP(i) x = (x ^ (x >> (((i) % 13) + 1))) * 0x9e3779b1u + (i) + p->len;
#define S4(b) STEP(b) STEP(b + 1) STEP(b + 2) STEP(b + 3)
#define S16(b) S4(b) S4(b + 4) S4(b + 8) S4(b + 12)
#define S64(b) S16(b) S16(b + 16) S16(b + 32) S16(b + 48)

/* A hot function: BODY straight-line steps, then the next stage. */
#define HOT(name, body, next)                              \
	NI uint32_t name(struct pkt *p)                    \
	{                                                  \
		uint32_t x = p->hash;                      \
		body                                       \
		p->hash = x;                               \
		return next;                               \
	}

/* Cold code between the hot functions (runs once, at start-up). */
#define COLD_(name, body)                                   \
	NI uint32_t name(struct pkt *p)                     \
	{                                                   \
		uint32_t x = p->mark;                       \
		body                                        \
		p->mark = x;                                \
		return x;                                   \
	}
#define COLD(name, size) COLD_##size(name)
#define COLD_s(name) COLD_(name, S16(0) S4(16))
#define COLD_m(name) COLD_(name, S64(0) S16(64))
#define COLD_l(name) COLD_(name, S64(0) S64(64) S16(128) S4(144))
#define COLD_x(name) COLD_(name, S64(0) S64(64) S64(128) S64(192) S16(256))

uint32_t ip_finish_output2(struct pkt *p);
uint32_t dev_queue_xmit(struct pkt *p);
uint32_t nf_nat_inet_fn(struct pkt *p);
uint32_t nf_conntrack_tcp_packet(struct pkt *p);
uint32_t fib_table_lookup(struct pkt *p);
uint32_t ip_forward(struct pkt *p);
uint32_t csum_partial(struct pkt *p);
uint32_t ip_output(struct pkt *p);
uint32_t neigh_resolve_output(struct pkt *p);
uint32_t smsc911x_hard_start_xmit(struct pkt *p);
uint32_t ip_route_input_slow(struct pkt *p);
uint32_t nf_hook_slow(struct pkt *p);
uint32_t __nf_conntrack_find_get(struct pkt *p);
uint32_t nf_conntrack_in(struct pkt *p);
uint32_t ip_rcv_core(struct pkt *p);
uint32_t ip_rcv(struct pkt *p);
uint32_t vlan_do_receive(struct pkt *p);
uint32_t __netif_receive_skb_core(struct pkt *p);
uint32_t napi_gro_receive(struct pkt *p);
uint32_t smsc911x_rx_pkt(struct pkt *p);
uint32_t nf_nat_ipv4_manip_pkt(struct pkt *p);
uint32_t skb_copy_bits(struct pkt *p);

COLD(cold_init_00, m) COLD(cold_init_01, l) COLD(cold_init_02, s) COLD(cold_init_03, x)
HOT(smsc911x_rx_pkt, S64(0) S16(64), napi_gro_receive(p))
COLD(cold_init_04, m) COLD(cold_init_05, s) COLD(cold_init_06, l)
HOT(napi_gro_receive, S16(0) S16(16), __netif_receive_skb_core(p))
COLD(cold_init_07, m) COLD(cold_init_08, x) COLD(cold_init_09, l) COLD(cold_init_10, s)
HOT(__netif_receive_skb_core, S64(0) S64(64) S16(128), vlan_do_receive(p))
COLD(cold_init_11, m) COLD(cold_init_12, m)
HOT(vlan_do_receive, S16(0) S16(16), ip_rcv(p))
COLD(cold_init_13, x) COLD(cold_init_14, s) COLD(cold_init_15, l) COLD(cold_init_16, m) COLD(cold_init_17, l)
HOT(ip_rcv, S16(0), ip_rcv_core(p))
COLD(cold_init_18, x) COLD(cold_init_19, s)
HOT(ip_rcv_core, S64(0) S16(64), nf_hook_slow(p))
COLD(cold_init_20, m) COLD(cold_init_21, l) COLD(cold_init_22, s)
HOT(nf_conntrack_in, S64(0) S16(64), __nf_conntrack_find_get(p))
COLD(cold_init_23, m) COLD(cold_init_24, x) COLD(cold_init_25, m) COLD(cold_init_26, l)
HOT(__nf_conntrack_find_get, S64(0) S64(64), nf_conntrack_tcp_packet(p))
COLD(cold_init_27, s) COLD(cold_init_28, l)
HOT(nf_conntrack_tcp_packet, S64(0) S64(64) S64(128), nf_nat_inet_fn(p))
COLD(cold_init_29, x) COLD(cold_init_30, m) COLD(cold_init_31, s)
HOT(nf_nat_inet_fn, S64(0) S16(64), nf_nat_ipv4_manip_pkt(p))
COLD(cold_init_32, m) COLD(cold_init_33, l) COLD(cold_init_34, x) COLD(cold_init_35, s)
HOT(nf_nat_ipv4_manip_pkt, S64(0), csum_partial(p))
COLD(cold_init_36, m)
HOT(csum_partial, S16(0) S16(16), x)
COLD(cold_init_37, l) COLD(cold_init_38, m) COLD(cold_init_39, s)
HOT(ip_route_input_slow, S64(0) S64(64), fib_table_lookup(p))
COLD(cold_init_40, x) COLD(cold_init_41, l) COLD(cold_init_42, m) COLD(cold_init_43, s)
HOT(fib_table_lookup, S64(0) S64(64) S16(128), x)
COLD(cold_init_44, m) COLD(cold_init_45, x)
HOT(ip_forward, S64(0) S16(64), ip_output(p))
COLD(cold_init_46, l) COLD(cold_init_47, s) COLD(cold_init_48, m)
HOT(ip_output, S16(0) S16(16), ip_finish_output2(p))
COLD(cold_init_49, l) COLD(cold_init_50, m) COLD(cold_init_51, x) COLD(cold_init_52, s)
HOT(ip_finish_output2, S64(0), neigh_resolve_output(p))
COLD(cold_init_53, m)
HOT(neigh_resolve_output, S16(0) S16(16), dev_queue_xmit(p))
COLD(cold_init_54, l) COLD(cold_init_55, s) COLD(cold_init_56, x)
HOT(dev_queue_xmit, S64(0) S64(64), smsc911x_hard_start_xmit(p))
COLD(cold_init_57, m) COLD(cold_init_58, l)
HOT(smsc911x_hard_start_xmit, S64(0) S16(64), skb_copy_bits(p))
COLD(cold_init_59, m) COLD(cold_init_60, s) COLD(cold_init_61, x) COLD(cold_init_62, l)
HOT(skb_copy_bits, S16(0) S16(16), x)
COLD(cold_init_63, m)

/* Netfilter hooks: conntrack and NAT on prerouting, then routing. */
NI uint32_t nf_hook_slow(struct pkt *p)
{
	uint32_t v = nf_conntrack_in(p);

	v ^= ip_route_input_slow(p);
	return v ^ ip_forward(p);
}

typedef uint32_t (*cold_fn)(struct pkt *);
static const cold_fn cold[] = {
	cold_init_00, cold_init_01, cold_init_02, cold_init_03, cold_init_04, cold_init_05,
	cold_init_06, cold_init_07, cold_init_08, cold_init_09, cold_init_10, cold_init_11,
	cold_init_12, cold_init_13, cold_init_14, cold_init_15, cold_init_16, cold_init_17,
	cold_init_18, cold_init_19, cold_init_20, cold_init_21, cold_init_22, cold_init_23,
	cold_init_24, cold_init_25, cold_init_26, cold_init_27, cold_init_28, cold_init_29,
	cold_init_30, cold_init_31, cold_init_32, cold_init_33, cold_init_34, cold_init_35,
	cold_init_36, cold_init_37, cold_init_38, cold_init_39, cold_init_40, cold_init_41,
	cold_init_42, cold_init_43, cold_init_44, cold_init_45, cold_init_46, cold_init_47,
	cold_init_48, cold_init_49, cold_init_50, cold_init_51, cold_init_52, cold_init_53,
	cold_init_54, cold_init_55, cold_init_56, cold_init_57, cold_init_58, cold_init_59,
	cold_init_60, cold_init_61, cold_init_62, cold_init_63,
};

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000, i;
	struct pkt p = { 1, 0x0a000001, 0xc0a80101, 40000, 80, 1500, 0, 0 };
	uint32_t acc = 0;
	size_t k;

	for (k = 0; k < sizeof(cold) / sizeof(cold[0]); k++)
		acc ^= cold[k](&p);
	for (i = 0; i < n; i++) {
		p.len = 64 + (uint32_t)(i & 1023);
		p.sport = 40000 + (uint32_t)(i & 63);
		acc ^= smsc911x_rx_pkt(&p);
	}
	printf("%08x\n", acc);
	return 0;
}
