#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# check-bootstrap.sh (make check-bootstrap, and a step of make test): proves, on a machine
# that is not fresh, that the scripts need nothing the bootstrap does not install.
#
#   bootstrap.commands   every external command the host-side scripts run resolves, on this
#                        machine, to a file of a Debian package that a fresh machine gets:
#                        one of HOST_PKGS (scripts/lib.sh), their Depends/Pre-Depends (what
#                        `apt-get install --no-install-recommends` brings), or the base
#                        system (Essential or Priority: required). bindgen is the one
#                        exception, installed by the bootstrap with cargo.
#   bootstrap.qemu-files the VM's qemu command line (qemu_vm_args, the one scripts/vm.sh
#                        uses) starts, and every ROM or firmware file it loads from the host
#                        belongs to such a package (today: none at all).
#
# Prints PASS/FAIL lines like the test lanes; appends "<pass> <fail>" to $SM4RS_COUNTS if
# set; exits non-zero on any failure.
source "$(dirname "$0")/lib.sh"

counts=${SM4RS_COUNTS:-/dev/null}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npass=0 nfail=0
result() {
	if [ "$1" = 0 ]; then
		echo "PASS [host] $2"
		npass=$((npass + 1))
	else
		echo "FAIL [host] $2 ($3)"
		nfail=$((nfail + 1))
	fi
}

# --- the packages a fresh machine has after the bootstrap ------------------------------
# The closure of HOST_PKGS over Depends and Pre-Depends, as apt resolves it.
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
	--no-replaces --no-enhances "${HOST_PKGS[@]}" "${LANE_PKGS[@]}" 2>/dev/null |
	awk '/^[a-z0-9]/ { sub(/:.*/, ""); print }' | sort -u >"$tmp/closure"
# The base system every Debian machine has.
dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' |
	awk '$2 == "yes" || $3 == "required" { print $1 }' | sort -u >"$tmp/base"
sort -u "$tmp/closure" "$tmp/base" >"$tmp/fresh"
if [ "$(wc -l <"$tmp/closure")" -lt "${#HOST_PKGS[@]}" ]; then
	result 1 bootstrap.package-closure "apt-cache could not resolve the bootstrap's packages"
	echo "$npass $nfail" >>"$counts"
	exit 1
fi

# owner FILE: the package that installed FILE (dpkg knows /bin paths on merged-/usr
# systems, so the path is tried as given, resolved, and under /usr).
owner() {
	local f=$1 real p
	real=$(readlink -f "$f")
	for p in "$f" "$real" "/usr${f#/usr}" "${real#/usr}"; do
		dpkg-query -S "$p" 2>/dev/null | awk -F': ' 'NR == 1 { sub(/:.*/, "", $1); sub(/,.*/, "", $1); print $1 }' |
			grep . && return 0
	done
	return 1
}

# --- commands ---------------------------------------------------------------------------
# Candidate commands: the first word of every simple command in the host-side shell
# scripts, the Makefile's recipes and .ci/run (single-quoted text, comments and
# here-documents left out); shell builtins, keywords and the scripts' own functions are
# not commands.
files=("$REPO"/scripts/*.sh "$REPO"/.ci/run)
"$PYTHON" - "$REPO/Makefile" "${files[@]}" >"$tmp/words" <<'PY'
import re, sys

def strip(text):
    """Keeps only the shell code that runs commands: comments, quoted text (but the
    command substitutions inside double quotes), here-document bodies and case patterns
    are blanked."""
    out, i, n = [], 0, len(text)
    stack = ["code"]          # code | dq (double quotes); code inside dq via $(
    heredoc = []
    line_start = True
    while i < n:
        c = text[i]
        top = stack[-1]
        if c == "\n":
            out.append("\n")
            i += 1
            if heredoc and top == "code":
                # Skip the bodies of the here-documents opened on this line.
                for word in heredoc:
                    while i < n:
                        j = text.find("\n", i)
                        j = n if j < 0 else j
                        line = text[i:j]
                        i = j + 1
                        if line.strip() == word:
                            break
                heredoc = []
            continue
        if top == "dq":
            if c == "\\":
                i += 2
            elif c == '"':
                stack.pop(); out.append(" "); i += 1
            elif text.startswith("$(", i):
                stack.append("code"); out.append(" ; "); i += 2
            else:
                i += 1
            continue
        # code
        if c == "\\":
            out.append(" "); i += 2
        elif c == "'":
            j = text.find("'", i + 1)
            i = n if j < 0 else j + 1
            out.append("$S")
        elif c == '"':
            stack.append("dq"); out.append("$S"); i += 1
        elif c == "#" and (i == 0 or text[i - 1] in " \t\n;"):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("<<", i) and not text.startswith("<<<", i):
            m = re.match(r"<<-?\s*['\"]?(\w+)['\"]?", text[i:])
            if m:
                heredoc.append(m.group(1)); i += m.end(); out.append(" ")
            else:
                out.append(c); i += 1
        elif text.startswith("$((", i) or re.match(r"=\(", text[i - 1:i + 1]):
            # Arithmetic, or an array's elements: no commands inside.
            depth, i = 0, i + (0 if c == "(" else 1)
            while i < n:
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
                if depth == 0:
                    break
            out.append(" ")
        elif text.startswith("$(", i):
            stack.append("code"); out.append(" ; "); i += 2
        elif c == "(" :
            stack.append("code"); out.append(" ; "); i += 1
        elif c == ")":
            if len(stack) > 1:
                stack.pop()
                out.append(" ; ")
            else:
                # An unmatched ")" ends a case pattern ("6.12)", "a | b)"): blank the
                # pattern.
                k = len(out)
                while k > 0 and out[k - 1] != "\n":
                    k -= 1
                out[k:] = [" "]
            i += 1
        elif text.startswith("${", i):
            depth, i = 0, i + 1
            while i < n:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
                if depth == 0:
                    break
            out.append("$V")
        else:
            out.append(c); i += 1
    return "".join(out)

SEP = re.compile(r"\|\||&&|[|;&{}`\n]|\bthen\b|\bdo\b|\belse\b|\belif\b|\bif\b|\bwhile\b|\buntil\b|!")
PREFIX = {"exec", "command", "time", "env", "nice", "xargs", "$SUDO", "sudo"}
words = set()
makefile, scripts = sys.argv[1], sys.argv[2:]
texts = [open(p).read() for p in scripts]
# Makefile: the recipe lines only.
recipes = "\n".join(l[1:] for l in open(makefile).read().splitlines() if l.startswith("\t"))
texts.append(re.sub(r"\$\((\w+)\)", r"\1", recipes))
for text in texts:
    for part in SEP.split(strip(text)):
        toks = part.split()
        while toks and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\[.*\])?\+?=", toks[0]) or toks[0] in PREFIX):
            toks.pop(0)
        if toks and toks[0] == "timeout":
            words.add("timeout")
            toks = [t for t in toks[1:] if not t.startswith("-")][1:]
        if toks and re.match(r"^[A-Za-z][A-Za-z0-9_.+-]*$", toks[0]):
            words.add(toks[0])
for w in sorted(words):
    print(w)
PY
# Functions the scripts define, and the builtins and keywords of the shell.
grep -hoE '^[a-z_][a-z0-9_]*\(\)' "${files[@]}" | tr -d '()' | sort -u >"$tmp/functions"
bad=()
checked=0
while read -r w; do
	grep -qx "$w" "$tmp/functions" && continue
	case $(type -t "$w" 2>/dev/null) in builtin | keyword | function) continue ;; esac
	path=$(command -v "$w" 2>/dev/null || true)
	if [ -z "$path" ]; then
		# A word in command position that no package provides: only the scripts' own
		# variables used as commands ("$QEMU" etc. are not words) or a missing tool.
		bad+=("$w: not found on PATH")
		continue
	fi
	checked=$((checked + 1))
	if [ "$path" = "$BINDGEN" ]; then
		continue
	fi
	pkg=$(owner "$path") || { bad+=("$w: $path belongs to no Debian package"); continue; }
	grep -qx "$pkg" "$tmp/fresh" || bad+=("$w: $path is in $pkg, which the bootstrap does not install")
done <"$tmp/words"
# The tools called by full path.
# The tools and files called or read by full path (or through variables).
for path in "$RUSTC" "$RUSTDOC" "$CARGO" "$PYTHON" "$QEMU" "$GIT" "$LLVM_BIN/clang" \
	"$LLVM_BIN/llvm-mca" "$LLVM_BIN/llvm-nm" "$LLVM_BIN/llvm-ar" /usr/bin/clippy-driver /usr/bin/rustfmt /usr/bin/qemu-aarch64 \
	/usr/bin/aarch64-linux-gnu-gcc /usr/aarch64-linux-gnu/lib/libc.a; do
	checked=$((checked + 1))
	[ -e "$path" ] || { bad+=("$path: not installed"); continue; }
	pkg=$(owner "$path") || { bad+=("$path belongs to no Debian package"); continue; }
	grep -qx "$pkg" "$tmp/fresh" || bad+=("$path is in $pkg, which the bootstrap does not install")
done
if [ ${#bad[@]} -eq 0 ] && [ "$checked" -gt 20 ]; then
	result 0 "bootstrap.commands"
	echo "     $checked commands, all from the bootstrap's $(wc -l <"$tmp/closure") packages or the base system"
else
	[ "$checked" -gt 20 ] || bad+=("only $checked commands found in the scripts: the scan is broken")
	result 1 "bootstrap.commands" "${#bad[@]} problems"
	printf '     %s\n' "${bad[@]}"
fi

# --- files qemu loads -------------------------------------------------------------------
# The VM's own command line (a dummy kernel and initrd: qemu -S loads them without running
# anything), asked over its monitor which devices take a ROM file and which ROM images it
# loaded. Every ROM file is looked up in qemu's data directories.
head -c 4096 /dev/zero >"$tmp/Image"
head -c 4096 /dev/zero >"$tmp/initrd"
truncate -s 1M "$tmp/disk.img"
qemu_vm_args max "$tmp/Image" "$tmp/initrd" "console=ttyAMA0" "$tmp/disk.img"
set +e
printf 'info qtree\ninfo roms\nquit\n' |
	timeout 60 "$QEMU" "${QEMU_ARGS[@]}" -S -display none -serial none -monitor stdio \
		>"$tmp/monitor" 2>&1
qrc=$?
set -e
if [ $qrc -ne 0 ] || ! grep -q 'bus: main-system-bus' "$tmp/monitor"; then
	result 1 "bootstrap.qemu-files" "qemu did not start (exit $qrc): $(tr -d '\r' <"$tmp/monitor" | sed 's/^(qemu) //' | grep -v '^QEMU .* monitor' | grep . | head -n 2 | tr '\n' ' ')"
else
	# romfile = "efi-virtio.rom" in the qtree; name="/path" or fw=... in the ROM list.
	sed -n 's/.*romfile = "\([^"]\+\)".*/\1/p' "$tmp/monitor" >"$tmp/roms"
	sed -n 's/.* name="\(\/[^"]*\)".*/\1/p; s/.* fw=\([^ ]*\).*/\1/p' "$tmp/monitor" |
		grep -vxF -e "$tmp/Image" -e "$tmp/initrd" >>"$tmp/roms" || true
	bad=()
	while read -r rom; do
		[ -n "$rom" ] || continue
		path=
		case $rom in
		/*) path=$rom ;;
		*) for d in /usr/share/qemu /usr/share/qemu/firmware /usr/lib/ipxe/qemu /usr/share/seabios; do
				[ -e "$d/$rom" ] && { path=$d/$rom; break; }
			done ;;
		esac
		if [ -z "$path" ]; then
			bad+=("$rom: not on this machine")
		elif ! pkg=$(owner "$path"); then
			bad+=("$rom ($path) belongs to no Debian package")
		elif ! grep -qx "$pkg" "$tmp/fresh"; then
			bad+=("$rom ($path) is in $pkg, which the bootstrap does not install")
		fi
	done < <(sort -u "$tmp/roms")
	if [ ${#bad[@]} -eq 0 ]; then
		result 0 "bootstrap.qemu-files"
		echo "     qemu loads $(sort -u "$tmp/roms" | grep -c . || true) ROM/firmware files from the host"
	else
		result 1 "bootstrap.qemu-files" "${#bad[@]} files from outside the bootstrap"
		printf '     %s\n' "${bad[@]}"
	fi
fi

echo "$npass $nfail" >>"$counts"
[ "$nfail" -eq 0 ]
