// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cache model: geometry parsing, set index, and the simulators
 * against hand-computed rows and against naive reference implementations
 * on random strings.
 */
#include <errno.h>
#include <string.h>
#include "cachepin/cache.h"
#include "unit.h"

static const struct {
	const char *spec;
	int ok;
	uint32_t sets, way_span, ways, line;
	enum cachepin_repl repl;
} parse_rows[] = {
	{ "32K:4:32", 1, 256, 8192, 4, 32, CACHEPIN_REPL_LRU },
	{ "16k:4:32:random", 1, 128, 4096, 4, 32, CACHEPIN_REPL_RANDOM },
	{ "65536:4:32", 1, 512, 16384, 4, 32, CACHEPIN_REPL_LRU },
	{ "cortex-a9-32k", 1, 256, 8192, 4, 32, CACHEPIN_REPL_RANDOM },
	{ "cortex-a9-64k", 1, 512, 16384, 4, 32, CACHEPIN_REPL_RANDOM },
	{ "mips-74k-32k", 1, 256, 8192, 4, 32, CACHEPIN_REPL_LRU },
	{ "x86-64", 1, 64, 4096, 8, 64, CACHEPIN_REPL_LRU },
	{ "32K:3:32", 0 },	/* sets not a power of two */
	{ "32K:4:48", 0 },	/* line not a power of two */
	{ "32K:4", 0 },
	{ "32K:4:32:lfu", 0 },
	{ "32K:4:32:rr", 1, 256, 8192, 4, 32, CACHEPIN_REPL_RR },
	{ "32K:4:32:round-robin", 1, 256, 8192, 4, 32, CACHEPIN_REPL_RR },
	{ "32K:4:32:lru", 1, 256, 8192, 4, 32, CACHEPIN_REPL_LRU },
	{ "32K:4:32:optimal", 0 },	/* no CPU knows the future */
	{ "32K:4:32:LRU", 0 },
	{ "32K:4:32:", 0 },
	{ "cortex-a99", 0 },
	{ "", 0 },
	{ "K:4:32", 0 },
	{ "99999999999999999999:4:32", 0 },
	{ "18014398509482016K:4:32", 0 },	/* wrapped to 32K once */
	{ "1024M:1:4", 0 },			/* 2^28 sets */
	{ "16M:1:4", 0 },			/* 4 M sets */
	{ "0:0:0", 0 },
	{ "64:64:1", 0 },			/* line below 4 */
	{ "64M:64:1024", 1, 1024, 1048576, 64, 1024, CACHEPIN_REPL_LRU },
};

/* Naive LRU: a list per set, move to front. */
static uint64_t naive_lru(const struct cachepin_cache *c, const uint64_t *l, size_t n, bool fa)
{
	uint32_t sets = fa ? 1 : c->sets, ways = fa ? c->size / c->line : c->ways;
	uint64_t *st = calloc((size_t)sets * ways, sizeof(*st));
	uint32_t *fill = calloc(sets, sizeof(*fill));
	uint64_t miss = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t s = fa ? 0 : (uint32_t)l[i] & (sets - 1), w, k;
		uint64_t *t = st + (size_t)s * ways;

		for (w = 0; w < fill[s] && t[w] != l[i]; w++)
			;
		if (w == fill[s]) {
			miss++;
			if (fill[s] < ways)
				fill[s]++;
			w = fill[s] - 1;
		}
		for (k = w; k > 0; k--)
			t[k] = t[k - 1];
		t[0] = l[i];
	}
	free(st);
	free(fill);
	return miss;
}

/* Naive Belady with bypass: evict the resident (or the incoming) line reused last. */
static uint64_t naive_opt(const struct cachepin_cache *c, const uint64_t *l, size_t n, bool fa)
{
	uint32_t sets = fa ? 1 : c->sets, ways = fa ? c->size / c->line : c->ways;
	uint64_t *st = calloc((size_t)sets * ways, sizeof(*st));
	uint32_t *fill = calloc(sets, sizeof(*fill));
	uint64_t miss = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		uint32_t s = fa ? 0 : (uint32_t)l[i] & (sets - 1), w, victim = 0;
		uint64_t *t = st + (size_t)s * ways;
		size_t far = 0, inc;

		for (w = 0; w < fill[s] && t[w] != l[i]; w++)
			;
		if (w < fill[s])
			continue;
		miss++;
		if (fill[s] < ways) {
			t[fill[s]++] = l[i];
			continue;
		}
		for (inc = i + 1; inc < n && l[inc] != l[i]; inc++)
			;
		for (w = 0; w < ways; w++) {
			for (j = i + 1; j < n && l[j] != t[w]; j++)
				;
			if (j > far)
				far = j, victim = w;
		}
		if (inc >= far)
			continue;
		t[victim] = l[i];
	}
	free(st);
	free(fill);
	return miss;
}

/*
 * Every row of the policy table by its number: its names parse back to
 * it, the lists name each online policy once, and an unknown name or
 * number is an error.
 */
static void check_table(void)
{
	char buf[256], *tok, *save = NULL;
	unsigned int r, nr_online = 0, listed = 0;

	for (r = 0; r < CACHEPIN_REPL__NR; r++) {
		const char *name = cachepin_repl_name(r);
		bool online = cachepin_repl__online(r);

		CHECK(strcmp(name, "?") && *name, "policy %u has a name", r);
		CHECK(strcmp(cachepin_repl__what(r), "?"), "policy %s says what it is", name);
		CHECK(cachepin_repl__parse(name, false) == (int)r, "'%s' parses back", name);
		CHECK(cachepin_repl__parse(name, true) == (online ? (int)r : -1),
		      "'%s' is a CPU's policy only if online", name);
		CHECK(!cachepin_repl__fa_name(r) || online, "%s: a fully associative row, online", name);
		nr_online += online;
	}
	CHECK(!cachepin_repl__online(CACHEPIN_REPL_OPT), "Belady is not online");
	CHECK(cachepin_repl__parse("rr", true) == CACHEPIN_REPL_RR, "'rr' is round-robin");
	CHECK(cachepin_repl__parse("bogus", false) == -1 && cachepin_repl__parse("", false) == -1 &&
	      cachepin_repl__parse("LRU", false) == -1, "unknown names are none");
	CHECK(!strcmp(cachepin_repl_name(CACHEPIN_REPL__NR), "?") &&
	      !strcmp(cachepin_repl__what(CACHEPIN_REPL__NR), "?") &&
	      !cachepin_repl__online(CACHEPIN_REPL__NR) && !cachepin_repl__fa_name(CACHEPIN_REPL__NR),
	      "past the table: no policy");
	cachepin_repl__names(buf, sizeof(buf), ",", ",", false, false);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), listed++)
		CHECK(cachepin_repl__parse(tok, true) >= 0, "listed '%s' is an online policy", tok);
	CHECK(listed == nr_online, "%u of %u online policies listed", listed, nr_online);
	cachepin_repl__names(buf, 8, ", ", " or ", true, true);
	CHECK(strlen(buf) == 7, "a short buffer is cut, ended (got '%s')", buf);
}

/*
 * Every policy of the table on the string LINES (ROW of the differential
 * test): its misses add up per reference and per set, no policy beats
 * Belady, and an online policy's online simulators count what its array
 * simulators count, miss by miss, set-associative and fully associative.
 */
static void check_policies(const struct cachepin_cache *c, const uint64_t *lines, size_t n,
			   unsigned int row)
{
	uint64_t set_miss[256], v, sum, opt[2];
	uint8_t miss[4000];
	unsigned int r, fa;
	size_t i;

	opt[0] = naive_opt(c, lines, n, false);
	opt[1] = naive_opt(c, lines, n, true);
	for (r = 0; r < CACHEPIN_REPL__NR; r++) {
		const char *name = cachepin_repl_name(r);

		for (fa = 0; fa < 2; fa++) {
			struct cachepin_cache_sim *cs;
			size_t same = 0;

			memset(set_miss, 0, sizeof(set_miss));
			v = cachepin_cache__simulate(c, r, fa, lines, n, 7, set_miss, miss);
			for (sum = 0, i = 0; i < n; i++)
				sum += miss[i];
			CHECK(v == sum, "%s%s row %u: per-reference misses add up", fa ? "fa-" : "", name, row);
			for (sum = 0, i = 0; i < (fa ? 1 : c->sets); i++)
				sum += set_miss[i];
			CHECK(v == sum, "%s%s row %u: per-set misses add up", fa ? "fa-" : "", name, row);
			CHECK(v >= opt[fa], "%s%s row %u: %llu misses, Belady %llu", fa ? "fa-" : "", name,
			      row, (unsigned long long)v, (unsigned long long)opt[fa]);
			if (!cachepin_repl__online(r))
				continue;
			cs = cachepin_cache_sim__new(c, r, fa, 7);
			for (i = 0; cs && i < n; i++)
				same += cachepin_cache_sim__access(cs, lines[i]) == miss[i];
			CHECK(cs && same == n && cachepin_cache_sim__misses(cs) == v,
			      "online %s%s row %u: %zu of %zu references agree", fa ? "fully associative " : "",
			      name, row, same, n);
			cachepin_cache_sim__free(cs);
		}
	}
}

/* Differential: random strings on C against the naive simulators. */
static void check_differential(const struct cachepin_cache *c, uint64_t *lines)
{
	uint64_t seed = 12345, set_miss[256], v;
	unsigned int r;
	size_t i, n;

	for (r = 0; r < 200; r++) {
		uint32_t universe = 8 + r % 120;
		uint8_t miss[4000];
		uint64_t sum = 0;

		n = 500 + (r * 37) % 3000;
		for (i = 0; i < n; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			/* odd rows: lines far apart, which share hash buckets */
			lines[i] = (seed % universe) * (r % 2 ? 0x100000001ULL : 1);
		}
		v = cachepin_cache__simulate(c, CACHEPIN_REPL_LRU, false, lines, n, 1, NULL, miss);
		CHECK(v == naive_lru(c, lines, n, false), "lru row %u", r);
		for (i = 0; i < n; i++)
			sum += miss[i];
		CHECK(sum == v, "per-reference misses add up (row %u)", r);
		CHECK(cachepin_cache__simulate(c, CACHEPIN_REPL_LRU, true, lines, n, 1, NULL, NULL) ==
		      naive_lru(c, lines, n, true), "fully associative lru row %u", r);
		CHECK(cachepin_cache__simulate(c, CACHEPIN_REPL_OPT, false, lines, n, 1, NULL, NULL) ==
		      naive_opt(c, lines, n, false), "opt row %u", r);
		CHECK(cachepin_cache__simulate(c, CACHEPIN_REPL_OPT, true, lines, n, 1, NULL, NULL) ==
		      naive_opt(c, lines, n, true), "fully associative opt row %u", r);
		CHECK(cachepin_cache__simulate(c, CACHEPIN_REPL_OPT, false, lines, n, 1, NULL, NULL) <=
		      cachepin_cache__simulate(c, CACHEPIN_REPL_RANDOM, false, lines, n, 7, NULL, NULL),
		      "opt <= random row %u", r);
		/* fully associative random: per-reference misses add up, round-robin alike */
		set_miss[0] = 0;
		v = cachepin_cache__simulate(c, CACHEPIN_REPL_RANDOM, true, lines, n, 7, set_miss, miss);
		for (sum = 0, i = 0; i < n; i++)
			sum += miss[i];
		CHECK(sum == v && set_miss[0] == v, "fully associative random adds up (row %u)", r);
		CHECK(v == cachepin_cache__simulate(c, CACHEPIN_REPL_RR, true, lines, n, 7, NULL, NULL),
		      "fully associative round-robin is random (row %u)", r);
		CHECK(v >= naive_opt(c, lines, n, true), "fully associative opt <= random row %u", r);
		/* every policy, through the table: the online simulators as the array ones */
		check_policies(c, lines, n, r);
	}
}

int main(void)
{
	struct cachepin_cache c;
	uint64_t lines[4000], set_miss[256];
	size_t i, n;
	uint64_t v;
	unsigned int r;

	cachepin_set_print(NULL);
	check_table();
	for (i = 0; i < sizeof(parse_rows) / sizeof(parse_rows[0]); i++) {
		int err = cachepin_cache__parse(&c, parse_rows[i].spec);

		CHECK((err == 0) == parse_rows[i].ok, "parse '%s' gave %d", parse_rows[i].spec, err);
		if (err || !parse_rows[i].ok)
			continue;
		CHECK(c.sets == parse_rows[i].sets, "'%s' sets %u", parse_rows[i].spec, c.sets);
		CHECK(c.way_span == parse_rows[i].way_span, "'%s' way span %u", parse_rows[i].spec, c.way_span);
		CHECK(c.ways == parse_rows[i].ways && c.line == parse_rows[i].line, "'%s' ways/line", parse_rows[i].spec);
		CHECK(c.repl == parse_rows[i].repl, "'%s' repl %d", parse_rows[i].spec, c.repl);
	}

	/* The longest spec the parser copies is 63 characters. */
	{
		char spec[80];

		memset(spec, '0', sizeof(spec));
		memcpy(spec + 63 - strlen("32768:4:32"), "32768:4:32", sizeof("32768:4:32"));
		CHECK(strlen(spec) == 63 && cachepin_cache__parse(&c, spec) == 0 && c.sets == 256,
		      "a 63-character spec parses");
		memset(spec, '0', sizeof(spec));
		memcpy(spec + 64 - strlen("32768:4:32"), "32768:4:32", sizeof("32768:4:32"));
		CHECK(strlen(spec) == 64 && cachepin_cache__parse(&c, spec) == -EINVAL,
		      "a 64-character spec is unknown");
	}

	cachepin_cache__parse(&c, "32K:4:32");
	CHECK(cachepin_cache__set(&c, 0xc0100000) == 0, "set of 0xc0100000");
	CHECK(cachepin_cache__set(&c, 0xc0100020) == 1, "next line, next set");
	CHECK(cachepin_cache__set(&c, 0xc0102000) == 0, "one way span on: same set");
	CHECK(cachepin_cache__set(&c, 0xc0101fe0) == 255, "last set");

	/* A per-packet path cycling through 5 lines of one 4-way set, 10 times. */
	for (n = 0; n < 50; n++)
		lines[n] = (n % 5) * (c.way_span / c.line);
	v = cachepin_cache__simulate(&c, CACHEPIN_REPL_LRU, false, lines, n, 1, set_miss, NULL);
	CHECK(v == 50, "5 lines cycling in a 4-way LRU set: all miss (got %llu)", (unsigned long long)v);
	CHECK(set_miss[0] == 50, "all in set 0");
	v = cachepin_cache__simulate(&c, CACHEPIN_REPL_RR, false, lines, n, 1, NULL, NULL);
	CHECK(v == 50, "round-robin thrashes too (got %llu)", (unsigned long long)v);
	v = cachepin_cache__simulate(&c, CACHEPIN_REPL_RANDOM, false, lines, n, 1, NULL, NULL);
	CHECK(v > 5 && v < 50, "random misses some (got %llu)", (unsigned long long)v);
	v = cachepin_cache__simulate(&c, CACHEPIN_REPL_OPT, false, lines, n, 1, NULL, NULL);
	CHECK(v == naive_opt(&c, lines, n, false) && v < 25, "optimal (got %llu)", (unsigned long long)v);
	v = cachepin_cache__simulate(&c, CACHEPIN_REPL_LRU, true, lines, n, 1, NULL, NULL);
	CHECK(v == 5, "fully associative: only cold misses (got %llu)", (unsigned long long)v);
	/* Four lines fit. */
	for (n = 0; n < 40; n++)
		lines[n] = (n % 4) * (c.way_span / c.line);
	v = cachepin_cache__simulate(&c, CACHEPIN_REPL_LRU, false, lines, n, 1, NULL, NULL);
	CHECK(v == 4, "4 lines in a 4-way set: cold misses only (got %llu)", (unsigned long long)v);
	v = cachepin_cache__simulate(&c, CACHEPIN_REPL_RANDOM, false, lines, n, 1, NULL, NULL);
	CHECK(v == 4, "random, 4 lines: cold misses only (got %llu)", (unsigned long long)v);
	for (r = 0; r < 2 * CACHEPIN_REPL__NR; r++) {
		bool fa = r >= CACHEPIN_REPL__NR;

		set_miss[0] = 0;	/* counts add up */
		v = cachepin_cache__simulate(&c, r % CACHEPIN_REPL__NR, fa, lines, n, 1, set_miss, NULL);
		CHECK(v == 4 && set_miss[0] == 4, "%s%s, 4 lines: cold misses only (got %llu)",
		      fa ? "fully associative " : "", cachepin_repl_name(r % CACHEPIN_REPL__NR),
		      (unsigned long long)v);
	}

	cachepin_cache__parse(&c, "1K:2:32");	/* 16 sets, capacity 32 lines */
	check_differential(&c, lines);
	CHECK(!cachepin_cache_sim__new(&c, CACHEPIN_REPL_OPT, false, 1) && errno == EINVAL,
	      "no online Belady");
	/* an unknown policy is an error, never another policy's figure */
	errno = 0;
	CHECK(cachepin_cache__simulate(&c, CACHEPIN_REPL__NR, true, lines, n, 1, NULL, NULL) == UINT64_MAX &&
	      errno == EINVAL, "fully associative, unknown policy: an error");
	CHECK(!cachepin_cache_sim__new(&c, CACHEPIN_REPL__NR, true, 1) && errno == EINVAL,
	      "online fully associative, unknown policy: an error");
	errno = 0;
	CHECK(cachepin_cache__simulate(&c, CACHEPIN_REPL__NR, false, lines, n, 1, NULL, NULL) == UINT64_MAX &&
	      errno == EINVAL, "set-associative, unknown policy: an error");
	UNIT_DONE();
}
