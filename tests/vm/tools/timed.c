// SPDX-License-Identifier: GPL-2.0
/*
 * timed: runs a command and prints the CLOCK_MONOTONIC time it took, in nanoseconds, for
 * the benchmark VM (built static by scripts/tools.sh). Under qemu -icount shift=0 the
 * guest's clock advances one nanosecond per executed instruction, so the figure is the
 * number of instructions the machine executed while the command ran (its own, the
 * kernel's, and those of any kernel thread working for it, e.g. dm-crypt's kcryptd).
 *
 *   timed CMD [ARG...]
 *	Prints "<ns>" on stdout once CMD has exited with status 0; the command's own output
 *	goes where the caller sent it. Exits 1 with a message on stderr if CMD could not be
 *	started or did not exit with status 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long long start, end;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: timed CMD [ARG...]\n");
		return 1;
	}
	start = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("timed: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "timed: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("timed: waitpid");
		return 1;
	}
	end = now_ns();
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "timed: %s failed (status %#x)\n", argv[1], status);
		return 1;
	}
	printf("%lld\n", end - start);
	return 0;
}
