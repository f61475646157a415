// SPDX-License-Identifier: GPL-2.0-only
/* rc_ensure_mem(): capacities by doubling, and nothing touched on error. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "util/mem.h"
#include "test_progs.h"

void test_mem_ensure(void)
{
	size_t cap = 0, i;
	uint32_t *arr = NULL;
	void *p;

	if (test__start_subtest("doubling")) {
		ASSERT_OK(rc_ensure_arr(&arr, &cap, 0, 64), "nothing needed");
		ASSERT_TRUE(!arr && !cap, "nothing allocated");
		if (!ASSERT_OK(rc_ensure_arr(&arr, &cap, 1, 64), "first"))
			goto out;
		ASSERT_EQ(cap, 64, "the minimum first");
		for (i = 0; i < cap; i++)
			arr[i] = i;
		ASSERT_OK(rc_ensure_arr(&arr, &cap, 64, 64), "fits");
		ASSERT_EQ(cap, 64, "unchanged when it fits");
		if (!ASSERT_OK(rc_ensure_arr(&arr, &cap, 65, 64), "second"))
			goto out;
		ASSERT_EQ(cap, 128, "doubled");
		if (!ASSERT_OK(rc_ensure_arr(&arr, &cap, 1000, 64), "third"))
			goto out;
		ASSERT_EQ(cap, 1024, "doubled until it fits");
		ASSERT_EQ(arr[63], 63, "contents kept");
		free(arr);
		arr = NULL;
		cap = 0;
	}
	if (test__start_subtest("no_minimum")) {
		if (!ASSERT_OK(rc_ensure_arr(&arr, &cap, 5, 0), "first"))
			goto out;
		ASSERT_EQ(cap, 5, "exactly what is needed");
		if (!ASSERT_OK(rc_ensure_arr(&arr, &cap, 6, 0), "second"))
			goto out;
		ASSERT_EQ(cap, 10, "doubled");
		free(arr);
		arr = NULL;
		cap = 0;
	}
	if (test__start_subtest("errors")) {
		if (!ASSERT_OK(rc_ensure_arr(&arr, &cap, 1, 16), "first"))
			goto out;
		p = arr;
		/* refused before realloc(), which ASan would abort on for such sizes */
		ASSERT_EQ(rc_ensure_arr(&arr, &cap, SIZE_MAX / 2, 16), -ENOMEM, "bytes overflow");
		ASSERT_EQ(rc_ensure_arr(&arr, &cap, SIZE_MAX / 2 + 2, 16), -ENOMEM,
			  "doubling overflows");
		ASSERT_EQ(rc_ensure_mem(&p, &cap, 0, 32, 16), -EINVAL, "no element size");
		ASSERT_TRUE(arr == p && cap == 16, "array and capacity untouched");
	}
out:
	free(arr);
}
