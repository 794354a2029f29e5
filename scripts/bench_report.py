#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns the end-to-end benchmark's measurements into tables, a CSV and a plot.

bench_report.py RAW OUTDIR LANE: RAW holds lines
    <driver kind> <side> <tcrypt mode> <algorithm> <driver> <enc|dec> <key bits> <bytes> <cycles>
one per measured tcrypt request, from several runs of each side in one boot (the VM runs
under qemu -icount shift=7: the guest counter advances 8 ticks per executed instruction,
so cycles / 8 = instructions). For each (kind, side, mode, algorithm, direction, size) the
minimum over the runs is taken. Prints one table per driver kind (upstream's C driver,
ours, ours/upstream, instructions per byte), and writes OUTDIR/bench-LANE.csv and
OUTDIR/bench-LANE.png (ours/upstream against the request size, per mode).
"""

import collections
import csv
import math
import os
import sys

TICKS_PER_INSTRUCTION = 8
KINDS = {
    "ce": ("sm4-ce (-cpu max): upstream sm4-ce + sm4-ce-cipher vs ours", 1.00, 0.90),
    "neon": ("sm4-neon (-cpu cortex-a72): upstream sm4-neon vs ours", 1.00, None),
    "generic": ("sm4-generic (through the kernel's templates): C vs Rust", 1.00, None),
}
MODES = ["ecb", "cbc", "cts", "ctr", "xts"]


def mode_of(alg):
    """The mode of a tcrypt algorithm name: ecb(sm4) -> ecb, cts(cbc(sm4)) -> cts."""
    return alg.split("(", 1)[0]


def main():
    raw, outdir, lane = sys.argv[1], sys.argv[2], sys.argv[3]
    best = {}
    runs = collections.Counter()
    drivers = {}
    for line in open(raw):
        f = line.split()
        if len(f) != 9:
            continue
        kind, side, tmode, alg, drv, d, bits, size, cycles = f
        key = (kind, side, tmode, mode_of(alg), d, int(size))
        c = int(cycles)
        best[key] = min(best.get(key, c), c)
        runs[key] += 1
        drivers[(kind, side, mode_of(alg))] = drv

    rows = []
    for key in sorted(best):
        kind, side, tmode, mode, d, size = key
        if side != "ours":
            continue
        up = best.get((kind, "upstream", tmode, mode, d, size))
        ours = best[key] / TICKS_PER_INSTRUCTION
        upi = up / TICKS_PER_INSTRUCTION if up is not None else None
        rows.append(
            {
                "kind": kind,
                "tcrypt_mode": tmode,
                "mode": mode,
                "direction": d,
                "bytes": size,
                "upstream_driver": drivers.get((kind, "upstream", mode), ""),
                "ours_driver": drivers.get((kind, "ours", mode), ""),
                "upstream_instructions": upi,
                "ours_instructions": ours,
                "ratio": (ours / upi) if upi else None,
                "ours_instructions_per_byte": ours / size,
                "runs": min(runs[key], runs.get((kind, "upstream", tmode, mode, d, size), 0)),
            }
        )

    os.makedirs(outdir, exist_ok=True)
    csv_path = os.path.join(outdir, f"bench-{lane}.csv")
    with open(csv_path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()) if rows else ["kind"])
        w.writeheader()
        for r in rows:
            w.writerow(r)

    for kind, (title, target, small_target) in KINDS.items():
        krows = [r for r in rows if r["kind"] == kind and r["tcrypt_mode"] == "218"]
        if not krows:
            continue
        print()
        print(f"{title}, Linux {lane}: tcrypt mode 218, guest instructions per request")
        print("(qemu -icount shift=7: tcrypt's cycles / 8; minimum of the runs)")
        print(f"{'mode':<5} {'dir':<4} {'bytes':>6} {'upstream':>10} {'ours':>10} {'ratio':>7} "
              f"{'ours i/B':>9}  drivers")
        worst = 0.0
        for r in sorted(krows, key=lambda r: (MODES.index(r["mode"]) if r["mode"] in MODES else 9,
                                               r["direction"] != "enc", r["bytes"])):
            ratio = r["ratio"]
            mark = ""
            if ratio is not None:
                worst = max(worst, ratio)
                limit = small_target if (small_target and r["bytes"] == 16) else target
                mark = " *" if ratio > limit + 1e-9 else ""
            print(f"{r['mode']:<5} {r['direction']:<4} {r['bytes']:>6} "
                  f"{r['upstream_instructions'] or 0:>10.0f} {r['ours_instructions']:>10.0f} "
                  f"{(ratio or 0):>7.3f} {r['ours_instructions_per_byte']:>9.2f}  "
                  f"{r['upstream_driver']} / {r['ours_driver']}{mark}")
        print(f"worst ratio {worst:.3f} (* marks rows above the target: {target:.2f}"
              + (f", {small_target:.2f} at 16 bytes" if small_target else "") + ")")
        others = [r for r in rows if r["kind"] == kind and r["tcrypt_mode"] != "218"]
        if others:
            ratios = [r["ratio"] for r in others if r["ratio"]]
            print(f"tcrypt mode 518 (asynchronous API), same requests: ratio "
                  f"{min(ratios):.3f} to {max(ratios):.3f} over {len(ratios)} rows")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return
    kinds = [k for k in KINDS if any(r["kind"] == k for r in rows)]
    fig, axes = plt.subplots(len(kinds), 1, figsize=(9, 3.6 * len(kinds)), squeeze=False)
    for ax, kind in zip(axes[:, 0], kinds):
        for mode in MODES:
            for d, style in (("enc", "-"), ("dec", "--")):
                pts = sorted((r["bytes"], r["ratio"]) for r in rows
                             if r["kind"] == kind and r["mode"] == mode and r["direction"] == d
                             and r["tcrypt_mode"] == "218" and r["ratio"])
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o",
                            markersize=3, label=f"{mode} {d}")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("request size (bytes)")
        ax.set_ylabel("ours / upstream (instructions)")
        ax.set_title(KINDS[kind][0] + f", Linux {lane}, tcrypt 218")
        ax.grid(True, which="both", linewidth=0.3)
        ax.legend(fontsize=7, ncol=5)
    fig.tight_layout()
    png = os.path.join(outdir, f"bench-{lane}.png")
    fig.savefig(png, dpi=110)
    print()
    print(f"raw measurements: {raw}")
    print(f"table: {csv_path}")
    print(f"plot: {png}")


if __name__ == "__main__":
    main()
