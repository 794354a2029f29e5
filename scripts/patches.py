#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""patches.py REPO KERNEL_SRC LANE OUTDIR: writes the in-tree patch series of this repository
for the pristine kernel tree KERNEL_SRC (Linux LANE) into OUTDIR, as `git format-patch` does.

The series is generated from the out-of-tree sources, which stay the one source of truth:
  1. rust: crypto: the abstraction (crypto/*.rs) as kernel::crypto in rust/kernel/, its C
     helpers (crypto/bindings_helper.h) in rust/helpers/crypto.c, the crypto headers in
     rust/bindings/bindings_helper.h, and RUST_CRYPTO_ABSTRACTIONS;
  2. crypto: arm64/sm4: the drivers, in arch/arm64/crypto/ (shared Rust code in sm4/), and the
     Kconfig/Makefile switch CRYPTO_SM4_RUST that builds upstream's SM4 symbols from them;
  3. crypto: arm64/sm4: the KUnit test module;
  4. crypto: arm64/sm4: cfb(sm4), behind its own symbol (CRYPTO_SM4_RUST_CFB, default n).
The sources are laid out as the kernel tree has them: each driver and test file, and what it
includes, goes to the same path under arch/arm64/crypto/ (the modules and their objects are
Kbuild's list, scripts/kbuild-modules.awk); crypto/ goes to rust/kernel/crypto/. What differs
between the out-of-tree and the in-tree form is written in the sources, where it applies:
  - lines between `// sm4rs-oot-begin` and `// sm4rs-oot-end` exist only out of tree (the
    crate roots' own copy of the abstraction, `mod crypto`); `// sm4rs-in-tree: LINE` is
    LINE in tree (`use kernel::crypto;`);
  - the `sm4rs_*` cfgs that Kbuild sets from greps of the kernel tree (kernel-differences.txt)
    are resolved with the same greps against KERNEL_SRC, and the code of the other kernels
    dropped; on kernels whose `module!` takes `authors`, a module's one `author` is given in
    that form;
  - `CONFIG_CRYPTO_SM4_RUST_CFB` items go to the last patch.
A source that does not follow this (an out-of-tree path or binding name outside those
blocks, a file included from outside the repository) stops make patches, naming the file
and line. The Kconfig blocks come from the repository's Kconfig ("#@ FILE before: LINE").
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO, KSRC, LANE, OUT = sys.argv[1:5]
GIT = os.environ.get("GIT", "git")


def die(msg):
    sys.exit(f"patches.py: {msg}")


def rd(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def krd(rel):
    return rd(os.path.join(KSRC, rel))


# --- the kernel's differences: kernel-differences.txt, as Kbuild reads it ----------------
def detect_cfgs():
    """cfg name -> whether this kernel has the newer form (its fixed string is in any of
    the listed files), for each line of the table."""
    cfgs = {}
    for line in rd(os.path.join(REPO, "kernel-differences.txt")).split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in re.split(r" *\| *", line)]
        if len(fields) != 5:
            die(f"kernel-differences.txt: not five fields: {line!r}")
        cfg, files, needle = fields[0], fields[1].split(), fields[2]
        cfgs[cfg] = any(
            needle in krd(rel) for rel in files if os.path.exists(os.path.join(KSRC, rel))
        )
    if not cfgs:
        die("kernel-differences.txt: no differences read")
    return cfgs


CFGS = detect_cfgs()
print(f"patches.py: Linux {LANE}: " + ", ".join(f"{k}={int(v)}" for k, v in sorted(CFGS.items())), file=sys.stderr)
CFG_RE = re.compile(r"^\s*#\[cfg\((not\()?(sm4rs_\w+)\)?\)\]\s*$")


def strip_item(lines, i):
    """Index after the item starting at lines[i] (comments and attributes first)."""
    while i < len(lines) and re.match(r"^\s*(//|#\[)", lines[i]):
        i += 1
    depth = 0
    while i < len(lines):
        code = re.sub(r'"(\\.|[^"\\])*"', '""', lines[i].split("//")[0])
        depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
        i += 1
        # (an item ends with ";" or "}", a struct field or expression field with ",")
        if depth <= 0 and re.search(r"([;}],?|,)\s*$", code.rstrip()):
            return i
    die("unterminated cfg'd item")


CFB_CFG = "CONFIG_CRYPTO_SM4_RUST_CFB"
CFB_RE = re.compile(r"^\s*#\[cfg\((not\()?" + CFB_CFG + r"\)?\)\]\s*$")


def resolve(text, cfb=True):
    """Out-of-tree-only regions and sm4rs cfgs resolved for this kernel. Without `cfb` (the
    patches before the one that adds cfb(sm4)), the items of CONFIG_CRYPTO_SM4_RUST_CFB are
    left out, those of its negation kept without their attribute."""
    out = []
    lines = text.split("\n")
    i = 0
    oot = False
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if not cfb and CFB_RE.match(line):
            if CFB_RE.match(line).group(1):
                i += 1  # not(CFB): the item stays, its attribute goes
                continue
            while out and out[-1].strip().startswith("///"):
                out.pop()
            i = strip_item(lines, i + 1)
            continue
        if s == "// sm4rs-oot-begin":
            oot = True
        elif s == "// sm4rs-oot-end":
            oot = False
        elif oot:
            pass
        elif s.startswith("// sm4rs-in-tree: "):
            out.append(line[: len(line) - len(line.lstrip())] + s[len("// sm4rs-in-tree: "):])
        elif CFG_RE.match(line):
            neg, cfg = CFG_RE.match(line).groups()
            if cfg not in CFGS:
                die(f"unknown cfg {cfg}")
            if CFGS[cfg] != bool(neg):
                pass  # true: the attribute goes, the item stays
            else:
                while out and out[-1].strip().startswith("///"):
                    out.pop()
                i = strip_item(lines, i + 1)
                continue
        else:
            out.append(line)
        i += 1
    left = [l for l in out if re.search(r"cfg!?\((not\()?sm4rs_", l)]
    if left:
        die(f"an sm4rs cfg is left: {left}")
    return "\n".join(out)


def to_kernel_crate(text):
    """A file of crypto/ as a module of the kernel crate (rust/kernel/crypto/)."""
    return resolve(text)


def check_lines(name, text, rules):
    """make patches stops at the first line of `text` (the series' form of the source `name`)
    that matches a rule's pattern, naming the file, the line and what to write instead."""
    for n, line in enumerate(text.split("\n"), 1):
        for pat, why in rules:
            if re.search(pat, line):
                die(f"{name}:{n}: {why}: {line.strip()}")


# What the sources write the way the kernel tree has it (they build out of tree through
# their `// sm4rs-oot-begin` blocks and Kbuild's binding names).
RUST_RULES = [
    (r"bindings::(sm4rs_|SM4RS_CONST_)",
     "the kernel's bindings name a helper or constant without the sm4rs_/SM4RS_CONST_ prefix"),
    (r"crypto::bindings\b", "the kernel crate has no crypto::bindings: use crate::bindings"),
    (r"crypto/mod\.rs|\bmod crypto;",
     "the abstraction is kernel::crypto in tree: its module goes in an sm4rs-oot block"),
]


def to_driver(text, cfb=True, name="?"):
    """A driver or test source (`name`) as the file of the same path under
    arch/arm64/crypto/: its out-of-tree lines and other kernels' cfgs resolved, and, on
    kernels whose `module!` takes a list of `authors`, its one `author` in that form."""
    text = resolve(text, cfb)
    check_lines(name, text, RUST_RULES)
    if CFGS["sm4rs_module_authors"] and "module! {" in text:
        text, n = re.subn(r'(\n    )author: ("[^"]*"),', r"\1authors: [\2],", text)
        if n != 1:
            die(f"{name}: module! {{ ... }} has not one `    author: \"...\",` line to give "
                "this kernel's `authors: [...]` form")
    return text


def to_asm(text, cfb=True):
    if not cfb:
        text = re.sub(r"#ifdef " + CFB_CFG + r"\n.*?#endif /\* " + CFB_CFG + r" \*/\n\n?", "",
                      text, flags=re.S)
    return text


# --- the files of the series: each source and what it includes, at the same path ---------
KBUILD_MODULES = []  # (module, Kconfig symbol, [objects]) from Kbuild


def kbuild_modules():
    r = subprocess.run(["awk", "-f", os.path.join(REPO, "scripts/kbuild-modules.awk"),
                        os.path.join(REPO, "Kbuild")], capture_output=True, text=True)
    if r.returncode != 0:
        die(r.stderr.strip())
    return [(l.split()[0], l.split()[1], l.split()[2:]) for l in r.stdout.split("\n") if l]


INCLUDE_RES = [re.compile(r'^\s*#\[path = "([^"]+)"\]', re.M),
               re.compile(r'\binclude!\("([^"]+)"\)'),
               re.compile(r'^#include "([^"]+)"', re.M)]


def closure(roots):
    """The repository files the crate roots and assembly files `roots` are built from: each
    with what it includes (`#[path]`, `include!`, `#include "..."`), as the kernel tree sees
    it (out-of-tree blocks left out), relative to the including file's directory. A file
    outside the repository stops make patches."""
    seen, todo = [], list(roots)
    while todo:
        f = todo.pop(0)
        if f in seen:
            continue
        if not os.path.isfile(os.path.join(REPO, f)):
            die(f"{f}: not a file of the repository")
        seen.append(f)
        text = rd(os.path.join(REPO, f))
        if f.endswith(".rs"):
            text = resolve(text)
        for rx in INCLUDE_RES:
            for inc in rx.findall(text):
                p = os.path.normpath(os.path.join(os.path.dirname(f), inc))
                if p.startswith(".."):
                    die(f"{f}: includes {inc}, outside the repository")
                todo.append(p)
    return seen


def module_sources(test):
    """The sources of the drivers (test=False) or of the test module, from Kbuild's list."""
    roots = []
    for _, _, objs in KBUILD_MODULES:
        if any(o.startswith("tests/") for o in objs) != test:
            continue
        for o in objs:
            src = [o[:-2] + ext for ext in (".rs", ".S", ".c")
                   if os.path.isfile(os.path.join(REPO, o[:-2] + ext))]
            if len(src) != 1:
                die(f"Kbuild: object {o}: no one source for it (.rs, .S or .c)")
            roots += src
    return closure(roots)


def in_tree(path):
    return "arch/arm64/crypto/" + path


# --- C helpers ------------------------------------------------------------------------------
def helpers_c(rust_texts):
    """rust/helpers/crypto.c: the helpers of crypto/bindings_helper.h that `rust_texts` call,
    as the kernel's rust_helper_* functions, and wrappers of the static inline kernel
    functions they call (the out-of-tree build gets those from bindgen's --wrap-static-fns)."""
    h = rd(os.path.join(REPO, "crypto/bindings_helper.h"))
    includes = re.findall(r"^#include <[^>]+>$", h, re.M)
    funcs = re.findall(r"(/\*(?:(?!\*/).)*\*/\n)static inline ([^\n]*?)\bsm4rs_(\w+)(\([^)]*\)\n\{.*?\n\})",
                       h, re.S)
    ours = {name for _, _, name, _ in funcs}
    called = set()
    for t in rust_texts:
        called |= set(re.findall(r"bindings::([a-z]\w*)\s*\(", t))
    funcs = [f for f in funcs if f[2] in called]
    # Per-CPU state of the helpers (one copy in the kernel, shared by every user).
    percpu = re.findall(r"(/\*(?:(?!\*/).)*\*/\n)static (DEFINE_PER_CPU\([^)]*\);)\n", h, re.S)
    body = [
        "// SPDX-License-Identifier: GPL-2.0",
        "",
        "/*",
        " * Helpers of the Rust crypto abstraction (rust/kernel/crypto): C macros and static",
        " * inline functions of the crypto API and of kernel-mode NEON. Only kernels with the",
        " * abstraction have the crypto API built in that these call.",
        " */",
        "",
        "#ifdef CONFIG_RUST_CRYPTO_ABSTRACTIONS",
        "",
        *includes,
        "",
    ]
    for comment, define in percpu:
        body.append(comment + "static " + define.replace("sm4rs_", "rust_crypto_") + "\n")
    for comment, ret, name, rest in funcs:
        # (The helpers' names in comments too.)
        comment = re.sub(r"\bsm4rs_(\w+)\(\)",
                         lambda m: f"rust_helper_{m[1]}()" if m[1] in ours else m[0], comment)
        rest = rest.replace("sm4rs_softirq_neon", "rust_crypto_softirq_neon")
        head = ret + "rust_helper_" + name
        # Parameters continued on further lines aligned with the opening parenthesis.
        params, _, tail = rest.partition(")")
        col = len(head) + 1
        lines = params.split("\n")
        params = "\n".join([lines[0]] + ["\t" * (col // 8) + " " * (col % 8) + l.strip()
                                         for l in lines[1:]])
        body.append(comment + head + params + ")" + tail + "\n")
    existing = "".join(rd(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(KSRC, "rust/helpers"))
                       for f in fs if f.endswith(".c"))
    wrappers = []
    for name in sorted(called - ours):
        if f"rust_helper_{name}(" in existing:
            continue
        proto = find_static_inline(name)
        if proto:
            wrappers.append(wrapper(name, proto))
    body += wrappers
    text = "\n".join(body)
    return text.rstrip("\n") + "\n\n#endif /* CONFIG_RUST_CRYPTO_ABSTRACTIONS */\n"


HEADER_DIRS = ["include", "arch/arm64/include"]


def find_static_inline(name):
    """(return type, parameters) of `static inline ... name(...)` in the kernel headers, or
    None if name is not a static inline function there."""
    r = subprocess.run(["grep", "-rlE", rf"\b{name}\(", *HEADER_DIRS], cwd=KSRC,
                       capture_output=True, text=True)
    pat = re.compile(r"static (?:inline|__always_inline) ([^;{}()]*?)\b" + name +
                     r"\(([^)]*)\)\s*\{", re.S)
    for f in r.stdout.split():
        m = pat.search(rd(os.path.join(KSRC, f)))
        if m:
            return " ".join(m.group(1).split()), " ".join(m.group(2).split())
    return None


def wrapper(name, proto):
    ret, params = proto
    args = []
    if params not in ("", "void"):
        for p in params.split(","):
            m = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", p.strip())
            args.append(m.group(1))
    call = f"{name}({', '.join(args)})"
    stmt = f"{call};" if ret.strip() == "void" else f"return {call};"
    sep = "" if ret.endswith("*") else " "
    head = f"{ret}{sep}rust_helper_{name}("
    # Parameters on as few lines as fit in 100 columns, continued under the first.
    lines = [head]
    for k, p in enumerate([" ".join(p.split()) for p in (params or "void").split(",")]):
        p += "," if k < len((params or "void").split(",")) - 1 else ")"
        if len(lines[-1]) > len(head) and len(lines[-1]) + 1 + len(p) > 100:
            lines.append(" " * len(head))
        lines[-1] += ("" if lines[-1].endswith("(") or not lines[-1].strip() else " ") + p
    col = len(head)
    text = "\n".join([lines[0]] + ["\t" * (col // 8) + " " * (col % 8) + l.strip()
                                   for l in lines[1:]])
    return f"{text}\n{{\n\t{stmt}\n}}\n"


def bindings_helper(text):
    """rust/bindings/bindings_helper.h with the crypto headers and constants added."""
    h = rd(os.path.join(REPO, "crypto/bindings_helper.h"))
    want = [i for i in re.findall(r"^#include <[^>]+>$", h, re.M) if i not in text]
    arch = [i for i in want if "<asm/" in i]
    common = [i for i in want if i not in arch]
    lines = text.split("\n")
    first = next(k for k, l in enumerate(lines) if l.startswith("#include <"))
    end = first
    while end < len(lines) and lines[end].startswith("#include <"):
        end += 1
    # Each into the first (sorted) block of includes, where it sorts.
    for inc in sorted(common):
        k = next((j for j in range(first, end) if lines[j] > inc and
                  not lines[j].startswith("#include <kunit")), end)
        lines.insert(k, inc)
        end += 1
    text = "\n".join(lines)
    consts = []
    # bindgen itself emits the constants that are plain integer macros or enumerators.
    # (CRYPTO_MINALIGN: ARCH_DMA_MINALIGN, a literal on arm64.)
    generated = {"EDEADLK", "EBADMSG", "EOVERFLOW", "IRQ_WORK_HARD_IRQ", "CRYPTO_MINALIGN"}
    for ctype, name, expr in re.findall(r"^const ([\w ]+) SM4RS_CONST_(\w+) = (\w+);$", h, re.M):
        if name in generated or f"RUST_CONST_HELPER_{name} " in text:
            continue
        consts.append((ctype, name, expr))
    common_c = [c for c in consts if not c[1].startswith("KERNEL_HWCAP_")]
    arch_c = [c for c in consts if c[1].startswith("KERNEL_HWCAP_")]
    # At the end: the file's constants may sit in #if blocks.
    add = "\n/* The crypto abstraction, rust/kernel/crypto. */"
    add += "".join(f"\nconst {t} RUST_CONST_HELPER_{n} = {e};" for t, n, e in common_c)
    if arch or arch_c:
        add += "\n\n#ifdef CONFIG_ARM64\n" + "\n".join(arch)
        add += "".join(f"\nconst {t} RUST_CONST_HELPER_{n} = {e};" for t, n, e in arch_c)
        add += "\n#endif"
    return text.rstrip("\n") + "\n" + add + "\n"


def insert_before(text, anchor, block, path):
    k = text.find("\n" + anchor + "\n")
    if k < 0:
        die(f"{path}: no line '{anchor}'")
    return text[:k + 1] + block + text[k + 1:]


def kconfig_blocks():
    """{path: [(anchor, block)]} from the repository's Kconfig."""
    out = {}
    cur = None
    for line in rd(os.path.join(REPO, "Kconfig")).split("\n"):
        m = re.match(r"^#@ (\S+) before: (.*)$", line)
        if m:
            cur = [m.group(2), []]
            out.setdefault(m.group(1), []).append(cur)
        elif cur is not None:
            cur[1].append(line)
    return {p: [(a, "\n".join(b).strip("\n") + "\n\n") for a, b in v] for p, v in out.items()}


# --- the series -----------------------------------------------------------------------------
# The abstraction, one patch per part: each adds its modules of crypto/ (and declares them in
# kernel::crypto), so that every prefix of the series builds. The first also brings what they
# all share: crypto/mod.rs, the C helpers, the bindings' headers, RUST_CRYPTO_ABSTRACTIONS.
ABSTRACTION_PARTS = [
    ["alg", "cipher"],
    ["skcipher"],
    ["shash", "shash_buffer"],
    ["aead"],
    ["param"],
]


# The crate root's last part, and the line of its docs that lists it: the skcipher walk, which
# comes with the skciphers (and serves the AEADs after them).
WALK_PART = "// The skcipher walk (`struct skcipher_walk`)"
WALK_DOC = "//! - the skcipher walk"


def crate_mod(present):
    """crypto/mod.rs as rust/kernel/crypto.rs, declaring (and listing in its docs) only the
    modules of `present`, and with the skcipher walk once `skcipher` is."""
    mod = to_kernel_crate(rd(os.path.join(REPO, "crypto/mod.rs")))
    check_lines("crypto/mod.rs", mod, RUST_RULES[:1])
    if mod.count("\n" + WALK_PART) != 1 or mod.count("\n" + WALK_DOC) != 1:
        die(f"crypto/mod.rs: not one '{WALK_PART}' and one '{WALK_DOC}' (scripts/patches.py)")
    if "skcipher" not in present:
        mod = mod[:mod.index("\n" + WALK_PART)].rstrip("\n") + "\n"
    out = []
    for line in mod.split("\n"):
        m = re.match(r"^pub mod (\w+);$", line) or re.match(r"^//! - \[`(\w+)`\]", line)
        if (m and m.group(1) not in present) or (line.startswith(WALK_DOC) and "skcipher" not in present):
            continue
        out.append(line)
    return "\n".join(out)


def abstraction_patch(part):
    """The files of the abstraction's part `part` (an index of ABSTRACTION_PARTS)."""
    present = [m for p in ABSTRACTION_PARTS[: part + 1] for m in p]
    all_mods = re.findall(r"^pub mod (\w+);$", to_kernel_crate(rd(os.path.join(REPO, "crypto/mod.rs"))),
                          re.M)
    missing = set(all_mods) - {m for p in ABSTRACTION_PARTS for m in p}
    if missing:
        die(f"crypto/mod.rs: modules in no part of the series (scripts/patches.py "
            f"ABSTRACTION_PARTS): {sorted(missing)}")
    files = {"rust/kernel/crypto.rs": crate_mod(present)}
    for n in ABSTRACTION_PARTS[part]:
        text = to_kernel_crate(rd(os.path.join(REPO, f"crypto/{n}.rs")))
        check_lines(f"crypto/{n}.rs", text, RUST_RULES[:1])
        files[f"rust/kernel/crypto/{n}.rs"] = text
    if part > 0:
        return files
    # (rust/helpers/crypto.c: helpers_by_use(), once the series' Rust files are known.)
    hc = krd("rust/helpers/helpers.c")
    incs = re.findall(r'^#include "(\w+)\.c"$', hc, re.M)
    after = max([i for i in incs if i < "crypto"], default=None)
    hc = (hc.replace(f'#include "{after}.c"\n', f'#include "{after}.c"\n#include "crypto.c"\n')
          if after else hc.replace('#include "', '#include "crypto.c"\n#include "', 1))
    files["rust/helpers/helpers.c"] = hc
    files["rust/bindings/bindings_helper.h"] = bindings_helper(krd("rust/bindings/bindings_helper.h"))
    lib = krd("rust/kernel/lib.rs")
    mods = [m for m in re.findall(r"^pub mod (\w+);$", lib, re.M)]
    nxt = min([m for m in mods if m > "crypto"])
    k = lib.find(f"pub mod {nxt};")
    k = lib.rfind("\n", 0, k) + 1
    while lib[lib.rfind("\n", 0, k - 1) + 1:k].startswith("#["):
        k = lib.rfind("\n", 0, k - 1) + 1
    lib = lib[:k] + "#[cfg(CONFIG_RUST_CRYPTO_ABSTRACTIONS)]\npub mod crypto;\n" + lib[k:]
    files["rust/kernel/lib.rs"] = lib
    files["crypto/Kconfig"] = apply_kconfig("crypto/Kconfig", krd("crypto/Kconfig"), 0)
    return files


KC = kconfig_blocks()


def apply_kconfig(path, text, which):
    """Inserts the Kconfig blocks for path whose symbol belongs to patch `which`
    (0: RUST_CRYPTO_ABSTRACTIONS, 1: the driver switch, 2: the KUnit test)."""
    for anchor, block in KC.get(path, []):
        sym = re.search(r"^config (\w+)", block, re.M).group(1)
        part = {"RUST_CRYPTO_ABSTRACTIONS": 0, "CRYPTO_SM4_KUNIT_TEST": 2,
                CFB_CFG[len("CONFIG_"):]: 3}.get(sym, 1)
        if part == which:
            text = insert_before(text, anchor, block, path)
    return text


def makefile_block(test):
    """arch/arm64/crypto/Makefile's lines of the drivers (test=False) or of the test module:
    Kbuild's, without the out-of-tree copies of the bindgen helpers."""
    out = ""
    for m, sym, objs in KBUILD_MODULES:
        if any(o.startswith("tests/") for o in objs) == test:
            out += f"obj-$(CONFIG_{sym}) += {m}.o\n{m}-y := {' '.join(objs)}\n"
    return out


def patch2():
    files = {}
    for src in module_sources(False):
        text = rd(os.path.join(REPO, src))
        files[in_tree(src)] = (to_driver(text, cfb=False, name=src) if src.endswith(".rs")
                               else to_asm(text, cfb=False))
    files["crypto/Kconfig"] = apply_kconfig("crypto/Kconfig", CUR["crypto/Kconfig"], 1)
    ak = apply_kconfig("arch/arm64/crypto/Kconfig", krd("arch/arm64/crypto/Kconfig"), 1)
    # The cipher-only symbol is served by the Rust sm4-ce module, which has the cipher too.
    ak = re.sub(r"(config CRYPTO_SM4_ARM64_CE\n(?:\t[^\n]*\n)*?\tselect CRYPTO_SM4\n)",
                r"\1\tselect CRYPTO_SM4_ARM64_CE_BLK if CRYPTO_SM4_RUST\n", ak, count=1)
    files["arch/arm64/crypto/Kconfig"] = ak
    cm = krd("crypto/Makefile")
    line = "obj-$(CONFIG_CRYPTO_SM4_GENERIC) += sm4_generic.o\n"
    if line not in cm:
        die("crypto/Makefile: no sm4_generic line")
    cm = cm.replace(line, "ifndef CONFIG_CRYPTO_SM4_RUST\n" + line + "endif\n")
    files["crypto/Makefile"] = cm
    am = krd("arch/arm64/crypto/Makefile")
    # Upstream's SM4 lines, from the cipher to sm4-neon (the CCM and GCM drivers between).
    block = re.search(r"obj-\$\(CONFIG_CRYPTO_SM4_ARM64_CE\) \+= sm4-ce-cipher\.o\n"
                      r"(?:[^\n]*\n)*?sm4-neon-y := [^\n]*\n", am)
    if not block or "sm4-ce-gcm" not in block.group(0) or "sm4-ce-ccm" not in block.group(0):
        die("arch/arm64/crypto/Makefile: SM4 lines not found")
    rust_make = ("ifdef CONFIG_CRYPTO_SM4_RUST\n# The SM4 modules of the symbols below, from Rust "
                 "(sm4_*.rs, sm4/) and assembly (sm4_*_core.S)\n" + makefile_block(False) +
                 "else\n")
    am = am.replace(block.group(0), rust_make + block.group(0) + "endif\n")
    files["arch/arm64/crypto/Makefile"] = am
    return files


def patch3():
    files = {}
    drivers = set(module_sources(False))
    for src in module_sources(True):
        if src not in drivers:
            files[in_tree(src)] = to_driver(rd(os.path.join(REPO, src)), name=src)
    files["arch/arm64/crypto/Kconfig"] = apply_kconfig(
        "arch/arm64/crypto/Kconfig", CUR["arch/arm64/crypto/Kconfig"], 2)
    am = CUR["arch/arm64/crypto/Makefile"]
    drv = makefile_block(False)
    am = am.replace(drv, drv + makefile_block(True))
    files["arch/arm64/crypto/Makefile"] = am
    return files


def patch4():
    """cfb(sm4) in the three drivers, behind its own symbol (upstream removed it in 6.8)."""
    files = {}
    for src in module_sources(False):
        text = rd(os.path.join(REPO, src))
        files[in_tree(src)] = (to_driver(text, name=src) if src.endswith(".rs")
                               else to_asm(text))
    files["crypto/Kconfig"] = apply_kconfig("crypto/Kconfig", CUR["crypto/Kconfig"], 3)
    return {p: t for p, t in files.items() if CUR.get(p) != t}


SUBJECTS = [
    ("rust: crypto: add algorithm registration, single-block ciphers and NEON sections",
     """Add kernel::crypto, for drivers that implement crypto algorithms in Rust
and register them with the crypto API. This first part is what every kind
of algorithm needs:

- alg: a kind of algorithm (its C description and registration functions),
  a registration of N descriptions undone on drop, and the typed
  per-transform context (created on init, dropped and wiped on exit). The
  crypto API frees each description through its cra_destroy callback when
  it drops its last reference, so a registration dropped while transforms
  of its algorithm are alive never frees what they use; an init that fails
  after some registrations waits until nothing holds them.
- cipher: single-block ciphers (CRYPTO_ALG_TYPE_CIPHER), their C table
  built at compile time from a trait.
- the crate root: what every kind uses. Input, the bytes of a request that
  are only read (not a slice: AF_ALG's user pages may change meanwhile);
  Secret and wipe(), stores the compiler keeps; and kernel-mode NEON
  sections. A callback lends the driver a Simd, the right to open sections
  in its context; Simd::neon() runs a closure in a section and hands it a
  Neon token, which every wrapper of NEON assembly takes. A section is
  refused where may_use_simd() is false or where it would nest (in the
  task's own section, or in one of ours in the softirq being served), so
  safe code never reaches the BUG_ON() in kernel_neon_begin(). Linux 6.19's
  kernel_neon_begin() buffer is kept in the caller's frame and wiped if the
  kernel wrote to it.

The C helpers go to rust/helpers/crypto.c (each patch adds those its
code is the first to call), the crypto headers to
rust/bindings/bindings_helper.h. RUST_CRYPTO_ABSTRACTIONS builds it (arm64
only for now: the NEON sections are arm64's)."""),
    ("rust: crypto: add symmetric key ciphers and the skcipher walk",
     """Add skcipher: symmetric key ciphers (struct skcipher_alg); and, to the
crate root, since the AEADs walk their text with it too, a thin wrapper
of the kernel's skcipher walk that the driver's own loop drives, as the C
glue does:

	let mut walk = req.walk(simd);
	while let Some(mut step) = walk.next()? {	// skcipher_walk_virt(), _done()
		let n = step.len() / BLOCK_SIZE;
		step.neon(|neon, io, iv| core(neon, io, n, iv))?;
		step.leave(step.len() % BLOCK_SIZE);
	}

Walk::next() ends the step before it with skcipher_walk_done(); the step
borrows the walk and its NEON section borrows the step, so the walk goes
on inside a section only within Simd::span(), which holds one over a
whole request where the kernel allows it (from Linux 6.19 on). A walk
left early is aborted. Request::part() makes a part of a request a
request of its own (scatterwalk_ffwd()), for modes that handle their last
blocks apart (ciphertext stealing)."""),
    ("rust: crypto: add synchronous hashes",
     """Add shash: synchronous hashes and MACs (struct shash_alg), with a typed
key and a plain-data request state (the crypto API copies descriptors as
bytes). A hash takes whole blocks in update() and the last 0 to a block
of bytes in finup(), as the block-only hash interface hands them
(shash_buffer marks the description block-only and splits the data so)."""
     if CFGS["sm4rs_shash_block_only"] else
     """Add shash: synchronous hashes and MACs (struct shash_alg), with a typed
key and a plain-data request state (the crypto API copies descriptors as
bytes). A hash takes whole blocks in update() and the last 0 to a block
of bytes in finup(), as Linux 6.16's block-only hash interface hands
them; on this kernel, which predates it, the abstraction keeps the
partial block in the descriptor (shash_buffer)."""),
    ("rust: crypto: add AEADs",
     """Add aead: authenticated encryption with associated data (struct
aead_alg). The driver walks the associated data with the kernel's
scatterwalk (a mapped piece at a time, Request::assoc()) and the text with
the skcipher walk (skcipher_walk_aead_encrypt()/_decrypt()), and ends the
request with its tag: written with scatterwalk_map_and_copy(), or compared
with crypto_memneq() (EBADMSG)."""),
    ("rust: crypto: add read-only string module parameters",
     """Add param: a read-only (0444) string module parameter, as C's
module_param(name, charp, 0444), for a driver's choice among its
implementations: module!'s parameters, where it has them, take integers
and booleans only."""),
    ("crypto: arm64/sm4 - add SM4 drivers in Rust",
     """Add sm4_generic, sm4-ce and sm4-neon written in Rust, with AArch64
assembly cores for SM4E/SM4EKEY and for NEON, on kernel::crypto. They are
built instead of the C drivers when CRYPTO_SM4_RUST is set, under the same
symbols and, but for sm4-ce-cipher (whose cipher sm4-ce registers), module
names; sm4-neon adds cts(cbc(sm4)) and xts(sm4) to upstream's modes:

  CRYPTO_SM4_GENERIC         sm4_generic: sm4 (sm4-generic, 100)
  CRYPTO_SM4_ARM64_CE        selects CRYPTO_SM4_ARM64_CE_BLK, whose module
                             has the sm4-ce cipher
  CRYPTO_SM4_ARM64_CE_BLK    sm4-ce: sm4 (300); ecb, cbc, ctr, cts(cbc),
                             xts (400); cmac, xcbc, cbcmac (400); exports
                             sm4_ce_expand_key (which sm4-ce-gcm and
                             sm4-ce-ccm use), sm4_ce_crypt_block and
                             sm4_ce_cbc_enc (upstream's interface)
  CRYPTO_SM4_ARM64_NEON_BLK  sm4-neon: ecb, cbc, ctr, cts(cbc), xts (200)

  CRYPTO_SM4_ARM64_CE_GCM    sm4-ce-gcm: gcm(sm4) (400), SM4E and PMULL
  CRYPTO_SM4_ARM64_CE_CCM    sm4-ce-ccm: ccm(sm4) (400)

so the users that select CRYPTO_SM4_GENERIC keep working, and every
arm64 SM4 module is built from Rust."""),
    ("crypto: arm64/sm4 - add KUnit tests for the Rust SM4 drivers",
     """Add sm4_kunit (CRYPTO_SM4_KUNIT_TEST). Its reference is upstream's C
SM4 (the CRYPTO_SM4 library), which the module registers as sm4-oracle
and cfb-sm4-oracle (priority 0) while it is loaded: the suites compare
sm4_generic, and every mode and MAC of sm4-ce and sm4-neon, with the
kernel's templates over it (lengths 0 to past 4096, in and out of place,
scatterlists in 1-byte and mixed pieces), and check the standard's
vectors, bad keys and lengths, NEON sections bounded per page (counted
with a kprobe on kernel_neon_begin()), and the abstraction's guarantees
(registrations dropped while in use, requests in hard interrupt context,
sections that would nest in task context and in a softirq). The suites
of drivers that are not loaded are skipped."""),
    ("crypto: arm64/sm4 - add cfb(sm4) to the Rust SM4 drivers",
     """Upstream removed the cfb template and cfb(sm4) in Linux 6.8 for lack of
in-kernel users; userspace still asks for SM4-CFB through AF_ALG (it is
the mode of several Chinese national standards). Add it back to the Rust
drivers behind CRYPTO_SM4_RUST_CFB (default n), so that the rest of the
series can be taken without it: cfb-sm4-generic (100, so that cfb(sm4)
stays available without the accelerated drivers), cfb-sm4-neon (200) and
cfb-sm4-ce (400, with its own SM4E routines). testmgr has no vectors for
cfb(sm4) any more; the KUnit suites of the patch before check it, where it
is built, against OpenSSL's vectors and against CFB over the C SM4
library."""),
]

# The MAINTAINERS entries of the series: title, the part of the tree whose new files they
# list, and their lists. Each patch that adds files lists them (a new directory whose files
# one patch adds, as the directory), so that no patch adds a file no entry names.
MAINTAINED = [
    ("RUST [CRYPTO]", "rust/",
     ["L:\tlinux-crypto@vger.kernel.org", "L:\trust-for-linux@vger.kernel.org",
      "S:\tMaintained"]),
    ("ARM64 SM4 CRYPTO DRIVERS IN RUST", "arch/arm64/crypto/",
     ["L:\tlinux-crypto@vger.kernel.org", "L:\tlinux-arm-kernel@lists.infradead.org",
      "S:\tMaintained"]),
]


def insert_entry(text, title, body):
    """`text` (MAINTAINERS) with the entry `title` (its lines `body`) where it sorts, between
    two entries of the same first word."""
    lines = text.split("\n")
    heads = [i for i in range(1, len(lines) - 1)
             if lines[i] and not lines[i - 1] and re.match(r"[A-Z]:\t", lines[i + 1])]
    word = title.split()[0]
    for a, b in zip(heads, heads[1:]):
        if lines[a].split()[0] == word and lines[a] < title < lines[b]:
            lines[b:b] = [title, *body, ""]
            return "\n".join(lines)
    die(f"MAINTAINERS: no place for the entry {title}")


def helpers_by_use(series):
    """Gives each patch of `series` the helpers (rust/helpers/crypto.c) its Rust code is the
    first to call: the file as the Rust files so far need it."""
    texts, prev = {}, None
    for files in series:
        texts.update({p: t for p, t in files.items()
                      if p.endswith(".rs") and p.startswith(("rust/kernel/crypto", "arch/"))})
        text = helpers_c(list(texts.values()))
        if text != prev:
            files["rust/helpers/crypto.c"] = text
        elif "rust/helpers/crypto.c" in files:
            del files["rust/helpers/crypto.c"]
        prev = text


def maintainers(series, author):
    """Adds MAINTAINERS to each patch of `series` that adds files: the entries of MAINTAINED
    with every file added so far."""
    seen, added = set(), []
    for files in series:
        new = sorted(p for p in files
                     if p not in seen and not os.path.exists(os.path.join(KSRC, p)))
        seen |= set(files)
        added.append(new)

    def pattern(path):
        parts = path.split("/")
        for k in range(1, len(parts)):
            d = "/".join(parts[:k])
            if not os.path.isdir(os.path.join(KSRC, d)):
                inside = [i for i, new in enumerate(added) for p in new if p.startswith(d + "/")]
                return d + "/" if len(set(inside)) == 1 else path
        return path

    base, listed = krd("MAINTAINERS"), set()
    for files, new in zip(series, added):
        if not new:
            continue
        unlisted = [p for p in new if not any(p.startswith(u) for _, u, _ in MAINTAINED)]
        if unlisted:
            die(f"MAINTAINERS: no entry for {unlisted} (scripts/patches.py MAINTAINED)")
        listed |= {pattern(p) for p in new}
        text = base
        for title, under, fields in MAINTAINED:
            pats = sorted(p for p in listed if p.startswith(under))
            if pats:
                text = insert_entry(text, title, [f"M:\t{author}", *fields]
                                    + [f"F:\t{p}" for p in pats])
        files["MAINTAINERS"] = text


COVER_SUBJECT = "Rust crypto providers: kernel::crypto, and SM4 for arm64"


def cover_letter():
    """The cover letter's text: COVER, and the figures of docs/PERFORMANCE.md's block for it
    (between its `<!-- cover-letter -->` and `<!-- /cover-letter -->` lines)."""
    perf = rd(os.path.join(REPO, "docs/PERFORMANCE.md"))
    m = re.search(r"<!-- cover-letter -->\n(.*?)\n<!-- /cover-letter -->", perf, re.S)
    if not m:
        die("docs/PERFORMANCE.md: no <!-- cover-letter --> block of figures")
    return COVER.replace("@FIGURES@", m.group(1).strip("\n"))


COVER = """This series adds kernel::crypto, safe Rust abstractions for drivers that
provide crypto algorithms, and uses them for SM4 (GB/T 32907-2016) on
arm64: sm4_generic, sm4-ce (SM4E: the cipher, ECB, CBC, CTR, CTS, XTS,
CMAC, XCBC, CBC-MAC), sm4-neon (ECB, CBC, CTR, CTS, XTS without the SM4
instructions), sm4-ce-gcm and sm4-ce-ccm, under upstream's Kconfig
symbols and module names (CRYPTO_SM4_RUST picks the Rust sources). No
Rust code registers an algorithm with the crypto API today; the Rust
crypto code proposed so far only calls algorithms.

Design. The abstraction is a thin layer over the kernel's own mechanisms:
a trait per kind of algorithm (cipher, skcipher, shash, aead) whose C
table is built at compile time, registrations undone on drop, a typed
per-transform context wiped on exit. Requests go through the kernel's
walks only: skcipher_walk_virt() and skcipher_walk_aead_*() for the data,
the scatterwalk for associated data, scatterwalk_ffwd() for the parts
ciphertext stealing handles apart, scatterwalk_map_and_copy() for tags.
The loop is the driver's, as in the C glue:

	let mut walk = req.walk(simd);
	while let Some(mut step) = walk.next()? {
		step.neon(|neon, io, iv| ...)?;
		step.leave(step.len() % BLOCK_SIZE);
	}

Kernel-mode NEON is a right a callback lends (Simd) and a token the
assembly wrappers take (Neon): safe code cannot run NEON code outside a
section, open one where kernel_neon_begin() would BUG(), nest one, or run
skcipher_walk_done() inside one where the kernel forbids it. Sections
follow each kernel's rule: a step at most on 6.12; from 6.19 on, one
per XTS, GCM and CCM request and MAC update longer than a page (the C
glue there takes one per request).

Constant time: sm4-ce, sm4-neon and the AEAD cores have no load or
branch that depends on the key or the data (checked on the assembly
with a data-flow tool); sm4-neon keeps the S-box in registers (tbl/tbx,
or AESE between affine maps where the CPU has AES). sm4_generic uses
the standard's 256-byte table, every cache line of it touched before
each block: a mitigation, not constant time.

Figures, against upstream's C drivers in the same kernel and run
(guest instructions per request under qemu -icount; llvm-mca cycles
of the loops):

@FIGURES@

Testing: KUnit suites (a separate module) compare every driver with the
kernel's templates over upstream's C SM4 library, lengths 0 to past a
page, in and out of place, scatterlists in 1-byte and mixed pieces;
testmgr's self-tests; AF_ALG known answers from OpenSSL; dm-crypt, fscrypt
and LUKS2 data written by these drivers and read back by upstream's C
drivers and the reverse; kTLS; concurrent users, module unloading under
load, allocation faults; on 6.12 and 7.3, =m and =y, under KASAN and
lockdep; each prefix of the series builds."""


CUR = {}


def main():
    KBUILD_MODULES.extend(kbuild_modules())
    author = subprocess.run([GIT, "-C", REPO, "log", "-1", "--format=%an <%ae>"],
                            capture_output=True, text=True).stdout.strip()
    if "<" not in author:
        author = "sm4-rs <sm4-rs@localhost>"
    # The series is a function of the sources: dated like the repository's last commit.
    date = subprocess.run([GIT, "-C", REPO, "log", "-1", "--format=%cI"],
                          capture_output=True, text=True).stdout.strip() or "2026-01-01T00:00:00Z"
    os.environ["GIT_AUTHOR_DATE"] = os.environ["GIT_COMMITTER_DATE"] = date
    work = tempfile.mkdtemp(prefix="sm4rs-patches-")
    try:
        git = [GIT, "-C", work, "-c", "user.name=" + author.split(" <")[0],
               "-c", "user.email=" + author.split("<")[1].rstrip(">")]
        subprocess.run([GIT, "init", "-q", work], check=True)
        touched = set()
        # Pristine copies of every file the series changes, as the base commit.
        series = []
        makers = [lambda i=i: abstraction_patch(i) for i in range(len(ABSTRACTION_PARTS))]
        makers += [patch2, patch3, patch4]
        if len(makers) != len(SUBJECTS):
            die("a patch without a subject (SUBJECTS)")
        for fn in makers:
            files = fn()
            series.append(files)
            for p, t in files.items():
                CUR[p] = t
        helpers_by_use(series)
        maintainers(series, author)
        for files in series:
            touched |= set(files)
        for p in sorted(touched):
            src = os.path.join(KSRC, p)
            if os.path.exists(src):
                os.makedirs(os.path.dirname(os.path.join(work, p)), exist_ok=True)
                shutil.copy(src, os.path.join(work, p))
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", f"Linux {LANE} (pristine files)"], check=True)
        for files, (subject, body) in zip(series, SUBJECTS):
            for p, t in files.items():
                os.makedirs(os.path.dirname(os.path.join(work, p)), exist_ok=True)
                with open(os.path.join(work, p), "w", encoding="utf-8") as f:
                    f.write(t)
            # Formatted as the kernel formats Rust (its .rustfmt.toml, `make rustfmt`).
            rs = [os.path.join(work, p) for p in files
                  if p.endswith(".rs") and p != "rust/kernel/lib.rs"]
            subprocess.run(["/usr/bin/rustfmt", "--edition", "2021", "--config-path",
                            os.path.join(KSRC, ".rustfmt.toml"), *rs], check=True)
            subprocess.run(git + ["add", "-A"], check=True)
            msg = f"{subject}\n\n{body}\n\nSigned-off-by: {author}\n"
            subprocess.run(git + ["commit", "-q", "-F", "-"], input=msg, text=True, check=True)
        os.makedirs(OUT, exist_ok=True)
        for f in os.listdir(OUT):
            if f.endswith(".patch"):
                os.remove(os.path.join(OUT, f))
        subprocess.run(git + ["format-patch", "-q", "--no-signature", "--zero-commit",
                              "--cover-letter", "-o", OUT, f"HEAD~{len(SUBJECTS)}"], check=True)
        cover = os.path.join(OUT, "0000-cover-letter.patch")
        text = rd(cover)
        if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
            die("git format-patch --cover-letter: no placeholders to fill")
        text = text.replace("*** SUBJECT HERE ***", COVER_SUBJECT)
        text = text.replace("*** BLURB HERE ***", cover_letter())
        with open(cover, "w", encoding="utf-8") as f:
            f.write(text)
    finally:
        shutil.rmtree(work)


main()
