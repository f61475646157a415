/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Growing an array by doubling, in the manner of libbpf_ensure_mem()
 * (libbpf src/libbpf.c), with overflow checked and the array kept on failure.
 */
#ifndef RINGCAP_UTIL_MEM_H
#define RINGCAP_UTIL_MEM_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/**
 * rc_ensure_mem() - make room for @need elements in an array grown by doubling
 * @data: the array, NULL while *@cap is 0; replaced by the grown array
 * @cap: the number of elements *@data holds room for; updated with it
 * @elem_sz: the size of one element in bytes, not 0
 * @need: the number of elements that must fit
 * @min: the first capacity of an empty array (0: exactly @need)
 *
 * Doubles the capacity, from *@cap or, for an empty array, from @min, until
 * @need elements fit, and reallocates *@data to it. Nothing is zeroed: the
 * new elements are as realloc() leaves them. Nothing is done when @need
 * already fits.
 *
 * Prefer rc_ensure_arr(), which takes a typed array and its element size.
 *
 * Return: 0; -ENOMEM if realloc() fails or the size in bytes does not fit in
 * a size_t; -EINVAL if @elem_sz is 0. On error *@data and *@cap are left as
 * they were, and the array stays the caller's to use and free.
 */
static inline int rc_ensure_mem(void **data, size_t *cap, size_t elem_sz, size_t need, size_t min)
{
	size_t new_cap;
	void *p;

	if (!elem_sz)
		return -EINVAL;
	if (need <= *cap)
		return 0;
	new_cap = *cap ? *cap : min;
	if (!new_cap)
		new_cap = need;
	while (new_cap < need)
		new_cap = new_cap > SIZE_MAX / 2 ? need : new_cap * 2;
	if (new_cap > SIZE_MAX / elem_sz)
		return -ENOMEM;
	p = realloc(*data, new_cap * elem_sz);
	if (!p)
		return -ENOMEM;
	*data = p;
	*cap = new_cap;
	return 0;
}

/*
 * rc_ensure_arr() - rc_ensure_mem() for a typed array: @arr is the address of
 * a `T *`, @cap of its size_t capacity. The new array is stored through a
 * `void *` and assigned back: libbpf's callers pass `(void **)&p`, which
 * accesses a `T *` as a `void *`, undefined behaviour as the types are not
 * compatible (C11 6.5p7).
 * Evaluates @arr once; @cap, @need and @min once each, as a call would.
 */
#define rc_ensure_arr(arr, cap, need, min)                                                         \
	({                                                                                         \
		__typeof__(arr) rc_ea_arr_ = (arr);                                                \
		void *rc_ea_p_ = *rc_ea_arr_;                                                      \
		int rc_ea_err_ =                                                                   \
		    rc_ensure_mem(&rc_ea_p_, (cap), sizeof(**rc_ea_arr_), (need), (min));          \
		if (!rc_ea_err_)                                                                   \
			*rc_ea_arr_ = rc_ea_p_;                                                    \
		rc_ea_err_;                                                                        \
	})

#endif /* RINGCAP_UTIL_MEM_H */
