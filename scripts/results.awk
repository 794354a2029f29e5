# SPDX-License-Identifier: GPL-2.0
# results.awk: reads the console log of a test VM (scripts/vm.sh) and prints one line per
# result, "PASS|FAIL|SKIP|NOT RUN [tag] name (why)", then appends "<pass> <fail>" to the file
# counts. A KUnit case skipped is "SKIP" (not applicable here: a driver not loaded, a CPU
# without AES); a check of the scenario that it marks skipped is "NOT RUN" (it could not run:
# a tool it needs could not be built), never a pass.
# Exit status: 0 if nothing failed. Variables (awk -v): tag, the prefix of every line;
# qemu_rc, qemu's exit status; counts, the file of counts; durations, a file that gets the
# seconds each result of the scenario took ("<seconds> <name>": from the result before it, or
# the scenario's start, to it; the scenario prints the guest's uptime after each result);
# kunit_filter, the boot's kunit.filter_glob if it had one (the suites it leaves out need
# not run).
#
# The results are KTAP (Documentation/dev-tools/ktap.rst), the scenario's (tests/vm/lib/common.sh)
# and KUnit's alike; around them, the kernel log is checked for anything reported broken.

BEGIN {
	if (counts == "") counts = "/dev/null"; if (durations == "") durations = "/dev/null"
	# What the kernel prints when something is broken: oopses, BUG()s, WARN()s, sanitizers,
	# lockdep (its WARNINGs, and its INFO reports, after which it checks nothing more), hung
	# tasks and RCU stalls (INFO), kCFI, kmemleak, any other stack dump ("Call trace:", but
	# in a warning a test provoked on purpose, below), and messages the console lost.
	BAD = "Oops|BUG:|WARNING:|Kernel panic|KASAN|UBSAN|possible circular locking|Unable to handle kernel|cut here|scheduling while atomic|INFO: |rcu_sched self-detected stall|CFI failure|kmemleak: [0-9]+ new suspected|locking correctness validator|Call trace:|messages dropped"
}

# Whether the WARNING line is raised in one of the functions of sites ("f|g").
function at_site(line, sites,   n, f, i) {
	n = split(sites, f, "|")
	for (i = 1; i <= n; i++) if (index(line, " " f[i] "+0x")) return 1
	return 0
}
function note_bad(line) { if (nbad < 20) bad[++nbad] = line }
function result(ok, name, why) {
	if (ok) { npass++; printf "PASS %s %s\n", tag, name }
	else { nfail++; printf "FAIL %s %s%s\n", tag, name, (why != "" ? " (" why ")" : "") }
}
# A result of the scenario: numbered 1, 2, ... without a gap, each name once.
function scenario_result(ok, num, name, why, skipped) {
	if (num != nscenario + 1 && !gap) {
		result(0, "vm.ktap-sequence", "result " num " (" name ") follows result " nscenario ": a result line was lost")
		gap = 1
	}
	nscenario = num
	if (skipped) { printf "NOT RUN %s %s%s\n", tag, name, (why != "" ? " (" why ")" : ""); return }
	result(ok, name, why)
	# A name reported twice would hide one of its results.
	if (name in reported) result(0, name ".unique", "two results of this name")
	reported[name] = 1
	if (ok && name ~ /^load\./) loaded[substr(name, 6)] = 1
	if (ok && name ~ /^builtin\./) loaded[substr(name, 9)] = 1
}
# A result of KUnit at this indentation: a case of the subtest open at it, if any; the
# result of every subtest open deeper (which it closes). Only the suites of this project
# (sm4*) count, not those built into the kernel.
function kunit_result(ok, indent, name, why, skipped,   d, path, suite) {
	for (d in open_at) {
		if (d + 0 <= indent) continue
		# A suite that failed as a whole with no case failing (its init, say).
		if (open_at[d] ~ /^sm4/ && !ok && !failed_in[open_at[d]])
			result(0, "kunit." open_at[d] ".suite", "KUnit reported the suite failed" (why != "" ? ": " why : ""))
		delete open_at[d]
	}
	if (!(indent in open_at)) return
	path = ""; suite = ""
	for (d = 4; d <= indent; d += 4) {
		if (!(d in open_at)) return
		path = path "." open_at[d]
		if (suite == "") suite = open_at[d]
	}
	if (suite !~ /^sm4/) return
	suites[suite] = 1
	if (skipped) { printf "SKIP %s kunit%s.%s\n", tag, path, name; return }
	result(ok, "kunit" path "." name, ok ? "" : "KUnit reported failure")
	if (ok) ran[suite]++
	else failed_in[suite] = 1
}
# Kernel timestamps (printk.time=1) are not part of the messages, but they tell the
# kernel's lines (KUnit's among them) from the scenario's (the shell's standard output);
# the last one and the last line of the scenario say where a guest that did not finish was.
{ kernel = 0 }
match($0, /^\[ *[0-9]+\.[0-9]+\] /) { kernel = 1; stamp = substr($0, 2, RLENGTH - 3); sub(/^ */, "", stamp) }
{ sub(/^\[ *[0-9]+\.[0-9]+\] /, "") }
!kernel && NF { last = substr($0, 1, 120) }
NR == 1 { first = $0 }
/Linux version [0-9]/ { booted = 1 }
!kernel && /^# SM4RS-BEGIN / { begun = 1 }
!kernel && /^# SM4RS-END / { ended = 1; announced = $3 + 0 }
# The guest's uptime at the scenario's start and after each of its results.
!kernel && /^# at [0-9.]+$/ {
	if (at != "" && last_result != "") printf "%.1f %s\n", $NF - at, last_result >> durations
	at = $NF; last_result = ""
	next
}
# KTAP (Documentation/dev-tools/ktap.rst), the one result format of both: the scenario
# prints one document of results, KUnit one per module of suites, each suite a subtest
# ("# Subtest: <suite>", then its cases indented, then the suite's own result).
/^ *# Subtest: / { open_at[index($0, "#") - 1] = $NF; next }
/^ *(not )?ok [0-9]+( |$)/ {
	# (A kernel line the console glued to a result would be read as part of it.)
	if ($0 ~ BAD) note_bad($0)
	indent = match($0, /[^ ]/) - 1
	line = substr($0, indent + 1)
	ok = (line !~ /^not /); sub(/^(not )?ok /, "", line)
	num = line + 0; sub(/^[0-9]+ */, "", line)
	desc = line; diag = ""
	if (i = index(line, "#")) { desc = substr(line, 1, i - 1); diag = substr(line, i + 1); sub(/^ */, "", diag) }
	sub(/ *$/, "", desc)
	skipped = (diag ~ /^SKIP( |$)/); if (skipped) sub(/^SKIP */, "", diag)
	if (!kernel) { scenario_result(ok, num, desc, diag, skipped); last_result = desc }
	else kunit_result(ok, indent, desc, diag, skipped)
	next
}
/# .*check failed at |    # left: |    # right: / { print "     " $0 }
# Kernel warnings that a test provokes on purpose are announced by the test with the
# function that warns (or functions: "f|g") and how many times at most
# ("SM4RS-EXPECT-WARN-BEGIN <max> <function> <why>"): those are counted apart (their "cut here"/"end trace" lines too);
# any other warning between the markers, or one too many, fails like any other.
/SM4RS-EXPECT-WARN-BEGIN/ {
	i = index($0, "SM4RS-EXPECT-WARN-BEGIN ")
	split(substr($0, i + 24), w, " ")
	expecting = 1; expect_max = w[1] + 0; expect_site = w[2]; expect_seen = 0
	next
}
/SM4RS-EXPECT-WARN-END/ { expecting = 0; next }
# ("cut here" comes first: the WARNING line after it decides.)
expecting && /cut here/ { next }
expecting && /WARNING:/ && expect_seen < expect_max && at_site($0, expect_site) {
	expect_seen++; nexpected++; in_expected = 1; next
}
/WARNING:/ { in_expected = 0 }
expecting && in_expected && /end trace/ { in_expected = 0; next }
# (The stack of a warning provoked on purpose; anything else in it still counts.)
expecting && in_expected && /Call trace:/ { next }
# Anything the kernel reports as broken fails the run.
$0 ~ BAD { note_bad($0) }
END {
	# The suites of each module: if sm4_kunit was loaded (or built in), each of the
	# suites of every module loaded must have run cases, not only skipped them. A suite
	# of this project that is not in this table fails: none goes unchecked.
	suites_of["sm4_generic"] = "sm4_generic"
	suites_of["sm4_ce"] = "sm4_ce sm4_ce_cipher sm4_ce_mac"
	suites_of["sm4_neon"] = "sm4_neon sm4_neon_variants"
	suites_of["sm4_kunit"] = "sm4_abstraction"
	suites_of["sm4_ce_gcm"] = "sm4_ce_gcm"
	suites_of["sm4_ce_ccm"] = "sm4_ce_ccm"
	for (m in suites_of) { n = split(suites_of[m], l, " "); for (i = 1; i <= n; i++) known[l[i]] = 1 }
	for (s in suites)
		if (!(s in known)) result(0, "kunit." s ".known", "a suite the runner does not check")
	# (kunit.filter_glob's suite part as a regular expression: * and ? of the glob.)
	filter = kunit_filter; sub(/\..*/, "", filter)
	gsub(/\*/, ".*", filter); gsub(/\?/, ".", filter); filter = "^" (filter == "" ? ".*" : filter) "$"
	for (m in loaded) {
		if (!("sm4_kunit" in loaded)) break
		s = m; gsub(/-/, "_", s)
		if (!(s in suites_of)) continue
		n = split(suites_of[s], l, " ")
		for (i = 1; i <= n; i++)
			if (l[i] ~ filter)
				result(ran[l[i]] > 0, "kunit." l[i] ".ran", ran[l[i]] > 0 ? "" : "no case of this suite ran")
	}
	if (ended && announced != nscenario)
		result(0, "vm.ktap-count", "the scenario printed " announced " results, " nscenario " were read")
	# (After the scenario's end the guest still syncs its disks and powers off: qemu must
	# then exit 0, not time out or crash.)
	qemu_ok = (qemu_rc "" == "" || qemu_rc + 0 == 0)
	qemu_said = "qemu exit " qemu_rc (qemu_rc == 124 ? ", timeout" : "")
	result(begun && ended && qemu_ok, "vm.completed",
		!begun ? "guest never started" : !ended ? "guest did not finish (" qemu_said \
		"; last kernel time " stamp " s; last line: " last ")" : \
		qemu_ok ? "" : "the scenario ended, then the guest did not power off (" qemu_said ")")
	# A log that was never written is not a clean log.
	if (!booted) {
		result(0, "kernel.log-clean", "no kernel log: the kernel never booted" (first != "" ? "; qemu said: " first : ""))
	} else
		result(nbad == 0, "kernel.log-clean", nbad ? bad[1] : "")
	for (i = 2; i <= nbad; i++) print "     " bad[i]
	if (nexpected) printf "     (%d kernel warnings provoked on purpose by tests, at the functions they named)\n", nexpected
	printf "%d %d\n", npass, nfail >> counts
	exit nfail != 0
}
