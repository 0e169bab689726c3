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
#define COLD(name)                                          \
	NI uint32_t name(struct pkt *p)                     \
	{                                                   \
		uint32_t x = p->mark;                       \
		S64(0) S64(64)                              \
		p->mark = x;                                \
		return x;                                   \
	}

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

COLD(cold_init_00) COLD(cold_init_01) COLD(cold_init_02) COLD(cold_init_03)
HOT(smsc911x_rx_pkt, S64(0) S16(64), napi_gro_receive(p))
COLD(cold_init_04) COLD(cold_init_05) COLD(cold_init_06)
HOT(napi_gro_receive, S16(0) S16(16), __netif_receive_skb_core(p))
COLD(cold_init_07) COLD(cold_init_08) COLD(cold_init_09) COLD(cold_init_10)
HOT(__netif_receive_skb_core, S64(0) S64(64) S16(128), vlan_do_receive(p))
COLD(cold_init_11) COLD(cold_init_12)
HOT(vlan_do_receive, S16(0) S16(16), ip_rcv(p))
COLD(cold_init_13) COLD(cold_init_14) COLD(cold_init_15) COLD(cold_init_16) COLD(cold_init_17)
HOT(ip_rcv, S16(0), ip_rcv_core(p))
COLD(cold_init_18) COLD(cold_init_19)
HOT(ip_rcv_core, S64(0) S16(64), nf_hook_slow(p))
COLD(cold_init_20) COLD(cold_init_21) COLD(cold_init_22)
HOT(nf_conntrack_in, S64(0) S16(64), __nf_conntrack_find_get(p))
COLD(cold_init_23) COLD(cold_init_24) COLD(cold_init_25) COLD(cold_init_26)
HOT(__nf_conntrack_find_get, S64(0) S64(64), nf_conntrack_tcp_packet(p))
COLD(cold_init_27) COLD(cold_init_28)
HOT(nf_conntrack_tcp_packet, S64(0) S64(64) S64(128), nf_nat_inet_fn(p))
COLD(cold_init_29) COLD(cold_init_30) COLD(cold_init_31)
HOT(nf_nat_inet_fn, S64(0) S16(64), nf_nat_ipv4_manip_pkt(p))
COLD(cold_init_32) COLD(cold_init_33) COLD(cold_init_34) COLD(cold_init_35)
HOT(nf_nat_ipv4_manip_pkt, S64(0), csum_partial(p))
COLD(cold_init_36)
HOT(csum_partial, S16(0) S16(16), x)
COLD(cold_init_37) COLD(cold_init_38) COLD(cold_init_39)
HOT(ip_route_input_slow, S64(0) S64(64), fib_table_lookup(p))
COLD(cold_init_40) COLD(cold_init_41) COLD(cold_init_42) COLD(cold_init_43)
HOT(fib_table_lookup, S64(0) S64(64) S16(128), x)
COLD(cold_init_44) COLD(cold_init_45)
HOT(ip_forward, S64(0) S16(64), ip_output(p))
COLD(cold_init_46) COLD(cold_init_47) COLD(cold_init_48)
HOT(ip_output, S16(0) S16(16), ip_finish_output2(p))
COLD(cold_init_49) COLD(cold_init_50) COLD(cold_init_51) COLD(cold_init_52)
HOT(ip_finish_output2, S64(0), neigh_resolve_output(p))
COLD(cold_init_53)
HOT(neigh_resolve_output, S16(0) S16(16), dev_queue_xmit(p))
COLD(cold_init_54) COLD(cold_init_55) COLD(cold_init_56)
HOT(dev_queue_xmit, S64(0) S64(64), smsc911x_hard_start_xmit(p))
COLD(cold_init_57) COLD(cold_init_58)
HOT(smsc911x_hard_start_xmit, S64(0) S16(64), skb_copy_bits(p))
COLD(cold_init_59) COLD(cold_init_60) COLD(cold_init_61) COLD(cold_init_62)
HOT(skb_copy_bits, S16(0) S16(16), x)
COLD(cold_init_63)

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
