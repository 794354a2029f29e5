#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace-request.py: where one request's instructions go, ours against upstream's C.

    scripts/trace-request.py [--lane 6.12] [--driver ce|neon] [--pcs FILE] [--mca CPUS]
                             MODE FUNCTION HIT[,HIT...]

Boots the lane's benchmark kernel (make bench builds it) with the scenario tests/vm/trace.sh,
which loads upstream's C sm4-ce drivers (--driver neon: sm4-neon, on -cpu cortex-a72, where
ours runs the variant it picks there) and then ours, and runs tcrypt mode MODE on each. For
each side, the HIT-th call of the kernel function FUNCTION (crypto_skcipher_encrypt or
_decrypt, crypto_aead_encrypt or _decrypt) is single-stepped through QEMU's gdb stub until it
returns, and the instructions it executed are counted per function (the kernel's from
System.map, the modules' from their symbol tables at the addresses the guest printed).

tcrypt's speed modes call FUNCTION 12 times per request size (4 to warm up, 8 measured), the
sizes in order (16, 64, 128, 256, 1024, 1420 or 1424, 4096 bytes) and the algorithms in the
order of tcrypt.c: in mode 218, HIT 3 is ECB of 16 bytes, 15 of 64; the encryptions of
cts(cbc(sm4)) start at 169, of ctr(sm4) at 253, of xts(sm4) at 337. A HIT is UPSTREAM:OURS
where the sides number a request apart: from CTS's on, upstream's side counts 3 calls more
(CTR's 16-byte encryption is 258:255). Each side's request is checked by its first word.

Guest instructions, not cycles: a tool to find the glue's overhead, which tcrypt's counts
(make bench) only give in total. --mca CPUS (llvm-mca's names, comma-separated) also gives
cycles: the instructions each side ran in its modules (glue and core; the kernel's own are
the same on both sides), in the order they ran, as one pass of llvm-mca on each CPU, branches
as `nop` (the path is the one taken) and every load an L1 hit; llvm-mca tracks no addresses,
so each figure is a range: loads independent of all stores, and each load after every
earlier store.
"""
import argparse
import atexit
import bisect
import collections
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import mca  # noqa: E402  (its llvm-mca run)
CACHE = os.path.expanduser(os.environ.get("SM4RS_CACHE", "~/.cache/sm4rs"))
PORT = int(os.environ.get("SM4RS_GDB_PORT", "1234"))


def sh(cmd):
    return subprocess.check_output(["bash", "-c", f"source {REPO}/scripts/lib.sh; {cmd}"]).decode().strip()


class Gdb:
    """A client of QEMU's gdb stub (the remote serial protocol), enough to step and read."""

    def __init__(self):
        self.s = socket.create_connection(("127.0.0.1", PORT))
        self.buf = b""

    def cmd(self, data):
        self.s.sendall(f"${data}#{sum(data.encode()) & 0xFF:02x}".encode())
        return self.reply()

    def reply(self):
        while True:
            m = re.search(rb"\$([^#]*)#..", self.buf)
            if m:
                self.buf = self.buf[m.end():]
                self.s.sendall(b"+")
                return m.group(1).decode()
            data = self.s.recv(65536)
            if not data:
                raise EOFError("the gdb stub closed the connection")
            self.buf += data

    def regs(self):
        """x0-x30, sp, pc (the stub has no single-register read for AArch64)."""
        g = self.cmd("g")
        return [int.from_bytes(bytes.fromhex(g[i * 16:(i + 1) * 16]), "little") for i in range(33)]

    def interrupt(self):
        self.s.sendall(b"\x03")
        self.reply()

    def cont(self, gave_up):
        """Continues until the guest stops (True), or until `gave_up()`, asked every second
        while it runs, says the stop will not come: then stops it (False)."""
        self.s.sendall(b"$c#63")
        self.s.settimeout(1)
        try:
            while True:
                try:
                    self.reply()
                    return True
                except socket.timeout:
                    if gave_up():
                        self.interrupt()
                        return False
        finally:
            self.s.settimeout(None)


def module_symbols(kodir, sections, where=None):
    """(address, module:function) of the functions of the modules loaded at `sections`;
    with `where`, also {address: (.ko, section, offset in it)} of each."""
    out = []
    for mod, secs in sections.items():
        ko = f"{kodir}/{mod.replace('_', '-')}.ko"
        if not os.path.exists(ko):
            continue
        table = subprocess.check_output([f"{LLVM_BIN}/llvm-objdump", "-t", ko]).decode()
        funcs = [f for f in (line.split() for line in table.splitlines())
                 if len(f) >= 6 and f[2] == "F" and f[3] in secs]
        # Rust's v0 names demangled (without crate hashes), a line per name.
        names = subprocess.run([f"{LLVM_BIN}/llvm-cxxfilt"], input="\n".join(f[-1] for f in funcs),
                               capture_output=True, text=True, check=True).stdout.splitlines()
        for f, name in zip(funcs, names):
            out.append((secs[f[3]] + int(f[0], 16), f"{mod}: {name}"))
            if where is not None:
                where[secs[f[3]] + int(f[0], 16)] = (ko, f[3], int(f[0], 16))
    return out


def module_instructions(path, where, cpus):
    """Cycles per CPU of the module instructions at the addresses `path` (one request's, in
    order): one pass of llvm-mca over them, branches as `nop`; two figures, loads independent
    of every store, and every load after every earlier store (a value passed through memory,
    an IV from one call to the next, is the second's case; llvm-mca models no addresses)."""
    dis = {}
    for ko in {w[0] for w in where.values()}:
        text = subprocess.check_output([f"{LLVM_BIN}/llvm-objdump", "-d", "--no-show-raw-insn",
                                        "--mattr=+sm4,+aes,+sha2,+sha3,+crypto", ko]).decode()
        sec = None
        for line in text.splitlines():
            m = re.match(r"Disassembly of section (\S+):", line)
            if m:
                sec = m[1]
            m = re.match(r"\s+([0-9a-f]+):\s+(\S.*)", line)
            if m and sec:
                dis[(ko, sec, int(m[1], 16))] = re.sub(r"\s*(//|<).*", "", m[2]).strip()
    starts = sorted(where)
    lines = []
    for pc in path:
        start = starts[bisect.bisect_right(starts, pc) - 1]
        ko, sec, off = where[start]
        ins = dis[(ko, sec, off + pc - start)]
        op = ins.split()[0]
        lines.append("nop" if op in ("b", "bl", "br", "blr", "ret", "cbz", "cbnz", "tbz", "tbnz")
                     or op.startswith("b.") else ins)
    cycles = {}
    with tempfile.NamedTemporaryFile("w", suffix=".s") as f:
        f.write(".arch armv8.2-a+crypto+sm4\n" + "\n".join(lines) + "\n")
        f.flush()
        for cpu in cpus:
            cycles[cpu] = [mca.total_cycles(LLVM_BIN, f.name, 1, cpu, [f"-noalias={noalias}"])
                           for noalias in ("true", "false")]
    return len(lines), cycles


def trace(g, table, hits, brk, gave_up, pcs=None, modules=None):
    """Single-steps the calls `hits` of `brk`: {hit: (count, Counter of functions, first
    word, addresses)}; with `pcs`, writes each instruction there as function+offset; the
    addresses are those in `modules` ({function address: ...}), in order. A call that has
    not come when `gave_up()` says the side's run is over: the number of calls there were,
    an int."""
    g.cmd(f"Z0,{brk:x},4")
    done, seen = {}, 0
    for hit in hits:
        while seen < hit:
            if seen:
                g.cmd("s")  # off the breakpoint first
            if not g.cont(gave_up):
                g.cmd(f"z0,{brk:x},4")
                return seen
            seen += 1
        r = g.regs()
        ret, sp, pc = r[30], r[31], r[32]
        # The request's first word: an skcipher_request's cryptlen, an aead_request's assoclen.
        first = int.from_bytes(bytes.fromhex(g.cmd(f"m{r[0]:x},4")), "little")
        per, n, path = collections.Counter(), 0, []
        while True:
            i = bisect.bisect_right(table, (pc, "\uffff")) - 1
            per[table[i][1] if i >= 0 else hex(pc)] += 1
            if modules and i >= 0 and table[i][0] in modules:
                path.append(pc)
            if pcs:
                pcs.write(f"{hit} {table[i][1]}+0x{pc - table[i][0]:x}\n" if i >= 0
                          else f"{hit} 0x{pc:x}\n")
            n += 1
            g.cmd("s")
            r = g.regs()
            pc = r[32]
            if (pc == ret and r[31] == sp) or n > 1_000_000:
                break
        done[hit] = (n, per, first, path)
    g.cmd(f"z0,{brk:x},4")
    return done


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lane", default="6.12")
    ap.add_argument("mode", type=int)
    ap.add_argument("function")
    ap.add_argument("hits", help="the calls to trace, comma-separated; a call numbered apart "
                    "on each side (where the sides' earlier requests call the function a "
                    "different number of times) as UPSTREAM:OURS")
    ap.add_argument("--driver", choices=["ce", "neon"], default="ce")
    ap.add_argument("--pcs", metavar="FILE",
                    help="also write each side's executed instructions, in order, as "
                         "function+offset, to FILE.upstream and FILE.ours")
    ap.add_argument("--mca", metavar="CPUS", help="also model the modules' instructions of "
                    "each side in one pass of llvm-mca on these CPUs (comma-separated)")
    a = ap.parse_args()
    pairs = sorted(tuple(int(n) for n in (h.split(":") * 2)[:2]) for h in a.hits.split(","))
    side_hits = {"upstream": sorted(u for u, _ in pairs), "ours": sorted(o for _, o in pairs)}
    lane = f"{a.lane}-bench"
    subprocess.check_call([f"{REPO}/scripts/kernel.sh", lane], stdout=sys.stderr)
    subprocess.check_call([f"{REPO}/scripts/stage-modules.sh", lane], stdout=sys.stderr)
    kdir = sh(f"lane_build_dir {lane}")
    syms = []
    for line in open(f"{kdir}/System.map"):
        addr, kind, name = line.split()[:3]
        if kind in "tTwW":
            syms.append((int(addr, 16), name))
    brk = [addr for addr, name in syms if name == a.function]
    if not brk:
        sys.exit(f"trace-request: no kernel function {a.function}")
    cpu = "max" if a.driver == "ce" else "cortex-a72"
    work = f"{CACHE}/vm/{lane}-trace-{cpu}"
    console = f"{work}/console.log"
    if os.path.exists(console):
        os.unlink(console)
    env = dict(os.environ, SM4RS_QEMU_EXTRA=f"-gdb tcp:127.0.0.1:{PORT}", SM4RS_SMP="1",
               SM4RS_APPEND=f"nokaslr sm4rs.tmode={a.mode} sm4rs.tdrv={a.driver}",
               SM4RS_VM_TIMEOUT="1800")
    # (A session of its own, so that stopping it stops QEMU too, which holds the gdb port.)
    vm = subprocess.Popen([f"{REPO}/scripts/vm.sh", lane, "trace", cpu], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          start_new_session=True)

    def end_vm():
        if vm.poll() is None:
            os.killpg(vm.pid, signal.SIGKILL)
            vm.wait()
        # Until QEMU is gone too (and the gdb port free for the next run).
        for _ in range(100):
            try:
                os.killpg(vm.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)

    atexit.register(end_vm)  # also on an exception or ^C

    def stop(why):
        end_vm()
        sys.exit(f"trace-request: {why}")
    sections = collections.defaultdict(lambda: collections.defaultdict(dict))
    results, pos, where = {}, 0, {}
    while vm.poll() is None:
        time.sleep(0.2)
        if not os.path.exists(console):
            continue
        with open(console, "rb") as f:
            f.seek(pos)
            data = f.read()
        # Whole lines only.
        data = data[:data.rfind(b"\n") + 1]
        pos += len(data)
        for line in data.decode(errors="replace").splitlines():
            m = re.match(r"SM4RS-TRACE-SECTION (\S+) (\S+) (\S+) 0x([0-9a-f]+)", line.strip())
            if m:
                sections[m[1]][m[2]][m[3]] = int(m[4], 16)
            if re.match(r"not ok \d+ trace\.", line.strip()):
                stop(f"the guest said: {line.strip()} ({console})")
            m = re.match(r"SM4RS-TRACE-GO (\S+)", line.strip())
            if m:
                side = m[1]
                kodir = f"{work}/root/lib/modules/" + ("kernel" if side == "upstream" else "sm4rs")
                where[side] = {}
                table = sorted(syms + module_symbols(kodir, sections[side], where[side]))
                g = Gdb()
                g.interrupt()

                def side_done(side=side):
                    with open(console, "rb") as f:
                        return f"SM4RS-TRACE-DONE {side}".encode() in f.read()

                hits = side_hits[side]
                results[side] = trace(g, table, hits, brk[0], side_done,
                                      a.pcs and open(f"{a.pcs}.{side}", "w"),
                                      a.mca and where[side])
                g.s.sendall(b"$D#44")  # detach: the guest runs on
                g.s.close()
                if isinstance(results[side], int):
                    missed = min(h for h in hits if h > results[side])
                    stop(f"tcrypt mode {a.mode} called {a.function} {results[side]} times "
                         f"on the {side} side: no call {missed}")
    if set(results) != {"upstream", "ours"}:
        sys.exit(f"trace-request: the VM ended before both sides were traced ({console})")
    for hu, ho in pairs:
        (nu, pu, lu, xu), (no, po, lo, xo) = results["upstream"][hu], results["ours"][ho]
        hit = hu if hu == ho else f"{hu} (ours {ho})"
        if lu != lo:
            sys.exit(f"trace-request: call {hit} is not the same request on both sides "
                     f"(first words {lu} and {lo})")
        print(f"# {a.function}, call {hit} of tcrypt mode {a.mode} (first word {lu}), "
              f"Linux {a.lane}: upstream {nu}, ours {no} instructions ({no / nu:.3f})")
        names = sorted(set(pu) | set(po), key=lambda f: -max(pu[f], po[f]))
        print(f"{'upstream':>9} {'ours':>6}  function")
        for f in names:
            print(f"{pu[f] or '':>9} {po[f] or '':>6}  {f[:120]}")
        if a.mca:
            cpus = a.mca.split(",")
            (iu, cu), (io, co) = (module_instructions(x, where[s], cpus)
                                  for x, s in ((xu, "upstream"), (xo, "ours")))
            print(f"# the modules' {iu} and {io} instructions in one pass of llvm-mca "
                  "(branches as nop), cycles with loads independent of stores, and with every "
                  "load after every earlier store:")
            print(f"{'upstream':>13} {'ours':>13}  cpu")
            for cpu in cpus:
                print(f"{cu[cpu][0]:>6}-{cu[cpu][1]:<6} {co[cpu][0]:>6}-{co[cpu][1]:<6}  {cpu}")


LLVM_BIN = sh('echo "$LLVM_BIN"') or "/usr/bin"
if __name__ == "__main__":
    main()
