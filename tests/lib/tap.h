/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output for the C tests of every suite (tests/unit, tests/bpf,
 * selftests/, sim/); the shell suites have tests/lib/tap.sh, which prints
 * the same. One line per assertion, "ok N - NAME" or "not ok N - NAME",
 * "# SKIP WHY" after a skipped one, details of a failure as "#   " lines,
 * and at the end the plan "1..N" and a count; exit status as kselftest's
 * (0 passed, 1 failed, 4 skipped). scripts/check.sh counts these lines.
 */
#ifndef _HPCC_TAP_H
#define _HPCC_TAP_H

#include <stdarg.h>
#include <stdio.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

static int tap_n, tap_failed, tap_skipped;

/* One assertion: "ok N - NAME" if @cond, else "not ok N - NAME". */
static inline int tap_ok(int cond, const char *fmt, ...)
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
	return cond;
}

/* An assertion not run: "ok N - NAME # SKIP WHY". */
static inline void tap_skip(const char *name, const char *why)
{
	tap_n++;
	tap_skipped++;
	printf("ok %d - %s # SKIP %s\n", tap_n, name, why);
	fflush(stdout);
}

/* A line of detail under the last assertion: "#   TEXT". */
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* The test cannot go on: "Bail out! WHY"; returns the exit status. */
static inline int tap_bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return KSFT_FAIL;
}

/* Nothing to run here: "1..0 # SKIP WHY"; returns the exit status. */
static inline int tap_skip_all(const char *fmt, ...)
{
	va_list ap;

	printf("1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return KSFT_SKIP;
}

/* The plan and the counts; returns the exit status. */
static inline int tap_done(void)
{
	printf("1..%d\n# %d passed, %d failed\n", tap_n,
	       tap_n - tap_failed - tap_skipped, tap_failed);
	if (tap_skipped)
		printf("# %d skipped\n", tap_skipped);
	fflush(stdout);
	return tap_failed ? KSFT_FAIL : KSFT_PASS;
}

#endif
