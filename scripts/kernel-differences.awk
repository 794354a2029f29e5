# SPDX-License-Identifier: GPL-2.0
# kernel-differences.awk: reads kernel-differences.txt (the table of differences between
# the supported kernels) for the kernel tree `tree` (a string counts in any of its files). With want=cfgs prints "--cfg NAME" for
# each difference whose newer form the tree has; with want=names, the cfg names separated by
# commas (for rustc's --check-cfg). scripts/patches.py reads the table the same way.
BEGIN { FS = " *[|] *" }
/^[ \t]*(#|$)/ { next }
{
	name = $1
	sub(/^[ \t]+/, "", name)
	names = names (names == "" ? "" : ",") name
	n = split($2, files, " ")
	found = 0
	for (i = 1; i <= n; i++) {
		f = tree "/" files[i]
		if ((getline line < f) < 0)
			continue
		do {
			if (index(line, $3)) { found = 1 }
		} while (!found && (getline line < f) > 0)
		close(f)
	}
	if (found)
		cfgs = cfgs " --cfg " name
}
END { print (want == "names" ? names : cfgs) }
