#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make-bench.sh (make bench): the performance of the drivers, two ways.
#
# 1. End to end, side by side with upstream's C drivers in the same kernel build and the same
#    boot: the benchmark kernel of the lane (the test kernel without checkers and self-tests,
#    scripts/kernel.sh LANE-bench), tcrypt's SM4 speed modes under qemu -icount shift=7,
#    where the guest counter advances 8 ticks per executed instruction, so tcrypt's cycles
#    are exact instruction counts (x8) that do not depend on the host. Upstream and ours run
#    alternately, REPS times each (default 5), and the minimum is kept: sm4-ce on -cpu max,
#    sm4-neon on -cpu cortex-a72, sm4-generic (C against Rust, through the templates).
#    Tables on stdout; CSV and plot in $CACHE/bench (or BENCH_OUT).
#    Then real clients, in a second boot per driver under -icount shift=0 (one guest
#    nanosecond per executed instruction): cryptsetup benchmark (AF_ALG) of sm4-xts-plain64
#    and sm4-cbc-essiv:sha256, and a 64 MiB dd through dm-crypt sm4-xts-plain64 on a RAM
#    disk, upstream and ours alternately, CLIENT_REPS times each (default 3), in guest
#    instructions per byte (tests/vm/bench.sh says what each one does).
# 2. llvm-mca models (-mcpu=neoverse-n2 -mattr=+sm4) of the inner loop of each mode, ours
#    next to upstream's assembly from the same kernel tree, in cycles per 16-byte block,
#    with the physical floor. A model, not a timing.
# LANE=7.3 benchmarks Linux 7.3 (default 6.12); BENCH_MCA_ONLY=1 runs part 2 alone (no VM,
# no benchmark kernel); BENCH_ONLY="ce neon" limits part 1 to those
# drivers, BENCH_CLIENTS=0 skips the real clients, BENCH_MCA=0 skips part 2.
source "$(dirname "$0")/lib.sh"

lane=${LANE:-6.12}
reps=${REPS:-5}
client_reps=${CLIENT_REPS:-3}
out=${BENCH_OUT:-$CACHE/bench}
"$REPO/scripts/bootstrap.sh"
if [ "${BENCH_MCA_ONLY:-0}" = 1 ]; then
	# Part 2 alone: the models need the lane's kernel tree (for upstream's assembly and the
	# headers), not the benchmark kernel.
	"$REPO/scripts/kernel.sh" "$lane" >&2
	kdir=$(lane_build_dir "$lane")
else
	"$REPO/scripts/kernel.sh" "$lane-bench" >&2
	"$REPO/scripts/stage-modules.sh" "$lane-bench" >&2
	kdir=$(lane_build_dir "$lane-bench")
fi
src=$(readlink -f "$kdir/source")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- 1. end to end ------------------------------------------------------------------------
mkdir -p "$out"
raw="$out/bench-$lane-raw.txt"
craw="$out/clients-$lane-raw.txt"
: >"$raw"
: >"$craw"
[ "${BENCH_MCA_ONLY:-0}" = 1 ] && runs="" || runs="ce max|neon cortex-a72|generic max"
IFS='|' read -r -a runs_a <<<"$runs"
for run in "${runs_a[@]}"; do
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
	[ "$1" != generic ] && [ "${BENCH_CLIENTS:-1}" = 1 ] || continue
	log "[$lane-bench] cryptsetup benchmark and dm-crypt under -icount shift=0, $1 (-cpu $2), $client_reps runs of each side"
	SM4RS_COUNTS=/dev/null SM4RS_QEMU_EXTRA="-icount shift=0" SM4RS_VM_TIMEOUT=2400 SM4RS_SMP=1 \
		SM4RS_APPEND="sm4rs.bench=$1 sm4rs.reps=$client_reps sm4rs.clients=1" \
		"$REPO/scripts/vm.sh" "$lane-bench" bench "$2" >"$tmp/vm.out" 2>&1 ||
		{ cat "$tmp/vm.out" >&2; die "the $1 client benchmark VM failed"; }
	grep "^SM4RS-BENCH-ERROR" "$clog" >&2 && die "a client reported errors in the $1 benchmark"
	sed -n "s/^SM4RS-CLIENT /$1 /p" "$clog" >>"$craw"
done
[ "${BENCH_MCA_ONLY:-0}" = 1 ] || "$PYTHON" "$REPO/scripts/bench_report.py" "$raw" "$out" "$lane" "$craw"

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
		-include "$src/include/linux/kconfig.h" -DCONFIG_CRYPTO_SM4_RUST_CFB=1 "$1" -o "$2"
}
preprocess "$REPO/sm4_ce_core.S" "$tmp/ours-ce.i"
preprocess "$src/arch/arm64/crypto/sm4-ce-core.S" "$tmp/upstream-ce.i"
preprocess "$REPO/sm4_neon_core.S" "$tmp/ours-neon.i"
preprocess "$REPO/sm4_ce_gcm_core.S" "$tmp/ours-gcm.i"
preprocess "$src/arch/arm64/crypto/sm4-ce-gcm-core.S" "$tmp/upstream-gcm.i"
preprocess "$REPO/sm4_ce_ccm_core.S" "$tmp/ours-ccm.i"
preprocess "$src/arch/arm64/crypto/sm4-ce-ccm-core.S" "$tmp/upstream-ccm.i"
preprocess "$src/arch/arm64/crypto/sm4-neon-core.S" "$tmp/upstream-neon.i"
# A C implementation's rounds with the S-box in memory, as sm4-neon's upstream glue runs
# CBC and CFB encryption (lib/crypto/sm4.c), compiled as the kernel would (-O2).
"$LLVM_BIN/clang" -O2 --target=aarch64-linux-gnu -S -o "$tmp/table-c.s" "$REPO/scripts/sm4_table_rounds.c"

# row side file loop-label blocks-per-iteration
NEON_CPUS="cortex-a72 neoverse-n1 tsv110 cortex-a55 neoverse-n2"
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
GCM-enc ours $tmp/ours-gcm.i .Lgcme_loop8 8
GCM-enc upstream $tmp/upstream-gcm.i .Lgcm_enc_loop_4x 4
GCM-dec ours $tmp/ours-gcm.i .Lgcmd_loop4 4
GCM-dec upstream $tmp/upstream-gcm.i .Lgcm_dec_loop_3x 3
CCM-enc ours $tmp/ours-ccm.i .Lccme_enc_loop 1
CCM-enc upstream $tmp/upstream-ccm.i .Lccm_enc_loop_4x 4
CCM-dec ours $tmp/ours-ccm.i .Lccmd_dec_loop 1
GHASH-ad ours $tmp/ours-gcm.i .Lghash_loop8 8
GHASH-ad upstream $tmp/upstream-gcm.i .Lghash_loop_4x 4
CCM-dec upstream $tmp/upstream-ccm.i .Lccm_dec_loop_4x 4
TABLE
# The same CE rows on Neoverse V1.
sed 's/^\([^ ]*\) /\1-V1 /; s/$/ neoverse-v1/' "$tmp/table" >"$tmp/table-v1"
cat "$tmp/table-v1" >>"$tmp/table"
for cpu in $NEON_CPUS; do
	cat >>"$tmp/table" <<TABLE
NEON-$cpu upstream $tmp/upstream-neon.i after:.Lcrypt_loop_8x 1 $cpu
SERIAL-$cpu tbl $tmp/ours-neon.i .Lcbc_loop 1 $cpu
SERIAL-$cpu aese $tmp/ours-neon.i .Lcbca_loop 1 $cpu
SERIAL-$cpu table-c $tmp/table-c.s in:sm4_model_rounds 1/8 $cpu
TABLE
done
# sm4-neon's three batch loops, once per CPU model: those above and every model of the
# glue's variant table.
models=$("$PYTHON" "$REPO/scripts/variant_check.py" "$REPO/sm4_neon_glue.rs" --models) ||
	die "the variant table of sm4_neon_glue.rs (above)"
for cpu in $({ echo "$models" | cut -d' ' -f1; echo $NEON_CPUS | tr ' ' '\n'; } | sort -u); do
	cat >>"$tmp/table" <<TABLE
VARIANT-$cpu tbx $tmp/ours-neon.i .Lneon_loop_tbx 8 $cpu
VARIANT-$cpu tbl $tmp/ours-neon.i .Lneon_loop_tbl 8 $cpu
VARIANT-$cpu aese $tmp/ours-neon.i .Lneon_loop12_aese 12 $cpu
TABLE
done
"$PYTHON" "$REPO/scripts/mca.py" "$LLVM_BIN" "$tmp/table" >"$tmp/out"

# Floors (Neoverse N2, SM4E: latency 4, one per cycle on one pipe, 8 per block):
# parallel modes 8 cycles/block; chained encryption the 8 x 4 cycle SM4E latency chain.
# Targets from the sm4-ce issue.
echo "SM4 with SM4E, llvm-mca $("$LLVM_BIN/llvm-mca" --version | grep -o 'version [0-9.]*' | head -n1) -mcpu=neoverse-n2, cycles per 16-byte block"
echo "(upstream: Linux $lane arch/arm64/crypto/sm4-ce-core.S)"
echo "(the V1 columns: the same loops, -mcpu=neoverse-v1)"
printf '%-8s %8s %9s %7s %8s %10s %8s %9s\n' mode ours upstream floor target "ours c/B" "V1 ours" "V1 upstr"
for row in ECB CBC-enc CBC-dec CFB-enc CFB-dec CTR XTS GCM-enc GCM-dec CCM-enc CCM-dec GHASH-ad; do
	ours=$(awk -v r="$row" '$1 == r && $2 == "ours" {print $3}' "$tmp/out")
	up=$(awk -v r="$row" '$1 == r && $2 == "upstream" {print $3}' "$tmp/out")
	v1=$(awk -v r="$row-V1" '$1 == r && $2 == "ours" {print $3}' "$tmp/out")
	v1up=$(awk -v r="$row-V1" '$1 == r && $2 == "upstream" {print $3}' "$tmp/out")
	case $row in
	CBC-enc | CFB-enc) floor=32 target=36 ;;
	# GCM: SM4E's 8 per block (PMULL shares the pipes); the issue's target 1.15x. CCM: a
	# chain (the MAC) of 32 SM4E latencies per block, the counter mode beside it.
	GCM-*) floor=8 target=9.2 ;;
	CCM-*) floor=32 target=36 ;;
	# GHASH of associated data alone (sm4rs_ce_ghash, 8 blocks per reduction): PMULL only,
	# three per block and two per reduction; the issue's target: upstream's loop.
	GHASH-ad) floor=3.25 target=$up ;;
	*) floor=8 target=8.5 ;;
	esac
	printf '%-8s %8s %9s %7s %8s %10s %8s %9s\n' "$row" "$ours" "${up:-none}" "$floor" "$target" \
		"$(awk -v c="$ours" 'BEGIN {printf "%.3f", c / 16}')" "$v1" "${v1up:-none}"
done

# The NEON core: our whole 8-block loop (loads, transposes, rounds, stores, and the loads and
# XORs of `pre` and `post`, which llvm-mca counts as if every mode had them) in each of its
# three S-box variants, against upstream's round loop alone (4 rounds of 8 blocks per
# iteration, the loads and stores of the batch not counted), so the comparison favours
# upstream. The one loop serves ECB, CBC/CFB decryption, CTR and XTS. On the CPUs this
# driver runs on (NEON without SM4: Cortex-A72, Neoverse N1, Kunpeng 920's TSV110,
# Cortex-A55), and Neoverse N2 for comparison with the rows above. "pick" is the variant
# sm4_neon_glue.rs picks for the CPU (with AES; A55 and TSV110 also have it; aese's loop is
# its 12-block batch, tbx's and tbl's 8); the target is issue 32's (the physical limit the
# models show: A72 11.5, N1 6.5, TSV110 10.4, A55 14.0, N2 6.5). "serial" is our CBC encryption
# loop (CFB encryption is the same chain), a block at a time in constant time, in the form
# the pick runs: with aese, the AESE/PMULL loop; else the tbl chain (S-box in registers).
# Upstream runs that direction in C with the S-box in memory: "table C" models such rounds
# (scripts/sm4_table_rounds.c, clang -O2, every lookup an L1 hit); issue 47's target is
# "serial" at most 1.3 times it.
echo
echo "SM4 without SM4E (NEON), same models, cycles per byte"
echo "(upstream: Linux $lane arch/arm64/crypto/sm4-neon-core.S, its round loop only)"
printf '%-12s %6s %6s %6s %9s %5s %7s %6s %7s %8s %6s\n' cpu tbx tbl aese upstream pick target ratio \
	serial "table C" ratio
# Cycles per byte of row $1, side $2.
cpb() {
	awk -v r="$1" -v s="$2" '$1 == r && $2 == s {printf "%.2f", $3 / 16}' "$tmp/out"
}
for cpu in $NEON_CPUS; do
	tbx=$(cpb "VARIANT-$cpu" tbx) tbl=$(cpb "VARIANT-$cpu" tbl) aese=$(cpb "VARIANT-$cpu" aese)
	up=$(cpb "NEON-$cpu" upstream)
	# (The variant the glue picks there with AES; the targets: issue 32's.)
	pick=$(echo "$models" | awk -v m="$cpu" '$1 == m {print $2}')
	case $cpu in
	cortex-a72) target=11.5 ;;
	neoverse-n1) target=6.5 ;;
	tsv110) target=10.4 ;;
	cortex-a55) target=14.0 ;;
	neoverse-n2) target=6.5 ;;
	*) target=- ;;
	esac
	picked=$(cpb "VARIANT-$cpu" "$pick")
	ratio=$(awk -v p="$picked" -v t="$target" 'BEGIN {if (t == "-") print "-"; else printf "%.2f", p / t}')
	[ "$pick" = aese ] && ser=$(cpb "SERIAL-$cpu" aese) || ser=$(cpb "SERIAL-$cpu" tbl)
	tc=$(cpb "SERIAL-$cpu" table-c)
	printf '%-12s %6s %6s %6s %9s %5s %7s %6s %7s %8s %6s\n' "$cpu" "$tbx" "$tbl" "$aese" "$up" \
		"$pick" "$target" "$ratio" "$ser" "$tc" "$(awk -v a="$ser" -v b="$tc" 'BEGIN {printf "%.2f", a / b}')"
done

# The variant picked for each CPU of sm4_neon_glue.rs's table, against the best its models
# give (the same loops as above): more than 3% off fails make bench.
echo
echo "sm4-neon's variant per CPU (sm4_neon_glue.rs CPUS), llvm-mca cycles per byte of each loop"
variant_rc=0
"$PYTHON" "$REPO/scripts/variant_check.py" "$REPO/sm4_neon_glue.rs" "$tmp/out" || variant_rc=1
exit $variant_rc
