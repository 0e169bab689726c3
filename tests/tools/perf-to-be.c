// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf-to-be: rewrite a little-endian file-mode perf.data the way a
 * big-endian producer writes it, for tests of big-endian input.
 *
 *   perf-to-be [--bitmap32] IN OUT
 *
 * Every header, attr, id, record and feature field is stored big-endian
 * at its own width; the attr flags bitfield is stored as a big-endian
 * compiler allocates it (from the most significant bit); --bitmap32
 * writes the feature bitmap as the 8 u32 words of a 32-bit host.  The
 * layout (and so every offset) is unchanged.  Records and features whose
 * layout this tool does not know are refused, except features that are
 * not needed to read samples: those are dropped from the copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf-format.h"

/* sample_type bits whose fields this tool cannot swap (bytes, bitfields) */
#define ST_REFUSED	(ST_RAW | ST_BRANCH_STACK | ST_STACK_USER | ST_AUX)

static const char *in_path;
static uint8_t *buf;
static size_t len;

struct attr {
	uint64_t sample_type, read_format, flags, regs_user, regs_intr;
};

static struct attr *attrs;
static size_t nr_attrs;
static uint64_t *id_of;
static size_t *attr_of;
static size_t nr_ids;

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "perf-to-be: '%s': ", in_path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void need(uint64_t off, uint64_t n, const char *what)
{
	if (off > len || n > len - off)
		die("%s at 0x%" PRIx64 " runs past the end of the file", what, off);
}

/* little-endian loads of the input, big-endian stores in place */
static uint16_t le16(uint64_t o) { return buf[o] | buf[o + 1] << 8; }
static uint32_t le32(uint64_t o) { return le16(o) | (uint32_t)le16(o + 2) << 16; }
static uint64_t le64(uint64_t o) { return le32(o) | (uint64_t)le32(o + 4) << 32; }

static void sw16(uint64_t o)
{
	uint16_t v = le16(o);

	buf[o] = v >> 8;
	buf[o + 1] = v;
}

static void sw32(uint64_t o)
{
	uint32_t v = le32(o);
	int i;

	for (i = 0; i < 4; i++)
		buf[o + i] = v >> (24 - 8 * i);
}

static void sw64(uint64_t o)
{
	uint64_t v = le64(o);
	int i;

	for (i = 0; i < 8; i++)
		buf[o + i] = v >> (56 - 8 * i);
}

static void sw64n(uint64_t o, uint64_t n)
{
	while (n--) {
		sw64(o);
		o += 8;
	}
}

static uint8_t rev8(uint8_t b)
{
	uint8_t r = 0;
	int i;

	for (i = 0; i < 8; i++)
		r |= ((b >> i) & 1) << (7 - i);
	return r;
}

/* Swap a perf_event_attr of AVAIL bytes at O (at most what attr.size covers). */
static void swap_attr(uint64_t o, uint64_t avail, struct attr *a)
{
	static const struct { uint8_t off, width; } f[] = {
		{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 },
		/* 40: the flags bitfield, below */
		{ 48, 4 }, { 52, 4 }, { 56, 8 }, { 64, 8 }, { 72, 8 }, { 80, 8 },
		{ 88, 4 }, { 92, 4 }, { 96, 8 }, { 104, 4 }, { 108, 2 }, { 110, 2 },
		{ 112, 4 }, { 116, 4 }, { 120, 8 }, { 128, 8 },
	};
	uint64_t size;
	size_t i;

	need(o, avail, "attr");
	if (avail < ATTR_SIZE_VER0)
		die("attr at 0x%" PRIx64 " is only %" PRIu64 " bytes", o, avail);
	size = le32(o + 4);
	if (!size)
		size = ATTR_SIZE_VER0;
	if (size > avail)
		size = avail;
	if (a) {
		memset(a, 0, sizeof(*a));
		a->sample_type = le64(o + 24);
		a->read_format = le64(o + 32);
		a->flags = le64(o + 40);
		a->regs_user = size >= 88 ? le64(o + 80) : 0;
		a->regs_intr = size >= 104 ? le64(o + 96) : 0;
	}
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (f[i].off + f[i].width > size)
			continue;
		if (f[i].width == 2)
			sw16(o + f[i].off);
		else if (f[i].width == 4)
			sw32(o + f[i].off);
		else
			sw64(o + f[i].off);
	}
	/* a big-endian compiler allocates bitfields from the most significant bit */
	for (i = 0; i < 8; i++)
		buf[o + 40 + i] = rev8(buf[o + 40 + i]);
}

static const struct attr *attr_by_id(uint64_t id)
{
	size_t i;

	for (i = 0; i < nr_ids; i++)
		if (id_of[i] == id)
			return &attrs[attr_of[i]];
	return &attrs[0];
}

/* The attr of a non-sample record, from the id in its trailer. */
static const struct attr *record_attr(uint64_t o, uint16_t size)
{
	uint64_t st = attrs[0].sample_type;
	unsigned int back;

	if (nr_attrs == 1 || !(attrs[0].flags & AF_SAMPLE_ID_ALL))
		return &attrs[0];
	if (st & ST_IDENTIFIER)
		back = 1;
	else if (st & ST_ID)
		back = 1 + !!(st & ST_CPU) + !!(st & ST_STREAM_ID);
	else
		return &attrs[0];
	if (8u * back > size - 8u)
		return &attrs[0];
	return attr_by_id(le64(o + size - 8 * back));
}

/* Swap the sample_id_all trailer of the record at O; returns its length. */
static unsigned int swap_trailer(uint64_t o, uint16_t size, uint64_t body)
{
	const struct attr *a = record_attr(o, size);
	uint64_t st = a->sample_type, t;
	unsigned int n;

	if (!(a->flags & AF_SAMPLE_ID_ALL))
		return 0;
	n = 8 * __builtin_popcountll(st & (ST_TID | ST_TIME | ST_ID | ST_STREAM_ID |
					   ST_CPU | ST_IDENTIFIER));
	if (n > size - body)
		die("record at 0x%" PRIx64 " is too short for its sample_id_all trailer", o);
	t = o + size - n;
	if (st & ST_TID) {
		sw32(t);
		sw32(t + 4);
		t += 8;
	}
	n = !!(st & ST_TIME) + !!(st & ST_ID) + !!(st & ST_STREAM_ID);
	sw64n(t, n);
	t += 8 * n;
	if (st & ST_CPU) {
		sw32(t);
		sw32(t + 4);
		t += 8;
	}
	if (st & ST_IDENTIFIER)
		sw64(t);
	return n;
}

static void swap_sample(uint64_t o, uint16_t size)
{
	uint64_t q = o + 8, end = o + size, st, n;
	const struct attr *a;

#define NEED(nb) do { if ((uint64_t)(nb) > end - q) \
		die("sample at 0x%" PRIx64 " is too short", o); } while (0)
	st = attrs[0].sample_type;
	if (nr_attrs == 1) {
		a = &attrs[0];
	} else if (st & ST_IDENTIFIER) {
		NEED(8);
		a = attr_by_id(le64(q));
	} else if (st & ST_ID) {
		n = !!(st & ST_IP) + !!(st & ST_TID) + !!(st & ST_TIME) + !!(st & ST_ADDR);
		NEED(8 * n + 8);
		a = attr_by_id(le64(q + 8 * n));
	} else {
		a = &attrs[0];
	}
	st = a->sample_type;
	if (st & ST_REFUSED)
		die("sample_type 0x%" PRIx64 " has fields this tool cannot swap", st);

	/* u64 fields, except the u32 pairs of TID and CPU */
	for (n = 0; n < 9; n++) {
		static const uint64_t order[9] = {
			ST_IDENTIFIER, ST_IP, ST_TID, ST_TIME, ST_ADDR, ST_ID,
			ST_STREAM_ID, ST_CPU, ST_PERIOD,
		};

		if (!(st & order[n]))
			continue;
		NEED(8);
		if (order[n] == ST_TID || order[n] == ST_CPU) {
			sw32(q);
			sw32(q + 4);
		} else {
			sw64(q);
		}
		q += 8;
	}
	if (st & ST_READ) {
		uint64_t rf = a->read_format;
		uint64_t per = 1 + !!(rf & RF_ID) + !!(rf & RF_LOST);
		uint64_t hdr = !!(rf & RF_TOTAL_TIME_ENABLED) + !!(rf & RF_TOTAL_TIME_RUNNING);

		if (rf & RF_GROUP) {
			NEED(8);
			n = le64(q);
			if (n > (end - q) / 8)
				die("sample at 0x%" PRIx64 " is too short", o);
			n = 1 + hdr + per * n;
		} else {
			n = per + hdr;
		}
		NEED(8 * n);
		sw64n(q, n);
		q += 8 * n;
	}
	if (st & ST_CALLCHAIN) {
		NEED(8);
		n = le64(q);
		if (n > (end - q) / 8 - 1)
			die("sample at 0x%" PRIx64 " is too short", o);
		sw64n(q, n + 1);
		q += 8 * (n + 1);
	}
	if (st & ST_REGS_USER) {
		NEED(8);
		n = le64(q) ? (uint64_t)__builtin_popcountll(a->regs_user) : 0;
		NEED(8 + 8 * n);
		sw64n(q, n + 1);
		q += 8 * (n + 1);
	}
	n = !!(st & (ST_WEIGHT | ST_WEIGHT_STRUCT)) + !!(st & ST_DATA_SRC) +
	    !!(st & ST_TRANSACTION);
	NEED(8 * n);
	sw64n(q, n);
	q += 8 * n;
	if (st & ST_REGS_INTR) {
		NEED(8);
		n = le64(q) ? (uint64_t)__builtin_popcountll(a->regs_intr) : 0;
		NEED(8 + 8 * n);
		sw64n(q, n + 1);
		q += 8 * (n + 1);
	}
	n = !!(st & ST_PHYS_ADDR) + !!(st & ST_CGROUP) + !!(st & ST_DATA_PAGE_SIZE) +
	    !!(st & ST_CODE_PAGE_SIZE);
	NEED(8 * n);
	sw64n(q, n);
#undef NEED
}

static void swap_record(uint64_t o, uint32_t type, uint16_t misc, uint16_t size)
{
	uint64_t n, i;

#define MIN(nb) do { if (size < (nb)) \
		die("record type %u at 0x%" PRIx64 " is too short", type, o); } while (0)
	switch (type) {
	case REC_SAMPLE:
		swap_sample(o, size);
		break;
	case REC_MMAP:
		MIN(40);
		sw32(o + 8);
		sw32(o + 12);
		sw64n(o + 16, 3);
		swap_trailer(o, size, 40);
		break;
	case REC_MMAP2:
		MIN(72);
		sw32(o + 8);
		sw32(o + 12);
		sw64n(o + 16, 3);
		if (!(misc & MISC_MMAP_BUILD_ID)) {
			sw32(o + 40);
			sw32(o + 44);
			sw64n(o + 48, 2);
		}
		sw32(o + 64);
		sw32(o + 68);
		swap_trailer(o, size, 72);
		break;
	case REC_COMM:
		MIN(16);
		sw32(o + 8);
		sw32(o + 12);
		swap_trailer(o, size, 16);
		break;
	case REC_EXIT:
	case REC_FORK:
		MIN(32);
		for (i = 0; i < 4; i++)
			sw32(o + 8 + 4 * i);
		sw64(o + 24);
		swap_trailer(o, size, 32);
		break;
	case REC_LOST:
		MIN(24);
		sw64n(o + 8, 2);
		swap_trailer(o, size, 24);
		break;
	case REC_THROTTLE:
	case REC_UNTHROTTLE:
		MIN(32);
		sw64n(o + 8, 3);
		swap_trailer(o, size, 32);
		break;
	case REC_LOST_SAMPLES:
		MIN(16);
		sw64(o + 8);
		swap_trailer(o, size, 16);
		break;
	case REC_KSYMBOL:
		MIN(24);
		sw64(o + 8);
		sw32(o + 16);
		sw16(o + 20);
		sw16(o + 22);
		swap_trailer(o, size, 24);
		break;
	case REC_BPF_EVENT:
		MIN(24);
		sw16(o + 8);
		sw16(o + 10);
		sw32(o + 12);
		swap_trailer(o, size, 24);
		break;
	case REC_FINISHED_ROUND:
	case REC_FINISHED_INIT:
		break;
	case REC_ID_INDEX:	/* nr, {id, idx, cpu, tid}[nr] */
		MIN(16);
		n = le64(o + 8);
		if (n > (size - 16u) / 32)
			die("ID_INDEX at 0x%" PRIx64 " is too short", o);
		sw64n(o + 8, 1 + 4 * n);
		break;
	case REC_THREAD_MAP:	/* nr, {u64 pid; char comm[16]}[nr] */
		MIN(16);
		n = le64(o + 8);
		if (n > (size - 16u) / 24)
			die("THREAD_MAP at 0x%" PRIx64 " is too short", o);
		sw64(o + 8);
		for (i = 0; i < n; i++)
			sw64(o + 16 + 24 * i);
		break;
	case REC_CPU_MAP:
		MIN(10);
		n = le16(o + 8);
		sw16(o + 8);
		if (n == 0) {		/* CPUS: u16 nr, u16 cpu[nr] */
			MIN(12);
			n = le16(o + 10);
			if (n > (size - 12u) / 2)
				die("CPU_MAP at 0x%" PRIx64 " is too short", o);
			for (i = 0; i < n + 1; i++)
				sw16(o + 10 + 2 * i);
		} else if (n == 2) {	/* RANGE_CPUS: u8 any, pad, u16 start, end */
			MIN(16);
			sw16(o + 12);
			sw16(o + 14);
		} else {
			die("CPU_MAP at 0x%" PRIx64 " has an unsupported type %" PRIu64, o, n);
		}
		break;
	case REC_EVENT_UPDATE:	/* u64 type, id, then by type */
		MIN(24);
		n = le64(o + 8);
		sw64n(o + 8, 2);
		if (n == 1) {			/* SCALE: a double */
			MIN(32);
			sw64(o + 24);
		} else if (n != 0 && n != 2) {	/* UNIT and NAME are strings */
			die("EVENT_UPDATE at 0x%" PRIx64 " has an unsupported type %" PRIu64,
			    o, n);
		}
		break;
	case REC_TIME_CONV:	/* u64 shift, mult, zero[, cycles, mask, u8 caps...] */
		MIN(32);
		sw64n(o + 8, size >= 56 ? 5 : 3);
		break;
	default:
		die("record type %u at 0x%" PRIx64 " has a layout this tool does not know",
		    type, o);
	}
#undef MIN
}

/* perf strings: u32 len + bytes; returns the offset after it */
static uint64_t swap_string(uint64_t o, uint64_t end)
{
	uint32_t n;

	if (end - o < 4)
		die("string at 0x%" PRIx64 " runs past its section", o);
	n = le32(o);
	sw32(o);
	if (n > end - o - 4)
		die("string at 0x%" PRIx64 " runs past its section", o);
	return o + 4 + n;
}

/* Swap the feature section FEAT at [o, o+size); false: drop it. */
static bool swap_feature(unsigned int feat, uint64_t o, uint64_t size)
{
	uint64_t end = o + size, q, n, i, j, asz, nid;

	need(o, size, "feature section");
	switch (feat) {
	case FEAT_BUILD_ID:	/* records stepped by their size */
		for (q = o; end - q >= 8;) {
			uint16_t rs = le16(q + 6);

			if (rs < 36 || rs > end - q)
				die("build-id record at 0x%" PRIx64 " is malformed", q);
			sw32(q);
			sw16(q + 4);
			sw16(q + 6);
			sw32(q + 8);
			q += rs;
		}
		return true;
	case FEAT_HOSTNAME:	/* strings */
	case FEAT_OSRELEASE:
	case FEAT_VERSION:
	case FEAT_ARCH:
	case FEAT_CPUDESC:
	case FEAT_CPUID:
		swap_string(o, end);
		return true;
	case FEAT_NRCPUS:
		if (size < 8)
			die("NRCPUS section is too short");
		sw32(o);
		sw32(o + 4);
		return true;
	case FEAT_TOTAL_MEM:
	case FEAT_SAMPLE_TIME:	/* first, last */
		if (size < (feat == FEAT_TOTAL_MEM ? 8u : 16u))
			die("feature %u section is too short", feat);
		sw64n(o, feat == FEAT_TOTAL_MEM ? 1 : 2);
		return true;
	case FEAT_CMDLINE:	/* string list */
		if (size < 4)
			die("CMDLINE section is too short");
		n = le32(o);
		sw32(o);
		for (q = o + 4, i = 0; i < n; i++)
			q = swap_string(q, end);
		return true;
	case FEAT_EVENT_DESC:
		if (size < 8)
			die("EVENT_DESC section is too short");
		n = le32(o);
		asz = le32(o + 4);
		sw32(o);
		sw32(o + 4);
		for (q = o + 8, i = 0; i < n; i++) {
			if (end - q < asz + 4)
				die("EVENT_DESC section is too short");
			swap_attr(q, asz, NULL);
			q += asz;
			nid = le32(q);
			sw32(q);
			q = swap_string(q + 4, end);
			if (nid > (end - q) / 8)
				die("EVENT_DESC section is too short");
			sw64n(q, nid);
			q += 8 * nid;
		}
		return true;
	case FEAT_CACHE:	/* u32 version, nr, {u32 level, line, sets, ways; 3 strings}[nr] */
		if (size < 8)
			die("CACHE section is too short");
		n = le32(o + 4);
		sw32(o);
		sw32(o + 4);
		for (q = o + 8, i = 0; i < n; i++) {
			if (end - q < 16)
				die("CACHE section is too short");
			for (j = 0; j < 4; j++)
				sw32(q + 4 * j);
			q = swap_string(q + 16, end);
			q = swap_string(q, end);
			q = swap_string(q, end);
		}
		return true;
	case FEAT_PMU_MAPPINGS:	/* u32 nr, {u32 type; string name}[nr] */
		if (size < 4)
			die("PMU_MAPPINGS section is too short");
		n = le32(o);
		sw32(o);
		for (q = o + 4, i = 0; i < n; i++) {
			if (end - q < 4)
				die("PMU_MAPPINGS section is too short");
			sw32(q);
			q = swap_string(q + 4, end);
		}
		return true;
	}
	/* topology, caches, BPF, PMU caps...: not needed to read samples */
	return false;
}

int main(int argc, char **argv)
{
	uint64_t attr_size, attrs_off, attrs_size, data_off, data_size, data_end;
	uint64_t o, i, j, sec, words[4], kept;
	bool bitmap32 = false;
	const char *out_path;
	struct stat st;
	FILE *out;
	int fd, argi = 1;

	if (argc > 1 && !strcmp(argv[1], "--bitmap32")) {
		bitmap32 = true;
		argi++;
	}
	if (argc - argi != 2) {
		fputs("usage: perf-to-be [--bitmap32] IN OUT\n", stderr);
		return 129;
	}
	in_path = argv[argi];
	out_path = argv[argi + 1];

	fd = open(in_path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "perf-to-be: cannot open '%s': %s\n", in_path, strerror(errno));
		return 1;
	}
	len = st.st_size;
	buf = malloc(len ? len : 1);
	if (!buf || read(fd, buf, len) != (ssize_t)len)
		die("cannot read the file");
	close(fd);

	if (len < FILE_HEADER_SIZE || memcmp(buf, MAGIC_V2, MAGIC_SIZE))
		die("not a little-endian perf.data file");
	if (le64(8) != FILE_HEADER_SIZE)
		die("not a file-mode perf.data (header size %" PRIu64 ")", le64(8));
	attr_size = le64(16);
	attrs_off = le64(24);
	attrs_size = le64(32);
	data_off = le64(40);
	data_size = le64(48);
	data_end = data_size ? data_off + data_size : len;
	if (attr_size < 16 + ATTR_SIZE_VER0)
		die("bad attr size %" PRIu64, attr_size);
	need(attrs_off, attrs_size, "attrs section");
	need(data_off, data_end - data_off, "data section");

	/* attrs and their ids: read everything before swapping */
	nr_attrs = attrs_size / attr_size;
	if (!nr_attrs)
		die("no events");
	attrs = calloc(nr_attrs, sizeof(*attrs));
	for (i = 0; i < nr_attrs; i++) {
		uint64_t a = attrs_off + i * attr_size;
		uint64_t ids_off = le64(a + attr_size - 16);
		uint64_t ids_n = le64(a + attr_size - 8) / 8;

		need(ids_off, ids_n * 8, "attr ids");
		id_of = realloc(id_of, (nr_ids + ids_n) * sizeof(*id_of));
		attr_of = realloc(attr_of, (nr_ids + ids_n) * sizeof(*attr_of));
		for (j = 0; j < ids_n; j++) {
			id_of[nr_ids] = le64(ids_off + 8 * j);
			attr_of[nr_ids++] = i;
			sw64(ids_off + 8 * j);
		}
		swap_attr(a, attr_size - 16, &attrs[i]);
		sw64n(a + attr_size - 16, 2);
	}

	/* records */
	for (o = data_off; o < data_end;) {
		uint32_t type;
		uint16_t misc, size;

		need(o, 8, "record header");
		type = le32(o);
		misc = le16(o + 4);
		size = le16(o + 6);
		if (size < 8 || size > data_end - o)
			die("bad record size %u at 0x%" PRIx64, size, o);
		if (type == REC_HEADER_TRACING_DATA || type == REC_AUXTRACE ||
		    type == REC_COMPRESSED || type == REC_COMPRESSED2)
			die("record type %u at 0x%" PRIx64 " is not supported", type, o);
		swap_record(o, type, misc, size);
		sw32(o);
		sw16(o + 4);
		sw16(o + 6);
		o += size;
	}

	/* features: swap the known ones, drop the rest from bitmap and table */
	for (i = 0; i < 4; i++)
		words[i] = le64(72 + 8 * i);
	sec = data_end;
	kept = data_end;
	for (i = 0; i < FEAT_BITS && data_size; i++) {
		uint64_t off, size;

		if (!(words[i / 64] & (1ULL << (i % 64))))
			continue;
		need(sec, 16, "feature table");
		off = le64(sec);
		size = le64(sec + 8);
		sec += 16;
		if (!swap_feature(i, off, size)) {
			words[i / 64] &= ~(1ULL << (i % 64));
			continue;
		}
		for (j = 0; j < 8; j++) {
			buf[kept + j] = off >> (56 - 8 * j);
			buf[kept + 8 + j] = size >> (56 - 8 * j);
		}
		kept += 16;
	}
	/* the unused rest of the table */
	memset(buf + kept, 0, sec - kept);
	for (i = 0; i < 4; i++) {
		for (j = 0; j < 8; j++) {
			if (bitmap32)	/* u32 word 2i+1 holds the high half */
				buf[72 + 8 * i + j] = (words[i] >> (j < 4 ? 24 - 8 * j : 56 - 8 * (j - 4)));
			else
				buf[72 + 8 * i + j] = words[i] >> (56 - 8 * j);
		}
	}

	/* file header */
	memcpy(buf, MAGIC_V2_BE, MAGIC_SIZE);
	sw64n(8, 8);

	out = fopen(out_path, "wb");
	if (!out || fwrite(buf, 1, len, out) != len || fclose(out)) {
		fprintf(stderr, "perf-to-be: cannot write '%s': %s\n", out_path, strerror(errno));
		return 1;
	}
	return 0;
}
