# SPDX-License-Identifier: GPL-2.0
# --- real clients: fscrypt and cryptsetup LUKS2 over shared disks ------------------------
# scripts/test.sh gives the boots of a lane the same two disks (/dev/vdb for ext4 with fscrypt,
# /dev/vdc for LUKS2) in turn: test-a72 (the role "first") writes set A with sm4-neon,
# test-generic ("middle": only the kernel's templates over sm4-generic) reads A back and
# writes B, then test-max (sm4-ce, in-tree modules), test-builtin (built in) and
# test-upstream (no module of ours: upstream's C drivers), the "last" ones, each read A and B
# back from a copy of its own. The key and the checksum lists are kept in clear on the disks
# (test data).
FS_DEV=/dev/vdb
LUKS_DEV=/dev/vdc
SIZES="0 1 15 16 17 31 32 33 100 4095 4096 4097 8191 65536 100001 1048583"
NAMELENS="1 15 16 17 31 32 33 100 200 255"

have_client_disks() {
	[ -b $FS_DEV ] && [ -b $LUKS_DEV ]
}

# make_files DIR SET LIST: files of many sizes and of names of many lengths (up to 255
# bytes, the limit) in DIR, their checksums to LIST.
make_files() {
	local dir=$1 set=$2 list=$3 s n name
	for s in $SIZES; do
		head -c "$s" /dev/urandom >"$dir/$set-size-$s"
	done
	for n in $NAMELENS; do
		name=$set$(printf "%$((n - 1))s" "" | tr ' ' n)
		head -c $((n * 3)) /dev/urandom >"$dir/$name"
	done
	(cd "$dir" && sha256sum "$set"*) >"$list"
}

# check_files DIR LIST: every file of LIST reads back bit-exact in DIR.
check_files() {
	[ -s "$2" ] && (cd "$1" && sha256sum -c "$2" >/tmp/sum.out 2>&1)
}

# check_sets NAME DIR LISTDIR SET...: check_files of each SET (list LISTDIR/sums-SET), one
# result NAME-SET each.
check_sets() {
	local name=$1 dir=$2 lists=$3 set
	shift 3
	for set in "$@"; do
		if check_files "$dir" "$lists/sums-$set"; then
			pass "$name-$set"
		else
			fail "$name-$set" "$(grep -v ': OK' /tmp/sum.out | head -n 2 | tr '\n' ' ')"
		fi
	done
}

# The data sets written by the boots before one of role $1 (first: none, middle: A, last: A
# and B), and the one it writes (first: A, middle: B, last: none).
sets_before() {
	case $1 in
	middle) echo A ;;
	last) echo A B ;;
	esac
}
set_written() {
	case $1 in
	first) echo A ;;
	middle) echo B ;;
	esac
}

# The driver that fscrypt reported for its mode $1 (SM4-XTS or SM4-CBC-CTS) in this boot.
# Since Linux 6.19 or so, file contents go through blk-crypto, which without inline
# encryption hardware is blk-crypto-fallback: fscrypt logs "using blk-crypto-fallback" and
# the fallback allocated the crypto API's $2 (xts(sm4)) on first use, for good.
fscrypt_impl() {
	if klog_all | grep -q "fscrypt: $1 using blk-crypto-fallback"; then
		echo "blk-crypto-fallback:$(serving_driver "$2")"
	else
		klog_all | sed -n "s/.*fscrypt: $1 using implementation \"\(.*\)\"/\1/p" | tail -n 1
	fi
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# fscrypt_client ROLE XTS_DRIVER CTS_DRIVER: ROLE "first" makes the file system (ext4 -O
# encrypt), a v2 key and an encrypted directory (contents SM4_XTS, names SM4_CTS) and
# writes set A; "middle" reads A and writes B; "last" reads A and B. Each role checks the
# drivers fscrypt reported, and that with the key removed names are ciphertext and contents
# unreadable (then reads back again with the key added).
fscrypt_client() {
	local role=$1 want_xts=$2 want_cts=$3 mnt=/mnt/fs key id sets set impl f ok
	mkdir -p $mnt
	if [ "$role" = first ]; then
		if ! mkfs.ext4 -q -F -O encrypt -E nodiscard $FS_DEV >/tmp/mkfs.out 2>&1; then
			fail "fscrypt.mkfs" "$(tail -n 1 /tmp/mkfs.out)"
			return
		fi
	fi
	if ! mount -t ext4 $FS_DEV $mnt 2>/tmp/mount.out; then
		fail "fscrypt.$role.mount" "$(cat /tmp/mount.out)"
		return
	fi
	if [ "$role" = first ]; then
		head -c 64 /dev/urandom | bin2hex >$mnt/key.hex
		mkdir $mnt/enc
	fi
	key=$(cat $mnt/key.hex)
	if ! id=$(fscrypt add $mnt "$key" 2>/tmp/fscrypt.err); then
		fail "fscrypt.$role.add-key" "$(cat /tmp/fscrypt.err)"
		umount $mnt
		return
	fi
	if [ "$role" = first ] && ! fscrypt set $mnt/enc "$id" 2>/tmp/fscrypt.err; then
		fail "fscrypt.first.set-policy" "$(cat /tmp/fscrypt.err)"
	fi
	case $(fscrypt get $mnt/enc 2>&1) in
	"v2 7 8 "*) pass "fscrypt.$role.policy-sm4" ;;
	*) fail "fscrypt.$role.policy-sm4" "policy of the directory: $(fscrypt get $mnt/enc 2>&1)" ;;
	esac
	sets=$(sets_before $role)
	drop_caches
	check_sets "fscrypt.$role.read" $mnt/enc $mnt $sets
	set=$(set_written $role)
	if [ -n "$set" ]; then
		make_files $mnt/enc $set $mnt/sums-$set
		drop_caches
		if check_files $mnt/enc $mnt/sums-$set; then
			pass "fscrypt.$role.write-$set"
		else
			fail "fscrypt.$role.write-$set" "read back differs"
		fi
		sets="$sets $set"
	fi
	# Which drivers did the work.
	for f in "SM4-XTS $want_xts xts(sm4)" "SM4-CBC-CTS $want_cts cts(cbc(sm4))"; do
		set -- $f
		impl=$(fscrypt_impl $1 "$3")
		echo "SM4RS-INFO fscrypt $role: $1 by $impl"
		# $2 may be a pattern ("xts(*sm4-generic*)": Linux 7.3 builds cbc over ecb).
		case $impl in
		$2 | "blk-crypto-fallback:"$2) pass "fscrypt.$role.served.$1" ;;
		*) fail "fscrypt.$role.served.$1" "fscrypt used '$impl', expected '$2'" ;;
		esac
	done
	# Locked: without the key, no name in clear and no content readable.
	sync
	fscrypt remove $mnt "$id" >/dev/null 2>/tmp/fscrypt.err
	drop_caches
	ok=1
	if [ "$(fscrypt status $mnt "$id" 2>&1)" != absent ]; then
		ok=0 why="key still present after removal"
	elif ls $mnt/enc | grep -qE '^[AB](-size-|n*$)'; then
		ok=0 why="names in clear without the key: $(ls $mnt/enc | head -n 2 | tr '\n' ' ')"
	elif [ "$(ls $mnt/enc | wc -l)" -ne "$(cat $mnt/sums-* | wc -l)" ]; then
		ok=0 why="$(ls $mnt/enc | wc -l) names listed, expected $(cat $mnt/sums-* | wc -l)"
	else
		for f in $(ls $mnt/enc | head -n 5); do
			if cat "$mnt/enc/$f" >/dev/null 2>&1 && [ -s "$mnt/enc/$f" ]; then
				ok=0 why="content readable without the key ($f)"
			fi
		done
	fi
	if [ $ok = 1 ]; then pass "fscrypt.$role.locked"; else fail "fscrypt.$role.locked" "$why"; fi
	# Unlocked again: everything back.
	fscrypt add $mnt "$key" >/dev/null 2>&1
	check_sets "fscrypt.$role.unlocked" $mnt/enc $mnt $sets
	fscrypt remove $mnt "$id" >/dev/null 2>&1
	umount $mnt
}

# luks_client ROLE XTS_DRIVER: cryptsetup LUKS2 with sm4-xts-plain64 on $LUKS_DEV, the
# roles as for fscrypt_client ("first" formats: PBKDF2, few iterations, to fit the VM).
LUKS_PASS=sm4rs-test-passphrase
luks_open() {
	echo -n $LUKS_PASS | cryptsetup open --disable-locks --key-file - $LUKS_DEV sm4luks 2>/tmp/luks.err
}
luks_client() {
	local role=$1 want=$2 mnt=/mnt/luks set sets drv
	export DM_DISABLE_UDEV=1
	mkdir -p $mnt /run/cryptsetup
	[ -w /proc/sys/crypto/af_alg_restrict ] && echo 0 >/proc/sys/crypto/af_alg_restrict
	if [ "$role" = first ]; then
		if echo -n $LUKS_PASS | cryptsetup luksFormat --batch-mode --disable-locks --type luks2 \
			--cipher sm4-xts-plain64 --key-size 256 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
			--hash sha256 --key-file - $LUKS_DEV >/tmp/luks.out 2>&1; then
			pass "luks.format"
		else
			fail "luks.format" "$(tail -n 2 /tmp/luks.out | tr '\n' ' ')"
			return
		fi
		echo "SM4RS-INFO luks: $(cryptsetup luksDump $LUKS_DEV 2>&1 | grep -m1 -E 'cipher:' | tr -s ' \t' ' ')"
	fi
	if ! luks_open; then
		fail "luks.$role.open" "$(cat /tmp/luks.err)"
		return
	fi
	pass "luks.$role.open"
	drv=$(serving_driver "xts(sm4)")
	echo "SM4RS-INFO luks $role: xts(sm4) by $drv (refcnt $(crypto_field "$drv" refcnt))"
	case $drv in
	$want) pass "luks.$role.served" ;;
	*) fail "luks.$role.served" "xts(sm4) served by '$drv', expected '$want'" ;;
	esac
	if [ "$role" = first ] && ! mkfs.ext4 -q -F -E nodiscard /dev/mapper/sm4luks >/tmp/mkfs.out 2>&1; then
		fail "luks.mkfs" "$(tail -n 1 /tmp/mkfs.out)"
	fi
	if ! mount -t ext4 /dev/mapper/sm4luks $mnt 2>/tmp/mount.out; then
		fail "luks.$role.mount" "$(cat /tmp/mount.out)"
		cryptsetup close sm4luks
		return
	fi
	sets=$(sets_before $role)
	set=$(set_written $role)
	if [ -n "$set" ]; then
		make_files $mnt $set $mnt/sums-$set
		sets="$sets $set"
	fi
	# Closed and opened again: the data comes back from the disk.
	umount $mnt
	cryptsetup close sm4luks
	if ! luks_open || ! mount -t ext4 /dev/mapper/sm4luks $mnt 2>/tmp/mount.out; then
		fail "luks.$role.reopen" "$(cat /tmp/luks.err /tmp/mount.out 2>/dev/null)"
		cryptsetup close sm4luks 2>/dev/null
		return
	fi
	check_sets "luks.$role.read" $mnt $mnt $sets
	umount $mnt
	cryptsetup close sm4luks
}

# cryptsetup benchmark --cipher sm4-xts (through AF_ALG), reported in the log.
luks_benchmark() {
	if cryptsetup benchmark --cipher sm4-xts --key-size 256 >/tmp/bench.out 2>&1 &&
		grep -q 'sm4-xts' /tmp/bench.out; then
		echo "SM4RS-INFO cryptsetup benchmark: $(grep sm4-xts /tmp/bench.out | tr -s ' ')"
		pass "luks.benchmark"
	else
		fail "luks.benchmark" "$(tail -n 2 /tmp/bench.out | tr '\n' ' ')"
	fi
}
