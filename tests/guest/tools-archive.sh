#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tools-archive.sh - namespaced capabilities through GNU tar, rsync and GNU cp
# (issue 14, scenarios 1 and 2). TAP on stdout, exit 1 on failure.
#
#  1. tar in one namespace, untar in another: container A (host uids 100000+)
#     gives a binary its capabilities and archives it with GNU tar; container
#     B (200000+) extracts it. Run twice in the same boot: with
#     fs.xattr_user_ns=1 and with 0 (names not translated, as on stock 6.12),
#     the same steps, each asserting what that mode does.
#  2. host backup and restore of raw names: tar --xattrs --xattrs-include='*',
#     rsync -aX, cp -a, as host root from a tmpfs onto fresh ext4 filesystems;
#     what comes back byte for byte, and what each tool drops.
#
# Runs ONLY in a guest, as root in the initial user namespace, with a tmpfs
# at $TMPDIR, on the patched kernel (on stock 6.12, for make demo: scenario
# 1's stock half only); needs nsrun, getfattr, setfattr,
# getcap, setcap, capsh, mke2fs and Debian's /usr/bin/tar, /usr/bin/rsync,
# /usr/bin/cp (busybox has tar and cp applets too: always the absolute path).
# Registered by tests/guest/stage.sh. "tools-archive.sh 1": scenario 1 only
# (make demo, whose LSM config refuses the backup's security.evm).
set -u
LC_ALL=C
export LC_ALL
TAR=/usr/bin/tar RSYNC=/usr/bin/rsync CP=/usr/bin/cp
SYSCTL=/proc/sys/fs/xattr_user_ns
base=${TMPDIR:?TMPDIR must be a tmpfs in the guest}/tools-archive
rm -rf "$base"
mkdir -p "$base" && cd "$base" || exit 1
chmod 755 "$base"
. /tests/tap.sh
A="0 100000 65536" B="0 200000 65536"
# xa FILE [NSMAP]: every name=value (hex) of FILE, sorted, as host root or,
# with NSMAP, as root of a namespace with that map sees them. The sort makes
# dumps of one file on tmpfs and on ext4 comparable (list order differs).
xa() {
	if [ $# = 2 ]; then
		nsrun -m "$2" -- getfattr --absolute-names -h -d -m - -e hex "$1"
	else
		getfattr --absolute-names -h -d -m - -e hex "$1"
	fi 2>/dev/null | sed -e '/^# file: /d' -e '/^$/d' | sort
}
# keywords TARFILE: the xattr keywords in a tar's PAX headers, sorted, unique
keywords() { strings "$1" | grep -o 'SCHILY\.xattr\.[^=]*' | sort -u; }

# v3 values as the host reads them: rootid 100000 (a0860100), 200000 (400d0300)
V3_NET_RAW_200000=$(v3_net_raw 400d0300)
NOTE=0x66726f6d2d41 # "from-A"

echo "# kernel $(uname -r)"
for t in $TAR $RSYNC $CP; do
	[ -x "$t" ] || bail "$t is in the guest (vm/initramfs.sh)"
	echo "# $t: $($t --version 2>&1 | head -1)"
done
command -v nsrun >/dev/null || bail "nsrun is staged (tests/guest/stage.sh)"
# On a stock kernel (make demo) only scenario 1's stock half runs.
stock_kernel=0
[ -e $SYSCTL ] || stock_kernel=1
[ $stock_kernel = 1 ] || [ -w $SYSCTL ] || bail "$SYSCTL is writable"
trap '[ $stock_kernel = 1 ] || echo 1 >$SYSCTL; for m in tar taro tard rsync cp cpx src; do umount "$base/s2/$m" 2>/dev/null; done' EXIT

# ---- scenario 1: tar in container A, untar in container B --------------------
# scenario1 MODE: MODE ns (fs.xattr_user_ns=1) or stock (=0); the same steps.
scenario1() {
	m=$1
	if [ $stock_kernel = 1 ]; then
		echo "# scenario 1, $m: stock kernel $(uname -r)"
	else
		if [ "$m" = ns ]; then echo 1 >$SYSCTL; else echo 0 >$SYSCTL; fi
		echo "# scenario 1, $m: fs.xattr_user_ns=$(cat $SYSCTL)"
	fi
	d=$base/s1-$m
	mkdir -p "$d/a" "$d/b"
	cp /usr/sbin/capsh "$d/a/bin"
	chown -R 100000:100000 "$d/a"
	chown 200000:200000 "$d/b"
	setfattr -n user.note -v from-A "$d/a/bin"
	setcap cap_kill=ep "$d/a/bin" # the host's own value
	check "$m: A's root sets cap_net_raw on its binary" nsrun -m "$A" -- setcap cap_net_raw=ep "$d/a/bin"
	xa "$d/a/bin" >a.host
	if [ "$m" = ns ]; then
		file_is "$m: host sees its own cap_kill untouched and A's value under @uid=100000" a.host \
			"security.capability=$V2_KILL" \
			"security.capability@uid\\075100000=$V3_NET_RAW_100000" \
			"user.note=$NOTE"
	else
		file_is "$m: A's write replaced the host's cap_kill by a v3 value of rootid 100000 (clobbered)" a.host \
			"security.capability=$V3_NET_RAW_100000" "user.note=$NOTE"
	fi
	nsrun -m "$A" -- getcap "$d/a/bin" >out
	file_is "$m: A reads its own cap_net_raw" out "$d/a/bin cap_net_raw=ep"
	cur nsrun -H -u 1000 -- "$d/a/bin" >out
	if [ "$m" = ns ]; then
		file_is "$m: exec by host uid 1000 still gets the host's cap_kill" out "cap_kill=ep"
	else
		file_is "$m: exec by host uid 1000 gets nothing: the host's cap_kill is gone" out "="
	fi

	check "$m: GNU tar --xattrs -c in A exits 0" \
		nsrun -m "$A" -- sh -c "cd '$d/a' && $TAR --xattrs -cf img.tar bin"
	keywords "$d/a/img.tar" >out
	file_is "$m: A's archive holds A's names only: security.capability and user.note, no @uid" out \
		SCHILY.xattr.security.capability SCHILY.xattr.user.note
	paxval "$d/a/img.tar" security.capability 21 >out
	file_is "$m: A's archive holds cap_net_raw=ep as a 20-byte v2 value (rootid 0: portable), byte for byte" out "${V2_NET_RAW}0a"

	# B extracts three times: tar's default, security.* only, everything.
	for x in dflt sec all; do
		case $x in
		dflt) inc= ;;
		sec) inc="--xattrs-include='security.*'" ;;
		all) inc="--xattrs-include='*'" ;;
		esac
		check "$m: GNU tar --xattrs $inc -x in B exits 0" \
			nsrun -m "$B" -- sh -c "mkdir '$d/b/$x' && cd '$d/b/$x' && $TAR --xattrs $inc -xf '$d/a/img.tar'"
	done
	xa "$d/b/dflt/bin" >out
	file_is "$m: tar -x --xattrs without --xattrs-include restores user.* only" out "user.note=$NOTE"
	if [ "$m" = ns ]; then
		B_CAP="security.capability@uid\\075200000=$V3_NET_RAW_200000"
	else
		B_CAP="security.capability=$V3_NET_RAW_200000"
	fi
	xa "$d/b/sec/bin" >out
	file_is "$m: --xattrs-include='security.*' restores the capability and drops user.*" out "$B_CAP"
	xa "$d/b/all/bin" >out
	if [ "$m" = ns ]; then
		file_is "$m: host sees B's value under B's key @uid=200000 only, no plain value" out "$B_CAP" "user.note=$NOTE"
	else
		file_is "$m: B's value is the plain name, v3 rootid 200000" out "$B_CAP" "user.note=$NOTE"
	fi
	nsrun -m "$B" -- getcap "$d/b/all/bin" >out
	file_is "$m: B reads A's capabilities as its own" out "$d/b/all/bin cap_net_raw=ep"
	cur nsrun -m "$B" -u 1000 -- "$d/b/all/bin" >out
	file_is "$m: exec by uid 1000 in B gets cap_net_raw" out "cap_net_raw=ep"
	cur nsrun -H -u 1000 -- "$d/b/all/bin" >out
	file_is "$m: exec of B's copy by host uid 1000 gets nothing" out "="
	xa "$d/a/bin" >out
	same "$m: A's file after B's extraction: every raw name and value unchanged" out a.host
	nsrun -m "$A" -- getcap "$d/a/bin" >out
	file_is "$m: A still reads its own cap_net_raw" out "$d/a/bin cap_net_raw=ep"
}
if [ $stock_kernel = 1 ]; then
	scenario1 stock
	done_testing
	exit
fi
scenario1 ns
scenario1 stock
echo 1 >$SYSCTL
if [ "${1:-}" = 1 ]; then
	done_testing
	exit
fi

# ---- scenario 2: host backup and restore of raw names --------------------------
echo "# scenario 2: fs.xattr_user_ns=$(cat $SYSCTL), host root"
s=$base/s2
mkdir -p "$s/src"
mount -t tmpfs -o mode=755 src "$s/src" || bail "mount a tmpfs for the source tree"
t=$s/src/tree
mkdir -p "$t/dir"
cp /usr/sbin/capsh "$t/bin"
: >"$t/empty"
: >"$t/other"
chown -R 100000:100000 "$t"
setcap cap_kill=ep "$t/bin"
nsrun -m "$A" -- setcap cap_net_raw=ep "$t/bin"
nsrun -m "$A" -- setcap cap_net_raw=ep "$t/empty"
for f in "$t/bin" "$t/dir"; do
	setfattr -n 'security.capability@uid=200000' -v $V2_NET_ADMIN "$f"
	setfattr -n 'security.capability@uid' -v $V2_CHOWN "$f"
	setfattr -n user.note -v from-A "$f"
	setfattr -n 'user.a=b%c' -v 0x00ff "$f"
	setfattr -n trusted.t -v 0x01 "$f"
done
setfattr -n 'security.capability@uid=100000' -v $V2_NET_RAW "$t/dir"
# tree/other: names the tools treat apart. An access ACL (user::rw-
# user:1000:r-- group::r-- mask::r-- other::r--) and security.evm, which
# /etc/xattr.conf skips. Its value is of type 5, a portable signature: the
# one type EVM lets userspace write (with no EVM key loaded, as in Debian's
# cloud-amd64 kernel booted by deb-boot.sh); without EVM it is any value.
ACL=0x0200000001000600ffffffff02000400e803000004000400ffffffff10000400ffffffff20000400ffffffff
setfattr -n system.posix_acl_access -v $ACL "$t/other"
setfattr -n security.evm -v 0x0502 "$t/other"
setfattr -n user.note -v from-A "$t/other"
FILES="tree/bin tree/empty tree/dir tree/other"
for f in $FILES; do xa "$s/src/$f" >"$s/${f#tree/}.src"; done
file_is "source: tree/bin carries the plain value, three @uid names, user.* and trusted.*" "$s/bin.src" \
	"security.capability=$V2_KILL" \
	"security.capability@uid=$V2_CHOWN" \
	"security.capability@uid\\075100000=$V3_NET_RAW_100000" \
	"security.capability@uid\\075200000=$V2_NET_ADMIN" \
	"trusted.t=0x01" "user.a\\075b%c=0x00ff" "user.note=$NOTE"
file_is "source: tree/empty carries A's value only" "$s/empty.src" \
	"security.capability@uid\\075100000=$V3_NET_RAW_100000"
file_is "source: tree/other carries an ACL, security.evm and user.note" "$s/other.src" \
	"security.evm=0x0502" "system.posix_acl_access=$ACL" "user.note=$NOTE"
(cd "$s/src" && getfattr -R -h -d -m - -e hex tree >"$s/dump.txt" 2>/dev/null)

# fresh FSNAME: a new ext4 filesystem on a loop device at $s/FSNAME.
# Debian's mke2fs by absolute path: busybox sh prefers its own applets
# (mke2fs, tar, cp) to programs on PATH.
fresh() {
	rm -f "$s/$1.img" && : >"$s/$1.img" && mkdir -p "$s/$1" || return 1
	if ! /usr/sbin/mke2fs -q -F -t ext4 -I 256 -O ^has_journal "$s/$1.img" 16M >"$s/mkfs.log" 2>&1; then
		sed 's/^/# mke2fs: /' "$s/mkfs.log"
		return 1
	fi
	mount -o loop "$s/$1.img" "$s/$1"
}
# restored WHAT FSNAME FILE DROP: FILE's names and values on FSNAME are the
# source's byte for byte, less the lines matching the regex DROP ('' drops
# nothing); a mismatch prints both.
restored() {
	local what=$1 fs=$2 f=$3 drop=$4 desc
	if [ -e "$s/$fs/$f" ]; then xa "$s/$fs/$f" >"$s/got"; else echo "$f: missing" >"$s/got"; fi
	if [ -n "$drop" ]; then
		grep -Ev "$drop" "$s/${f#tree/}.src" >"$s/want"
		desc="$f: every name back byte for byte except $drop"
	else
		cp "$s/${f#tree/}.src" "$s/want"
		desc="$f: every name back byte for byte"
	fi
	EMPTY_OK=1 same "$what: $desc" "$s/got" "$s/want"
}

# -- GNU tar
check "tar --xattrs --xattrs-include='*' -c as host root exits 0" \
	sh -c "cd '$s/src' && $TAR --xattrs --xattrs-include='*' -cf '$s/backup.tar' tree"
keywords "$s/backup.tar" >out
file_is "tar archive: every raw name, '=' written %3D and '%' written %25 in the PAX keyword" out \
	SCHILY.xattr.security.capability \
	SCHILY.xattr.security.capability@uid \
	SCHILY.xattr.security.capability@uid%3D100000 \
	SCHILY.xattr.security.capability@uid%3D200000 \
	SCHILY.xattr.security.evm \
	SCHILY.xattr.system.posix_acl_access \
	SCHILY.xattr.trusted.t \
	SCHILY.xattr.user.a%3Db%25c \
	SCHILY.xattr.user.note
if fresh tar; then
	check "tar --xattrs --xattrs-include='*' -x onto a fresh ext4 exits 0" \
		sh -c "cd '$s/tar' && $TAR --xattrs --xattrs-include='*' -xf '$s/backup.tar'"
	# A directory gets every name after its chown: its @uid=K names come
	# back, so %3D decodes. A regular file gets every name but the exact
	# "security.capability" before its data and its chown, whose killpriv
	# then drops every security.capability@uid* name.
	restored "tar -x --xattrs-include='*'" tar tree/dir ''
	restored "tar -x --xattrs-include='*' (killpriv after tar set them)" tar tree/bin '^security\.capability@'
	restored "tar -x --xattrs-include='*' (no data: tar's chown drops it)" tar tree/empty '^security\.capability@'
	restored "tar -x --xattrs-include='*'" tar tree/other ''
	check "setfattr --restore of a getfattr dump taken at backup time exits 0" \
		sh -c "cd '$s/tar' && setfattr -h --restore='$s/dump.txt'"
	for f in $FILES; do restored "tar -x, then setfattr --restore" tar $f ''; done
	umount "$s/tar"
else
	flunk "tar: make and mount a fresh ext4 filesystem"
fi
if fresh taro; then
	# Without tar's chown: the empty file keeps its @uid name, the binary
	# still loses them to the write of its data.
	check "tar --xattrs --xattrs-include='*' --no-same-owner -x onto a fresh ext4 exits 0" \
		sh -c "cd '$s/taro' && $TAR --xattrs --xattrs-include='*' --no-same-owner -xf '$s/backup.tar'"
	restored "tar -x --no-same-owner (the data write's killpriv)" taro tree/bin '^security\.capability@'
	restored "tar -x --no-same-owner (no data, no chown: nothing drops it)" taro tree/empty ''
	restored "tar -x --no-same-owner" taro tree/dir ''
	umount "$s/taro"
else
	flunk "tar: make and mount a fresh ext4 filesystem"
fi
if fresh tard; then
	check "tar --xattrs -x (no --xattrs-include) onto a fresh ext4 exits 0" \
		sh -c "cd '$s/tard' && $TAR --xattrs -xf '$s/backup.tar'"
	for f in $FILES; do restored "tar -x --xattrs (user.* only)" tard $f '^(security|system|trusted)\.'; done
	umount "$s/tard"
else
	flunk "tar: make and mount a fresh ext4 filesystem"
fi

# -- rsync. It connects its processes with socketpair(AF_UNIX) even for a
# local copy; without CONFIG_UNIX in the guest kernel, a preloaded shim gives
# it pipes instead (tests/guest/socketpair-pipe.c; a no-op where AF_UNIX works).
SHIM=/usr/local/lib/socketpair-pipe.so
[ -e /proc/net/unix ] || echo "# no AF_UNIX in this kernel: rsync runs with LD_PRELOAD=$SHIM"
if fresh rsync; then
	check "rsync -aX --numeric-ids as host root onto a fresh ext4 exits 0" \
		env LD_PRELOAD=$SHIM $RSYNC -aX --numeric-ids "$s/src/tree" "$s/rsync/"
	for f in tree/bin tree/empty tree/dir; do restored "rsync -aX" rsync $f ''; done
	restored "rsync -aX (system.* is not an xattr to rsync; -A copies ACLs)" rsync tree/other '^system\.'
	umount "$s/rsync"
else
	flunk "rsync: make and mount a fresh ext4 filesystem"
fi

# -- GNU cp
if fresh cp; then
	check "cp -a as host root onto a fresh ext4 exits 0" $CP -a "$s/src/tree" "$s/cp/"
	for f in tree/bin tree/empty tree/dir; do restored "cp -a" cp $f ''; done
	restored "cp -a (/etc/xattr.conf: security.evm skip)" cp tree/other '^security\.evm='
	umount "$s/cp"
else
	flunk "cp: make and mount a fresh ext4 filesystem"
fi
if fresh cpx; then
	check "cp -r --preserve=xattr as host root onto a fresh ext4 exits 0" \
		$CP -r --preserve=xattr "$s/src/tree" "$s/cpx/"
	for f in tree/bin tree/empty tree/dir; do restored "cp --preserve=xattr" cpx $f ''; done
	restored "cp --preserve=xattr (security.evm skipped; the ACL goes with the mode)" cpx tree/other '^(security\.evm|system\.posix_acl_access)='
	umount "$s/cpx"
else
	flunk "cp: make and mount a fresh ext4 filesystem"
fi
$CP --preserve=context "$s/src/tree/bin" "$s/ctx" >out 2>&1
rc=$?
sed 's/^/# cp --preserve=context: /' out
check "cp --preserve=context without SELinux in the kernel refuses (exit 1)" \
	sh -c '[ "$1" = 1 ] && grep -q "SELinux" "$2"' - $rc out

umount "$s/src"
cd / && rm -rf "$base"
done_testing
