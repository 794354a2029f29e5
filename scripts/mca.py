#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Models the inner loops of SM4 assembly cores with llvm-mca (Neoverse N2).

mca.py LLVM_MCA TABLE: each line of TABLE is
    <row> <side> <preprocessed .S file> <loop label> <blocks per iteration>
and the output is one line per (row, side) with the modeled cycles per 16-byte block.

A loop is the text from its label to the first branch back to it. llvm-mca gets the
file's definitions (.req, .set, .macro blocks, top-level .irp blocks; the architecture is
always armv8.2-a+crypto+sm4) followed by that loop, and simulates it for many iterations, so loop-carried dependencies (the CBC and
CFB encryption chains) count. Upstream's cores encode SM4E/SM4EKEY with `.inst` macros
(for old assemblers); those macros are dropped so that the instructions are modeled.
"""

import re
import subprocess
import sys
import tempfile

DEF_RE = re.compile(r"^\s*(\w+\s+\.req|\.set|\.unreq)\b")


def definitions(lines):
    """The lines of `lines` that define registers, symbols and macros."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if s.startswith(".macro") or s.startswith(".irp"):
            end = ".endm" if s.startswith(".macro") else ".endr"
            block = [line]
            depth = 1
            i += 1
            while i < len(lines) and depth:
                t = lines[i].strip()
                if t.startswith(".macro") or t.startswith(".irp") or t.startswith(".rept"):
                    depth += 1
                if t.startswith(".endm") or t.startswith(".endr"):
                    depth -= 1
                block.append(lines[i])
                i += 1
            name = s.split()[1].rstrip(",") if len(s.split()) > 1 else ""
            if s.startswith(".macro") and name in ("sm4e", "sm4ekey"):
                continue  # the .inst encodings: use the real instructions
            if s.startswith(".irp") and not any(".set" in b for b in block):
                continue  # code, not definitions
            out.extend(block)
            continue
        if DEF_RE.match(line):
            out.append(line)
        i += 1
    return out


def loop(lines, label):
    """The lines from `label:` to the first branch back to it."""
    start = next(i for i, l in enumerate(lines) if l.strip().startswith(label + ":"))
    back = re.compile(r"^\s*(b|b\.\w+|cbz|cbnz|tbz|tbnz)\s(.*[\s,])?" + re.escape(label) + r"\s*;?\s*$")
    for j in range(start + 1, len(lines)):
        if back.match(lines[j]):
            return lines[start : j + 1]
    raise SystemExit(f"no branch back to {label}")


def model(mca, path, label, blocks):
    lines = open(path).read().splitlines()
    text = "\n".join([".arch armv8.2-a+crypto+sm4"] + definitions(lines) + loop(lines, label)) + "\n"
    with tempfile.NamedTemporaryFile("w", suffix=".s") as f:
        f.write(text)
        f.flush()
        r = subprocess.run(
            [mca, "-mtriple=aarch64", "-mcpu=neoverse-n2", "-mattr=+sm4", "-iterations=300", f.name],
            capture_output=True,
            text=True,
        )
    if r.returncode != 0:
        raise SystemExit(f"llvm-mca failed on {label} of {path}:\n{r.stderr[-2000:]}")
    it = int(re.search(r"Iterations:\s+(\d+)", r.stdout).group(1))
    cyc = int(re.search(r"Total Cycles:\s+(\d+)", r.stdout).group(1))
    return cyc / it / blocks


def main():
    mca, table = sys.argv[1], sys.argv[2]
    for line in open(table):
        if not line.strip() or line.startswith("#"):
            continue
        row, side, path, label, blocks = line.split()
        cpb = model(mca, path, label, int(blocks))
        print(f"{row} {side} {cpb:.2f}")


if __name__ == "__main__":
    main()
