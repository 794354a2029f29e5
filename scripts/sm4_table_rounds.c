// SPDX-License-Identifier: GPL-2.0
/*
 * A model for llvm-mca only (make bench): SM4's rounds as a C implementation with the
 * S-box in memory does them (as upstream's lib/crypto/sm4.c, which sm4-neon's glue calls
 * for CBC and CFB encryption), to compare our constant-time serial loops with. Each
 * lookup is a load from a 256-byte table; the model assumes every one hits L1.
 */
extern const unsigned char sm4_model_sbox[256];

static inline unsigned int rol32(unsigned int x, int n)
{
	return (x << n) | (x >> (32 - n));
}

/* The round function's T: the S-box on each byte, then L. */
static inline unsigned int t(unsigned int x)
{
	unsigned int b = sm4_model_sbox[x & 0xff] |
			 (unsigned int)sm4_model_sbox[(x >> 8) & 0xff] << 8 |
			 (unsigned int)sm4_model_sbox[(x >> 16) & 0xff] << 16 |
			 (unsigned int)sm4_model_sbox[x >> 24] << 24;

	return b ^ rol32(b, 2) ^ rol32(b, 10) ^ rol32(b, 18) ^ rol32(b, 24);
}

/* n rounds (a multiple of 4) of the block x with the round keys rk: 4 rounds a loop. */
void sm4_model_rounds(const unsigned int *rk, unsigned int x[4], int n)
{
	unsigned int x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];

	for (int i = 0; i < n; i += 4) {
		x0 ^= t(x1 ^ x2 ^ x3 ^ rk[i]);
		x1 ^= t(x2 ^ x3 ^ x0 ^ rk[i + 1]);
		x2 ^= t(x3 ^ x0 ^ x1 ^ rk[i + 2]);
		x3 ^= t(x0 ^ x1 ^ x2 ^ rk[i + 3]);
	}
	x[0] = x0;
	x[1] = x1;
	x[2] = x2;
	x[3] = x3;
}
