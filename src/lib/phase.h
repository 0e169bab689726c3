/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Phases of a sampled recording (phase.c): short windows of consecutive
 * samples clustered by the functions they hit, so that a profile's
 * slices are what the program does at a time, not stretches of the
 * clock that each hold every phase of a program that repeats.
 */
#ifndef CACHEPIN_PHASE_H
#define CACHEPIN_PHASE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Samples per window: short next to a phase, long enough to name it.
 * The bench's plans from six recordings of each workload (20 kHz),
 * geometric mean over its nine cells of the median plan's cachegrind
 * misses over the best other layout: 16 samples 0.872, 32 0.858, 64
 * 0.935 (time slices: 0.937).
 */
#define CACHEPIN_PHASE_WINDOW 32
/* Fewer windows than this per phase: no phases, the time slices stay. */
#define CACHEPIN_PHASE_MIN_WINDOWS 8

/*
 * N hits, hit I of feature FEAT[I] (a function, numbered from 0 up to
 * NFEAT) in window WIN[I] (nondecreasing, below NWIN), clustered into at
 * most K phases (k-means from a fixed seed, on at most a bounded number
 * of windows, then every window to its nearest phase).  PHASE[W] gets
 * window W's phase, the phases numbered by their first window; a
 * window without hits takes the one before it.  Returns the number of
 * phases (0: too few windows to tell phases apart), or -ENOMEM.
 */
int cachepin_phase__cluster(const uint32_t *feat, const uint32_t *win, size_t n, uint32_t nfeat,
			    uint32_t nwin, uint32_t k, uint32_t *phase);

#endif
