/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.data format constants shared by the reader and the project's
 * fixture tools (tests/tools/perf-to-be.c, tests/unit/perf_data.c).
 * Private: never installed.
 */
#ifndef CACHEPIN_PERF_FORMAT_H
#define CACHEPIN_PERF_FORMAT_H

/* perf_event_attr.sample_type bits */
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

#endif
