#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""variant_check.py GLUE --models | GLUE MCA_OUT: sm4-neon's variant for each CPU, checked
against the llvm-mca models.

GLUE is sm4_neon_glue.rs, whose table `CPUS` gives, per line, a CPU's MIDR implementer and
part, the variant picked with FEAT_AES and without, and in its comment the CPU's name and
the llvm-mca models that stand for it: `(0x41, 0xd08, Aese, Tbl), // Cortex-A72 (cortex-a72)`.
--models prints the models, one per line, each with the picks (with AES, without) of the
first line that names it. With MCA_OUT (scripts/mca.py's output for the rows
"VARIANT-<model> tbx|tbl|aese", cycles per block), prints for every line and model the
cycles per byte of each variant, the picks and the best, and fails (exit 1) if a pick is
more than 3% slower than the best the CPU can run (aese only with AES).
"""

import re
import sys

LINE = re.compile(r"^\s*\((0x[0-9a-f]+), (0x[0-9a-f]+), (Tbx|Tbl|Aese), (Tbx|Tbl|Aese)\),"
                  r" // (.+) \(([a-z0-9 .-]+)\)$")
TOLERANCE = 1.03


def table(glue):
    text = open(glue, encoding="utf-8").read()
    m = re.search(r"^const CPUS: \[\(u32, u32, Variant, Variant\); (\d+)\] = \[\n(.*?)^\];",
                  text, re.S | re.M)
    if not m:
        sys.exit(f"variant_check.py: {glue}: no `const CPUS: [(u32, u32, Variant, Variant); N]`")
    rows = []
    for line in m.group(2).split("\n"):
        if not line.strip():
            continue
        r = LINE.match(line)
        if not r:
            sys.exit(f"variant_check.py: {glue}: a line of CPUS not in the form "
                     f"`(0xIMPL, 0xPART, WITH_AES, WITHOUT), // NAME (MODEL...)`: {line.strip()}")
        impl, part, aes, noaes, name, models = r.groups()
        if noaes == "Aese":
            sys.exit(f"variant_check.py: {glue}: {name}: aese picked without AES")
        rows.append((impl, part, aes.lower(), noaes.lower(), name, models.split()))
    if len(rows) != int(m.group(1)):
        sys.exit(f"variant_check.py: {glue}: {len(rows)} lines read, the array has {m.group(1)}")
    return rows


def main():
    rows = table(sys.argv[1])
    if sys.argv[2] == "--models":
        # Each model once, with the picks (with AES, without) of its first line.
        seen = []
        for _, _, aes, noaes, _, models in rows:
            for m in models:
                if m not in [s[0] for s in seen]:
                    seen.append((m, aes, noaes))
        print("\n".join(" ".join(s) for s in seen))
        return 0
    cyc = {}
    for line in open(sys.argv[2], encoding="utf-8"):
        f = line.split()
        if len(f) >= 3 and f[0].startswith("VARIANT-"):
            cyc[(f[0][len("VARIANT-"):], f[1])] = float(f[2]) / 16
    bad = 0
    print(f"{'CPU (MIDR implementer/part)':<44} {'model':<14} {'tbx':>6} {'tbl':>6} {'aese':>6}"
          f"  {'AES: pick/best':<16} {'no AES: pick/best':<18}")
    for impl, part, aes, noaes, name, models in rows:
        for model in models:
            v = {k: cyc.get((model, k)) for k in ("tbx", "tbl", "aese")}
            if None in v.values():
                print(f"FAIL {name}: no model of every variant on {model}")
                bad += 1
                continue
            out = []
            for pick, allowed in ((aes, ("tbx", "tbl", "aese")), (noaes, ("tbx", "tbl"))):
                best = min(allowed, key=lambda k: v[k])
                ratio = v[pick] / v[best]
                flag = "" if ratio <= TOLERANCE else " FAIL"
                bad += bool(flag)
                out.append(f"{pick}/{best} {ratio:.2f}{flag}")
            print(f"{name + ' (' + impl + '/' + part + ')':<44} {model:<14} {v['tbx']:6.2f}"
                  f" {v['tbl']:6.2f} {v['aese']:6.2f}  {out[0]:<16} {out[1]:<18}")
    if bad:
        print(f"FAIL variant table: {bad} picks more than {round((TOLERANCE - 1) * 100)}% slower "
              f"than the CPU's best (sm4_neon_glue.rs CPUS)")
        return 1
    print(f"PASS variant table: every pick of {len(rows)} CPUs within "
          f"{round((TOLERANCE - 1) * 100)}% of the best by its models")
    return 0


sys.exit(main())
