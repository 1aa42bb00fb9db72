#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# selinux.sh - security.selinux in a namespace is storage only, observed with
# SELinux enforcing a real policy (issue 13, part 3). TAP on stdout.
#
# The policy (built by tests/guest/lsm/stage.sh) is the kernel's own dummy
# policy (scripts/selinux/mdp: every class and permission of this kernel)
# plus three types: a domain reader_t that may use everything except read
# files of type y_t, and the file types x_t (readable by reader_t) and y_t.
# A container writes x_t on a y_t file: SELinux must keep deciding on y_t.
#
# Runs ONLY in the LSM guest booted with SELinux (lsm=...selinux...), as root
# in the initial user namespace, with a tmpfs at $TMPDIR.
set -u
. /tests/lsm/tap.sh
POLICY=/etc/nscaps-selinux/policy
X=user_u:object_r:x_t Y=user_u:object_r:y_t R=user_u:base_r:reader_t
# Debian's tools by absolute path (busybox's applets come first otherwise).
LS=/usr/bin/ls CHCON=/usr/bin/chcon RUNCON=/usr/bin/runcon CAT=/usr/bin/cat MKE2FS=/usr/sbin/mke2fs
base=${TMPDIR:?}/selinux
mkdir -p "$base/mnt" && cd "$base" || exit 1
m=$base/mnt
trap 'umount "$m" 2>/dev/null' EXIT

# as_reader CMD...: run CMD in the domain reader_t
as_reader() { $RUNCON "$R" "$@"; }
# reads FILE: reader_t can read FILE
reads() { as_reader $CAT "$1" >/dev/null 2>&1; }
lsz() { $LS -Z "$1" | cut -d' ' -f1; }
# nslabel MAP FILE: security.selinux as root of a namespace with MAP reads it
nslabel() { nsrun -m "$1" -- getfattr --absolute-names --only-values -h -n security.selinux "$2" 2>&1 | tr -d '\000'; }

grep -q ' /sys/kernel/security ' /proc/mounts || mount -t securityfs none /sys/kernel/security
mkdir -p /sys/fs/selinux
grep -q ' /sys/fs/selinux ' /proc/mounts || mount -t selinuxfs none /sys/fs/selinux
echo "# LSMs: $(cat /sys/kernel/security/lsm)"
case ,$(cat /sys/kernel/security/lsm), in
*,selinux,*) pass "SELinux is an active LSM (/sys/kernel/security/lsm)" ;;
*) bail "SELinux is an active LSM (/sys/kernel/security/lsm)" ;;
esac
# selinuxfs takes a policy in one write(2), as load_policy makes it.
desc="the policy loads (one write of $(wc -c <$POLICY) bytes to /sys/fs/selinux/load)"
dd if=$POLICY of=/sys/fs/selinux/load bs=4M 2>/dev/null && pass "$desc" || bail "$desc"
echo 1 >/sys/fs/selinux/enforce
is "SELinux enforcing" "$(cat /sys/fs/selinux/enforce)" 1
is "this shell runs in base_t" "$(tr -d '\000' </proc/self/attr/current)" "user_u:base_r:base_t"
is "as_reader runs in reader_t" "$(as_reader $CAT /proc/self/attr/current | tr -d '\000')" "$R"

# ext4 with labels; f labelled y_t (reader_t denied), g x_t (reader_t allowed)
dd if=/dev/zero of=img bs=1M count=8 2>/dev/null
$MKE2FS -q -t ext4 img && mount -o loop img "$m" || bail "ext4 image mounted"
echo secret >"$m/f"
echo open >"$m/g"
chown 100000:100000 "$m/f" "$m/g"
chmod 644 "$m/f" "$m/g"
check "host root labels f y_t" setfattr -n security.selinux -v "$Y" "$m/f"
check "host root labels g x_t" setfattr -n security.selinux -v "$X" "$m/g"
is "f is y_t (getfattr by host root)" "$(label "$m/f")" "$Y"
is "f is y_t (ls -Z)" "$(lsz "$m/f")" "$Y"
check "reader_t reads g (x_t)" reads "$m/g"
refuse "reader_t cannot read f (y_t)" reads "$m/f"
echo 0 >/sys/fs/selinux/enforce
check "reader_t reads f when permissive: the denial is SELinux's" reads "$m/f"
echo 1 >/sys/fs/selinux/enforce

# a container (root = host uid 100000) writes x_t on f
check "container A writes security.selinux=x_t on f" \
	nsrun -m "$A" -- setfattr -n security.selinux -v "$X" "$m/f"
# verify HOW: the in-core label, the raw names, the decisions
verify() {
	local how=$1
	names "$m/f" >names.out
	is "$how: host lists f's own y_t and A's x_t under security.selinux@uid=100000" \
		"$(cat names.out)" "$(printf '%s\n' "security.selinux=\"$Y\"" "security.selinux@uid\\075100000=\"$X\"")"
	is "$how: f's in-core label is still y_t (getfattr by host root)" "$(label "$m/f")" "$Y"
	is "$how: f's label is still y_t (ls -Z)" "$(lsz "$m/f")" "$Y"
	refuse "$how: reader_t still cannot read f" reads "$m/f"
	check "$how: reader_t still reads g" reads "$m/g"
	is "$how: A reads its own value x_t" "$(nslabel "$A" "$m/f")" "$X"
	is "$how: B (no value of its own) reads the host's y_t" "$(nslabel "$B" "$m/f")" "$Y"
	is "$how: A reads g's host label (no value of its own)" "$(nslabel "$A" "$m/g")" "$X"
}
verify "after A's write"
sync
echo 3 >/proc/sys/vm/drop_caches
verify "after drop_caches"
umount "$m"
debugfs -R "ea_list /f" img 2>/dev/null |
	sed -n 's/^  \(security\.selinux[^ ]*\) ([0-9]*) = "\([^"\\]*\).*/\1=\2/p' | sort >disk.out
is "on disk (debugfs): f holds y_t as security.selinux, A's x_t under @uid=100000" "$(cat disk.out)" \
	"$(printf '%s\n' "security.selinux=$Y" "security.selinux@uid=100000=$X")"
mount -o loop img "$m" || bail "ext4 image remounted"
verify "after umount and mount"

# the host's relabel still works, and decides
check "host root relabels f x_t (chcon)" $CHCON "$X" "$m/f"
is "f is x_t (getfattr by host root)" "$(label "$m/f")" "$X"
check "reader_t now reads f" reads "$m/f"
check "host root relabels g y_t (setfattr)" setfattr -n security.selinux -v "$Y" "$m/g"
is "g is y_t (ls -Z)" "$(lsz "$m/g")" "$Y"
refuse "reader_t now cannot read g" reads "$m/g"
is "A's own value is still there after the host's relabel" "$(nslabel "$A" "$m/f")" "$X"
is "A on g reads the host's new y_t" "$(nslabel "$A" "$m/g")" "$Y"
echo 0 >/sys/fs/selinux/enforce
done_testing
