/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.data format constants, once for the reader (perf_data.c) and the
 * project's fixture tools (tests/tools/perf-*.c, tests/unit/perf_data.c).
 * The names are the kernel's and perf's, shortened: PERF_SAMPLE_IP is
 * ST_IP, PERF_RECORD_MMAP is REC_MMAP, HEADER_HOSTNAME is FEAT_HOSTNAME.
 * Private: never installed.
 */
#ifndef CACHEPIN_PERF_FORMAT_H
#define CACHEPIN_PERF_FORMAT_H

#include <stdint.h>

/* ---- the file header ------------------------------------------------------ */

#define MAGIC_V1		"PERFFILE"	/* legacy version 1 */
#define MAGIC_V2		"PERFILE2"	/* version 2, little-endian producer */
#define MAGIC_V2_BE		"2ELIFREP"	/* version 2, big-endian producer */
#define MAGIC_SIZE		8

#define FILE_HEADER_SIZE	104
#define PIPE_HEADER_SIZE	16	/* magic and size: records follow */
#define FEAT_BITS		256	/* bits of the feature bitmap */

/* header features: bits of the bitmap, HEADER_FEATURE record types */
enum {
	FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4, FEAT_VERSION = 5,
	FEAT_ARCH = 6, FEAT_NRCPUS = 7, FEAT_CPUDESC = 8, FEAT_CPUID = 9,
	FEAT_TOTAL_MEM = 10, FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12,
	FEAT_PMU_MAPPINGS = 16, FEAT_CACHE = 20, FEAT_SAMPLE_TIME = 21,
	FEAT_COMPRESSED = 27,
};

/* HEADER_CACHE: the version perf writes, the one level entry's fixed part */
#define CACHE_FEAT_VERSION	1
#define CACHE_ENTRY_MIN		(4 * 4 + 3 * 4)	/* level..ways, three empty strings */

/* ---- perf_event_attr ------------------------------------------------------ */

#define ATTR_SIZE_VER0		64	/* the first published attr */
#define ATTR_SIZE_VER7		128	/* what perf 6.1 writes */
#define ATTR_SIZE_VER8		136

#define ATTR_TYPE_SOFTWARE	1
#define SW_CPU_CLOCK		0	/* config of a software event */

/* flags bitfield (bit numbers as a little-endian compiler allocates them) */
#define AF_DISABLED		(1ULL << 0)
#define AF_INHERIT		(1ULL << 1)
#define AF_MMAP			(1ULL << 8)
#define AF_COMM			(1ULL << 9)
#define AF_FREQ			(1ULL << 10)
#define AF_SAMPLE_ID_ALL	(1ULL << 18)
#define AF_EXCLUDE_GUEST	(1ULL << 20)

/* sample_type bits */
#define ST_IP			(1ULL << 0)
#define ST_TID			(1ULL << 1)
#define ST_TIME			(1ULL << 2)
#define ST_ADDR			(1ULL << 3)
#define ST_READ			(1ULL << 4)
#define ST_CALLCHAIN		(1ULL << 5)
#define ST_ID			(1ULL << 6)
#define ST_CPU			(1ULL << 7)
#define ST_PERIOD		(1ULL << 8)
#define ST_STREAM_ID		(1ULL << 9)
#define ST_RAW			(1ULL << 10)
#define ST_BRANCH_STACK		(1ULL << 11)
#define ST_REGS_USER		(1ULL << 12)
#define ST_STACK_USER		(1ULL << 13)
#define ST_WEIGHT		(1ULL << 14)
#define ST_DATA_SRC		(1ULL << 15)
#define ST_IDENTIFIER		(1ULL << 16)
#define ST_TRANSACTION		(1ULL << 17)
#define ST_REGS_INTR		(1ULL << 18)
#define ST_PHYS_ADDR		(1ULL << 19)
#define ST_AUX			(1ULL << 20)
#define ST_CGROUP		(1ULL << 21)
#define ST_DATA_PAGE_SIZE	(1ULL << 22)
#define ST_CODE_PAGE_SIZE	(1ULL << 23)
#define ST_WEIGHT_STRUCT	(1ULL << 24)

/* read_format bits */
#define RF_TOTAL_TIME_ENABLED	(1ULL << 0)
#define RF_TOTAL_TIME_RUNNING	(1ULL << 1)
#define RF_ID			(1ULL << 2)
#define RF_GROUP		(1ULL << 3)
#define RF_LOST			(1ULL << 4)

/* branch_sample_type bits that change the branch stack's layout */
#define BST_HW_INDEX		(1ULL << 17)
#define BST_COUNTERS		(1ULL << 19)

/* ---- records -------------------------------------------------------------- */

/* the kernel's record types, then perf's own (64 on) */
enum {
	REC_MMAP = 1, REC_LOST = 2, REC_COMM = 3, REC_EXIT = 4, REC_THROTTLE = 5,
	REC_UNTHROTTLE = 6, REC_FORK = 7, REC_SAMPLE = 9, REC_MMAP2 = 10,
	REC_LOST_SAMPLES = 13, REC_KSYMBOL = 17, REC_BPF_EVENT = 18,

	REC_HEADER_ATTR = 64, REC_HEADER_TRACING_DATA = 66,
	REC_HEADER_BUILD_ID = 67, REC_FINISHED_ROUND = 68, REC_ID_INDEX = 69,
	REC_AUXTRACE = 71, REC_THREAD_MAP = 73, REC_CPU_MAP = 74,
	REC_EVENT_UPDATE = 78, REC_TIME_CONV = 79, REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81, REC_FINISHED_INIT = 82, REC_COMPRESSED2 = 83,
};

/* the header's misc field */
#define CPUMODE_MASK		7
#define CPUMODE_KERNEL		1
#define CPUMODE_USER		2
#define MISC_MMAP_BUILD_ID	0x4000	/* MMAP2: a build id instead of the inode */
#define MISC_BUILD_ID_SIZE	0x8000	/* build-id record: its size is valid */

/* callchain context markers */
#define CTX_HV			((uint64_t)-32)
#define CTX_KERNEL		((uint64_t)-128)
#define CTX_USER		((uint64_t)-512)
#define CTX_USER_DEFERRED	((uint64_t)-640)	/* a cookie follows */
#define CTX_GUEST		((uint64_t)-2048)
#define CTX_GUEST_KERNEL	((uint64_t)-2176)
#define CTX_GUEST_USER		((uint64_t)-2560)
#define CTX_MAX			((uint64_t)-4095)	/* markers are at or above */

/* the kernel's map name, followed by its reference symbol ("_text") */
#define KALLSYMS		"[kernel.kallsyms]"

#endif
