/* pktflow: a packet pipeline in a few objects (cachepin's program example). */
#ifndef PKT_H
#define PKT_H
#include <stdint.h>

struct pkt {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint8_t proto, ttl;
	uint16_t len;
	uint32_t mark;
	uint8_t payload[64];
};

/* gen.c: the traffic */
void gen_packet(struct pkt *p, uint64_t *state);
/* parse.c: headers and checksums */
int parse_packet(struct pkt *p);
uint32_t checksum(const uint8_t *b, int n);
/* flow.c: the connection table */
uint32_t flow_lookup(const struct pkt *p);
void flow_expire(uint32_t now);
/* rules_*.c: the rule chains, each a few stages */
uint32_t rules_acl(struct pkt *p, uint32_t x);
uint32_t rules_nat(struct pkt *p, uint32_t x);
uint32_t rules_qos(struct pkt *p, uint32_t x);
uint32_t rules_mark(struct pkt *p, uint32_t x);
uint32_t rules_log(struct pkt *p, uint32_t x);
/* options_*.c: the options (cold) */
int options_0(int argc, char **argv);
int options_1(int argc, char **argv);
int options_2(int argc, char **argv);
int options_3(int argc, char **argv);
int options_4(int argc, char **argv);
/* stats.c: counters and the report */
void stats_count(const struct pkt *p, int verdict);
void stats_print(void);
#endif
