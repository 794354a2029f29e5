#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# modes.sh: prints the list of modes (sm4/mode_list.rs, the one declaration) for the VM
# scenarios and the AF_ALG tool, one mode per line:
#   ALGORITHM MODE KEY IV BLOCK UNIT REFERENCE OPTIONAL
# (the fields of the list's lines but the last, the NEON sections; OPTIONAL 1 for a mode behind a Kconfig symbol, a
# `#[cfg]` line before it). A line of the list it cannot read stops it, naming the line.
set -euo pipefail
list=$(dirname "$0")/../sm4/mode_list.rs
awk -v file="sm4/mode_list.rs" '
	/^ *\$m! \{$/ { inside = 1; next }
	inside && /^ *\}$/ { inside = 0; done = 1; next }
	!inside { next }
	/^ *#\[cfg\([A-Za-z0-9_]+\)\]$/ { optional = 1; next }
	{
		line = $0
		if (!sub(/^ *[A-Z][A-Za-z0-9]*: /, "", line) || line !~ /;$/) { bad = NR; exit }
		sub(/;$/, "", line)
		n = split(line, f, /, /)
		if (n != 8 || f[8] !~ /^(step|request)$/) { bad = NR; exit }
		for (i = 3; i <= 6; i++) if (f[i] !~ /^[0-9]+$/) { bad = NR; exit }
		for (i = 1; i <= 7; i += (i == 2 ? 5 : 1)) {
			if (f[i] !~ /^"[^" ]+"$/) { bad = NR; exit }
			gsub(/"/, "", f[i])
		}
		out[++count] = f[1] " " f[2] " " f[3] " " f[4] " " f[5] " " f[6] " " f[7] " " optional + 0
		optional = 0
	}
	END {
		if (bad) { printf "modes.sh: %s:%d: not a line of the list of modes\n", file, bad > "/dev/stderr"; exit 1 }
		if (!done || !count) { printf "modes.sh: %s: no list of modes found\n", file > "/dev/stderr"; exit 1 }
		for (i = 1; i <= count; i++) print out[i]
	}' "$list"
