#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh (make bench): llvm-mca models (-mcpu=neoverse-n2 -mattr=+sm4) of the inner loop
# of each mode, ours next to upstream's C driver's assembly from the same kernel tree, in
# cycles per 16-byte block, with the physical floor. A model, not a timing: it does not
# depend on the machine it runs on. LANE=7.3 reads upstream's code from Linux 7.3.
source "$(dirname "$0")/lib.sh"

lane=${LANE:-6.12}
"$REPO/scripts/bootstrap.sh"
"$REPO/scripts/kernel.sh" "$lane" >&2
kdir=$(lane_build_dir "$lane")
src=$(readlink -f "$kdir/source")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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
# The Rust generic block function, as the kernel build compiles it.
"$REPO/scripts/modules.sh" "$kdir" -s CONFIG_CRYPTO_SM4_GENERIC=m sm4_generic.s >&2
mv "$REPO/sm4_generic.s" "$tmp/generic.s"

# row side file loop-label blocks-per-iteration
cat >"$tmp/table" <<TABLE
ECB ours $tmp/ours-ce.i .Lecb_loop 8
ECB upstream $tmp/upstream-ce.i .Lcrypt_loop_blk 8
CBC-enc ours $tmp/ours-ce.i .Lcbc_enc_loop 1
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
GENERIC ours $tmp/generic.s in:RoundKeys11crypt_block 1/32
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
# the batch not counted), so the comparison favours upstream.
neon=$(awk '$1 == "NEON" && $2 == "ours" {print $3}' "$tmp/out")
neon_up=$(awk '$1 == "NEON" && $2 == "upstream" {print $3}' "$tmp/out")
generic=$(awk '$1 == "GENERIC" {print $3}' "$tmp/out")
echo
echo "SM4 without SM4E (NEON, tbl/tbx S-box), same model, cycles per 16-byte block"
echo "(upstream: Linux $lane arch/arm64/crypto/sm4-neon-core.S, its round loop only)"
printf '%-34s %8s %9s %10s %14s\n' path ours upstream "ours c/B" "upstream c/B"
printf '%-34s %8s %9s %10s %14s\n' "8-block core (ECB, CTR, CBC/CFB dec)" "$neon" "$neon_up" \
	"$(awk -v c="$neon" 'BEGIN {printf "%.2f", c / 16}')" \
	"$(awk -v c="$neon_up" 'BEGIN {printf "%.2f", c / 16}')"
echo
echo "Serial directions (CBC/CFB encryption), one block at a time:"
printf '  %-44s %8s\n' "NEON core, 1 block in an 8-block batch" \
	"$(awk -v c="$neon" 'BEGIN {printf "%.1f", c * 8}')"
printf '  %-44s %8s\n' "Rust generic block function (table S-box)" "$generic"
