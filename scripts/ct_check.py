#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ct_check.py OBJECT...: checks the assembly routines of the objects for secret-dependent
memory addresses and branches, and for buffers read twice or read back (make ct-check;
make test runs it on each lane's objects, and on tests/host/ct/planted.S).

It reads the objects as `llvm-objdump -dr` disassembles them (every macro expanded, as the
CPU runs them) and follows the data through the instructions, from each routine's entry,
over every path of its branches (a `b` to another routine of the object, a tail call,
continues there) to a fixed point, then reports from the states of that fixed point. At
entry, the argument registers are what ARGS below says of each routine (every routine must
be there); the other registers hold the caller's values, taken as public.

Constant time. Each register is public or secret:
  - the argument classes "p" (a pointer, a length, a count), "i" and "o" (buffer pointers,
    below) are public; "s" (a secret in a register; none of the cores takes one) secret;
  - a value loaded from memory is secret (keys, round keys, text, IVs, tweaks, counters,
    hash state: everything the routines read through their pointers), but for a load
    through an address made by `adr`/`adrp` (a constant table, moved by constants) and a
    load from a stack slot (an offset from the entry's stack pointer, while that is known),
    which gives what was stored there: a callee-saved register restored from its slot keeps
    what it held, a secret spilled and reloaded stays secret (a slot no path wrote: secret);
  - an instruction's result is secret if any of its inputs is (the condition flags
    included), a constant (`movi`, `mov #imm`, the zero register) is public.
It reports any load or store whose address (base or index register) or writeback register
depends on a secret, any change of the stack pointer that does, and any branch whose
condition (the register of `cbz`/`cbnz`/`tbz`/`tbnz`, the flags of `b.cond`) or target
(`br`, `ret`: x30 unless restored from its slot) does. Table lookups in registers (`tbl`,
`tbx`) and the AES and SM4 instructions run in time independent of their data on the CPUs
this targets, and are allowed.

Reads of the caller's buffers. "i" is an input buffer whose bytes the routine must load at
most once (another thread may change them between two loads: AF_ALG in place in user
pages), "o" an output-only buffer, which it must never load from (the same buffer may be an
input in place). For every register (and stack slot) the analysis keeps the "i"/"o"
arguments it derives from (moves, additions, any arithmetic, writebacks: the union over the
paths) and, where known, its offset from a symbolic base: the argument's value at entry; at
a join of paths where a register's base or offset disagree, a new base named after the
join's address and the register (registers at the same distance from each other on every
path share one, and the bytes loaded around them on every path are carried over to it); at
an arithmetic result other than a move or the addition of a constant, and at a writeback
by a register, a new base named after the instruction (what was known of its previous
instance is forgotten when it runs again). It reports:
  - a load whose base or index register derives from an "o" argument: "reads its output";
  - a load through a register derived from an "i" argument, at a known offset from its base
    (no index register) and of a known width, of bytes of which some were loaded through the
    same base on every path reaching it: "reads input twice" (a must-analysis, the loaded
    ranges intersected where paths join; pointers advanced by post-index writeback in a loop
    are at new offsets, not reported).
Not seen by these rules: a load of bytes that only some paths loaded before (a loop that
loads the same address on every pass, a re-read on one side of a branch), the same bytes
reached from two bases (two arguments that alias, as the same buffer passed twice; offsets
not known: `add x15, x2, w9`, an index register, a width it cannot tell), stores to an "i"
buffer (not reported, and what was loaded stays loaded), and a pointer that goes through
memory other than the stack slots (it comes back derived from nothing).

Argument counts. For each routine checked, ARGS must give as many classes as the routine has
arguments, as declared by its C prototype in a comment of the .S files of the repository
(the root, sm4/, tests/host/ct/: a comment line "void name(type a, type b, ...)" or " *
void name(...)", where a macro parameter such as "\\v" in the name stands for any word) and
by its `extern "C"` declaration `fn name(a: T, ...)` in the repository's *.rs files (also
through a `macro_rules!` that declares `fn $name(...)` for each name it is given). At least
one declaration must be found, and all found must agree; a struct passed by value counts as
one argument.

Not covered: the Rust side (the glue, the scalar sm4/sm4.rs, which is not constant time),
microarchitectural effects beyond addresses and branches (data-dependent instruction timing,
speculation), memory contents other than stack slots (a secret stored and loaded back
through a pointer comes back secret, which is safe), calls (`bl`: an unknown instruction),
and instructions it does not know: those fail the check, naming the instruction, until this
file says what they do; as do loads it cannot read the address of (a literal `ldr x0, label`).
Findings are printed one per line, "FILE: ROUTINE+OFFSET: KIND: INSTRUCTION (DETAIL)" (a
routine's: "FILE: ROUTINE: KIND"; the table's: "ARGS: ROUTINE: KIND: DETAIL"; KIND never has
a colon, so that the host check can compare "ROUTINE: KIND"), then a count. Exit status 1
on any finding.
"""

import bisect
import os
import re
import subprocess
import sys

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-19/bin")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The routines and the class of each argument register, x0 first: "p" public (a pointer to
# state or tables the routine may read and write as it likes, a length, a count), "s"
# secret, "i" an input buffer (public; each byte loaded at most once), "o" an output buffer
# (public; never loaded from). A routine not listed fails the check, and so does one whose
# count of classes is not its count of arguments (see the docstring).
# The choices: dst, and the buffers a routine only writes (the key schedules of expand_key,
# GCM's htable), are "o" (a routine stores them and never reads them back: in place dst is
# also src); src, ad, the GCM IV and a key being expanded are "i"; a state the routine
# reads and writes back (an iv/ctr/tweak updated in place, a MAC, the GHASH state x, the
# AEAD's st) is "p", as are round keys, the S-box and the key schedule's constants (tables
# read as often as they are needed), and the AEAD step (a value).
ARGS = {
    # sm4_ce_core.S (sm4_ce_*: upstream's interface, exported for the C GCM and CCM drivers)
    "sm4_ce_expand_key": "ioopp",  # key, rkey_enc, rkey_dec, fk, ck
    "sm4_ce_crypt_block": "poi",  # rkey, dst, src
    "sm4_ce_cbc_enc": "poipp",  # rkey_enc, dst, src, iv (in/out), nblocks
    "sm4rs_ce_expand_key": "ioopp",  # key, rk_enc, rk_dec, fk, ck
    "sm4rs_ce_crypt": "poip",  # rk, dst, src, nblocks
    "sm4rs_ce_cbc_enc": "poipp",  # rk, dst, src, nblocks, iv (in/out)
    "sm4rs_ce_cbc_dec": "poipp",
    "sm4rs_ce_cfb_enc": "poipp",
    "sm4rs_ce_cfb_dec": "poipp",
    "sm4rs_ce_ctr": "poipp",  # ..., ctr (in/out)
    "sm4rs_ce_xts": "poipppi",  # ..., tweak (in/out), rk2, iv
    "sm4rs_ce_cbcmac": "ppip",  # rk, mac (in/out), src, nblocks
    # sm4_neon_core.S
    "sm4rs_neon_expand_key": "iooppp",  # key, enc, dec, sbox, fk, ck
    "sm4rs_neon_cbc_enc": "poippp",  # rk, dst, src, nblocks, sbox, iv (in/out)
    "sm4rs_neon_cfb_enc": "poippp",
    "sm4rs_neon_cbc_enc_aese": "poippp",
    "sm4rs_neon_crypt1_aese": "poippii",
    "sm4rs_neon_cfb_enc_aese": "poippp",
    # The batches: rk, dst, src, n, sbox, pre, post. sm4_neon_glue.rs `run` passes as src the
    # data or a stack buffer (CTR's counters, CFB's shifted ciphertext), as pre NULL or the
    # XTS tweaks (stack), as post NULL, a stack buffer (the tweaks, CBC's shifted ciphertext)
    # or the data itself (CTR, CFB decryption: the request's source, which dst may be): each
    # is read once per block, so all three are "i" (XTS's pre and post are the same stack
    # buffer, read once through each: private memory, and through different arguments, which
    # the rule does not compare).
    "sm4rs_neon_crypt_tbx": "poippii",
    "sm4rs_neon_crypt_tbl": "poippii",
    "sm4rs_neon_crypt_aese": "poippii",
    "sm4rs_neon_cryptn_tbx": "poippii",
    "sm4rs_neon_cryptn_tbl": "poippii",
    "sm4rs_neon_cryptn_aese": "poippii",
    # sm4_ce_gcm_core.S
    "sm4rs_ce_gcm_init": "po",  # rk, htable (written only)
    "sm4rs_ce_ghash": "ppip",  # htable, x (in/out), src, nblocks
    "sm4rs_ce_gcm_enc": "poippipi",  # key, dst, src, len, st (in/out), ad, step, iv
    "sm4rs_ce_gcm_dec": "poippipi",
    # sm4_ce_ccm_core.S
    "sm4rs_ce_ccm_mac": "ppip",  # rk, mac (in/out), src, nblocks
    "sm4rs_ce_ccm_enc": "poippip",  # rk, dst, src, len, st (in/out), ad, step
    "sm4rs_ce_ccm_dec": "poippip",
    # tests/host/ct/planted.S (the check's own test: ct_not_in_args is missing on purpose)
    "ct_clean": "poipi",
    "ct_table_lookup": "ppp",
    "ct_secret_arg": "sp",
    "ct_secret_tbz": "ppp",
    "ct_secret_cbnz": "pp",
    "ct_secret_flags": "ppp",
    "ct_secret_br": "p",
    "ct_secret_ret": "p",
    "ct_secret_writeback": "ppp",
    "ct_stack_slot": "ppp",
    "ct_const_table": "pp",
    "ct_secret_sp": "p",
    "ct_reads_output": "oip",
    "ct_reads_twice": "oip",
    "ct_unknown_insn": "pp",
    "ct_literal_load": "p",
    "ct_bad_arity": "ppp",
    "ct_no_prototype": "p",
}

# Findings known and accepted for now, each with why: (routine, the instruction's text as
# printed) -> reason. Printed as "known", not failures; an entry that no longer matches a
# finding of a routine checked fails, so that this list cannot outlive what it excuses.
KNOWN = {}

# Instructions by how they use their operands (the first is the destination unless said).
ALU = set("""add sub orr eor and bic orn eon mul madd msub lsl lsr asr ror extr ubfx sbfx ubfiz
bfi bfxil rev rev16 rev32 rev64 rbit clz neg mvn sxtw uxtw uxth uxtb sxth sxtb ushr sshr shl
sri sli ushl sshl usra ssra ext tbl zip1 zip2 uzp1 uzp2 trn1 trn2 pmull pmull2 dup fmov mov
not xtn xtn2 uxtl uxtl2 sxtl sxtl2 shrn shrn2 cnt addv uaddlv umov ins adcs sbcs adc sbc csel
csinc csinv csneg cset csetm cinc tst cmp cmn ccmp adds subs ands bics aese aesd aesmc aesimc
sm4e sm4ekey tbx bsl bit bif cmeq cmtst cmhi cmhs cmgt cmge cmle cmlt sqrdmulh""".split())
# Destination also read (insertions, accumulations, the crypto instructions' state).
DEST_READ = {"sri", "sli", "usra", "ssra", "tbx", "aese", "aesd", "sm4e", "bsl", "bit", "bif",
             "bfi", "bfxil", "ins", "xtn2", "shrn2"}
# Read the flags.
READ_FLAGS = {"adc", "adcs", "sbc", "sbcs", "csel", "csinc", "csinv", "csneg", "cset", "csetm",
              "cinc", "ccmp"}
# Set the flags.
SET_FLAGS = {"adds", "subs", "ands", "bics", "adcs", "sbcs", "cmp", "cmn", "tst", "ccmp"}
# Set only the flags (no destination).
FLAGS_ONLY = {"cmp", "cmn", "tst", "ccmp"}
CONST = {"movi", "mvni", "movz", "movk", "movn", "adr", "adrp"}
LOADS = {"ldr", "ldrb", "ldrh", "ldrsb", "ldrsh", "ldrsw", "ldur", "ldurb", "ldurh", "ldp",
         "ldnp", "ld1", "ld1r", "ld2", "ld3", "ld4", "ld2r", "ld3r", "ld4r"}
STORES = {"str", "strb", "strh", "stur", "sturb", "sturh", "stp", "stnp", "st1", "st2", "st3",
          "st4"}
COND_BRANCH_REG = {"cbz", "cbnz", "tbz", "tbnz"}
NOPS = {"bti", "nop", "hint", "paciasp", "autiasp", "isb", "dmb", "dsb"}

# Bytes of a register by its name's letter, of a vector element by its letter.
REG_BYTES = {"x": 8, "w": 4, "q": 16, "d": 8, "s": 4, "h": 2, "b": 1}
ELEM_BYTES = {"b": 1, "h": 2, "s": 4, "d": 8, "q": 16}


def reg(tok):
    """The register a token names ("x3", "v12", "sp", "zr"), or None."""
    tok = tok.strip().lower()
    m = re.match(r"^([xw])(\d+)$", tok)
    if m:
        return "x" + m.group(2)
    m = re.match(r"^([vqdshb])(\d+)(\.\w+)?(\[\d+\])?$", tok)
    if m:
        return "v" + m.group(2)
    if tok in ("sp", "wsp"):
        return "sp"
    if tok in ("xzr", "wzr"):
        return "zr"
    return None


def split_ops(s):
    """The operands of an instruction, split at the commas outside brackets and braces."""
    ops, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return ops


def reg_list(op):
    """The registers of a list operand "{ v0.16b, v1.16b }" or "{ v24.16b-v27.16b }"."""
    inner = op[op.index("{") + 1: op.index("}")]
    out = []
    for part in inner.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-")
            ra, rb = int(reg(a)[1:]), int(reg(b)[1:])
            n = ra
            while True:
                out.append(f"v{n}")
                if n == rb:
                    break
                n = (n + 1) % 32
        elif part:
            out.append(reg(part))
    return out


def regs_in(op):
    """Every register an operand reads (a register, a list, or a memory operand's)."""
    if op.startswith("{"):
        return reg_list(op)
    if op.startswith("["):
        return [r for r in (reg(t) for t in re.split(r"[\[\],!\s]+", op) if t) if r]
    r = reg(op.split()[0]) if op else None
    return [r] if r else []


def imm(op):
    """The value of an immediate operand ("#0x40", "#-16"), or None."""
    m = re.match(r"^#(-?(?:0x[0-9a-f]+|\d+))$", op.strip().lower())
    return int(m.group(1), 0) if m else None


def access_bytes(base, data):
    """The bytes a load or store moves, from its mnemonic and data operands, or None."""
    if base in ("ldrb", "ldurb", "ldrsb", "strb", "sturb"):
        return 1
    if base in ("ldrh", "ldurh", "ldrsh", "strh", "sturh"):
        return 2
    if base == "ldrsw":
        return 4
    if data and data[0].startswith("{"):
        m = re.search(r"\.(\d*)([bhsdq])\b", data[0])
        if not m:
            return None
        n = len(reg_list(data[0]))
        if "}[" in data[0] or base in ("ld1r", "ld2r", "ld3r", "ld4r"):
            return n * ELEM_BYTES[m.group(2)]
        return n * int(m.group(1) or 1) * ELEM_BYTES[m.group(2)]
    total = 0
    for o in data:
        b = REG_BYTES.get(o.strip().lower()[:1])
        if b is None:
            return None
        total += b
    return total


# Byte ranges: tuples of disjoint sorted (lo, hi) pairs, hi excluded.
def ranges_add(rs, lo, hi):
    out = []
    for a, b in sorted(rs + ((lo, hi),)):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


def ranges_meet(x, y):
    out = [(max(a, c), min(b, d)) for a, b in x for c, d in y if max(a, c) < min(b, d)]
    return tuple(sorted(out))


def ranges_shift(rs, d):
    return tuple((a + d, b + d) for a, b in rs)


class State:
    """What is known at one instruction: the secret registers, the flags, the stack slots'
    secrecy (by offset from the entry's stack pointer); the registers that hold a constant
    table's address; the stack pointer's offset; `vals`, for the registers and stack slots
    ("s<offset>") derived from "i"/"o" arguments: (origins, base, offset), origins a
    frozenset of (class, argument register), base None where unknown; `loaded`, for each
    base, the ranges of bytes loaded through it on every path."""

    __slots__ = ("secret", "flags", "table", "sp", "slots", "vals", "loaded")

    def __init__(self, secret=frozenset(), flags=False, table=frozenset(), sp=0, slots=None,
                 vals=None, loaded=None):
        self.secret, self.flags, self.table, self.sp = secret, flags, table, sp
        self.slots = slots or {}
        self.vals = vals or {}
        self.loaded = loaded or {}

    def key(self):
        return (self.secret, self.flags, self.table, self.sp, frozenset(self.slots.items()),
                frozenset(self.vals.items()), frozenset(self.loaded.items()))

    def join(self, o, at):
        """This state (the one at address `at`) joined with `o`, arriving there."""
        slots = {}
        for k in set(self.slots) | set(o.slots):
            # (A slot one path did not write: taken as secret.)
            slots[k] = self.slots.get(k, True) or o.slots.get(k, True)
        # The bases made at this join stand for the values of this pass; in `o` they are
        # those of an earlier pass: renamed, so that nothing of theirs is taken as ours.
        here = f"m{at:x}."

        def old(b):
            return "old:" + b if b is not None and b.startswith(here) else b
        ovals = {k: (v[0], old(v[1]), v[2]) for k, v in o.vals.items()}
        oloaded = {old(b): r for b, r in o.loaded.items()}
        vals, groups = {}, {}
        for k in sorted(set(self.vals) | set(ovals)):
            a, b = self.vals.get(k), ovals.get(k)
            if a == b:
                vals[k] = a
                continue
            origins = (a[0] if a else frozenset()) | (b[0] if b else frozenset())
            if a and b and a[1] is not None and b[1] is not None:
                # The registers at the same distance from each other on both sides share a
                # new base, named after the first of them.
                g = groups.setdefault((a[1], b[1], a[2] - b[2]), (k, a[2], b[2]))
                vals[k] = (origins, here + g[0], a[2] - g[1])
            else:
                vals[k] = (origins, here + k, 0)
        loaded = {}
        for b in set(self.loaded) & set(oloaded):
            r = ranges_meet(self.loaded[b], oloaded[b])
            if r:
                loaded[b] = r
        for (ba, bb, _), (k, offa, offb) in groups.items():
            r = ranges_meet(ranges_shift(self.loaded.get(ba, ()), -offa),
                            ranges_shift(oloaded.get(bb, ()), -offb))
            if r:
                loaded[here + k] = r
        return State(self.secret | o.secret, self.flags or o.flags, self.table & o.table,
                     self.sp if self.sp == o.sp else None, slots, vals, loaded)


def forget(vals, loaded, name):
    """The base `name` (an instruction's, about to be made again) forgotten: values on it
    keep their origins, lose their offset."""
    for k, v in list(vals.items()):
        if v[1] == name:
            vals[k] = (v[0], None, None)
    loaded.pop(name, None)


def disassemble(path):
    """The instructions of the object's text: {address: (mnemonic, operands, target)}, and
    its symbols {name: address}. A branch to a symbol (a tail call to another routine:
    assembled as a relocation, its offset 0) has the symbol's address as its target if the
    object has it, else none (it leaves the object)."""
    out = subprocess.run([f"{LLVM_BIN}/llvm-objdump", "-dr", "--no-show-raw-insn", path],
                         check=True, capture_output=True, text=True).stdout
    insns, syms, relocs = {}, {}, {}
    for line in out.split("\n"):
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            syms[m.group(2)] = int(m.group(1), 16)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+R_AARCH64_(?:JUMP26|CALL26|CONDBR19|TSTBR14)\s+"
                     r"([^+\s-]+)([+-]0x[0-9a-f]+)?$", line)
        if m:
            relocs[int(m.group(1), 16)] = (m.group(2), int(m.group(3) or "0", 16))
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if not m or m.group(2).startswith("R_"):
            continue
        addr, mnem, rest = int(m.group(1), 16), m.group(2), m.group(3)
        rest = re.sub(r"\s*//.*$", "", rest)
        target = None
        t = re.search(r"0x([0-9a-f]+) <[^>]+>", rest)
        if t:
            target = int(t.group(1), 16)
            rest = rest[: t.start()].rstrip(", ")
        insns[addr] = (mnem, split_ops(rest) if rest else [], target)
    for addr, (sym, add) in relocs.items():
        if addr in insns:
            mnem, ops, _ = insns[addr]
            target = syms[sym] + add if sym in syms else add if sym == ".text" else None
            insns[addr] = (mnem, ops, target)
    return insns, syms


def step(st, at, mnem, ops, emit):
    """The state after the instruction at `at`; findings to emit(kind, detail[, base]), if
    any (a base: named where "{}" is in the detail)."""
    secret, table, slots = set(st.secret), set(st.table), dict(st.slots)
    vals, loaded = dict(st.vals), dict(st.loaded)
    flags, sp = st.flags, st.sp

    def is_secret(r):
        return r in secret

    def check(rs, kind):
        bad = sorted({r for r in rs if is_secret(r)})
        if bad and emit:
            emit(kind, ", ".join(bad))

    def new(d, v):
        if v and v[0]:
            vals[d] = v
        else:
            vals.pop(d, None)

    def result():
        return State(frozenset(secret), flags, frozenset(table), sp, slots, vals, loaded)

    base = mnem.split(".")[0]
    if base in NOPS:
        return st
    if mnem.startswith("b.") or base == "b":
        if mnem.startswith("b.") and flags and emit:
            emit("branch condition depends on a secret", "flags")
        return st
    if base in COND_BRANCH_REG:
        check(regs_in(ops[0]), "branch condition depends on a secret")
        return st
    if base in ("ret", "br", "blr"):
        check(regs_in(ops[0]) if ops else ["x30"], "branch target depends on a secret")
        return st
    if base in LOADS or base in STORES:
        mem = next((i for i, o in enumerate(ops) if o.startswith("[")), None)
        if mem is None:
            if emit:
                emit("unknown memory operand", "no address register")
            return st
        addr_regs = regs_in(ops[mem])
        post = ops[mem + 1:]  # post-index writeback (an immediate or a register)
        post_regs = [r for o in post for r in regs_in(o)]
        check(addr_regs, "memory address depends on a secret")
        check(post_regs, "writeback depends on a secret")
        data = ops[:mem]
        base_reg = addr_regs[0] if addr_regs else None
        # The offset from the base register (None with an index register).
        m = re.match(r"^\[\s*[^,\]]+\s*(?:,\s*(#[^\]]+))?\s*\]!?$", ops[mem])
        disp = (imm(m.group(1)) if m.group(1) else 0) if m else None
        sp_off = None
        if base_reg == "sp" and sp is not None and disp is not None:
            sp_off = sp + disp
        dregs = []
        for o in data:
            dregs += reg_list(o) if o.startswith("{") else regs_in(o)
        width = 16 if any(o.strip().lower().startswith("q") for o in data) else 8
        lane = any(o.startswith("{") and "}[" in o for o in data)
        if base in STORES:
            if sp_off is not None:
                for i, r in enumerate(dregs):
                    slots[sp_off + i * width] = is_secret(r)
                    new(f"s{sp_off + i * width}", vals.get(r))
        else:
            # The reads of the arguments' buffers.
            outs = sorted({f"{r} derived from output argument {a}" for r in addr_regs for c, a in
                           (vals[r][0] if r in vals else ()) if c == "o"})
            if outs and emit:
                emit("reads its output", "; ".join(outs))
            v = vals.get(base_reg)
            size = access_bytes(base, data)
            if v and v[1] is not None and disp is not None and size and len(addr_regs) == 1:
                lo, hi = v[2] + disp, v[2] + disp + size
                had = loaded.get(v[1], ())
                ins = sorted(a for c, a in v[0] if c == "i")
                if ins and emit and ranges_meet(had, ((lo, hi),)):
                    emit("reads input twice", f"bytes {lo}..{hi - 1} from {{}}, derived from input"
                         f" argument {', '.join(ins)}, loaded before on every path", v[1])
                loaded[v[1]] = ranges_add(had, lo, hi)
            for i, r in enumerate(dregs):
                if r in ("zr", "sp"):
                    continue
                if base_reg in table:
                    val = False
                elif sp_off is not None:
                    val = slots.get(sp_off + i * width, True)
                else:
                    val = True
                if lane:
                    val = val or is_secret(r)
                (secret.add if val else secret.discard)(r)
                table.discard(r)
                if not lane:
                    new(r, vals.get(f"s{sp_off + i * width}") if sp_off is not None else None)
        # Writeback of the base ("[x0], #64", "[sp, #-16]!", "[x1], x2").
        if base_reg and (post or ops[mem].endswith("!")):
            step_imm = None if post_regs else imm(post[0]) if post else disp
            if base_reg == "sp":
                if sp is not None:
                    sp = sp + step_imm if step_imm is not None else None
            else:
                if any(is_secret(r) for r in post_regs):
                    secret.add(base_reg)
                v = vals.get(base_reg)
                if v:
                    if step_imm is not None and v[1] is not None:
                        vals[base_reg] = (v[0], v[1], v[2] + step_imm)
                    else:
                        forget(vals, loaded, f"n{at:x}:")
                        vals[base_reg] = (v[0], f"n{at:x}:", 0)
        return result()
    if base in CONST:
        d = reg(ops[0])
        secret.discard(d)
        vals.pop(d, None)
        if base in ("adr", "adrp"):
            table.add(d)
        else:
            table.discard(d)
        return result()
    if base not in ALU:
        if emit:
            emit("unknown instruction", "not in ct_check.py's tables")
        return st
    if base in FLAGS_ONLY:
        dest, srcs = None, ops
    else:
        dest, srcs = ops[0], ops[1:]
    src_regs = [r for o in srcs for r in regs_in(o)]
    dest_reg = None
    if dest is not None:
        dest_reg = reg_list(dest)[0] if dest.startswith("{") else reg(dest.split()[0])
        if base in DEST_READ or (base == "mov" and "[" in dest) or (base == "fmov" and "[" in dest):
            src_regs.append(dest_reg)
    val = any(is_secret(r) for r in src_regs) or (base in READ_FLAGS and flags)
    if base in SET_FLAGS:
        flags = val
    if dest_reg == "sp":
        im = re.findall(r"#(-?0x[0-9a-f]+|-?\d+)", " ".join(srcs))
        if sp is not None and im and regs_in(srcs[0]) == ["sp"]:
            sp = sp + (int(im[-1], 0) if base == "add" else -int(im[-1], 0))
        else:
            sp = None
        if val and emit:
            emit("stack pointer depends on a secret", ", ".join(sorted(
                {r for r in src_regs if is_secret(r)})) or "flags")
    elif dest_reg and dest_reg != "zr":
        (secret.add if val else secret.discard)(dest_reg)
        # A constant table's address moved by a constant stays one.
        if base in ("add", "sub") and regs_in(srcs[0]) and regs_in(srcs[0])[0] in table \
                and all(not regs_in(o) for o in srcs[1:]):
            table.add(dest_reg)
        else:
            table.discard(dest_reg)
        # What the result derives from: a move or a constant added keeps the offset.
        origins = frozenset().union(*(vals[r][0] for r in src_regs if r in vals))
        first = vals.get(regs_in(srcs[0])[0]) if srcs and regs_in(srcs[0]) else None
        k = None
        if len(srcs) == 1 and base == "mov" and "[" not in dest and "[" not in srcs[0]:
            k = 0
        elif base in ("add", "sub") and len(srcs) in (2, 3) and imm(srcs[1]) is not None:
            k = imm(srcs[1])
            if len(srcs) == 3:
                sh = re.match(r"^lsl\s+#(\d+)$", srcs[2])
                k = k << int(sh.group(1)) if sh else None
            if k is not None and base == "sub":
                k = -k
        if not origins:
            vals.pop(dest_reg, None)
        elif k is not None and first and first[1] is not None:
            vals[dest_reg] = (origins, first[1], first[2] + k)
        else:
            forget(vals, loaded, f"n{at:x}:")
            vals[dest_reg] = (origins, f"n{at:x}:", 0)
    return result()


def base_name(b, where):
    """A base, as findings name it; where(address) names an instruction."""
    if b.startswith("e."):
        return f"{b[2:]} at entry"
    if b.startswith("m"):
        a, r = b[1:].split(".", 1)
        return f"{r} as at {where(int(a, 16))} (where paths join)"
    return f"the value made at {where(int(b[1:-1], 16))}"


def check_object(path):
    """The findings of one object, and its routines: ([(routine, offset, kind, insn,
    detail)], {routine names})."""
    insns, syms = disassemble(path)
    addrs = sorted(insns)
    nxt = {a: b for a, b in zip(addrs, addrs[1:])}
    routines = {n: a for n, a in syms.items() if not n.startswith(("$", ".L"))}
    starts = sorted((a, n) for n, a in routines.items())

    def successors(a):
        mnem, _, target = insns[a]
        base = mnem.split(".")[0]
        if mnem == "b" or base in ("ret", "br"):
            succ = [target] if mnem == "b" and target is not None else []
        elif mnem.startswith("b.") or base in COND_BRANCH_REG:
            succ = [target, nxt.get(a)]
        else:
            succ = [nxt.get(a)]
        return [s for s in succ if s is not None and s in insns]

    findings = []
    states = {}
    work = []
    # How many ways each instruction is reached: where only one, its state is that of the
    # way in; elsewhere the ways are joined (a routine's entry is one way in).
    preds = {a: 0 for a in insns}
    for a in insns:
        for s in successors(a):
            preds[s] += 1
    for name, addr in sorted(routines.items()):
        if name not in ARGS:
            findings.append((name, None, "not in ct_check.py's table of arguments", "", ""))
            continue
        cls = ARGS[name]
        st = State(frozenset(f"x{i}" for i, c in enumerate(cls) if c == "s"),
                   vals={f"x{i}": (frozenset({(c, f"x{i}")}), f"e.x{i}", 0)
                         for i, c in enumerate(cls) if c in "io"})
        states[addr] = states[addr].join(st, addr) if addr in states else st
        work.append(addr)
    entries = set(work)

    def routine(a):
        i = bisect.bisect_right(starts, (a, "\uffff")) - 1
        return starts[i] if i >= 0 else (0, "?")

    def where(a):
        s, n = routine(a)
        return f"{n}+{a - s:#x}"

    # The fixed point, then the findings from its states (the loaded ranges only shrink on
    # the way, so a finding is only true of the final states).
    while work:
        a = work.pop()
        mnem, ops, _ = insns[a]
        out = step(states[a], a, mnem, ops, None)
        for s in successors(a):
            if s not in states:
                states[s] = out
                work.append(s)
            else:
                new = out if preds[s] == 1 and s not in entries else states[s].join(out, s)
                if new.key() != states[s].key():
                    states[s] = new
                    work.append(s)
    seen = set()
    for a in sorted(states):
        mnem, ops, _ = insns[a]
        s, n = routine(a)
        insn = f"{mnem} {', '.join(ops)}".strip()

        def emit(kind, detail, base=None):
            if base is not None:
                detail = detail.format(base_name(base, where))
            f = (n, a - s, kind, insn, detail)
            if f not in seen:
                seen.add(f)
                findings.append(f)
        step(states[a], a, mnem, ops, emit)
    return findings, set(routines)


# --- the argument counts ------------------------------------------------------------------
C_TYPE = (r"(?:(?:const|volatile|unsigned|signed|void|bool|char|short|int|long|size_t"
          r"|[us](?:8|16|32|64)|(?:struct|union|enum)[ \t]+\w+)[ \t*]+)+")
C_DECL = re.compile(r"^[ \t]*(?:/\*+|\*)?[ \t]*" + C_TYPE +
                    r"(?P<name>[A-Za-z_](?:\w|\\\w+(?:\\\(\))?)*)\(", re.M)


def count_params(text, open_at):
    """The number of parameters of the list whose "(" is at text[open_at], or None."""
    depth, i, cur, parts = 0, open_at, "", []
    text = text.replace("->", "  ")
    while i < len(text):
        ch = text[i]
        if ch in "([{<":
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif ch in ")]}>":
            depth -= 1
            if depth == 0:
                parts.append(cur)
                parts = [p.strip() for p in parts]
                if parts and not parts[-1]:
                    parts.pop()  # a trailing comma
                if parts == ["void"]:
                    return 0
                return len(parts) if all(parts) else None
        if ch == "," and depth == 1:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    return None


def declarations():
    """The declared argument counts: ([(name regex, source, count)] of the .S comments,
    {name: [(source, count)]} of the Rust declarations)."""
    c = []
    for d in ("", "sm4", os.path.join("tests", "host", "ct")):
        dirp = os.path.join(REPO, d)
        if not os.path.isdir(dirp):
            continue
        for f in sorted(os.listdir(dirp)):
            if not f.endswith((".S", ".h")):
                continue
            text = open(os.path.join(dirp, f), encoding="utf-8", errors="replace").read()
            for cm in re.finditer(r"/\*.*?\*/", text, re.S):
                body = cm.group(0)
                for m in C_DECL.finditer(body):
                    # A macro parameter in the name ("\v", "\v\()") stands for any word.
                    parts = re.split(r"\\\w+(?:\\\(\))?", m["name"])
                    pat = re.compile(r"\w+".join(re.escape(x) for x in parts))
                    c.append((pat, os.path.join(d, f), count_params(body, m.end() - 1)))
    rs = {}
    for root, dirs, files in os.walk(REPO):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "target")
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            src = os.path.relpath(os.path.join(root, f), REPO)
            text = open(os.path.join(root, f), encoding="utf-8", errors="replace").read()
            text = re.sub(r"//[^\n]*", "", text)
            for m in re.finditer(r"\bfn\s+(\w+)\s*\(", text):
                rs.setdefault(m.group(1), []).append((src, count_params(text, m.end() - 1)))
            # A macro that declares `fn $name(...)` for each name it is given.
            for m in re.finditer(r"\bmacro_rules!\s*(\w+)\s*\{", text):
                end, depth = m.end(), 1
                while depth and end < len(text):
                    depth += {"{": 1, "}": -1}.get(text[end], 0)
                    end += 1
                fm = re.search(r"\bfn\s+\$\w+\s*\(", text[m.end():end])
                if not fm:
                    continue
                n = count_params(text, m.end() + fm.end() - 1)
                for inv in re.finditer(r"\b" + m.group(1) + r"!\s*[(\[{]", text):
                    close = {"(": ")", "[": "]", "{": "}"}[text[inv.end() - 1]]
                    stop = text.find(close, inv.end())
                    for name in text[inv.end():stop].split(","):
                        if re.fullmatch(r"\s*\w+\s*", name):
                            rs.setdefault(name.strip(), []).append((f"{src} ({m.group(1)}!)", n))
    return c, rs


def check_arity(names):
    """Findings of ARGS against the declarations, for the routines `names`."""
    c, rs = declarations()
    out = []
    for name in sorted(names):
        cls = ARGS.get(name)
        if cls is None:
            continue
        if not re.fullmatch(r"[psio]*", cls):
            out.append((name, "bad argument classes", f'"{cls}": only p, s, i, o'))
            continue
        found = [(src, n) for pat, src, n in c if pat.fullmatch(name)] + rs.get(name, [])
        if not found:
            out.append((name, "no declaration", "no C prototype in a comment of the .S files,"
                        " no Rust fn declaration: its argument count is unknown"))
        elif any(n != len(cls) for _, n in found):
            out.append((name, "arity mismatch", f"{len(cls)} classes in ARGS, declared with "
                        + ", ".join(f"{n if n is not None else '?'} in {src}" for src, n in found)))
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: ct_check.py OBJECT...")
    findings, known, routines = [], [], set()
    matched = set()
    for path in sys.argv[1:]:
        obj = os.path.basename(path)
        fs, names = check_object(path)
        routines |= names
        for n, off, kind, insn, detail in fs:
            if off is None:
                text = f"{obj}: {n}: {kind}"
            else:
                text = f"{obj}: {n}+{off:#x}: {kind}: {insn} ({detail})"
            k = (n, insn)
            if off is not None and k in KNOWN:
                matched.add(k)
                known.append(f"{text} (known: {KNOWN[k]})")
            else:
                findings.append(text)
    for n, kind, detail in check_arity(routines):
        findings.append(f"ARGS: {n}: {kind}: {detail}")
    for k in KNOWN:
        if k[0] in routines and k not in matched:
            findings.append(f"KNOWN: {k[0]}: known finding gone: `{k[1]}`, remove it from KNOWN")
    for f in known:
        print(f"ct-check: {f}")
    for f in findings:
        print(f"ct-check: {f}")
    print(f"ct-check: {len(sys.argv) - 1} objects, {len(findings)} findings, {len(known)} known")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
