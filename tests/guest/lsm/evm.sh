#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# evm.sh - EVM protects a namespace's capability values as it protects the
# plain security.capability (issue 13; semantics.md, "Integrity and audit").
# TAP on stdout, exit 1 on failure.
#
# An ext4 image carries binaries with file capabilities: a plain value set by
# host root, a container's value (security.capability@uid=100000, set by the
# container's root with setcap), and none. EVM gets an HMAC key (keyctl: a
# user master key and an encrypted evm-key), IMA appraises every exec on the
# image, evmctl gives each binary its security.ima hash, and the kernel keeps
# each security.evm HMAC. Then the image is edited offline with debugfs, the
# way an attacker with the disk would: the plain value changed, a namespace's
# value changed, one added, one moved to another namespace's key, and one
# split (the container's 24-byte value cut to its first 4 bytes, the other
# 20 written as the plain value: a valid v2 value for the host, with the
# same bytes in the same order). Exec appraisal must refuse every edited
# binary and run the untouched one.
#
# EVM_STOCK=1 (a stock 6.12 kernel, same config): the plain edit is refused
# as on the patched kernel; a stock kernel knows no namespaced names, so
# their edits pass, which is what the patched kernel's points show it fixes.
#
# The guest boots with evm=fix: EVM then lets root label files that have no
# HMAC yet (and keeps their HMACs), as a distribution labels an image before
# it enforces; appraisal at exec still verifies every HMAC.
#
# Runs ONLY in a test guest with IMA appraisal and EVM built in, as root in
# the initial user namespace; needs keyctl, evmctl, mke2fs, debugfs, setcap,
# getfattr, setfattr, nsrun and a static busybox. Registered by
# tests/guest/lsm/stage.sh (the LSM guest).
set -u
LC_ALL=C
export LC_ALL
. /tests/lsm/tap.sh
stock=${EVM_STOCK:-0}
sec=/sys/kernel/security
base=${TMPDIR:?TMPDIR must be a tmpfs in the guest}/evm
img=$base/fs.img m=$base/mnt
uuid=6e736361-7073-4576-8d00-00000000e7e1
A="0 100000 65536"
rm -rf "$base"
mkdir -p "$base" "$m" || exit 1

[ -e "$sec/evm" ] || mount -t securityfs none "$sec" 2>/dev/null
[ -e "$sec/evm" ] && [ -e "$sec/ima/policy" ] || bail "securityfs has evm and ima/policy"
grep -qw evm=fix /proc/cmdline || bail "booted with evm=fix"

# The EVM HMAC key, as Documentation/security/keys/trusted-encrypted.rst
# makes one: 32 random bytes as the user master key, the encrypted key
# "evm-key" sealed with it.
head -c 32 /dev/urandom >"$base/kmk"
check "user master key kmk loaded" sh -c "keyctl padd user kmk @u <'$base/kmk' >/dev/null"
check "encrypted evm-key loaded" sh -c "keyctl add encrypted evm-key 'new default user:kmk 64' @u >/dev/null"
echo 1 >"$sec/evm" 2>"$base/evm.err"
check "EVM initialized with the HMAC key" grep -qx 1 "$sec/evm"

check "ext4 image made" /usr/sbin/mke2fs -q -F -t ext4 -I 256 -U "$uuid" "$img" 16M
check "ext4 image mounted" mount -o loop "$img" "$m" || bail "no image"

# Values to write: cap_net_raw+ep (CAP) and cap_sys_admin+ep (EDIT), as v2.
: >"$base/v"
setcap cap_net_raw+ep "$base/v" && getfattr --only-values -n security.capability "$base/v" >"$base/cap"
setcap cap_sys_admin+ep "$base/v" && getfattr --only-values -n security.capability "$base/v" >"$base/edit"
check "capability values prepared" test -s "$base/cap" -a -s "$base/edit"

# One binary per case, busybox as "true", each in a directory of its own.
for d in control plain ns nsadd nsmove split unhashed; do
	mkdir "$m/$d" && cp /bin/busybox "$m/$d/true"
done
check "host root sets a plain value" setcap cap_net_raw+ep "$m/plain/true"
chown -R 100000:100000 "$m/ns" "$m/nsmove" "$m/split"
for d in ns nsmove; do
	check "container root sets its value on $d" nsrun -m "$A" -- setcap cap_net_raw+ep "$m/$d/true"
done
if [ "$stock" = 1 ]; then
	# Stock has no translation: store the same raw name host root would see.
	for d in ns nsmove; do
		setfattr -x security.capability "$m/$d/true" 2>/dev/null
		check "host root writes the raw name on $d (stock)" \
			setfattr -n security.capability@uid=100000 -v "0x$(xxd -p "$base/cap" | tr -d '\n')" "$m/$d/true"
	done
fi
check "the container's value is stored under its key" \
	getfattr -n security.capability@uid=100000 "$m/ns/true"
# The split case: the container sends a v3 value whose data words, read
# from the second word on, form a v2 value with the effective bit and
# every permitted capability of word 0 (0x02000001, 0xffffffff, ...).
if [ "$stock" = 1 ]; then
	check "host root writes the crafted value as stored on split (stock)" \
		setfattr -n security.capability@uid=100000 -v 0x0100000301000002ffffffff00000000ff010000a0860100 "$m/split/true"
else
	check "container root sets a crafted value on split" nsrun -m "$A" -- \
		setfattr -n security.capability -v 0x0100000301000002ffffffff00000000ff01000000000000 "$m/split/true"
fi
getfattr --only-values -n security.capability@uid=100000 "$m/split/true" >"$base/split" 2>/dev/null
head -c 4 "$base/split" >"$base/split.key"
tail -c +5 "$base/split" >"$base/split.plain"
check "split's stored value is 24 bytes, its tail a v2 header" \
	sh -c "[ \$(wc -c <'$base/split') = 24 ] && [ \$(head -c 4 '$base/split.plain' | xxd -p) = 01000002 ]"
for d in control plain ns nsadd nsmove split; do
	check "evmctl ima_hash $d" evmctl ima_hash "$m/$d/true"
	check "$d has a security.evm HMAC" getfattr -n security.evm "$m/$d/true"
done

# Appraise every exec on this filesystem only (its uuid).
echo "appraise func=BPRM_CHECK fsuuid=$uuid" >"$sec/ima/policy"
check "IMA appraisal policy loaded" grep -q "fsuuid=$uuid" "$sec/ima/policy"

# runs D: the binary of case D runs; refused D: exec is refused (EACCES).
runs() { "$m/$1/true"; }
refused() {
	local rc=0
	"$m/$1/true" 2>"$base/err" || rc=$?
	[ $rc = 126 ] || { echo "# $1: exit $rc, $(cat "$base/err")"; return 1; }
}
remount() { umount "$m" && mount -o loop "$img" "$m"; }
check "remounted" remount || bail "remount failed"
for d in control plain ns nsadd nsmove split; do
	check "before the edit: $d runs" runs "$d"
done
check "appraisal is on: a binary without security.ima is refused" refused unhashed

# The offline edit, on the unmounted image.
umount "$m"
cat >"$base/edit.cmds" <<EOC
ea_set -f $base/edit /plain/true security.capability
ea_set -f $base/edit /ns/true security.capability@uid=100000
ea_set -f $base/cap /nsadd/true security.capability@uid=100000
ea_rm /nsmove/true security.capability@uid=100000
ea_set -f $base/cap /nsmove/true security.capability@uid=200000
ea_set -f $base/split.key /split/true security.capability@uid=100000
ea_set -f $base/split.plain /split/true security.capability
EOC
check "debugfs edits the image" sh -c "/usr/sbin/debugfs -w -f '$base/edit.cmds' '$img' >'$base/debugfs.log' 2>&1"
/usr/sbin/debugfs -R "ea_list /nsmove/true" "$img" 2>/dev/null | grep -q 'capability@uid=200000' ||
	flunk "debugfs moved the value of nsmove"
mount -o loop "$img" "$m" || bail "mount after the edit failed"

check "untouched binary still runs" runs control
check "plain value changed offline: exec refused" refused plain
check "namespaced value split into a plain value offline: exec refused" refused split
if [ "$stock" = 1 ]; then
	# What the series fixes: stock protects no namespaced name.
	check "stock: namespaced value changed offline: exec not refused" runs ns
	check "stock: namespaced value added offline: exec not refused" runs nsadd
	check "stock: namespaced value moved offline: exec not refused" runs nsmove
else
	check "namespaced value changed offline: exec refused" refused ns
	check "namespaced value added offline: exec refused" refused nsadd
	check "namespaced value moved to another key offline: exec refused" refused nsmove
	# The HMAC is kept up to date by the kernel: a container's new value,
	# set online, leaves the binary valid.
	chown -R 100000:100000 "$m/control"
	check "container sets a value online on a valid binary" \
		nsrun -m "$A" -- setcap cap_net_raw+ep "$m/control/true"
	check "online namespaced write keeps the binary valid" runs control
	check "remounted" remount
	check "still valid after remount" runs control
fi
umount "$m"
done_testing
