// SPDX-License-Identifier: GPL-2.0
/*
 * afalg: an AF_ALG client for the test VM (built static by scripts/tools.sh).
 *
 *   afalg hold ALG KEYHEX
 *	Binds an skcipher socket to ALG (an algorithm or driver name), sets the key and
 *	opens an operation socket, so that the kernel holds a transform of ALG; prints
 *	"held <alg>" and keeps it until standard input reaches end of file.
 *
 *   afalg enc|dec ALG KEYHEX IVHEX|-
 *	Encrypts or decrypts standard input (one request) to standard output. For an AEAD
 *	(ALG gcm(...), ccm(...) or a template over them): no associated data and a 16-byte
 *	tag (appended when encrypting, expected at the end when decrypting).
 *
 *   afalg stress SECONDS SEED LIST
 *	Until SECONDS have passed: a random mode of sm4 (the skciphers of the list of modes
 *	LIST, as scripts/modes.sh writes it, and the AEADs
 *	gcm(sm4) and ccm(sm4) with random associated data and tag sizes), key, IV and
 *	length; the request through the algorithm name (whatever driver serves it) and
 *	through the kernel's template over the oracle, upstream's C SM4 that the test module
 *	registers as sm4-oracle (the list names each mode's), which must agree, and decryption must
 *	give the data back. The references are bound once, first ("held <N> references").
 *	Prints "stress <ok> ok <bad> bad <errors> errors"; exits 1 if anything disagreed or
 *	failed.
 *
 *   afalg faults ALG KEYHEX IVHEX|- LEN
 *	One request of LEN bytes with the N-th allocation of the task failing
 *	(/proc/thread-self/fail-nth), for N = 1, 2, ... until a request makes fewer
 *	allocations than N: each must either give the right output or fail with an error,
 *	and the request after it (no fault) must give the right output. Prints
 *	"faults <N> allocations, <errors> failed cleanly"; exits 1 on a wrong output.
 *	For an AEAD (ALG gcm(...) or ccm(...)): encryption with 13 bytes of associated data
 *	and a 16-byte tag, as TLS sends.
 *
 *   afalg errcmp ALG REF KEYLEN IVLEN
 *	Bad and good input through ALG and REF (KEYLEN and IVLEN: the mode's key and IV
 *	sizes, IVLEN -1 for none): every key length 0..64, IVs of -1 (none), 0, 8, 16 and 32
 *	bytes, lengths 0, 1, 15, 16, 17, 31, 32, 33, 48 and 4095 sent at once, and those up to
 *	48 in 1-byte pieces too, equal XTS halves; encryption and decryption (key lengths:
 *	encryption). (AF_ALG gathers a request's pieces into its pages, so 4095 bytes sent in
 *	1-byte pieces reach the driver as the same one entry as 4095 sent at once.)
 *	Each case must fail at the
 *	same step with the same errno in both, or give the same output. Prints
 *	"errcmp <N> cases, <M> differ" (and the first differences); exits 1 if any differ.
 *
 * A failed step elsewhere prints "afalg: <step>: <strerror>" and exits with 100 + errno;
 * bad arguments exit with 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "failnth.h"

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define MAXLEN 4160

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

/* Whether ALG is one of the AEADs (gcm, ccm and the templates over them). */
static int is_aead(const char *alg)
{
	return !strncmp(alg, "gcm", 3) || !strncmp(alg, "ccm", 3) || !strncmp(alg, "rfc", 3);
}

/* A socket bound to ALG, or -errno. */
static int bind_only(const char *alg)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "skcipher" };
	int s = socket(AF_ALG, SOCK_SEQPACKET, 0);

	if (is_aead(alg))
		strcpy((char *)sa.salg_type, "aead");
	if (s < 0)
		return -errno;
	strncpy((char *)sa.salg_name, alg, sizeof(sa.salg_name) - 1);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = -errno;

		close(s);
		return err;
	}
	return s;
}

/*
 * Sockets bound once and kept (hold_refs): a request to one of these algorithms uses a
 * duplicate of its socket, i.e. the transform bound at the start, whatever happened to
 * the algorithm's registration since.
 */
static struct {
	const char *alg;
	int s;
} held[8];

static void hold_ref(const char *alg)
{
	unsigned int i;
	int s;

	for (i = 0; i < sizeof(held) / sizeof(held[0]); i++) {
		if (held[i].alg && !strcmp(held[i].alg, alg))
			return;
		if (!held[i].alg) {
			s = bind_only(alg);
			if (s >= 0) {
				held[i].alg = alg;
				held[i].s = s;
			}
			return;
		}
	}
}

/*
 * A socket bound to ALG (an skcipher, or an AEAD with tags of authsize bytes), or -errno;
 * *setkey_err gets the errno of setting the key (or the tag size).
 */
static int bind_alg_tag(const char *alg, const unsigned char *key, size_t keylen,
			int authsize, int *setkey_err)
{
	unsigned int i;
	int s = -1;

	*setkey_err = 0;
	for (i = 0; i < sizeof(held) / sizeof(held[0]) && held[i].alg; i++)
		if (!strcmp(held[i].alg, alg)) {
			s = dup(held[i].s);
			if (s < 0)
				return -errno;
			break;
		}
	if (s < 0)
		s = bind_only(alg);
	if (s < 0)
		return s;
	if (setsockopt(s, SOL_ALG, ALG_SET_KEY, key, keylen) < 0)
		*setkey_err = errno;
	else if (is_aead(alg) && setsockopt(s, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL, authsize) < 0)
		*setkey_err = errno;
	return s;
}

static int bind_alg(const char *alg, const unsigned char *key, size_t keylen, int *setkey_err)
{
	return bind_alg_tag(alg, key, keylen, 16, setkey_err);
}

/*
 * One AEAD request: in is the associated data (adlen bytes) and the text (len bytes,
 * with the tag when decrypting); out gets the associated data and the output (with the
 * tag when encrypting). Returns 0, or the errno of the first failing step (in *step).
 */
static int aead_request(const char *alg, int enc, const unsigned char *key, size_t keylen,
			int authsize, const unsigned char *iv, size_t ivlen,
			const unsigned char *in, size_t adlen, size_t len, unsigned char *out,
			const char **step)
{
	char cbuf[CMSG_SPACE(sizeof(int)) * 2 + CMSG_SPACE(sizeof(struct af_alg_iv) + 32)]
		__attribute__((aligned(8))) = { 0 };
	struct msghdr msg = { .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	size_t outlen = adlen + (enc ? len + authsize : len - authsize);
	struct af_alg_iv *a;
	struct cmsghdr *c;
	struct iovec iov = { .iov_base = (void *)in, .iov_len = adlen + len };
	int s, op, err = 0, kerr;
	ssize_t n;

	if (!enc && len < (size_t)authsize)
		outlen = adlen;
	s = bind_alg_tag(alg, key, keylen, authsize, &kerr);
	if (s < 0) {
		*step = "bind";
		return -s;
	}
	if (kerr) {
		*step = "setkey";
		close(s);
		return kerr;
	}
	op = accept(s, NULL, 0);
	if (op < 0) {
		*step = "accept";
		err = errno;
		close(s);
		return err;
	}
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	*(int *)CMSG_DATA(c) = enc ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_IV;
	c->cmsg_len = CMSG_LEN(sizeof(*a) + ivlen);
	a = (struct af_alg_iv *)CMSG_DATA(c);
	a->ivlen = ivlen;
	memcpy(a->iv, iv, ivlen);
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	*(int *)CMSG_DATA(c) = adlen;
	msg.msg_controllen = CMSG_SPACE(sizeof(int)) * 2 + CMSG_SPACE(sizeof(*a) + ivlen);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	n = sendmsg(op, &msg, 0);
	if (n < 0 || (size_t)n != adlen + len) {
		*step = n < 0 ? "sendmsg" : "sendmsg (short)";
		err = n < 0 ? errno : ENOMEM;
		goto out;
	}
	n = read(op, out, outlen);
	if (n < 0) {
		*step = "read";
		err = errno;
	} else if ((size_t)n != outlen) {
		*step = "read (short)";
		err = EIO;
	}
out:
	close(op);
	close(s);
	return err;
}

/*
 * One request: returns 0 and the output in out, or the errno of the first failing step,
 * named in *step.
 */
static int request(const char *alg, int enc, const unsigned char *key, size_t keylen,
		   const unsigned char *iv, ssize_t ivlen, const unsigned char *in, size_t len,
		   size_t piece, unsigned char *out, const char **step)
{
	char cbuf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct af_alg_iv) + 32)] __attribute__((aligned(8))) = { 0 };
	struct msghdr msg = { .msg_control = cbuf };
	struct af_alg_iv *a;
	struct cmsghdr *c;
	struct iovec iov;
	int s, op, err = 0, kerr;
	size_t done = 0;
	ssize_t n;

	s = bind_alg(alg, key, keylen, &kerr);
	if (s < 0) {
		*step = "bind";
		return -s;
	}
	if (kerr) {
		*step = "setkey";
		close(s);
		return kerr;
	}
	op = accept(s, NULL, 0);
	if (op < 0) {
		*step = "accept";
		err = errno;
		close(s);
		return err;
	}
	if (!piece)
		piece = len ? len : 1;
	do {
		size_t k = len - done < piece ? len - done : piece;

		memset(cbuf, 0, sizeof(cbuf));
		msg.msg_control = done ? NULL : cbuf;
		msg.msg_controllen = 0;
		if (!done) {
			/* The whole buffer while the headers are laid out, then what they use. */
			msg.msg_controllen = sizeof(cbuf);
			c = CMSG_FIRSTHDR(&msg);
			c->cmsg_level = SOL_ALG;
			c->cmsg_type = ALG_SET_OP;
			c->cmsg_len = CMSG_LEN(sizeof(int));
			*(int *)CMSG_DATA(c) = enc ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
			if (ivlen >= 0) {
				c = CMSG_NXTHDR(&msg, c);
				c->cmsg_level = SOL_ALG;
				c->cmsg_type = ALG_SET_IV;
				c->cmsg_len = CMSG_LEN(sizeof(*a) + ivlen);
				a = (struct af_alg_iv *)CMSG_DATA(c);
				a->ivlen = ivlen;
				memcpy(a->iv, iv, ivlen);
			}
			msg.msg_controllen = CMSG_SPACE(sizeof(int)) +
				(ivlen >= 0 ? CMSG_SPACE(sizeof(*a) + ivlen) : 0);
		}
		iov.iov_base = (void *)(in + done);
		iov.iov_len = k;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		n = sendmsg(op, &msg, done + k < len ? MSG_MORE : 0);
		if (n < 0) {
			*step = "sendmsg";
			err = errno;
			goto out;
		}
		/*
		 * Fewer bytes taken (an allocation failed after the first pages): the kernel
		 * keeps them, but takes no more and a read would wait for the rest.
		 */
		if ((size_t)n != k) {
			*step = "sendmsg (short)";
			err = ENOMEM;
			goto out;
		}
		done += k;
	} while (done < len);
	n = read(op, out, len);
	if (n < 0) {
		*step = "read";
		err = errno;
	} else if ((size_t)n != len) {
		*step = "read (short)";
		err = EIO;
	}
out:
	close(op);
	close(s);
	return err;
}

static int hold(const char *alg, const unsigned char *key, size_t keylen)
{
	int kerr, s = bind_alg(alg, key, keylen, &kerr), op;
	char c;

	if (s < 0)
		return fail("bind", -s);
	if (kerr)
		return fail("setkey", kerr);
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

static unsigned char inbuf[1 << 20], outbuf[1 << 20];

static int crypt_stdin(int enc, const char *alg, const unsigned char *key, size_t keylen,
		       const unsigned char *iv, ssize_t ivlen)
{
	const char *step;
	size_t len = 0;
	ssize_t n;
	int err;

	while ((n = read(0, inbuf + len, sizeof(inbuf) - len)) > 0)
		len += n;
	if (is_aead(alg)) {
		if (ivlen < 0 || (!enc && len < 16) || (enc && len > sizeof(outbuf) - 16))
			return fail("the AEAD request", EINVAL);
		err = aead_request(alg, enc, key, keylen, 16, iv, ivlen, inbuf, 0, len, outbuf,
				   &step);
		len = enc ? len + 16 : len - 16;
	} else {
		err = request(alg, enc, key, keylen, iv, ivlen, inbuf, len, 0, outbuf, &step);
	}
	if (err)
		return fail(step, err);
	if (fwrite(outbuf, 1, len, stdout) != len)
		return fail("write", EIO);
	return 0;
}

static unsigned long long rng_state;

static unsigned int rnd(unsigned int n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (unsigned int)((rng_state * 0x2545F4914F6CDD1DULL) >> 33) % n;
}

static void rnd_fill(unsigned char *p, size_t n)
{
	while (n--)
		*p++ = rnd(256);
}

/*
 * The skcipher modes of stress: our name, the reference (the kernel's templates over the
 * oracle), key and IV lengths (-1: none), the shortest request and the multiple lengths
 * must be. Read from the list of modes (sm4/mode_list.rs, one mode per line as
 * scripts/modes.sh writes it: algorithm, mode, key, iv, block, unit, reference, optional).
 */
static struct {
	char name[64], ref[64];
	int keylen, ivlen, minlen, unit;
} modes[16];
static unsigned int nmodes;

/* Reads the list of modes at path; 0, or -1 (with a message) if it has none or too many. */
static int read_modes(const char *path)
{
	FILE *f = fopen(path, "r");
	char mode[64];
	int iv, optional, n;

	if (!f) {
		perror(path);
		return -1;
	}
	while ((n = fscanf(f, "%63s %63s %d %d %d %d %63s %d", modes[nmodes].name, mode,
			   &modes[nmodes].keylen, &iv, &modes[nmodes].minlen,
			   &modes[nmodes].unit, modes[nmodes].ref, &optional)) == 8) {
		modes[nmodes].ivlen = iv ? iv : -1;
		if (++nmodes == sizeof(modes) / sizeof(modes[0]))
			break;
	}
	if (n != EOF || !nmodes || modes[nmodes - 1].minlen < 1 || modes[nmodes - 1].unit < 1) {
		fprintf(stderr, "afalg: %s: not a list of modes (or more than %zu)\n", path,
			sizeof(modes) / sizeof(modes[0]) - 1);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* The AEADs: our name, the template over the oracle (by its names on 6.12 and 7.3). */
static const struct {
	const char *name, *ref[2];
	int ivlen;
} aeads[] = {
	{ "gcm(sm4)", { "gcm_base(ctr(sm4-oracle),ghash-generic)",
			"gcm_base(ctr(sm4-oracle),ghash-lib)" }, 12 },
	{ "ccm(sm4)", { "ccm_base(ctr(sm4-oracle),cbcmac(sm4-oracle))", NULL }, 16 },
};

/*
 * One random AEAD case of stress: ours and the reference encrypt alike, ours decrypts it
 * back. Returns 0 (agreed), 1 (differed) or 2 (an error).
 */
static int stress_aead(void)
{
	static unsigned char key[16], iv[16], in[MAXLEN + 64], a[MAXLEN + 64], b[MAXLEN + 64],
		c[MAXLEN + 64];
	unsigned int m = rnd(2);
	size_t adlen = rnd(65), len = rnd(4097);
	int tag = m ? 4 + 2 * rnd(7) : 12 + rnd(5), e1, e2, e3, r;
	const char *step;

	rnd_fill(key, sizeof(key));
	rnd_fill(iv, sizeof(iv));
	if (m)
		iv[0] = 1 + rnd(7);	/* CCM: L' */
	rnd_fill(in, adlen + len);
	e1 = aead_request(aeads[m].name, 1, key, 16, tag, iv, aeads[m].ivlen, in, adlen, len, a,
			  &step);
	/* The reference by its first name this kernel can instantiate (bind refused: next). */
	for (r = 0, e2 = ENOENT; r < 2 && aeads[m].ref[r]; r++) {
		e2 = aead_request(aeads[m].ref[r], 1, key, 16, tag, iv, aeads[m].ivlen, in, adlen,
				  len, b, &step);
		if (!e2 || strcmp(step, "bind"))
			break;
	}
	e3 = e1 ? e1 : aead_request(aeads[m].name, 0, key, 16, tag, iv, aeads[m].ivlen, a, adlen,
				    len + tag, c, &step);
	if (e1 || e2 || e3) {
		fprintf(stderr, "afalg: stress %s ad %zu len %zu tag %d: errors %d %d %d\n",
			aeads[m].name, adlen, len, tag, e1, e2, e3);
		return 2;
	}
	if (memcmp(a + adlen, b + adlen, len + tag) || memcmp(c + adlen, in + adlen, len)) {
		fprintf(stderr, "afalg: stress %s ad %zu len %zu tag %d: output differs\n",
			aeads[m].name, adlen, len, tag);
		return 1;
	}
	return 0;
}

/* Whether gcm(sm4) and ccm(sm4) are served (stress then includes them). */
static int aeads_present;

static int stress(unsigned int seconds, unsigned long long seed)
{
	static unsigned char key[32], iv[16], pt[MAXLEN], a[MAXLEN], b[MAXLEN], c[MAXLEN];
	unsigned long ok = 0, bad = 0, errors = 0;
	const char *step;
	unsigned int i;
	time_t end;

	rng_state = seed * 2 + 1;
	aeads_present = getenv("AFALG_AEAD") != NULL;
	/*
	 * The references' transforms are bound once, here: the crypto API removes a template
	 * instance over the oracle whenever a driver of the same name and higher priority
	 * registers (each reload of sm4-ce), and the next bind makes it anew, self-tests
	 * and all; amid the reload's own self-tests that once took longer than the API's
	 * 60-second wait (ETIMEDOUT, Linux 7.3, where registration no longer waits for them).
	 */
	for (i = 0; i < nmodes; i++)
		hold_ref(modes[i].ref);
	for (i = 0; aeads_present && i < sizeof(aeads) / sizeof(aeads[0]); i++) {
		hold_ref(aeads[i].ref[0]);
		if (aeads[i].ref[1])
			hold_ref(aeads[i].ref[1]);
	}
	for (i = 0; i < sizeof(held) / sizeof(held[0]) && held[i].alg; i++)
		;
	printf("held %u references\n", i);
	fflush(stdout);
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		unsigned int m = rnd(nmodes);
		size_t len = modes[m].minlen + rnd(4097 - modes[m].minlen);
		int e1, e2, e3;

		/* One case in four: an AEAD, where gcm(sm4) and ccm(sm4) are served. */
		if (rnd(4) == 0 && aeads_present) {
			switch (stress_aead()) {
			case 0: ok++; break;
			case 1: bad++; break;
			default: errors++;
			}
			continue;
		}

		len -= len % modes[m].unit;
		rnd_fill(key, sizeof(key));
		rnd_fill(iv, sizeof(iv));
		rnd_fill(pt, len);
		e1 = request(modes[m].name, 1, key, modes[m].keylen, iv, modes[m].ivlen, pt, len,
			     0, a, &step);
		e2 = request(modes[m].ref, 1, key, modes[m].keylen, iv, modes[m].ivlen, pt, len,
			     0, b, &step);
		e3 = e1 ? e1 : request(modes[m].name, 0, key, modes[m].keylen, iv,
				       modes[m].ivlen, a, len, 0, c, &step);
		if (e1 || e2 || e3) {
			errors++;
			fprintf(stderr, "afalg: stress %s len %zu: errors %d %d %d\n",
				modes[m].name, len, e1, e2, e3);
		} else if (memcmp(a, b, len) || memcmp(c, pt, len)) {
			bad++;
			fprintf(stderr, "afalg: stress %s len %zu: output differs\n",
				modes[m].name, len);
		} else {
			ok++;
		}
	}
	printf("stress %lu ok %lu bad %lu errors\n", ok, bad, errors);
	return bad || errors || !ok;
}


static int faults(const char *alg, const unsigned char *key, size_t keylen,
		  const unsigned char *iv, ssize_t ivlen, size_t len)
{
	static unsigned char pt[MAXLEN + 64], want[MAXLEN + 64], got[MAXLEN + 64];
	unsigned int nth, failed = 0;
	const char *step;
	int err;

	int aead = is_aead(alg);
	size_t adlen = aead ? 13 : 0, outlen = aead ? adlen + len + 16 : len;

#define REQUEST(out) (aead ? aead_request(alg, 1, key, keylen, 16, iv, ivlen, pt, adlen, len, \
					  out, &step) \
		      : request(alg, 1, key, keylen, iv, ivlen, pt, len, 0, out, &step))
	rng_state = 12345;
	rnd_fill(pt, adlen + len);
	memset(got, 0, sizeof(got));	/* no page fault of ours inside the counted calls */
	err = REQUEST(want);
	if (err)
		return fail(step, err);
	for (nth = 1; nth < 10000; nth++) {
		int left;

		if (set_fail_nth(nth))
			return fail("fail-nth", errno);
		err = REQUEST(got);
		left = get_fail_nth();
		set_fail_nth(0);
		if (getenv("AFALG_VERBOSE"))
			fprintf(stderr, "nth %u: %s %s at %ld\n", nth, err ? step : "ok",
				err ? strerror(err) : "", (long)time(NULL));
		if (err && left > 0) {
			fprintf(stderr, "afalg: faults %s: %s failed with no fault injected: %s\n",
				alg, step, strerror(err));
			return 1;
		}
		if (err) {
			failed++;
		} else if (memcmp(got, want, outlen)) {
			fprintf(stderr, "afalg: faults %s: wrong output with allocation %u failing\n",
				alg, nth);
			return 1;
		}
		/* The request after a failure works. */
		err = REQUEST(got);
		if (err || memcmp(got, want, outlen)) {
			fprintf(stderr, "afalg: faults %s: the request after allocation %u failed: %s\n",
				alg, nth, err ? strerror(err) : "wrong output");
			return 1;
		}
		if (left > 0)	/* fewer than nth allocations: every one has failed once */
			break;
	}
	printf("faults %u allocations, %u failed cleanly\n", nth - 1, failed);
	/* No allocation made to fail: nothing was tested. */
	return !failed;
#undef REQUEST
}

/* One case of errcmp: both algorithms on the same input, the results compared. */
static unsigned int ncases, ndiffer, nboth_ok;

static void errcmp_case(const char *alg, const char *ref, int enc, const unsigned char *key,
			size_t keylen, const unsigned char *iv, ssize_t ivlen, size_t len,
			size_t piece, const char *what)
{
	static unsigned char pt[MAXLEN], a[MAXLEN], b[MAXLEN];
	const char *sa = "", *sb = "";
	int ea, eb;
	size_t i;

	for (i = 0; i < len; i++)
		pt[i] = i * 13 + 5;
	ea = request(alg, enc, key, keylen, iv, ivlen, pt, len, piece, a, &sa);
	eb = request(ref, enc, key, keylen, iv, ivlen, pt, len, piece, b, &sb);
	ncases++;
	nboth_ok += !ea && !eb;
	if (ea != eb || (ea && strcmp(sa, sb)) || (!ea && memcmp(a, b, len))) {
		if (ndiffer++ < 5)
			printf("differs: %s %s keylen %zu ivlen %zd len %zu piece %zu: %s %s %s, %s %s %s\n",
			       what, enc ? "enc" : "dec", keylen, ivlen, len, piece, alg,
			       ea ? sa : "ok", ea ? strerror(ea) : "", ref, eb ? sb : "ok",
			       eb ? strerror(eb) : "");
	}
}

/*
 * errcmp: bad (and good) input through ALG and through REF, which must give the same error
 * at the same step, or the same output.
 */
static int errcmp(const char *alg, const char *ref, size_t keylen, ssize_t ivlen)
{
	static const size_t lens[] = { 0, 1, 15, 16, 17, 31, 32, 33, 48, 4095 };
	static const ssize_t ivlens[] = { -1, 0, 8, 16, 32 };
	unsigned char key[64], iv[32];
	size_t k, l, p;
	int enc;

	for (k = 0; k < sizeof(key); k++)
		key[k] = k * 7 + 1;
	memset(iv, 0xa5, sizeof(iv));
	for (enc = 0; enc <= 1; enc++) {
		/* Keys are set before the direction is chosen: one direction is enough. */
		for (k = 0; k <= 64 && enc; k++)
			errcmp_case(alg, ref, enc, key, k, iv, ivlen, 32, 0, "key length");
		for (l = 0; l < sizeof(ivlens) / sizeof(ivlens[0]); l++)
			errcmp_case(alg, ref, enc, key, keylen, iv, ivlens[l], 32, 0, "iv length");
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
			for (p = 0; p <= (lens[l] <= 48); p++)
				errcmp_case(alg, ref, enc, key, keylen, iv, ivlen, lens[l], p,
					    p ? "1-byte pieces" : "length");
		if (keylen == 32) {	/* XTS: equal halves */
			memcpy(key + 16, key, 16);
			errcmp_case(alg, ref, enc, key, keylen, iv, ivlen, 32, 0, "equal halves");
			for (k = 16; k < 32; k++)
				key[k] = k * 7 + 1;
		}
	}
	printf("errcmp %u cases, %u differ, %u done by both\n", ncases, ndiffer, nboth_ok);
	/* Both failing every case (neither could be bound, say) would agree on nothing. */
	return ndiffer != 0 || !nboth_ok;
}

int main(int argc, char **argv)
{
	unsigned char key[64], iv[32];
	ssize_t keylen, ivlen = -1;

	if (argc == 5 && !strcmp(argv[1], "stress"))
		return read_modes(argv[4]) ? 2 : stress(atoi(argv[2]), strtoull(argv[3], NULL, 0));
	if (argc == 6 && !strcmp(argv[1], "errcmp"))
		return errcmp(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	if (argc < 4 || (keylen = unhex(argv[3], key, sizeof(key))) < 0) {
		fprintf(stderr, "usage: see the comment at the top of afalg.c\n");
		return 2;
	}
	if (!strcmp(argv[1], "hold"))
		return hold(argv[2], key, keylen);
	if (argc < 5 || (strcmp(argv[4], "-") && (ivlen = unhex(argv[4], iv, sizeof(iv))) < 0)) {
		fprintf(stderr, "afalg: bad arguments\n");
		return 2;
	}
	if (argc == 6 && !strcmp(argv[1], "faults"))
		return faults(argv[2], key, keylen, iv, ivlen, atoi(argv[5]));
	if (argc == 5 && (!strcmp(argv[1], "enc") || !strcmp(argv[1], "dec")))
		return crypt_stdin(!strcmp(argv[1], "enc"), argv[2], key, keylen, iv, ivlen);
	fprintf(stderr, "afalg: unknown command %s\n", argv[1]);
	return 2;
}
