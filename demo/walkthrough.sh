#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The walkthrough, run as root in the guest on a tmpfs. It prints each command
# and its output, and checks what a person should see; any mismatch exits 1.
# Containers are Debian's crun running OCI bundles with user-namespace
# mappings (tests/guest/crun.sh); the rootless user is util-linux's unshare
# with Debian's setuid newuidmap (tests/guest/rootless.sh). On a stock kernel
# it shows the problem; with /proc/sys/fs/xattr_user_ns it shows namespaced
# capabilities working.
set -u
dir=${TMPDIR:-/tmp}/demo
mkdir -p "$dir"
cd "$dir" || exit 1
chmod 755 "$dir"
. /tests/crun.sh
. /tests/rootless.sh
crun_setup "$dir/crun" "$dir/shared"
f=busybox  # a copy; run as ./busybox APPLET, so argv[0] picks no applet
cp /bin/busybox "$dir/shared/$f"
# Owned by host uid 3000: mapped in both containers (0 1000 65536, 0 2000 65536),
# as a shared image file is.
chown 3000:3000 "$dir/shared/$f"
cd "$dir/shared" || exit 1
RW='"rbind","rw"'
bad=0

say() { printf '\n### %s\n' "$*"; }
# run CMD...: show a command and its output, keep the output in $out.
run() {
	printf '$ %s\n' "$*"
	out=$("$@" 2>&1)
	[ -n "$out" ] && printf '%s\n' "$out"
	return 0
}
# in_ctr HOSTBASE UID CMD: show and run CMD (sh -c) with crun in a container
# mapping 0..65535 to HOSTBASE.., as its uid UID, the shared directory at
# /shared (its working directory); output in $out.
in_ctr() {
	printf '$ [crun, uidMappings 0->%s, uid %s] %s\n' "$1" "$2" "$3"
	out=$(ctr "c$1-$2" "$1" "$2" "$RW" "cd /shared && $3" 2>&1)
	[ -s "$crun_dir/c$1-$2.err" ] && out="$out$(cat "$crun_dir/c$1-$2.err")"
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
# no_plain: the last getfattr output has no plain security.capability (the
# host's own value) line.
no_plain() {
	case $out in
	*"security.capability="*) echo "!!! expected no plain (host) value"; bad=1 ;;
	esac
}
# exactly TEXT: the last output is exactly TEXT.
exactly() {
	[ "$out" = "$1" ] || { echo "!!! expected exactly: $1"; bad=1; }
}

if [ ! -e /proc/sys/fs/xattr_user_ns ]; then
	echo "kernel $(uname -r): stock 6.12, no namespaced xattrs"
	say "Step 1: root of a container mapped at host uid 1000 gives ./$f cap_net_raw"
	in_ctr 1000 0 "setcap cap_net_raw=ep $f"
	run getcap -n "$f"
	expect "cap_net_raw=ep [rootid=1000]"
	say "The host sees one v3 value, owned by rootid 1000 (last 4 bytes, little-endian)"
	run getfattr -d -m - -e hex "$f"
	expect "security.capability=0x0100000300200000000000000000000000000000e8030000"
	say "Step 2: a second container, mapped at 2000, cannot even read it"
	in_ctr 2000 0 "getfattr -n security.capability $f"
	expect "Value too large for defined data type"
	say "Step 3: if the second container sets its own capabilities, the first one loses its"
	in_ctr 2000 0 "setcap cap_sys_time=ep $f"
	run getcap -n "$f"
	expect "cap_sys_time=ep [rootid=2000]"
	echo "(the first container now finds a value owned by its uid 1000, host uid 2000:"
	echo " its own cap_net_raw is gone, and the new value grants it nothing)"
	in_ctr 1000 0 "getcap -n $f"
	expect "cap_sys_time=ep [rootid=1000]"
	echo
	echo "One file carries capabilities for one container mapping only."
	exit $bad
fi

# effective HOSTBASE: run ./$f as uid 1000 of a container mapped at HOSTBASE
# (HOSTBASE "host": as host uid 5000, no container) and show its effective
# set by name.
effective() {
	local hex
	if [ "$1" = host ]; then
		printf '$ [host uid 5000] ./%s grep CapEff /proc/self/status\n' "$f"
		out=$(nsrun -H -u 5000 -- "./$f" grep CapEff /proc/self/status 2>&1)
	else
		# The bounding set must hold what the file asks for, or exec fails.
		CRUN_BOUNDING='"CAP_NET_RAW","CAP_SYS_TIME"'
		in_ctr "$1" 1000 "./$f grep CapEff /proc/self/status" >/dev/null
		unset CRUN_BOUNDING
		printf '$ [crun, uidMappings 0->%s, uid 1000] ./%s grep CapEff /proc/self/status\n' "$1" "$f"
	fi
	hex=$(printf '%s\n' "$out" | sed -n 's/^CapEff:[[:space:]]*//p')
	out=$(capsh --decode="${hex:-0}" 2>&1 | sed 's/^0x[0-9a-f]*=//')
	printf '  effective capabilities: %s\n' "${out:-none}"
}

echo "kernel $(uname -r): namespaced xattrs, fs.xattr_user_ns=$(cat /proc/sys/fs/xattr_user_ns)"
say "Step 1: two containers, one file, two values"
in_ctr 1000 0 "setcap cap_net_raw=ep $f"
in_ctr 2000 0 "setcap cap_sys_time=ep $f"
in_ctr 1000 0 "getcap $f"
expect "$f cap_net_raw=ep"
in_ctr 2000 0 "getcap $f"
expect "$f cap_sys_time=ep"
say "The host sees both raw values under their containers' keys; the host's own value is untouched"
run getfattr -d -m - -e hex "$f"
expect 'security.capability@uid\0751000=0x'
expect 'security.capability@uid\0752000=0x'
no_plain
run getcap "$f"
[ -z "$out" ] || { echo "!!! expected no host capabilities"; bad=1; }
if command -v nscap >/dev/null; then
	run nscap list "$f"
	expect "cap_net_raw=ep [uid=1000]"
	expect "cap_sys_time=ep [uid=2000]"
fi

say "Step 2: the host gives the file its own capabilities; a container without a value sees them"
run setcap cap_chown=ep "$f"
in_ctr 3000 0 "getcap $f"
expect "$f cap_chown=ep"

say "Step 3: one binary, three capability sets (each exec'd by a non-root uid)"
effective 1000
exactly "cap_net_raw"
effective 2000
exactly "cap_sys_time"
effective host
exactly "cap_chown"

say "Step 4: a rootless user: alice (uid 1000, /etc/subuid alice:300000:65536) and unshare --map-auto"
rootless_users "$dir/home"
as alice cp /bin/busybox "$dir/home/alice/$f"
printf '$ [alice] unshare --map-auto --map-root-user setcap cap_net_raw=ep ~/%s\n' "$f"
out=$(userns alice "setcap cap_net_raw=ep $dir/home/alice/$f && getcap $dir/home/alice/$f" 2>&1)
printf '%s\n' "$out"
expect "cap_net_raw=ep"
run getfattr --absolute-names -d -m - -e hex "$dir/home/alice/$f"
expect 'security.capability@uid\0751000=0x'
no_plain
printf '$ [alice, in her namespace, as its uid 1] ~/%s grep CapEff /proc/self/status\n' "$f"
out=$(userns alice "$SETPRIV --reuid=1 --regid=1 --clear-groups $dir/home/alice/$f grep CapEff /proc/self/status" 2>&1)
printf '%s\n' "$out"
expect "0000000000002000"
printf '$ [alice on the host] ~/%s grep CapEff /proc/self/status\n' "$f"
out=$(as alice "$dir/home/alice/$f" grep CapEff /proc/self/status 2>&1)
printf '%s\n' "$out"
exactly "$(printf 'CapEff:\t0000000000000000')"
printf '$ [bob, in his namespace] getcap ~alice/%s\n' "$f"
out=$(userns bob "getcap $dir/home/alice/$f; echo end" 2>&1)
printf '%s\n' "$out"
[ "$out" = end ] || { echo "!!! expected bob's namespace to read no value"; bad=1; }
echo
echo "Each container's root, and a rootless user, set their own capabilities without"
echo "touching the host's or each other's."
exit $bad
