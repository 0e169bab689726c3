/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One binary heap for the library, kept in the caller's array, for any
 * element type and order: HEAP_DEFINE(name, type, before) defines
 * name_push(), name_pop() and name_replace_top(), where before(a, b) is
 * true when A belongs nearer the top than B (a > b: a max-heap).  The
 * caller sizes the array.  Ties keep the order of the sift loops below,
 * so the same pushes and pops give the same heap.
 */
#ifndef CACHEPIN_HEAP_H
#define CACHEPIN_HEAP_H

#include <stddef.h>

#define HEAP_DEFINE(name, type, before)						\
/* Add E to the heap H of *N elements (room for one more needed). */		\
static inline void name##_push(type *h, size_t *n, type e)			\
{										\
	size_t i = (*n)++;							\
										\
	while (i && before(e, h[(i - 1) / 2])) {				\
		h[i] = h[(i - 1) / 2];						\
		i = (i - 1) / 2;						\
	}									\
	h[i] = e;								\
}										\
										\
/* Put E in place of the top of the heap H of N elements (N = 0: nothing). */	\
static inline void name##_replace_top(type *h, size_t n, type e)		\
{										\
	size_t i = 0;								\
										\
	for (;;) {								\
		size_t l = 2 * i + 1, r = l + 1, m = i;				\
		type mk = e;							\
										\
		if (l < n && before(h[l], mk))					\
			m = l, mk = h[l];					\
		if (r < n && before(h[r], mk))					\
			m = r;							\
		if (m == i)							\
			break;							\
		h[i] = h[m];							\
		i = m;								\
	}									\
	if (n)									\
		h[i] = e;							\
}										\
										\
/* Take the top off the heap H of *N elements (*N > 0). */			\
static inline type name##_pop(type *h, size_t *n)				\
{										\
	type top = h[0];							\
										\
	--*n;									\
	name##_replace_top(h, *n, h[*n]);					\
	return top;								\
}

#endif
