/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP output shared by the userspace unit tests. */
#ifndef _HPCC_TAP_H
#define _HPCC_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

static inline void tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Prints the plan and the closing count line; returns the exit status. */
static inline int tap_done(void)
{
	printf("1..%d\n# %d passed, %d failed\n", tap_n, tap_n - tap_failed,
	       tap_failed);
	return tap_failed ? 1 : 0;
}

#endif
