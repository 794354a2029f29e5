#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mutants.py (make mutants): the mutation table. Each mutant is one small wrong change to
the sources; it is applied alone to a scratch copy of the tree, the modules are built from
that copy (as `make KDIR=` builds them) against the Linux 6.12 test kernel, or 7.3's for
the mutants of code only 7.3 compiles, and the smallest VM run that should catch it boots
(scenario check, as make check boots: the KUnit suites the mutant names, AF_ALG known
answers, dm-crypt against the oracle), with testmgr's self-tests off (cryptomgr.notests=1),
so that neither the host tests nor testmgr's fixed vectors do the catching. A mutant is
killed only when a test that the mutant names fails (a KUnit case of the suites its filter
selects, or a check of the scenario itself: AF_ALG known answers, dm-crypt): not by the
checks of the run itself (the guest did not finish, a timeout, the kernel log not clean, a
lost or repeated result, the "kunit.<suite>.ran" checks of the suites the run filtered
out), nor by any other test, nor by a build that failed; those make its verdict ERROR,
counted apart from the kills. Before any mutant, a control run builds and boots the
unmutated tree the same way on each lane the mutants use, with every KUnit suite: if
anything fails there, nothing is scored (exit 2), as a test that always fails would
"kill" every mutant. Prints the table: mutant, verdict, the tests that failed (or what went
wrong), time; exits 1 if a mutant survives or has an error.

Not part of `make test` (each mutant costs a module build and a VM boot).

mutants.py --check [NAME...] builds and boots nothing: it checks that each mutant's file
exists and holds its text exactly once (what applying it needs), printing a KTAP line
"not ok N mutant.NAME # FILE: ..." for each that does not; exit 1 if any. `make test` runs
it with the host checks (mutants-apply), so that a change to a line a mutant keys on shows
at once, not at the next `make mutants`.
"""

import concurrent.futures
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The lane of the mutants that name none.
LANE = os.environ.get("SM4RS_MUTANT_LANE", "6.12")

# (name, file, the text replaced (exactly once in the file), its replacement, KUnit filter
# [, the only lane whose kernel compiles the code, where it runs])
MUTANTS = [
    ("sbox-byte", "sm4/sm4.rs", "0xd6, 0x90, 0xe9, 0xfe,", "0xd6, 0x91, 0xe9, 0xfe,",
     "sm4_generic.*"),
    ("ck-constant", "sm4/sm4.rs", "0x70777e85", "0x70777e86", "sm4_generic.*"),
    # (A cipher called out of place: reads its destination, or leaves it as it was.)
    ("cipher-reads-dst", "sm4_generic.rs", "ctx.enc.rounds(block.src())",
     "ctx.enc.rounds(block.dst())", "sm4_generic.cipher_vs_oracle"),
    ("cipher-copy-aligned", "crypto/cipher.rs", "(s.read(), s.add(1).read())",
     "(s.read(), s.read())", "sm4_ce_cipher.*"),
    ("cipher-copy-unaligned", "crypto/cipher.rs", "ptr::copy(self.src, self.dst, 1)",
     "ptr::copy(self.src, self.dst, 0)", "sm4_ce_cipher.*"),
    ("sm4ekey-schedule", "sm4_ce_core.S", "sm4ekey\tv3.4s, v2.4s, v27.4s",
     "sm4ekey\tv3.4s, v2.4s, v26.4s", "sm4_ce_cipher.*"),
    ("ctr-carry", "sm4_ce_core.S", "adds\tCTR_LO, CTR_LO, #1\n\tadc\tCTR_HI, CTR_HI, xzr",
     "adds\tCTR_LO, CTR_LO, #1\n\tadd\tCTR_HI, CTR_HI, xzr", "sm4_ce.ctr_*"),
    # (The batch of 8 counters carries without a branch: in the vector lanes of each
    # counter, and into the high half for the next batch.)
    ("ctr-batch-carry", "sm4_ce_core.S", "\tsub\tv22.2d, \\c\\().2d, v22.2d",
     "\tadd\tv22.2d, \\c\\().2d, v22.2d", "sm4_ce.ctr_*"),
    ("ctr-batch-end-carry", "sm4_ce_core.S", "adds\tCTR_LO, CTR_LO, #8\n\tadc\tCTR_HI, CTR_HI, xzr",
     "adds\tCTR_LO, CTR_LO, #8\n\tadd\tCTR_HI, CTR_HI, xzr", "sm4_ce.ctr_*"),
    ("cts-swap", "sm4/modes.rs",
     "                if enc {\n                    io.swap_last_blocks();\n",
     "                if false {\n                    io.swap_last_blocks();\n",
     "sm4_ce.modes_vs_oracle"),
    # (CTS's partial tail, through its stack buffer: every byte of it written back.)
    ("cts-tail-length", "sm4/modes.rs", "        io.write(&buf[..BLOCK_SIZE + r]);",
     "        io.write(&buf[..BLOCK_SIZE + r - 1]);", "sm4_ce.modes_vs_oracle"),
    # (Ciphertext stealing as upstream's glue does it: the blocks before the last two a part
    # of the request, the last two another, walked in one step; the part of a scattered
    # request starts where the kernel's scatterwalk_ffwd() says.)
    ("stealing-bulk-into-tail", "sm4/modes.rs",
     "let mut part = req.part(0, len - tail)?;\n            Cbc::<B>::walk",
     "let mut part = req.part(0, len - tail + BLOCK_SIZE)?;\n            Cbc::<B>::walk",
     "sm4_ce.modes_vs_oracle"),
    # (XTS stealing: T*x is the tweak of the last whole block in encryption, of the first in
    # decryption.)
    # (XTS's key checked by the kernel's xts_verify_key(): equal halves refused where the
    # user forbids weak keys.)
    ("xts-key-check", "sm4/modes.rs", "    const XTS_KEY: bool = true;",
     "    const XTS_KEY: bool = false;", "sm4_ce.bad_inputs"),
    ("xts-tail-tweak-order", "sm4/modes.rs",
     "gf128_mul_x(t, if enc { &mut t2 } else { &mut t1 });",
     "gf128_mul_x(t, if enc { &mut t1 } else { &mut t2 });", "sm4_ce.modes_vs_oracle"),
    ("part-forward", "crypto/skcipher.rs",
     "(*s).src = bindings::scatterwalk_ffwd(sg.cast(), src, self.from);",
     "(*s).src = bindings::scatterwalk_ffwd(sg.cast(), src, 0);", "sm4_neon.modes_vs_oracle"),
    # (The bytes a step leaves go back to the kernel's walk: a block mode's request that
    # ends in a partial block then fails, as the C drivers'.)
    ("walk-leave-ignored", "crypto/mod.rs", "                left as core::ffi::c_int\n",
     "                0\n", "sm4_ce.bad_inputs"),
    ("xts-doubling-neon", "sm4_neon_glue.rs", "|t| (t << 1) ^ ((t >> 127) * 0x87)",
     "|t| (t << 1) ^ ((t >> 127) * 0x86)", "sm4_neon.modes_vs_oracle"),
    ("xts-doubling-ce", "sm4_ce_core.S", "mov\tGF_POLY, #0x87", "mov\tGF_POLY, #0x86",
     "sm4_ce.modes_vs_oracle"),
    # (The list of modes: a size wrong in the declaration, against the reference's.)
    ("mode-list-xts-key", "sm4/mode_list.rs", 'Xts: "xts(sm4)", "xts", 32,',
     'Xts: "xts(sm4)", "xts", 16,', "sm4_ce.driver_parameters"),
    ("cmac-k2", "sm4/mac.rs", "key.padded = double(&key.whole);", "key.padded = key.whole;",
     "sm4_ce_mac.*"),
    # (On 6.12 the abstraction keeps a hash's partial block, on 7.3 the hash API does:
    # crypto/shash_buffer.rs.)
    ("hash-keep-last-block", "crypto/shash_buffer.rs", "let keep = (data.len() - nz) % block + nz;",
     "let keep = data.len() % block;", "sm4_ce_mac.*", "6.12"),
    ("hash-partial-fill", "crypto/shash_buffer.rs", "head.read(&mut self.buf[have..block]);",
     "head.read(&mut self.buf[..block - have]);", "sm4_ce_mac.*", "6.12"),
    ("hash-final-by-finup", "crypto/shash_buffer.rs",
     "unsafe { finup(desc, core::ptr::null(), 0, out) }", "unsafe { finup(desc, out, 1, out) }",
     "sm4_ce_mac.*", "6.12"),
    ("hash-bytes-left", "crypto/shash_buffer.rs", "            blocks(cx, whole);\n        }\n        rest\n",
     "            blocks(cx, whole);\n        }\n        0\n", "sm4_ce_mac.*", "7.3"),
    ("cbcmac-chain", "sm4_ce_core.S",
     ".Lcbcmac_loop:\n\tld1\t{v0.16b}, [SRC], #16\n\trev32\tv0.16b, v0.16b\n"
     "\teor\tv0.16b, v0.16b, v16.16b\n",
     ".Lcbcmac_loop:\n\tld1\t{v0.16b}, [SRC], #16\n\trev32\tv0.16b, v0.16b\n"
     "\torr\tv0.16b, v0.16b, v16.16b\n", "sm4_ce_mac.*"),
    ("neon-sbox-quarter", "sm4_neon_core.S", "tbx\tv13.16b, {v24.16b-v27.16b}, v12.16b",
     "tbx\tv13.16b, {v28.16b-v31.16b}, v12.16b", "sm4_neon_variants.*"),
    ("neon-tbx-interleaved", "sm4_neon_core.S", "tbx\tv14.16b, {v24.16b-v27.16b}, v13.16b",
     "tbx\tv14.16b, {v28.16b-v31.16b}, v13.16b", "sm4_neon_variants.*"),
    ("neon-tbl-quarter", "sm4_neon_core.S", "tbl\tv15.16b, {v24.16b-v27.16b}, v12.16b",
     "tbl\tv15.16b, {v28.16b-v31.16b}, v12.16b", "sm4_neon_variants.*"),
    ("neon-aese-map", "sm4_neon_core.S", "0x3e, 0xb2, 0x0e, 0x82", "0x3f, 0xb2, 0x0e, 0x82",
     "sm4_neon*"),
    ("neon-aese12-third-group", "sm4_neon_core.S",
     "round12\tv2, v3, v0, v1, v6, v7, v4, v5, v28, v29, v26, v27",
     "round12\tv2, v3, v0, v1, v6, v7, v4, v5, v29, v28, v26, v27", "sm4_neon*"),
    ("neon-aese12-tail4", "sm4_neon_core.S", "\tcmp\tBLOCKS, #4\n\tb.ne", "\tcmp\tBLOCKS, #8\n\tb.ne",
     "sm4_neon*"),
    # (IVs, counters and tweaks a word at a time where aligned, a byte at a time elsewhere:
    # each branch's store dropped.)
    ("neon-iv-load-aligned", "sm4_neon_glue.rs", "[p.read(), p.add(1).read()]",
     "[p.add(1).read(), p.read()]", "sm4_neon.modes_vs_oracle"),
    ("neon-iv-load-unaligned", "sm4_neon_glue.rs", "b.cast::<Iv>().read_unaligned() })\n",
     "b.cast::<Iv>().read_unaligned() }).swap_bytes()\n", "sm4_neon.modes_vs_oracle"),
    ("neon-iv-store-aligned", "sm4_neon_glue.rs", "        unsafe { p.write(w) };",
     "        let _ = w;", "sm4_neon.modes_vs_oracle"),
    ("neon-iv-store-unaligned", "sm4_neon_glue.rs", "        *b = w.to_ne_bytes();",
     "        let _ = w;", "sm4_neon.modes_vs_oracle"),
    # (CBC and CFB decryption's group: the IV, then the ciphertext copied unzeroed.)
    ("neon-shifted-first", "sm4_neon_glue.rs", "(*words).write(first);",
     "(*words).write(0);", "sm4_neon.modes_vs_oracle"),
    ("neon-shifted-length", "sm4_neon_glue.rs", "words.add(1).cast::<u8>(), k * BLOCK_SIZE)",
     "words.add(1).cast::<u8>(), (k - 1) * BLOCK_SIZE)", "sm4_neon.modes_vs_oracle"),
    # (CTR's counter blocks and XTS's tweaks, written by `Blocks::fill`: its last dropped.)
    ("neon-fill-last", "sm4_neon_glue.rs", "for w in &mut self.words[..k] {",
     "for w in &mut self.words[..k.saturating_sub(1)] {", "sm4_neon.modes_vs_oracle"),
    # (A request of one block, in CBC, CFB and CTR: the IV or counter read where it is, and
    # the next one written back.)
    ("neon-one-block-cbc-iv", "sm4_neon_glue.rs",
     "run(here, rk, io, 1, Op::Data, Op::None, Op::Block(iv));",
     "run(here, rk, io, 1, Op::Data, Op::None, Op::None);", "sm4_neon.modes_vs_oracle"),
    ("neon-one-block-cbc-next-iv", "sm4_neon_glue.rs",
     "Op::Data, Op::None, Op::Block(iv));\n            store(iv, c);",
     "Op::Data, Op::None, Op::Block(iv));\n            let _ = c;", "sm4_neon.modes_vs_oracle"),
    ("neon-one-block-cfb-next-iv", "sm4_neon_glue.rs",
     "Op::Block(iv), Op::None, Op::Data);\n            store(iv, c);",
     "Op::Block(iv), Op::None, Op::Data);\n            let _ = c;", "sm4_neon.modes_vs_oracle"),
    ("neon-one-block-ctr-next", "sm4_neon_glue.rs", "u128::from_be(load(iv)).wrapping_add(1)",
     "u128::from_be(load(iv)).wrapping_add(2)", "sm4_neon.modes_vs_oracle"),
    # (XTS's first tweak, E(IV) under the tweak key by the one-block routine.)
    ("neon-xts-first-tweak-key", "sm4_neon_glue.rs",
     "run(here, k, &mut block, 1,", "run(here, rk, &mut block, 1,",
     "sm4_neon.modes_vs_oracle"),
    # (The tbx batches load each round's key a round early: the first before the rounds.)
    ("neon-tbx-first-key", "sm4_neon_core.S",
     "\tld1r\t{ROUNDKEY.4s}, [RKP], #4\t\t/* round 0's key; each loads the next */\n",
     "", "sm4_neon_variants.*"),
    # (The serial routines: each form, run by the variant that picks it.)
    ("neon-serial-chain", "sm4_neon_core.S",
     "v3, v2, v1, v0\t/* P ^ C[i-1], in SM4's words */\n\tmov\tv0.16b, v12.16b\n"
     "\tmov\tv1.16b, v13.16b\n\tmov\tv2.16b, v14.16b\n\tmov\tv3.16b, v15.16b\n\trounds32_1blk",
     "v3, v2, v1, v1\t/* P ^ C[i-1], in SM4's words */\n\tmov\tv0.16b, v12.16b\n"
     "\tmov\tv1.16b, v13.16b\n\tmov\tv2.16b, v14.16b\n\tmov\tv3.16b, v15.16b\n\trounds32_1blk",
     "sm4_neon_variants.tbx_vs_oracle"),
    ("neon-serial-aese-l", "sm4_neon_core.S", "movk\tw9, #0x0104, lsl #16",
     "movk\tw9, #0x0106, lsl #16", "sm4_neon_variants.aese_vs_oracle"),
    # (The AESE serial round: each word's l added a round late, Mi(l) the chain.)
    ("neon-serial-aese-commit", "sm4_neon_core.S",
     "\teor\t\\x3\\().16b, \\x3\\().16b, LPEND.16b",
     "\teor\t\\x3\\().16b, \\x3\\().16b, MIPEND.16b", "sm4_neon_variants.aese_vs_oracle"),
    ("neon-serial-aese-last", "sm4_neon_core.S",
     "\teor\tv3.16b, v3.16b, LPEND.16b\t\t/* the last round's l */\n", "",
     "sm4_neon_variants.aese_vs_oracle"),
    ("neon-serial-aese-mi-const", "sm4_neon_core.S",
     "\tdup\tMI_LO.16b, AIN_LO.b[0]", "\tmovi\tMI_LO.16b, #0",
     "sm4_neon_variants.aese_vs_oracle"),
    ("neon-serial-aese-mi-hi", "sm4_neon_core.S",
     "\ttbl\tv15.8b, {AIN_HI.16b}, v15.8b", "\ttbl\tv15.8b, {AOUT_HI.16b}, v15.8b",
     "sm4_neon_variants.aese_vs_oracle"),
    ("neon-crypt1-pre", "sm4_neon_core.S",
     "\tld4r\t{v12.4s-v15.4s}, [PRE]\n\teor4\tv0, v1, v2, v3, v12, v13, v14, v15\n",
     "\tld4r\t{v12.4s-v15.4s}, [PRE]\n\teor4\tv0, v1, v2, v3, v13, v13, v14, v15\n",
     "sm4_neon_variants.aese_vs_oracle"),
    ("neon-forced-ignored", "sm4_neon_glue.rs",
     "Some(v) if v != Variant::Aese || aese_usable() => v,",
     "Some(v) if false => v,", "sm4_neon_variants.*"),
    ("neon-forced-cached", "sm4_neon_glue.rs",
     "Some(v) if forced == 0 && last >> 32 == u64::from(midr) => v,",
     "Some(v) if last >> 32 == u64::from(midr) => v,", "sm4_neon_variants.*"),
    ("neon-serial-sbox", "sm4_neon_core.S", "tbl\tv14.16b, {v24.16b-v27.16b}, v14.16b",
     "tbl\tv14.16b, {v28.16b-v31.16b}, v14.16b", "sm4_neon.*"),
    ("neon-key-schedule", "sm4_neon_core.S", "sri\tv15.4s, v13.4s, #9",
     "sri\tv15.4s, v13.4s, #8", "sm4_neon.*"),
    ("neon-cryptn-lane", "sm4_neon_core.S", "ld4\t{\\x0\\().s-\\x3\\().s}[2], [\\p], #16",
     "ld4\t{\\x0\\().s-\\x3\\().s}[1], [\\p], #16", "sm4_neon.*"),
    # (CBC and CFB decryption keep each batch's ciphertext as loaded, in one of two stack
    # buffers, for the XOR after its rounds: src read once.)
    ("ce-kept-swap", "sm4_ce_core.S", "\tmov\tx12, x13\n\tmov\tx13, x9\n",
     "\tmov\tx12, x13\n", "sm4_ce.modes_vs_oracle"),
    # (XTS requests that end in a partial block take the stealing path.)
    ("xts-stealing-path", "sm4/modes.rs", "if len % BLOCK_SIZE != 0 {\n            return Self::stealing",
     "if len % BLOCK_SIZE > BLOCK_SIZE {\n            return Self::stealing", "sm4_ce.*"),
    # (A stream mode's partial last block: CTR advances the counter, CFB keeps its IV.)
    ("stream-tail-iv", "sm4/modes.rs", "if tail == Tail::AdvanceIv {",
     "if tail != Tail::AdvanceIv {", "sm4_ce.*"),
    # (Fewer than 8 blocks, or what a batch leaves, go through the one-block loop.)
    ("ce-one-block-loop", "sm4_ce_core.S", "b.ne\t.Lcbc_dec_one", "b.ne\t.Lcbc_dec_done",
     "sm4_ce.modes_vs_oracle"),
    # (4 to 7 blocks, a short request's or what the batches leave, go four at once.)
    ("ce-four-cbc-chain", "sm4_ce_core.S",
     "eor\tv0.16b, v0.16b, CHAIN.16b\n\teor\tv1.16b, v1.16b, v4.16b",
     "eor\tv0.16b, v0.16b, v4.16b\n\teor\tv1.16b, v1.16b, v4.16b", "sm4_ce.modes_vs_oracle"),
    ("ce-four-xts-tweak", "sm4_ce_core.S", "\txts_next 19\n", "\txts_next 18\n",
     "sm4_ce.modes_vs_oracle"),
    ("ce-four-ctr-order", "sm4_ce_core.S", "\tctr_next 2\n\tctr_next 3\n",
     "\tctr_next 3\n\tctr_next 2\n", "sm4_ce.modes_vs_oracle"),
    ("ce-hand-over-rev", "sm4_ce_core.S", "ext\tv14.16b, v14.16b, v14.16b, #8",
     "ext\tv14.16b, v14.16b, v14.16b, #0", "sm4_ce.*"),
    ("cfb-iv", "sm4_generic.rs",
     "                if k == sm4::BLOCK_SIZE && enc {\n                    iv.copy_from_slice(&blk[..]);\n                }\n",
     "", "sm4_generic.cfb*"),
    ("nesting-softirq-check", "crypto/bindings_helper.h",
     "if (softirq && __this_cpu_read(sm4rs_softirq_neon))",
     "if (softirq && 0 && __this_cpu_read(sm4rs_softirq_neon))",
     "sm4_abstraction.nested_sections_refused"),
    ("nesting-task-check", "crypto/bindings_helper.h",
     "if (test_thread_flag(TIF_KERNEL_FPSTATE) &&",
     "if (0 && test_thread_flag(TIF_KERNEL_FPSTATE) &&",
     "sm4_abstraction.nested_sections_refused"),
    ("c-driver-guard", "crypto/bindings_helper.h",
     "\tif (!IS_ENABLED(CONFIG_PREEMPT_RT) && in_serving_softirq())\n"
     "\t\treturn __this_cpu_read(sm4rs_softirq_neon);\n\treturn test_thread_flag(TIF_KERNEL_FPSTATE);",
     "\treturn false;", "sm4_abstraction.c_driver_in_section_refused"),
    # (The crypto API checks no AEAD's key length: the adapter does.)
    ("aead-key-length", "crypto/aead.rs",
     "        if !(T::MIN_KEY_SIZE..=T::MAX_KEY_SIZE).contains(&len) {", "        if false {",
     "sm4_abstraction.aead_key_length_checked"),
    ("aead-short-decrypt", "crypto/aead.rs",
     "                None => return EINVAL.to_errno(),\n            }\n        } else {",
     "                None => 0,\n            }\n        } else {", "sm4_ce_gcm.gcm_bad_input"),
    # The key schedules where NEON may not be used (a setkey in hard interrupt context).
    ("ce-key-without-neon", "sm4_ce_glue.rs",
     "        if done.is_none() {\n            out.expand_into(key);\n        }\n",
     "        if done.is_none() {}\n", "sm4_ce.set_key_without_neon"),
    ("neon-key-without-neon", "sm4_neon_glue.rs",
     "        if done.is_none() {\n            out.expand_into(key);\n        }\n",
     "        if done.is_none() {}\n", "sm4_neon.set_key_without_neon"),
    ("aead-key-without-neon", "sm4/aead_mode.rs",
     "    if done.is_none() {\n        rk.expand_into(key);\n    }\n", "    if done.is_none() {}\n",
     "sm4_ce_ccm.ccm_set_key_without_neon"),
    ("gcm-hash-key-without-neon", "sm4_ce_gcm_glue.rs", "        rk.crypt_block(&mut h);\n",
     "        h[0] ^= 0;\n",
     "sm4_ce_gcm.gcm_set_key_without_neon"),
    ("mac-subkey-without-neon", "sm4/mac.rs",
     "    if done.is_none() {\n        key.enc.crypt_block(block);\n    }\n",
     "    if done.is_none() {}\n",
     "sm4_ce_mac.mac_set_key_without_neon"),
    ("registration-frees", "crypto/alg.rs",
     "            unsafe { unregister::<K>(self.module, raw.as_ptr()) };\n",
     "            unsafe { unregister::<K>(self.module, raw.as_ptr()) };\n"
     "            // SAFETY: (mutant) freed at once, whoever still uses it.\n"
     "            drop(unsafe { KBox::from_raw(raw.as_ptr().cast::<Opaque<K::Raw>>()) });\n",
     "sm4_abstraction.registration_dropped_while_in_use"),
    ("null-key-slice", "crypto/cipher.rs", "let key = unsafe { byte_slice(key, len) };",
     "let key = unsafe { core::slice::from_raw_parts(key, len as usize) };",
     "sm4_abstraction.null_key_refused"),
    ("neon-section-unbounded", "crypto/mod.rs",
     "pub const MAX_STEP: usize = bindings::PAGE_SIZE;",
     "pub const MAX_STEP: usize = usize::MAX;", "sm4_ce_mac.mac_sections_per_page", "6.12"),
    # (16 pages in pieces of a page and a block: 15 sections where there are 16 pages.)
    ("neon-section-page-and-block", "crypto/mod.rs",
     "pub const MAX_STEP: usize = bindings::PAGE_SIZE;",
     "pub const MAX_STEP: usize = bindings::PAGE_SIZE + 16;",
     "sm4_ce_mac.mac_sections_per_page", "6.12"),
    # (7.3's rule: one NEON section over a whole XTS or AEAD request, one per step
    # otherwise; 6.12 has a section per step for all, so these run on 7.3.)
    ("xts-section-per-step", "sm4/modes.rs", "    (request) => {\n        true\n",
     "    (request) => {\n        false\n", "sm4_ce.neon_sections_per_page", "7.3"),
    ("span-never", "crypto/mod.rs", "SECTION_MAY_SPAN_WALK && worth && matches!(",
     "false && worth && matches!(", "sm4_ce.neon_sections_per_page", "7.3"),
    ("aead-section-per-piece", "sm4_ce_gcm_glue.rs",
     "req.assoc_len() + req.text_len() > MAX_STEP);",
     "req.assoc_len() + req.text_len() > usize::MAX);", "sm4_ce_gcm.gcm_sections_per_page",
     "7.3"),
    ("ghash-power", "sm4_ce_gcm_core.S",
     "gmul\t\\a1, H3, K34, 0\n\teor\tX.16b, X.16b, \\a0\\().16b\n"
     "\tgmul\tX, H4, K34, 1\n\tghash_reduce",
     "gmul\t\\a1, H4, K34, 0\n\teor\tX.16b, X.16b, \\a0\\().16b\n"
     "\tgmul\tX, H4, K34, 1\n\tghash_reduce", "sm4_ce_gcm.*"),
    ("ghash8-power", "sm4_ce_gcm_core.S", "gmul\tv1, H7, K78, 0\n", "gmul\tv1, H6, K78, 0\n",
     "sm4_ce_gcm.*"),
    ("ghash8-table", "sm4_ce_gcm_core.S", "mov\tw9, #4\t\t\t\t/* H^5-H^8",
     "mov\tw9, #3\t\t\t\t/* H^5-H^8", "sm4_ce_gcm.*"),
    ("ghash-reduce", "sm4_ce_gcm_core.S", "pmull\tT0.1q, HI.1d, GPOLY.1d",
     "pmull2\tT0.1q, HI.2d, GPOLY.2d", "sm4_ce_gcm.*"),
    # (Encryption's eight-block loop: the powers of each half, the last half's products
    # after the loop, the round keys put back for the four-block loop, and the reduction.)
    ("gcm-enc8-first-half", "sm4_ce_gcm_core.S", "gmul\t\\a2, H6, K56, 1",
     "gmul\t\\a2, H5, K56, 1", "sm4_ce_gcm.*"),
    ("gcm-enc8-second-half", "sm4_ce_gcm_core.S", "gmul\t\\a0, H4, K34, 1",
     "gmul\t\\a0, H3, K34, 1", "sm4_ce_gcm.*"),
    ("gcm-enc8-drain", "sm4_ce_gcm_core.S", "_drain8:\n\trbit4\tv4, v5, v6, v7\n",
     "_drain8:\n", "sm4_ce_gcm.*"),
    ("gcm-enc8-keys-back", "sm4_ce_gcm_core.S", "\tld1\t{v24.4s-v27.4s}, [x13], #64",
     "\tld1\t{v24.4s-v27.4s}, [x13]", "sm4_ce_gcm.*"),
    ("ghash-reduce-low", "sm4_ce_gcm_core.S", "ext\tMID.16b, ZERO.16b, MID.16b, #8",
     "ext\tMID.16b, MID.16b, ZERO.16b, #8", "sm4_ce_gcm.*"),
    ("gcm-ctr-lane-add", "sm4_ce_gcm_core.S", "add\tv3.4s, v2.4s, INC.4s",
     "add\tv3.4s, v1.4s, INC.4s", "sm4_ce_gcm.*"),
    ("gcm-ctr-count4", "sm4_ce_gcm_core.S", "add\tCOUNT, COUNT, #3",
     "add\tCOUNT, COUNT, #4", "sm4_ce_gcm.*"),
    ("gcm-first-counter", "sm4_ce_gcm_core.S", "\tmov\tCOUNT, #1\n\tnext_ctr v0\n",
     "\tmov\tCOUNT, #2\n\tnext_ctr v0\n", "sm4_ce_gcm.*"),
    ("ccm-dec-mac", "sm4_ce_ccm_core.S",
     "\teor\tv0.16b, v0.16b, v4.16b\n\tsub\tNBLK, NBLK, #1\n\tcbz",
     "\tsub\tNBLK, NBLK, #1\n\tcbz", "sm4_ce_ccm.*"),
    ("ccm-long-ad-prefix", "sm4_ce_ccm_glue.rs", "copy_from_slice(&[0xff, 0xfe]);",
     "copy_from_slice(&[0xff, 0xff]);", "sm4_ce_ccm.*"),
    # (The NEON-context check of a crypto API callback ignores the self-tests' switch.)
    ("context-selftest-switch", "crypto/bindings_helper.h",
     "if (!(crypto_api ? crypto_simd_usable() : may_use_simd()))", "if (!may_use_simd())",
     "sm4_abstraction.simd_follows_selftest_switch"),
    # (wipe's three loops: the aligned words, the bytes before them and after them.)
    ("wipe-words", "crypto/mod.rs", "    for w in words.iter_mut() {",
     "    for w in words.iter_mut().skip(1) {", "sm4_abstraction.wipe_zeroes_every_byte"),
    ("wipe-head", "crypto/mod.rs", "    for b in head.iter_mut() {",
     "    for b in head.iter_mut().skip(1) {", "sm4_abstraction.wipe_zeroes_every_byte"),
    ("wipe-tail", "crypto/mod.rs", "    for b in tail.iter_mut() {",
     "    for b in tail.iter_mut().skip(1) {", "sm4_abstraction.wipe_zeroes_every_byte"),
    ("aead-ad-whole-after-piece", "crypto/aead.rs",
     "        if all == 0 || all > max || self.walk.started {",
     "        if all == 0 || all > max || self.again.is_some() {",
     "sm4_abstraction.assoc_not_whole_after_a_piece"),
    # (Associated data in pieces: the block the pieces share, and the one that ends them;
    # `AssocBlocks`, which GCM and CCM share.)
    ("aead-ad-shared-block", "crypto/aead.rs", "        head.read(&mut self.buf[self.fill..]);",
     "        head.read(&mut self.buf[..]);", "sm4_ce_?cm.*"),
    ("aead-ad-last-partial", "crypto/aead.rs",
     "if fill < 16 && !(last && data.is_empty() && fill > 0) {",
     "if fill < 16 && !(false && data.is_empty() && fill > 0) {", "sm4_ce_?cm.*"),
    ("aead-ad-last-partial-unit", "crypto/aead.rs",
     "if fill < 16 && !(last && data.is_empty() && fill > 0) {",
     "if fill < 16 && !(false && data.is_empty() && fill > 0) {",
     "sm4_abstraction.assoc_blocks_pad_pieces"),
    ("aead-ad-with-text", "sm4_ce_ccm_glue.rs",
     "let a = ad.take().unwrap_or(Input::EMPTY);\n                step.neon",
     "let a = Input::EMPTY;\n                step.neon", "sm4_ce_ccm.*"),
    # (Associated data in one piece goes with the text's first step; in several, each piece.)
    ("assoc-whole-first-piece", "crypto/aead.rs", "        if n as usize == all {",
     "        if true {", "sm4_ce_gcm.*"),
    # (The one routine per direction of each AEAD core, a call per step: its state between
    # steps, and the tag's one computation at its end, .Lgcm_tag and .Lccm_tag.)
    ("gcm-step-keeps-hash", "sm4_ce_gcm_core.S",
     "\trbit\tX.16b, X.16b\n\tadd\tx9, ST, #16\n\tst1\t{X.16b}, [x9]\n", "",
     "sm4_ce_gcm.*"),
    ("ccm-step-keeps-mac", "sm4_ce_ccm_core.S", "\tstore_ctr CTRP\n\tstore_mac\n",
     "\tstore_ctr CTRP\n", "sm4_ce_ccm.*"),
    ("gcm-final-lengths", "sm4_ce_gcm_core.S", "\tlsl\tx13, x13, #3\n", "\tlsl\tx13, x13, #2\n",
     "sm4_ce_gcm.*"),
    ("gcm-state-lengths", "sm4_ce_gcm_glue.rs",
     "st.lens = [req.assoc_len() as u64, req.text_len() as u64];",
     "st.lens = [req.assoc_len() as u64, req.assoc_len() as u64];", "sm4_ce_gcm.*"),
    ("ccm-final-mask", "sm4_ce_ccm_core.S", "\teor\tv0.16b, v0.16b, v1.16b\n\tst1\t{v0.16b}, [x9]",
     "\torr\tv0.16b, v0.16b, v1.16b\n\tst1\t{v0.16b}, [x9]", "sm4_ce_ccm.*"),
    ("ccm-first-s0", "sm4_ce_ccm_core.S",
     "\ttbl\tv1.16b, {v1.16b}, BSWAP.16b\n\tadd\tx9, MACP, #32\n",
     "\tadd\tx9, MACP, #32\n", "sm4_ce_ccm.*"),
    # (The tag: written or read with the kernel's scatterwalk_map_and_copy(), compared with
    # crypto_memneq().)
    ("tag-write", "crypto/aead.rs", "                    self.auth,\n                    1,\n",
     "                    self.auth - 1,\n                    1,\n", "sm4_ce_gcm.*"),
    ("tag-verify", "crypto/aead.rs", "                self.auth as usize,\n",
     "                1,\n", "sm4_ce_ccm.*"),
    ("swap16-half", "crypto/bindings_helper.h", "put_unaligned(a1, (u64 *)(b + 8));",
     "put_unaligned(a0, (u64 *)(b + 8));", "sm4_ce.modes_vs_oracle"),
    ("gcm-ad-tail", "sm4_ce_gcm_core.S", "b.eq\t.Lgcm\\id\\()_adend",
     "b\t.Lgcm\\id\\()_adend", "sm4_ce_gcm.*"),
    ("gcm-partial-hash-ciphertext", "sm4_ce_gcm_core.S",
     "mask_partial 4, 0, w9\t\t\t/* the ciphertext, padded with zeros */", "",
     "sm4_ce_gcm.*"),
    # (Each input byte read once: GCM decryption XORs the ciphertext it hashed, turned back
    # from its bit-reflected form; the partial blocks are masked in registers, not read back.)
    ("gcm-dec-once-unreflected", "sm4_ce_gcm_core.S",
     "\ttbl4\n\trbit4\tv4, v5, v6, v7\n", "\ttbl4\n", "sm4_ce_gcm.*"),
    ("ccm-partial-mask", "sm4/sm4-ce-partial.S",
     "cmhi\tv6.16b, v6.16b, v5.16b", "cmhs\tv6.16b, v6.16b, v5.16b", "sm4_ce_ccm.*"),
    ("ccm-b0-length", "sm4_ce_ccm_glue.rs", "| (u128::from(flags) << 120) | u128::from(len);",
     "| (u128::from(flags) << 120) | u128::from(len & 0xff);", "sm4_ce_ccm.*"),
    ("ccm-ad-length", "sm4_ce_ccm_core.S", "rev16\tw11, ADLEN", "mov\tw11, ADLEN",
     "sm4_ce_ccm.*"),
    ("partial-store-last-byte", "sm4/sm4-ce-partial.S", "strb\tw16, [x15]", "strb\twzr, [x15]",
     "sm4_ce_ccm.*"),
]


# The checks of a run itself, not of the code under test: a failure of one of them alone is an
# ERROR, never a kill. (kunit.<suite>.ran: the run filters the suites.)
HARNESS = (r"vm\.completed$|kernel\.log-clean$|vm\.ktap-|.*\.unique$|kunit\.\S+\.ran$"
           r"|kunit\.\S+\.known$")


def run(cmd, **kw):
    return subprocess.run(cmd, text=True, capture_output=True, **kw)


def named(test, glob):
    """Whether the failed test `test` is one that a mutant with the KUnit filter `glob`
    names: a case of the suites the filter selects (KUnit's rule: "suite.case", or the
    suite alone when the filter has no dot), or a check of the scenario (not KUnit's)."""
    if not test.startswith("kunit."):
        return True
    parts = test[len("kunit."):].split(".", 1)
    suite_glob, _, case_glob = glob.partition(".")
    if not fnmatch.fnmatchcase(parts[0], suite_glob):
        return False
    return not case_glob or len(parts) < 2 or fnmatch.fnmatchcase(parts[1], case_glob)


def one(name, path, old, new, glob, lane, scratch_root, files, jobs):
    """Applies one mutant to a scratch copy (none for a control run: `path` None), builds
    and boots it: (name, verdict, what, s)."""
    t0 = time.time()
    tree = os.path.join(scratch_root, name)
    try:
        for f in files:
            src = os.path.join(REPO, f)
            if os.path.isfile(src):
                os.makedirs(os.path.dirname(os.path.join(tree, f)), exist_ok=True)
                shutil.copy2(src, os.path.join(tree, f))
        if path is not None:
            target = os.path.join(tree, path)
            with open(target, encoding="utf-8") as fh:
                text = fh.read()
            if text.count(old) != 1:
                return (name, "ERROR", f"not applied: {path}: the text occurs {text.count(old)} times", 0)
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(text.replace(old, new))
        # (Several mutants at once: the cores are shared out between them.)
        cores = max(1, (os.cpu_count() or 1) // jobs)
        b = run([os.path.join(tree, "scripts/modules.sh"), lane, f"-j{cores}", "modules"])
        if b.returncode != 0:
            err = [l for l in (b.stdout + b.stderr).split("\n") if "error" in l][:2]
            return (name, "ERROR", "not built: " + " ".join(err), time.time() - t0)
        stage = os.path.join(tree, ".stage")
        os.makedirs(stage)
        for ko in ("sm4-generic.ko", "sm4-ce.ko", "sm4-neon.ko", "sm4-ce-gcm.ko",
                   "sm4-ce-ccm.ko", "sm4_kunit.ko"):
            shutil.copy(os.path.join(tree, ko), os.path.join(stage, ko))
        append = "cryptomgr.notests=1" + (f" kunit.filter_glob={glob}" if glob else "")
        env = dict(os.environ, SM4RS_STAGE=stage, SM4RS_SMP=str(min(2, cores)),
                   SM4RS_VM_TIMEOUT="900", SM4RS_VM_WORK=os.path.join(tree, ".vm"),
                   SM4RS_APPEND=append, SM4RS_COUNTS="/dev/null")
        v = run([os.path.join(REPO, "scripts/vm.sh"), lane, "check", "max"], env=env)
        # (names only: the reasons are in the VM's console log)
        failed = [re.sub(r" \(.*$", "", l.split("] ", 1)[1]) for l in v.stdout.split("\n")
                  if l.startswith("FAIL ") and "] " in l]
        harness = [f for f in failed if re.match(HARNESS, f)]
        if path is None:
            # The control run: anything that fails, harness or test, forbids scoring.
            ran = [l for l in v.stdout.split("\n") if l.startswith(("PASS ", "FAIL "))]
            ok = not failed and v.returncode == 0 and ran
            what = (f"{len(ran)} results, none failed" if ok else ", ".join(failed)
                    or f"the VM runner exited {v.returncode}: {v.stderr[-200:]}")
            return (name, "clean" if ok else "FAILED", what, time.time() - t0)
        # Failures of tests the mutant does not name are no kill (and no survival).
        others = [f for f in failed if f not in harness and not named(f, glob)]
        harness += others
        killers = [f for f in failed if f not in harness]
        ran = [l for l in v.stdout.split("\n") if l.startswith(("PASS ", "FAIL "))]
        if killers:
            verdict, what = "killed", ", ".join(killers)
        elif harness or v.returncode not in (0, 1) or not ran:
            verdict = "ERROR"
            what = ", ".join(harness) or f"the VM runner exited {v.returncode}: {v.stderr[-200:]}"
        else:
            verdict, what = "SURVIVED", f"{len(ran)} results, none failed"
        if killers and harness:
            what += " (and " + ", ".join(harness) + ")"
        print(f"{name}: {verdict} ({int(time.time() - t0)} s)", file=sys.stderr, flush=True)
        return (name, verdict, what, time.time() - t0)
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def check(only):
    """--check: whether every mutant (of `only`, if given) would apply; exit status."""
    bad = seen = 0
    for i, (name, path, old, *_) in enumerate(MUTANTS, 1):
        if only and name not in only:
            continue
        seen += 1
        full = os.path.join(REPO, path)
        if not os.path.isfile(full):
            why = f"{path}: no such file"
        else:
            with open(full, encoding="utf-8") as fh:
                n = fh.read().count(old)
            if n == 1:
                continue
            why = f"{path}: the text occurs {n} times, not once"
        print(f"not ok {i} mutant.{name} # {why}")
        bad += 1
    unknown = sorted(only - {m[0] for m in MUTANTS})
    for name in unknown:
        print(f"# no mutant named {name}")
    print(f"# {seen} mutants checked, {bad} not applicable")
    return 1 if bad or unknown else 0


def main():
    if sys.argv[1:2] == ["--check"]:
        sys.exit(check(set(sys.argv[2:])))
    only = set(sys.argv[1:])
    # Mutants built and booted at once (SM4RS_MUTANT_JOBS; default: one per core, each
    # boot with one vCPU when there are as many as cores).
    jobs = int(os.environ.get("SM4RS_MUTANT_JOBS", os.cpu_count() or 1))
    scratch_root = tempfile.mkdtemp(prefix="sm4rs-mutants-")
    t_all = time.time()
    # The tree as committed plus the working changes, without build products.
    files = run(["git", "-C", REPO, "ls-files", "-co", "--exclude-standard"]).stdout.split()
    todo = [(name, path, old, new, glob, (lane or [LANE])[0])
            for name, path, old, new, glob, *lane in MUTANTS if not (only and name not in only)]
    # The control runs: the unmutated tree, every suite, on each lane the mutants use.
    lanes = sorted({m[5] for m in todo})
    controls = [(f"control-{lane}", None, None, None, "", lane) for lane in lanes]
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            ctl = list(pool.map(lambda m: one(*m, scratch_root, files, jobs), controls))
            bad_ctl = [c for c in ctl if c[1] != "clean"]
            for name, verdict, what, secs in ctl:
                print(f"{name:<24} {verdict:<10} {int(secs):>4}  {what}")
            if bad_ctl:
                print("the unmutated tree fails: no mutant scored (exit 2)")
                sys.exit(2)
            rows = list(pool.map(lambda m: one(*m, scratch_root, files, jobs), todo))
    finally:
        shutil.rmtree(scratch_root, ignore_errors=True)
    print(f"{'mutant':<24} {'verdict':<10} {'s':>4}  tests that failed")
    for name, verdict, what, secs in rows:
        print(f"{name:<24} {verdict:<10} {int(secs):>4}  {what}")
    bad = [r for r in rows if r[1] != "killed"]
    errors = [r for r in rows if r[1] == "ERROR"]
    print(f"{len(rows) - len(bad)} of {len(rows)} mutants killed, {len(errors)} errors, "
          f"{len(bad) - len(errors)} survived, in {int(time.time() - t_all)} s "
          f"({jobs} at a time)")
    sys.exit(1 if bad or not rows else 0)


if __name__ == "__main__":
    main()
