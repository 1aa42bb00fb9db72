#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fuse-overlayfs.sh - Debian's fuse-overlayfs, the overlay rootless
# containers use, mounted by a user namespace over an image directory that
# carries the host's value and a wildcard value (issue 13, part 3). TAP.
#
#  - exec through it as uid 1000 of the namespace gets the wildcard's
#    cap_net_raw (the namespace reads: own key, wildcard, then plain);
#  - the namespace's setcap through it lands under its key on the upper dir;
#  - the host gets nothing from either: exec of the lower and upper files by
#    host uid 1000 gets the host's own cap_kill, or nothing.
#
# Runs ONLY in the LSM guest (FUSE a module: modprobe fuse first), as root.
set -u
. /tests/lsm/tap.sh
FOVL=/usr/bin/fuse-overlayfs
base=${TMPDIR:?}/fuse-ovl
L=$base/lower U=$base/upper W=$base/work M=$base/mnt O=$base/out
mkdir -p "$L" "$U" "$W" "$M" "$O" && cd "$base" || exit 1
chmod 755 "$base"
capnames() { getfattr --absolute-names -d -m - -e hex "$1" 2>/dev/null | grep '^security\.capability' | sort; }

[ -x $FOVL ] || bail "$FOVL is in the guest"
echo "# $($FOVL --version 2>&1 | head -1)"
grep -q '^fuse ' /proc/modules || modprobe fuse
[ -c /dev/fuse ] || bail "/dev/fuse exists"
chmod 666 /dev/fuse # as Debian's udev rules make it

# The image: owned by the container's root, host and wildcard values set by
# host root (as a runtime prepares a shared layer).
cp /usr/sbin/capsh "$L/bin"
cp /usr/sbin/capsh "$L/bin2"
chown -R 100000:100000 "$L" "$U" "$W" "$M" "$O"
setcap cap_kill=ep "$L/bin"
setcap cap_kill=ep "$L/bin2"
check "host root sets the wildcard security.capability@uid (cap_net_raw) on lower/bin" \
	setfattr -n security.capability@uid -v $V2_NET_RAW "$L/bin"
is "host lists lower/bin's cap_kill and the wildcard's cap_net_raw" "$(capnames "$L/bin")" \
	"$(printf '%s\n' "security.capability=$V2_KILL" "security.capability@uid=$V2_NET_RAW")"

# In A, with its own mount namespace: mount, exec, setcap, exec, unmount.
cat >"$O/in-ns.sh" <<IN
$FOVL -o lowerdir=$L,upperdir=$U,workdir=$W,allow_other $M >$O/mount.log 2>&1 || exit 10
grep ' $M ' /proc/self/mounts >$O/mounts
nsrun -H -u 1000 -- $M/bin --print >$O/bin.cur 2>&1
getcap $M/bin >$O/bin.getcap 2>&1
setcap cap_net_admin=ep $M/bin2 >$O/setcap.log 2>&1
echo \$? >$O/setcap.rc
nsrun -H -u 1000 -- $M/bin2 --print >$O/bin2.cur 2>&1
umount $M
IN
nsrun -m "$A" -n -- sh "$O/in-ns.sh"
rc=$?
[ $rc = 0 ] || sed 's/^/# mount: /' "$O/mount.log"
is "A mounts fuse-overlayfs over the image and unmounts it" $rc 0
echo "# $(cat "$O/mounts" 2>/dev/null)"
head -2 "$O/bin.cur" | sed 's/^/# exec of bin: /'
is "exec of bin through it by uid 1000 of A gets the wildcard's cap_net_raw" \
	"$(sed -n 's/^Current: //p' "$O/bin.cur")" "cap_net_raw=ep"
is "A's getcap through it reads the wildcard's cap_net_raw" "$(cat "$O/bin.getcap")" "$M/bin cap_net_raw=ep"
is "A's setcap cap_net_admin on bin2 through it succeeds" "$(cat "$O/setcap.rc")" 0
sed 's/^/# setcap: /' "$O/setcap.log"
is "exec of bin2 through it by uid 1000 of A gets A's cap_net_admin" \
	"$(sed -n 's/^Current: //p' "$O/bin2.cur")" "cap_net_admin=ep"
is "the upper dir's bin2 holds A's value under A's key @uid=100000 only" "$(capnames "$U/bin2")" \
	"security.capability@uid\\075100000=$V3_NET_ADMIN_100000"
is "lower/bin2 is untouched" "$(capnames "$L/bin2")" "security.capability=$V2_KILL"
is "lower/bin is untouched" "$(capnames "$L/bin")" \
	"$(printf '%s\n' "security.capability=$V2_KILL" "security.capability@uid=$V2_NET_RAW")"

# The host gets nothing from the namespace's values.
is "host uid 1000 exec of lower/bin gets the host's cap_kill, not the wildcard's" \
	"$(cur nsrun -H -u 1000 -- "$L/bin")" "cap_kill=ep"
is "host uid 1000 exec of upper/bin2 gets nothing from A's key" \
	"$(cur nsrun -H -u 1000 -- "$U/bin2")" "="
is "host uid 1000 exec of lower/bin2 gets the host's cap_kill" \
	"$(cur nsrun -H -u 1000 -- "$L/bin2")" "cap_kill=ep"
done_testing
