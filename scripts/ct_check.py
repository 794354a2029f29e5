#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ct_check.py OBJECT...: checks the assembly routines of the objects for secret-dependent
memory addresses and branches (make ct-check; make test runs it on each lane's objects).

It reads the objects as `llvm-objdump -d` disassembles them (every macro expanded, as the
CPU runs them) and follows the data through the instructions, from each routine's entry, over
every path of its branches to a fixed point. Each register is public or secret:
  - at entry, the argument registers are what ARGS below says of each routine (every routine
    must be there): pointers, lengths and counts are public; a routine that takes a secret
    in a register (none does today) says so. The other registers hold the caller's values,
    taken as public;
  - a value loaded from memory is secret (keys, round keys, text, IVs, tweaks, counters, hash
    state: everything the routines read through their pointers), but for a load through an
    address made by `adr`/`adrp` (a constant table) and a callee-saved register restored from
    the stack slot it was saved in, which keeps what it held;
  - an instruction's result is secret if any of its inputs is (the condition flags
    included), a constant (`movi`, `mov #imm`, the zero register) is public.
It fails on any load or store whose address (base, index or writeback) depends on a secret
register, and on any branch whose condition (a register of `cbz`/`cbnz`/`tbz`/`tbnz`, the
flags of `b.cond`) or target (`br`, `ret`) does. Table lookups in registers (`tbl`, `tbx`) and
the AES and SM4 instructions run in time independent of their data on the CPUs this targets,
and are allowed.

Not covered: the Rust side (the glue, the scalar sm4/sm4.rs, which is not constant time),
microarchitectural effects beyond addresses and branches (data-dependent instruction timing,
speculation), memory contents other than stack slots (a secret stored and loaded back
through a pointer comes back secret, which is safe), and instructions it does not know: those
fail the check, naming the instruction, until this file says what they do.
Exit status 1 on any finding or unknown instruction, printed one per line.
"""

import os
import re
import subprocess
import sys

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-19/bin")

# The routines and the class of each argument register, x0 first: "p" public (a pointer, a
# length, a count), "s" secret. A routine not listed fails the check.
ARGS = {
    # sm4_ce_core.S (sm4_ce_*: upstream's interface, exported for the C GCM and CCM drivers)
    "sm4_ce_expand_key": "ppppp",
    "sm4_ce_crypt_block": "ppp",
    "sm4_ce_cbc_enc": "ppppp",
    "sm4rs_ce_expand_key": "ppppp",
    "sm4rs_ce_crypt": "pppp",
    "sm4rs_ce_cbc_enc": "ppppp",
    "sm4rs_ce_cbc_dec": "ppppp",
    "sm4rs_ce_cfb_enc": "ppppp",
    "sm4rs_ce_cfb_dec": "ppppp",
    "sm4rs_ce_ctr": "ppppp",
    "sm4rs_ce_xts": "pppppp",
    "sm4rs_ce_cbcmac": "pppp",
    # sm4_neon_core.S
    "sm4rs_neon_expand_key": "ppppp",
    "sm4rs_neon_cbc_enc": "ppppp",
    "sm4rs_neon_cfb_enc": "ppppp",
    "sm4rs_neon_crypt_tbx": "pppppp",
    "sm4rs_neon_crypt_tbl": "pppppp",
    "sm4rs_neon_crypt_aese": "pppppp",
    "sm4rs_neon_cryptn_tbx": "pppppp",
    "sm4rs_neon_cryptn_tbl": "pppppp",
    "sm4rs_neon_cryptn_aese": "pppppp",
    # sm4_ce_gcm_core.S
    "sm4rs_ce_gcm_init": "pp",
    "sm4rs_ce_ghash": "pppp",
    "sm4rs_ce_gcm_enc": "pppppppp",
    "sm4rs_ce_gcm_dec": "pppppppp",
    # sm4_ce_ccm_core.S
    "sm4rs_ce_ccm_mac": "pppp",
    "sm4rs_ce_ccm_enc": "ppppppp",
    "sm4rs_ce_ccm_dec": "ppppppp",
    # tests/host/ct/planted.S (the check's own test)
    "ct_clean": "pppp",
    "ct_table_lookup": "ppp",
    "ct_secret_branch": "ppp",
    "ct_secret_arg": "sp",
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


class State:
    """What is secret at one instruction: registers, the flags, the stack slots (by offset
    from the entry's stack pointer); which registers hold a constant table's address; the
    stack pointer's offset."""

    def __init__(self, secret=frozenset(), flags=False, table=frozenset(), sp=0, slots=None):
        self.secret, self.flags, self.table, self.sp = secret, flags, table, sp
        self.slots = slots or {}

    def key(self):
        return (self.secret, self.flags, self.table, self.sp, tuple(sorted(self.slots.items())))

    def merge(self, o):
        slots = {}
        for k in set(self.slots) | set(o.slots):
            # (A slot one path did not write: taken as secret.)
            slots[k] = self.slots.get(k, True) or o.slots.get(k, True)
        return State(self.secret | o.secret, self.flags or o.flags, self.table & o.table,
                     self.sp if self.sp == o.sp else None, slots)


def disassemble(path):
    """The instructions of the object's text: {address: (mnemonic, operands, target)}, and
    its symbols {name: address}."""
    out = subprocess.run([f"{LLVM_BIN}/llvm-objdump", "-d", "--no-show-raw-insn", path],
                         check=True, capture_output=True, text=True).stdout
    insns, syms = {}, {}
    for line in out.split("\n"):
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            syms[m.group(2)] = int(m.group(1), 16)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if not m:
            continue
        addr, mnem, rest = int(m.group(1), 16), m.group(2), m.group(3)
        rest = re.sub(r"\s*//.*$", "", rest)
        target = None
        t = re.search(r"0x([0-9a-f]+) <[^>]+>", rest)
        if t:
            target = int(t.group(1), 16)
            rest = rest[: t.start()].rstrip(", ")
        insns[addr] = (mnem, split_ops(rest) if rest else [], target)
    return insns, syms


def step(st, mnem, ops, where, findings):
    """The state after one instruction; findings appended."""
    secret, table, slots = set(st.secret), set(st.table), dict(st.slots)
    flags, sp = st.flags, st.sp

    def is_secret(r):
        return r in secret

    def check(rs, what):
        bad = [r for r in rs if is_secret(r)]
        if bad:
            findings.append(f"{where}: {what} depends on secret {', '.join(sorted(set(bad)))}")

    base = mnem.split(".")[0]
    if base in NOPS:
        return st
    if mnem.startswith("b.") or base == "b":
        if mnem.startswith("b."):
            if flags:
                findings.append(f"{where}: branch condition depends on secret flags")
        return st
    if base in COND_BRANCH_REG:
        check(regs_in(ops[0]), "branch condition")
        return st
    if base in ("ret", "br", "blr"):
        check(regs_in(ops[0]) if ops else ["x30"], "branch target")
        return st
    if base in LOADS or base in STORES:
        mem = next((i for i, o in enumerate(ops) if o.startswith("[")), None)
        if mem is None:
            findings.append(f"{where}: unknown memory operand: {mnem} {', '.join(ops)}")
            return st
        addr_regs = regs_in(ops[mem])
        post = ops[mem + 1:]  # post-index writeback (an immediate or a register)
        post_regs = [r for o in post for r in regs_in(o)]
        check(addr_regs + post_regs, "memory address")
        data = ops[:mem]
        base_reg = addr_regs[0] if addr_regs else None
        m = re.match(r"^\[\s*sp\s*(?:,\s*#(-?0x[0-9a-f]+|-?\d+))?\s*\]", ops[mem])
        sp_off = None
        if m and sp is not None:
            sp_off = sp + (int(m.group(1), 0) if m.group(1) else 0)
        dregs = []
        for o in data:
            dregs += reg_list(o) if o.startswith("{") else regs_in(o)
        width = 16 if any(o.strip().lower().startswith("q") for o in data) else 8
        lane = any(o.startswith("{") and "}[" in o for o in data)
        if base in STORES:
            if sp_off is not None:
                for i, r in enumerate(dregs):
                    slots[sp_off + i * width] = is_secret(r)
        else:
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
        # Writeback of the base ("[x0], #64", "[sp, #-16]!", "[x1], x2").
        if base_reg and (post or ops[mem].endswith("!")):
            if base_reg == "sp":
                if sp is not None:
                    imm = re.findall(r"#(-?0x[0-9a-f]+|-?\d+)", " ".join(post) or ops[mem])
                    sp = sp + int(imm[-1], 0) if imm and not post_regs else None
            elif any(is_secret(r) for r in post_regs):
                secret.add(base_reg)
        return State(frozenset(secret), flags, frozenset(table), sp, slots)
    if base in CONST:
        d = reg(ops[0])
        secret.discard(d)
        if base in ("adr", "adrp"):
            table.add(d)
        else:
            table.discard(d)
        return State(frozenset(secret), flags, frozenset(table), sp, slots)
    if base not in ALU:
        findings.append(f"{where}: unknown instruction: {mnem} {', '.join(ops)}")
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
        imm = re.findall(r"#(-?0x[0-9a-f]+|-?\d+)", " ".join(srcs))
        if sp is not None and imm and regs_in(srcs[0]) == ["sp"]:
            sp = sp + (int(imm[-1], 0) if base == "add" else -int(imm[-1], 0))
        else:
            sp = None
        if val:
            findings.append(f"{where}: stack pointer depends on a secret")
    elif dest_reg and dest_reg != "zr":
        (secret.add if val else secret.discard)(dest_reg)
        # A constant table's address moved by a constant stays one.
        if base in ("add", "sub") and regs_in(srcs[0]) and regs_in(srcs[0])[0] in table \
                and all(not regs_in(o) for o in srcs[1:]):
            table.add(dest_reg)
        else:
            table.discard(dest_reg)
    return State(frozenset(secret), flags, frozenset(table), sp, slots)


def check_object(path):
    insns, syms = disassemble(path)
    addrs = sorted(insns)
    nxt = {a: b for a, b in zip(addrs, addrs[1:])}
    names = {a: n for n, a in syms.items()}
    findings = []
    states = {}
    work = []
    for name, addr in syms.items():
        if name.startswith("$") or name.startswith(".L"):
            continue
        if name not in ARGS:
            findings.append(f"{path}: {name}: not in ct_check.py's table of arguments")
            continue
        secret = frozenset(f"x{i}" for i, c in enumerate(ARGS[name]) if c == "s")
        states[addr] = State(secret)
        work.append(addr)

    def where(a):
        fn = max((s for s in names if s <= a), default=None)
        mnem, ops, _ = insns[a]
        return f"{os.path.basename(path)}: {names.get(fn, '?')}+{a - fn:#x}: {mnem} {', '.join(ops)}"

    seen_findings = set()
    while work:
        a = work.pop()
        mnem, ops, target = insns[a]
        local = []
        out = step(states[a], mnem, ops, where(a), local)
        for f in local:
            if f not in seen_findings:
                seen_findings.add(f)
                findings.append(f)
        succ = []
        base = mnem.split(".")[0]
        if mnem == "b" or base in ("ret", "br"):
            succ = [target] if mnem == "b" and target is not None else []
        elif mnem.startswith("b.") or base in COND_BRANCH_REG:
            succ = [target, nxt.get(a)]
        else:
            succ = [nxt.get(a)]
        for s in succ:
            if s is None or s not in insns:
                continue
            new = out if s not in states else states[s].merge(out)
            if s not in states or new.key() != states[s].key():
                states[s] = new
                work.append(s)
    return findings


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: ct_check.py OBJECT...")
    findings, known, routines = [], [], set()
    matched = set()
    for path in sys.argv[1:]:
        routines |= set(disassemble(path)[1])
        for f in check_object(path):
            k = next((k for k in KNOWN if f": {k[0]}+" in f and f": {k[1]} " in f), None)
            if k:
                matched.add(k)
                known.append(f"{f} (known: {KNOWN[k]})")
            else:
                findings.append(f)
    for k in KNOWN:
        if k[0] in routines and k not in matched:
            findings.append(f"{k[0]}: the known finding at `{k[1]}` is gone: remove it from KNOWN")
    for f in known:
        print(f"ct-check: {f}")
    for f in findings:
        print(f"ct-check: {f}")
    print(f"ct-check: {len(sys.argv) - 1} objects, {len(findings)} findings, {len(known)} known")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
