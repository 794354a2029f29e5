# SPDX-License-Identifier: GPL-2.0
#
# The modules this repository builds, read from their one declaration, the Kbuild file:
#   obj-$(CONFIG_SYMBOL) += MODULE.o
#   MODULE-y := OBJECT.o ...
# One line per module, in Kbuild's order: MODULE SYMBOL OBJECT... (the objects without the
# out-of-tree build's copies of the bindgen helpers, *_helpers.o, which a kernel tree has in
# rust/helpers/). The test module is the one whose objects are under tests/.
# Used by scripts/patches.py (the kernel's Makefile in the series) and
# scripts/stage-modules.sh (what each build must hold). Fails on a module without objects.
#
# awk -f scripts/kbuild-modules.awk Kbuild

/^obj-\$\(CONFIG_[A-Z0-9_]+\) \+= [a-z0-9_-]+\.o$/ {
	sym = $1
	sub(/^obj-\$\(CONFIG_/, "", sym)
	sub(/\)$/, "", sym)
	m = $3
	sub(/\.o$/, "", m)
	order[++n] = m
	symbol[m] = sym
	next
}
/^[a-z0-9_-]+-y := / {
	m = $1
	sub(/-y$/, "", m)
	objs[m] = ""
	for (i = 3; i <= NF; i++)
		if ($i !~ /_helpers\.o$/)
			objs[m] = objs[m] " " $i
}
END {
	if (n == 0) {
		print "kbuild-modules.awk: no obj-$(CONFIG_...) += MODULE.o line in " FILENAME > "/dev/stderr"
		exit 1
	}
	for (i = 1; i <= n; i++) {
		m = order[i]
		if (objs[m] == "") {
			print "kbuild-modules.awk: " FILENAME ": no objects (" m "-y := ...) for " m > "/dev/stderr"
			exit 1
		}
		print m " " symbol[m] objs[m]
	}
}
