#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The constants of sm4_neon_core.S's AESE variant, derived, and checked against the file.

SM4's S-box is S(x) = A(I(A x + C)) + C (GB/T 32907-2016's S-box as Liu et al. decompose
it), with I the inversion in GF(2^8) modulo x^8+x^7+x^6+x^5+x^4+x^2+1, A the circulant bit
matrix of 0xa7 and C = 0xd3. AES's SubBytes is an inversion in GF(2^8) modulo
x^8+x^4+x^3+x+1 followed by its own affine map. The two fields are isomorphic: phi maps x
to a root beta of SM4's polynomial in AES's field, so

    S(x) = Aout(SubBytes(Ain(x)))
    Ain(x)  = phi(A x + C)
    Aout(y) = A phi^-1(Aaes^-1(y + 0x63)) + C

Both maps are affine over GF(2), so each is the XOR of a table of the low nibble and a
table of the high nibble (the constant folded into the low one): the 64 bytes at
.Laese_maps. AESE also does ShiftRows, undone by the byte permutations at .Laese_perms
(composed with the word rotations of SM4's L).

  sm4_aese_tables.py            prints the tables
  sm4_aese_tables.py --check    checks that sm4_neon_core.S has these tables and that
                                Aout(SubBytes(Ain(x))) is sm4/sm4.rs's S-box for every x
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SM4_POLY, AES_POLY = 0x1F5, 0x11B


def gmul(a, b, poly):
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a & 0x100:
            a ^= poly
    return r


def ginv(a, poly):
    return 0 if a == 0 else next(b for b in range(1, 256) if gmul(a, b, poly) == 1)


def circulant(row):
    """The bit matrix whose row i is `row` rotated left by i, applied to a byte."""
    def f(x):
        r = 0
        for i in range(8):
            rr = ((row << i) | (row >> (8 - i))) & 0xFF
            r |= (bin(rr & x).count("1") & 1) << i
        return r
    return f


def aes_affine(b):
    s = b
    for i in range(1, 5):
        s ^= ((b << i) | (b >> (8 - i))) & 0xFF
    return s ^ 0x63


def tables():
    a = circulant(0xA7)
    sm4 = [a(ginv(a(x) ^ 0xD3, SM4_POLY)) ^ 0xD3 for x in range(256)]
    aes_sbox = [aes_affine(ginv(x, AES_POLY)) for x in range(256)]
    # phi: x^i -> beta^i, beta the smallest root of SM4's polynomial in AES's field.
    def poly_at(beta):
        r, acc = 0, 1
        for i in range(9):
            if (SM4_POLY >> i) & 1:
                r ^= acc
            acc = gmul(acc, beta, AES_POLY)
        return r
    beta = next(b for b in range(2, 256) if poly_at(b) == 0)
    cols, acc = [], 1
    for _ in range(8):
        cols.append(acc)
        acc = gmul(acc, beta, AES_POLY)
    phi = [0] * 256
    for x in range(256):
        for i in range(8):
            if (x >> i) & 1:
                phi[x] ^= cols[i]
    phinv = [0] * 256
    for x in range(256):
        phinv[phi[x]] = x
    inv_aff = [0] * 256
    for b in range(256):
        inv_aff[aes_affine(b)] = b
    ain = [phi[a(x) ^ 0xD3] for x in range(256)]
    aout = [a(phinv[inv_aff[y]]) ^ 0xD3 for y in range(256)]
    assert all(aout[aes_sbox[ain[x]]] == sm4[x] for x in range(256))
    nib = lambda t: ([t[x] for x in range(16)], [t[x << 4] ^ t[0] for x in range(16)])
    (ain_lo, ain_hi), (aout_lo, aout_hi) = nib(ain), nib(aout)
    assert all(ain_lo[x & 15] ^ ain_hi[x >> 4] == ain[x] for x in range(256))
    assert all(aout_lo[x & 15] ^ aout_hi[x >> 4] == aout[x] for x in range(256))
    # ShiftRows: byte i of the result is byte SR[i]; undone, then rotated by 0/8/16/24.
    sr = [(i % 4) + 4 * ((i // 4 + i % 4) % 4) for i in range(16)]
    srinv = [sr.index(j) for j in range(16)]
    rot = lambda k: [4 * (j // 4) + (j % 4 - k) % 4 for j in range(16)]
    perms = [[srinv[r] for r in rot(k)] for k in range(4)]
    return sm4, aes_sbox, (ain_lo, ain_hi, aout_lo, aout_hi), perms


def file_bytes(text, label, n):
    """The first n `.byte` values after `label:`."""
    body = text[text.index(label + ":"):]
    vals = []
    for line in body.split("\n")[0:]:
        m = re.search(r"\.byte\s+([^/]*)", line)
        if m:
            vals += [int(v.strip(), 0) for v in m.group(1).split(",") if v.strip()]
        if len(vals) >= n:
            return vals[:n]
    raise SystemExit(f"{label}: fewer than {n} bytes")


def main():
    sm4, aes_sbox, maps, perms = tables()
    if sys.argv[1:] != ["--check"]:
        for name, t in zip(("Ain lo", "Ain hi", "Aout lo", "Aout hi"), maps):
            print(name, ", ".join(f"0x{v:02x}" for v in t))
        for k, p in enumerate(perms):
            print(f"perm rol {8 * k}", ", ".join(map(str, p)))
        return
    ok = True
    rs = open(os.path.join(REPO, "sm4/sm4.rs")).read()
    sbox = [int(v, 16) for v in re.findall(r"0x([0-9a-f]{2})",
                                           re.search(r"SBOX_BYTES: \[u8; 256\] = \[(.*?)\];", rs, re.S).group(1))]
    if sbox != sm4:
        print("FAIL: the derived S-box is not sm4/sm4.rs's")
        ok = False
    asm = open(os.path.join(REPO, "sm4_neon_core.S")).read()
    if file_bytes(asm, ".Laese_maps", 64) != sum(maps, []):
        print("FAIL: .Laese_maps in sm4_neon_core.S differs from the derivation")
        ok = False
    if file_bytes(asm, ".Laese_perms", 64) != sum(perms, []):
        print("FAIL: .Laese_perms in sm4_neon_core.S differs from the derivation")
        ok = False
    # What the variant computes, byte for byte, from the file's own tables.
    m = file_bytes(asm, ".Laese_maps", 64)
    fin = lambda x: m[x & 15] ^ m[16 + (x >> 4)]
    fout = lambda y: m[32 + (y & 15)] ^ m[48 + (y >> 4)]
    if [fout(aes_sbox[fin(x)]) for x in range(256)] != sbox:
        print("FAIL: Aout(SubBytes(Ain(x))) with the file's tables is not SM4's S-box")
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
