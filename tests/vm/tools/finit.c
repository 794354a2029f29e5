// SPDX-License-Identifier: GPL-2.0
/*
 * finit MODULE.ko [PARAM=VALUE...]: loads a module with finit_module(2) once, printing the
 * error if its init fails. BusyBox's insmod, on a failing finit_module, tries the same
 * module again with init_module, which runs tcrypt's tests twice (tcrypt's init always
 * fails, by design, after its tests). scripts/silicon.sh uses it in the test VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char params[4096] = "";
	size_t used = 0;
	int fd, i;

	if (argc < 2) {
		fprintf(stderr, "usage: finit MODULE.ko [PARAM=VALUE...]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		int n = snprintf(params + used, sizeof(params) - used, "%s%s", used ? " " : "",
				 argv[i]);

		if (n < 0 || (size_t)n >= sizeof(params) - used) {
			fprintf(stderr, "finit: parameters too long\n");
			return 2;
		}
		used += n;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "finit: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (syscall(SYS_finit_module, fd, params, 0) != 0) {
		fprintf(stderr, "finit: %s: %s\n", argv[1], strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}
