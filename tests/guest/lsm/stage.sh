#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stage the guest into STAGE, for the kernel built by "kernel-build.sh
# patched lsm" (or debug) in KOUT: everything the stage MAIN holds (the
# kselftests, the project's guest tests, scripts/check.sh), the modules, and
# the LSM checks (issue 13, part 3).
#   stage.sh KOUT MAIN STAGE
# Three lists, one initramfs: tests/list for the default boot (AppArmor:
# the modules, MAIN's list, the LSM checks), tests/list-selinux for the boot
# with SELinux (nscaps.list=, see vm/guest-init.sh), tests/list-stock for
# stock 6.12 with the same config.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kout=$1 main=$2 stage=$3
rm -rf "$stage"
cp -a "$main" "$stage"
mkdir -p "$stage/tests/lsm" "$stage/usr/local/bin" "$stage/usr/bin" "$stage/sbin" \
	"$stage/etc/nscaps-selinux" "$stage/kselftest/filesystems"

# overlay.ko and fuse.ko with modules.dep, for modprobe in the guest.
[ -d "$kout/modules/lib/modules" ] || { echo "error: no $kout/modules (modules_install)" >&2; exit 1; }
cp -a "$kout/modules/lib" "$stage/"
# Debian's tools the checks use (initramfs.sh adds their libraries): GNU ls,
# chcon, runcon (SELinux-aware) and cat, auditctl, fuse-overlayfs.
cp /usr/bin/ls /usr/bin/chcon /usr/bin/runcon /usr/bin/cat /usr/bin/fuse-overlayfs "$stage/usr/bin/"
cp /sbin/auditctl "$stage/sbin/"
# keyctl and evmctl for the EVM check (its HMAC key, security.ima hashes).
cp /usr/bin/keyctl /usr/bin/evmctl "$stage/usr/bin/"
# Real clients (issue 14): the container tools and their tests (crun needs
# AF_UNIX, which the test config does not build).
bash "$here/../stage-tools.sh" "$stage"
cp "$here/../tools-runtime.sh" "$here/../tools-build.sh" "$stage/tests/"
cp "$here"/tap.sh "$here"/apparmor.sh "$here"/audit.sh "$here"/fuse-overlayfs.sh \
	"$here"/selinux.sh "$here"/evm.sh "$stage/tests/lsm/"

# The SELinux policy: the kernel's own dummy policy (mdp, built with the
# kernel: every class and permission this kernel knows, all allowed to
# base_t), plus reader_t, a domain that may do everything but read files of
# type y_t, and the file types x_t and y_t. checkpolicy compiles it on the
# host in a second; Debian's selinux-policy-default would need its userland
# (libselinux config, file contexts, relabelling) in the busybox guest and
# does not know this tree's classes better than mdp does.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$kout/scripts/selinux/mdp/mdp" "$tmp/policy.conf" "$tmp/file_contexts"
sed -i -e 's/^type base_t;$/type base_t;\ntype reader_t;\ntype x_t;\ntype y_t;/' \
	-e 's/^role base_r types { base_t };$/role base_r types { base_t reader_t x_t y_t };/' \
	-e 's/^allow base_t base_t:\(.*\) \*;$/allow base_t { base_t reader_t x_t y_t }:\1 *;\nallow reader_t { base_t reader_t x_t }:\1 *;/' \
	"$tmp/policy.conf"
grep -q '^allow reader_t { base_t reader_t x_t }:file \*;$' "$tmp/policy.conf" ||
	{ echo "error: mdp's policy.conf has an unexpected form" >&2; exit 1; }
# Rules go before the users (the first "user" line).
sed -i '0,/^user /s//allow reader_t y_t:file getattr;\nallow { x_t y_t } base_t:filesystem associate;\nuser /' "$tmp/policy.conf"
# Policy format 33 is the newest Linux 6.12 loads. Debian 12's checkpolicy
# (3.4) does not know the newest policy capabilities mdp enables (e.g.
# userspace_initial_context): drop each one it refuses, keep the rest.
while ! checkpolicy -c 33 -o "$stage/etc/nscaps-selinux/policy" "$tmp/policy.conf" >"$tmp/checkpolicy.log" 2>&1; do
	cap=$(sed -n "s/.*invalid policy capability name \([a-z0-9_]*\).*/\1/p" "$tmp/checkpolicy.log" | head -1)
	if [ -z "$cap" ] || ! grep -q "^policycap $cap;" "$tmp/policy.conf"; then
		cat "$tmp/checkpolicy.log" >&2
		exit 1
	fi
	echo "== SELinux policy: checkpolicy does not know policy capability $cap, left out" >&2
	sed -i "/^policycap $cap;$/d" "$tmp/policy.conf"
done

# libselinux (runcon) treats SELinux as enabled only with a config file.
mkdir -p "$stage/etc/selinux"
printf 'SELINUX=enforcing\nSELINUXTYPE=nscaps\n' >"$stage/etc/selinux/config"

{
	echo "modprobe-overlay|plain|modprobe overlay && grep '^overlay ' /proc/modules"
	echo "modprobe-fuse|plain|modprobe fuse && grep '^fuse ' /proc/modules && test -c /dev/fuse"
	echo "apparmor|tap|sh /tests/lsm/apparmor.sh"
	echo "audit|tap|sh /tests/lsm/audit.sh"
	echo "fuse-overlayfs|tap|sh /tests/lsm/fuse-overlayfs.sh"
	cat "$main/tests/list"
	echo "tools-runtime|tap|sh /tests/tools-runtime.sh"
	echo "tools-build|tap|sh /tests/tools-build.sh"
	# Last: it loads EVM's HMAC key and an IMA policy (the boot has
	# evm=fix, see check.sh).
	echo "evm|tap|sh /tests/lsm/evm.sh"
} >"$stage/tests/list"
echo "selinux|tap|sh /tests/lsm/selinux.sh" >"$stage/tests/list-selinux"
# Stock 6.12 booted with this initramfs (check.sh): EVM's check, as stock.
echo "evm|tap|EVM_STOCK=1 sh /tests/lsm/evm.sh" >"$stage/tests/list-stock"
