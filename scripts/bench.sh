#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh (make bench): the performance of the drivers, two ways.
#
# 1. End to end, side by side with upstream's C drivers in the same kernel build and the same
#    boot: the benchmark kernel of the lane (the test kernel without checkers and self-tests,
#    scripts/kernel.sh LANE-bench), tcrypt's SM4 speed modes under qemu -icount shift=7,
#    where the guest counter advances 8 ticks per executed instruction, so tcrypt's cycles
#    are exact instruction counts (x8) that do not depend on the host. Upstream and ours run
#    alternately, REPS times each (default 5), and the minimum is kept: sm4-ce on -cpu max,
#    sm4-neon on -cpu cortex-a72, sm4-generic (C against Rust, through the templates).
#    Tables on stdout; CSV and plot in $CACHE/bench (or BENCH_OUT).
# 2. llvm-mca models (-mcpu=neoverse-n2 -mattr=+sm4) of the inner loop of each mode, ours
#    next to upstream's assembly from the same kernel tree, in cycles per 16-byte block,
#    with the physical floor. A model, not a timing.
# LANE=7.3 benchmarks Linux 7.3 (default 6.12); BENCH_ONLY="ce neon" limits part 1 to those
# drivers, BENCH_MCA=0 skips part 2.
source "$(dirname "$0")/lib.sh"

lane=${LANE:-6.12}
reps=${REPS:-5}
out=${BENCH_OUT:-$CACHE/bench}
"$REPO/scripts/bootstrap.sh"
"$REPO/scripts/kernel.sh" "$lane-bench" >&2
"$REPO/scripts/stage-modules.sh" "$lane-bench" >&2
kdir=$(lane_build_dir "$lane-bench")
src=$(readlink -f "$kdir/source")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- 1. end to end ------------------------------------------------------------------------
mkdir -p "$out"
raw="$out/bench-$lane-raw.txt"
: >"$raw"
for run in "ce max" "neon cortex-a72" "generic max"; do
	set -- $run
	case " ${BENCH_ONLY:-ce neon generic} " in *" $1 "*) ;; *) continue ;; esac
	log "[$lane-bench] tcrypt 218/518 under -icount, $1 (-cpu $2), $reps runs of each side"
	SM4RS_COUNTS=/dev/null SM4RS_QEMU_EXTRA="-icount shift=7" SM4RS_VM_TIMEOUT=1200 SM4RS_SMP=1 \
		SM4RS_APPEND="sm4rs.bench=$1 sm4rs.reps=$reps" \
		"$REPO/scripts/vm.sh" "$lane-bench" bench "$2" >"$tmp/vm.out" 2>&1 ||
		{ cat "$tmp/vm.out" >&2; die "the $1 benchmark VM failed"; }
	clog="$CACHE/vm/$lane-bench-bench-$2/console.log.txt"
	grep "^SM4RS-BENCH-ERROR" "$clog" >&2 && die "tcrypt reported errors in the $1 benchmark"
	sed -n "s/^SM4RS-BENCH /$1 /p" "$clog" >>"$raw"
done
"$PYTHON" "$REPO/scripts/bench_report.py" "$raw" "$out" "$lane"

# --- 2. loop models -----------------------------------------------------------------------
[ "${BENCH_MCA:-1}" = 1 ] || exit 0
echo
# The kernel's assembler preprocessing, enough for linkage.h and assembler.h.
preprocess() {
	"$LLVM_BIN/clang" -E -P -D__ASSEMBLY__ -nostdinc --target=aarch64-linux-gnu \
		-I"$src/arch/arm64/include" -I"$kdir/arch/arm64/include/generated" \
		-I"$src/include" -I"$kdir/include" -I"$src/arch/arm64/include/uapi" \
		-I"$kdir/arch/arm64/include/generated/uapi" -I"$src/include/uapi" \
		-I"$kdir/include/generated/uapi" \
		-include "$src/include/linux/compiler-version.h" \
		-include "$src/include/linux/kconfig.h" "$1" -o "$2"
}
preprocess "$REPO/sm4_ce_core.S" "$tmp/ours-ce.i"
preprocess "$src/arch/arm64/crypto/sm4-ce-core.S" "$tmp/upstream-ce.i"
preprocess "$REPO/sm4_neon_core.S" "$tmp/ours-neon.i"
preprocess "$src/arch/arm64/crypto/sm4-neon-core.S" "$tmp/upstream-neon.i"

# row side file loop-label blocks-per-iteration
cat >"$tmp/table" <<TABLE
ECB ours $tmp/ours-ce.i .Lecb_loop 8
ECB upstream $tmp/upstream-ce.i .Lcrypt_loop_blk 8
CBC-enc ours $tmp/ours-ce.i .Lcbc_enc_loop4 4
CBC-enc upstream $tmp/upstream-ce.i .Lcbc_enc_loop_4x 4
CBC-dec ours $tmp/ours-ce.i .Lcbc_dec_loop 8
CBC-dec upstream $tmp/upstream-ce.i .Lcbc_dec_loop_8x 8
CFB-enc ours $tmp/ours-ce.i .Lcfb_enc_loop 1
CFB-dec ours $tmp/ours-ce.i .Lcfb_dec_loop 8
CTR ours $tmp/ours-ce.i .Lctr_loop 8
CTR upstream $tmp/upstream-ce.i .Lctr_loop_8x 8
XTS ours $tmp/ours-ce.i .Lxts_loop 8
XTS upstream $tmp/upstream-ce.i .Lxts_enc_loop_8x 8
NEON ours $tmp/ours-neon.i .Lneon_loop 8
NEON upstream $tmp/upstream-neon.i after:.Lcrypt_loop_8x 1
NEON-A72 ours $tmp/ours-neon.i .Lneon_loop 8 cortex-a72
NEON-A72 upstream $tmp/upstream-neon.i after:.Lcrypt_loop_8x 1 cortex-a72
TABLE
"$PYTHON" "$REPO/scripts/mca.py" "$LLVM_BIN" "$tmp/table" >"$tmp/out"

# Floors (Neoverse N2, SM4E: latency 4, one per cycle on one pipe, 8 per block):
# parallel modes 8 cycles/block; chained encryption the 8 x 4 cycle SM4E latency chain.
# Targets from the sm4-ce issue.
echo "SM4 with SM4E, llvm-mca $("$LLVM_BIN/llvm-mca" --version | grep -o 'version [0-9.]*' | head -n1) -mcpu=neoverse-n2, cycles per 16-byte block"
echo "(upstream: Linux $lane arch/arm64/crypto/sm4-ce-core.S)"
printf '%-8s %8s %9s %7s %8s %10s\n' mode ours upstream floor target "ours c/B"
for row in ECB CBC-enc CBC-dec CFB-enc CFB-dec CTR XTS; do
	ours=$(awk -v r="$row" '$1 == r && $2 == "ours" {print $3}' "$tmp/out")
	up=$(awk -v r="$row" '$1 == r && $2 == "upstream" {print $3}' "$tmp/out")
	case $row in
	CBC-enc | CFB-enc) floor=32 target=36 ;;
	*) floor=8 target=8.5 ;;
	esac
	printf '%-8s %8s %9s %7s %8s %10s\n' "$row" "$ours" "${up:-none}" "$floor" "$target" \
		"$(awk -v c="$ours" 'BEGIN {printf "%.3f", c / 16}')"
done

# The NEON core: our whole 8-block loop (loads, transposes, rounds, stores) against
# upstream's round loop alone (4 rounds of 8 blocks per iteration, the loads and stores of
# the batch not counted), so the comparison favours upstream. Cortex-A72 is the kind of CPU
# this driver runs on (NEON without SM4); Neoverse N2 for comparison with the rows above.
echo
echo "SM4 without SM4E (NEON, tbl/tbx S-box), same models, cycles per 16-byte block"
echo "(upstream: Linux $lane arch/arm64/crypto/sm4-neon-core.S, its round loop only)"
printf '%-14s %8s %9s %10s %14s\n' cpu ours upstream "ours c/B" "upstream c/B"
for row in NEON-A72 NEON; do
	ours=$(awk -v r="$row" '$1 == r && $2 == "ours" {print $3}' "$tmp/out")
	up=$(awk -v r="$row" '$1 == r && $2 == "upstream" {print $3}' "$tmp/out")
	case $row in NEON-A72) cpu=cortex-a72 ;; *) cpu=neoverse-n2 ;; esac
	printf '%-14s %8s %9s %10s %14s\n' "$cpu" "$ours" "$up" \
		"$(awk -v c="$ours" 'BEGIN {printf "%.2f", c / 16}')" \
		"$(awk -v c="$up" 'BEGIN {printf "%.2f", c / 16}')"
done
