// SPDX-License-Identifier: GPL-2.0
/*
 * afalg: a small AF_ALG client for the test VM (built static by scripts/tools.sh).
 *
 *   afalg hold ALG KEYHEX
 *	Binds an skcipher socket to ALG (an algorithm or driver name), sets the key and
 *	opens an operation socket, so that the kernel holds a transform of ALG; prints
 *	"held <driver>" and keeps it until standard input reaches end of file.
 *
 *   afalg enc|dec ALG KEYHEX IVHEX|-
 *	Encrypts or decrypts standard input (one request) to standard output.
 *
 * A failed step prints "afalg: <step>: <strerror>" and exits with 100 + its errno, so
 * that scripts can compare errors with those of the kernel's templates; bad arguments
 * exit with 2.
 */
#include <errno.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

static int fail(const char *step, int err)
{
	fprintf(stderr, "afalg: %s: %s\n", step, strerror(err));
	return 100 + err;
}

static ssize_t unhex(const char *s, unsigned char *out, size_t max)
{
	size_t n = strlen(s), i;

	if (n % 2 || n / 2 > max)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned int b;

		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = b;
	}
	return n / 2;
}

/* A socket bound to ALG with the key set, or -errno. */
static int bind_alg(const char *alg, const unsigned char *key, size_t keylen)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "skcipher" };
	int s = socket(AF_ALG, SOCK_SEQPACKET, 0);

	if (s < 0)
		return -errno;
	strncpy((char *)sa.salg_name, alg, sizeof(sa.salg_name) - 1);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(s, SOL_ALG, ALG_SET_KEY, key, keylen) < 0) {
		int err = -errno;

		close(s);
		return err;
	}
	return s;
}

static int hold(const char *alg, const unsigned char *key, size_t keylen)
{
	int s = bind_alg(alg, key, keylen), op;
	char c;

	if (s < 0)
		return fail("bind/setkey", -s);
	op = accept(s, NULL, 0);
	if (op < 0)
		return fail("accept", errno);
	printf("held %s\n", alg);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	close(op);
	close(s);
	return 0;
}

static int do_crypt(int enc, const char *alg, const unsigned char *key, size_t keylen,
		 const unsigned char *iv, ssize_t ivlen)
{
	static unsigned char in[1 << 20], out[1 << 20];
	char cbuf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct af_alg_iv) + 32)] = { 0 };
	struct msghdr msg = { .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct iovec iov;
	struct cmsghdr *c;
	size_t len = 0;
	ssize_t n;
	int s, op;

	while ((n = read(0, in + len, sizeof(in) - len)) > 0)
		len += n;
	s = bind_alg(alg, key, keylen);
	if (s < 0)
		return fail("bind/setkey", -s);
	op = accept(s, NULL, 0);
	if (op < 0)
		return fail("accept", errno);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	*(int *)CMSG_DATA(c) = enc ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
	if (ivlen >= 0) {
		struct af_alg_iv *a;

		c = CMSG_NXTHDR(&msg, c);
		c->cmsg_level = SOL_ALG;
		c->cmsg_type = ALG_SET_IV;
		c->cmsg_len = CMSG_LEN(sizeof(*a) + ivlen);
		a = (struct af_alg_iv *)CMSG_DATA(c);
		a->ivlen = ivlen;
		memcpy(a->iv, iv, ivlen);
		msg.msg_controllen = CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(*a) + ivlen);
	} else {
		msg.msg_controllen = CMSG_SPACE(sizeof(int));
	}
	iov.iov_base = in;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (sendmsg(op, &msg, 0) < 0)
		return fail("sendmsg", errno);
	n = read(op, out, len);
	if (n < 0)
		return fail("read", errno);
	if (fwrite(out, 1, n, stdout) != (size_t)n)
		return fail("write", EIO);
	close(op);
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char key[64], iv[32];
	ssize_t keylen, ivlen = -1;

	if (argc < 4 || (keylen = unhex(argv[3], key, sizeof(key))) < 0) {
		fprintf(stderr, "usage: afalg hold ALG KEYHEX | afalg enc|dec ALG KEYHEX IVHEX|-\n");
		return 2;
	}
	if (!strcmp(argv[1], "hold"))
		return hold(argv[2], key, keylen);
	if (argc != 5 || (strcmp(argv[4], "-") && (ivlen = unhex(argv[4], iv, sizeof(iv))) < 0)) {
		fprintf(stderr, "afalg: bad arguments\n");
		return 2;
	}
	if (!strcmp(argv[1], "enc") || !strcmp(argv[1], "dec"))
		return do_crypt(!strcmp(argv[1], "enc"), argv[2], key, keylen, iv, ivlen);
	fprintf(stderr, "afalg: unknown command %s\n", argv[1]);
	return 2;
}
