/* SPDX-License-Identifier: GPL-2.0 */
/* fail-nth helpers shared by the VM's test tools (included, not compiled alone). */
#ifndef SM4RS_FAILNTH_H
#define SM4RS_FAILNTH_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * /proc/thread-self/fail-nth, opened once: opening it while a count is armed would spend
 * the count on the open itself.
 */
static int nth_fd = -1;

static int set_fail_nth(int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%d", n);

	if (nth_fd < 0)
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nth_fd < 0)
		return -1;
	return pwrite(nth_fd, s, len, 0) == len ? 0 : -1;
}

/* What is left of the count: 0 once the fault was injected. */
static int get_fail_nth(void)
{
	char s[16] = { 0 };

	if (nth_fd < 0 || pread(nth_fd, s, sizeof(s) - 1, 0) < 0)
		return -1;
	return atoi(s);
}

#endif
