// SPDX-License-Identifier: GPL-2.0
/*
 * fscrypt: the fscrypt ioctls for the test VM (Debian's arm64 archive has no fscrypt tool
 * that works without a configuration and PAM), built static by scripts/tools.sh.
 *
 *   fscrypt add MNT KEYHEX		FS_IOC_ADD_ENCRYPTION_KEY (a v2 key, 64 bytes in hex);
 *					prints the key identifier
 *   fscrypt remove MNT ID		FS_IOC_REMOVE_ENCRYPTION_KEY
 *   fscrypt status MNT ID		FS_IOC_GET_ENCRYPTION_KEY_STATUS: present/absent/...
 *   fscrypt set DIR ID			FS_IOC_SET_ENCRYPTION_POLICY, v2: contents SM4_XTS,
 *					filenames SM4_CTS (the pair the kernel allows for SM4)
 *   fscrypt get DIR			FS_IOC_GET_ENCRYPTION_POLICY_EX: "v2 <contents>
 *					<filenames> <flags>"
 *
 * A failed ioctl prints "fscrypt: <what>: <strerror>" and exits with 100 + errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fscrypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The SM4 modes (uapi values, stable): older C library headers lack them. */
#ifndef FSCRYPT_MODE_SM4_XTS
#define FSCRYPT_MODE_SM4_XTS 7
#endif
#ifndef FSCRYPT_MODE_SM4_CTS
#define FSCRYPT_MODE_SM4_CTS 8
#endif

static int fail(const char *what, int err)
{
	fprintf(stderr, "fscrypt: %s: %s\n", what, strerror(err));
	return 100 + err;
}

static int unhex(const char *s, unsigned char *out, size_t n)
{
	size_t i;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int b;

		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = b;
	}
	return 0;
}

static void hex(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

static int open_dir(const char *path)
{
	return open(path, O_RDONLY | O_DIRECTORY);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: fscrypt add|remove|status|set|get PATH [ARG]\n");
		return 2;
	}
	fd = open_dir(argv[2]);
	if (fd < 0)
		return fail(argv[2], errno);

	if (!strcmp(argv[1], "add") && argc == 4) {
		size_t sz = sizeof(struct fscrypt_add_key_arg) + FSCRYPT_MAX_KEY_SIZE;
		struct fscrypt_add_key_arg *arg = calloc(1, sz);

		if (!arg)
			return fail("calloc", ENOMEM);
		arg->key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
		arg->raw_size = FSCRYPT_MAX_KEY_SIZE;
		if (unhex(argv[3], arg->raw, FSCRYPT_MAX_KEY_SIZE)) {
			fprintf(stderr, "fscrypt: the key must be 64 bytes in hex\n");
			return 2;
		}
		if (ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, arg))
			return fail("FS_IOC_ADD_ENCRYPTION_KEY", errno);
		hex(arg->key_spec.u.identifier, FSCRYPT_KEY_IDENTIFIER_SIZE);
		memset(arg, 0, sz);
		free(arg);
		return 0;
	}
	if ((!strcmp(argv[1], "remove") || !strcmp(argv[1], "status")) && argc == 4) {
		struct fscrypt_get_key_status_arg st = { 0 };
		struct fscrypt_remove_key_arg rm = { 0 };
		unsigned char id[FSCRYPT_KEY_IDENTIFIER_SIZE];

		if (unhex(argv[3], id, sizeof(id))) {
			fprintf(stderr, "fscrypt: bad key identifier\n");
			return 2;
		}
		if (!strcmp(argv[1], "remove")) {
			rm.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
			memcpy(rm.key_spec.u.identifier, id, sizeof(id));
			if (ioctl(fd, FS_IOC_REMOVE_ENCRYPTION_KEY, &rm))
				return fail("FS_IOC_REMOVE_ENCRYPTION_KEY", errno);
			printf("removed%s\n", rm.removal_status_flags ? " (files still busy)" : "");
			return 0;
		}
		st.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
		memcpy(st.key_spec.u.identifier, id, sizeof(id));
		if (ioctl(fd, FS_IOC_GET_ENCRYPTION_KEY_STATUS, &st))
			return fail("FS_IOC_GET_ENCRYPTION_KEY_STATUS", errno);
		printf("%s\n", st.status == FSCRYPT_KEY_STATUS_PRESENT ? "present" :
		       st.status == FSCRYPT_KEY_STATUS_ABSENT ? "absent" : "incompletely-removed");
		return 0;
	}
	if (!strcmp(argv[1], "set") && argc == 4) {
		struct fscrypt_policy_v2 pol = {
			.version = FSCRYPT_POLICY_V2,
			.contents_encryption_mode = FSCRYPT_MODE_SM4_XTS,
			.filenames_encryption_mode = FSCRYPT_MODE_SM4_CTS,
			.flags = FSCRYPT_POLICY_FLAGS_PAD_16,
		};

		if (unhex(argv[3], pol.master_key_identifier, sizeof(pol.master_key_identifier))) {
			fprintf(stderr, "fscrypt: bad key identifier\n");
			return 2;
		}
		if (ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &pol))
			return fail("FS_IOC_SET_ENCRYPTION_POLICY", errno);
		return 0;
	}
	if (!strcmp(argv[1], "get") && argc == 3) {
		struct fscrypt_get_policy_ex_arg arg = { .policy_size = sizeof(arg.policy) };

		if (ioctl(fd, FS_IOC_GET_ENCRYPTION_POLICY_EX, &arg))
			return fail("FS_IOC_GET_ENCRYPTION_POLICY_EX", errno);
		if (arg.policy.version != FSCRYPT_POLICY_V2) {
			printf("v%d\n", arg.policy.version);
			return 0;
		}
		printf("v2 %d %d %d\n", arg.policy.v2.contents_encryption_mode,
		       arg.policy.v2.filenames_encryption_mode, arg.policy.v2.flags);
		return 0;
	}
	fprintf(stderr, "fscrypt: bad command\n");
	return 2;
}
