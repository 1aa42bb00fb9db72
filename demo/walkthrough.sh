#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The walkthrough, run as root in the guest on a tmpfs. It prints each command
# and its output, and checks what a person should see; any mismatch exits 1.
# On a stock kernel it shows the problem; with /proc/sys/fs/xattr_user_ns it
# shows namespaced capabilities working.
set -u
dir=${TMPDIR:-/tmp}/demo
mkdir -p "$dir"
cd "$dir" || exit 1
f=busybox  # a copy; run as ./busybox APPLET, so argv[0] picks no applet
cp /bin/busybox "$f"
# Owned by host uid 3000: mapped in both containers (0 1000 65536, 0 2000 65536),
# as a shared image file is.
chown 3000:3000 "$f"
bad=0

say() { printf '\n### %s\n' "$*"; }
# run CMD...: show a command and its output, keep the output in $out.
run() {
	printf '$ %s\n' "$*"
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out"
	return 0
}
# expect TEXT: the last command's output must contain TEXT.
expect() {
	case $out in
	*"$1"*) ;;
	*) echo "!!! expected to see: $1"; bad=1 ;;
	esac
}
in_ns() { nsrun -m "0 $1 65536" -- "$@"; }

if [ ! -e /proc/sys/fs/xattr_user_ns ]; then
	echo "kernel $(uname -r): stock 6.12, no namespaced xattrs"
	say "Step 1: root of a container mapped at host uid 1000 gives ./$f cap_net_raw"
	run nsrun -m "0 1000 65536" -- setcap cap_net_raw=ep "$f"
	run getcap -n "$f"
	expect "cap_net_raw=ep [rootid=1000]"
	say "The host sees one v3 value, owned by rootid 1000 (last 4 bytes, little-endian)"
	run getfattr -d -m - -e hex "$f"
	expect "security.capability=0x0100000300200000000000000000000000000000e8030000"
	say "Step 2: a second container, mapped at 2000, cannot even read it"
	run nsrun -m "0 2000 65536" -- getfattr -n security.capability "$f"
	expect "Value too large for defined data type"
	say "Step 3: if the second container sets its own capabilities, the first one loses its"
	run nsrun -m "0 2000 65536" -- setcap cap_sys_time=ep "$f"
	run getcap -n "$f"
	expect "cap_sys_time=ep [rootid=2000]"
	echo "(the first container now finds a value owned by its uid 1000, host uid 2000:"
	echo " its own cap_net_raw is gone, and the new value grants it nothing)"
	run nsrun -m "0 1000 65536" -- getcap -n "$f"
	expect "cap_sys_time=ep [rootid=1000]"
	echo
	echo "One file carries capabilities for one container mapping only."
	exit $bad
fi

# effective CMD...: run CMD (which execs ./$f) and show its effective set by name.
effective() {
	printf '$ %s\n' "$*"
	hex=$("$@" grep CapEff /proc/self/status 2>&1 | sed -n 's/^CapEff:[[:space:]]*//p')
	out=$(capsh --decode="${hex:-0}" 2>&1 | sed 's/^0x[0-9a-f]*=//')
	printf '  effective capabilities: %s\n' "${out:-none}"
}

echo "kernel $(uname -r): namespaced xattrs, fs.xattr_user_ns=$(cat /proc/sys/fs/xattr_user_ns)"
say "Step 1: two containers, one file, two values"
run nsrun -m "0 1000 65536" -- setcap cap_net_raw=ep "$f"
run nsrun -m "0 2000 65536" -- setcap cap_sys_time=ep "$f"
run nsrun -m "0 1000 65536" -- getcap "$f"
expect "$f cap_net_raw=ep"
run nsrun -m "0 2000 65536" -- getcap "$f"
expect "$f cap_sys_time=ep"
say "The host sees both raw values under their containers' keys; the host's own value is untouched"
run getfattr -d -m - -e hex "$f"
expect 'security.capability@uid\0751000=0x'
expect 'security.capability@uid\0752000=0x'
run getcap "$f"
[ -z "$out" ] || { echo "!!! expected no host capabilities"; bad=1; }
if command -v nscap >/dev/null; then
	run nscap list "$f"
	expect "cap_net_raw=ep [uid=1000]"
	expect "cap_sys_time=ep [uid=2000]"
fi

say "Step 2: the host gives the file its own capabilities; a container without a value sees them"
run setcap cap_chown=ep "$f"
run nsrun -m "0 3000 65536" -- getcap "$f"
expect "$f cap_chown=ep"

say "Step 3: one binary, three capability sets (each exec'd by a non-root uid)"
effective nsrun -m "0 1000 65536" -u 1000 -- "./$f"
expect "cap_net_raw"
effective nsrun -m "0 2000 65536" -u 1000 -- "./$f"
expect "cap_sys_time"
effective nsrun -H -u 5000 -- "./$f"
expect "cap_chown"
echo
echo "Each container's root set its own capabilities without touching the host's or each other's."
exit $bad
