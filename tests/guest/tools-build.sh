#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tools-build.sh - a rootless image build with Debian's buildah (issue 14,
# scenario 5). TAP on stdout, exit 1 on failure.
#
# alice, an unprivileged user with subordinate ids, builds an image offline
# from a local directory with buildah (--storage-driver vfs, --isolation
# chroot), whose Containerfile runs setcap cap_net_raw=ep on a binary, and
# exports it as an OCI archive. The test reads what the layer carries, then
# bob, a second unprivileged user, runs the image as a non-root uid of his
# own namespace. Run twice in the same boot: with fs.xattr_user_ns=1, and
# with 0 (names not translated, as on stock 6.12), each asserting what that
# mode gives.
#
# Runs ONLY in a guest with the LSM guest's config, as root in the initial
# user namespace, with a tmpfs at $TMPDIR, on the patched kernel (or on stock
# 6.12, for make demo: the stock half only); needs Debian's buildah, its
# containers-common configuration, newuidmap, newgidmap, setpriv (staged
# by tests/guest/lsm/stage.sh, with the build context's root: busybox,
# setcap, capsh and their libraries).
set -u
LC_ALL=C
export LC_ALL
. /tests/tap.sh
. /tests/rootless.sh
# buildah USER ARG...: buildah as USER, with vfs storage in USER's home and a
# runtime directory and TMPDIR of USER's (as a login session has)
buildah() {
	local u=$1 rt
	shift
	rt=$(user_home "$u")
	as "$u" mkdir -p -m 700 "$rt/run" "$rt/tmp"
	as "$u" env XDG_RUNTIME_DIR="$rt/run" TMPDIR="$rt/tmp" /usr/bin/buildah --storage-driver vfs "$@"
}
SYSCTL=/proc/sys/fs/xattr_user_ns
# The guest's kernel has no seccomp: build and the working container go
# without a filter (buildah build and buildah from take the option).
NOSECCOMP="--security-opt seccomp=unconfined"
base=${TMPDIR:?TMPDIR must be a tmpfs in the guest}/tools-build
rm -rf "$base"
mkdir -p "$base" && cd "$base" || exit 1
chmod 755 "$base"
# buildah keeps big temporary files in /var/tmp, which the initramfs lacks.
mkdir -p -m 1777 /var/tmp
echo "# scenario 5: $(/usr/bin/buildah --version)"

# copies_hold DIR USER NAMES: true if USER's vfs storage under DIR/home has
# copies of bin/x, each with exactly NAMES (capnames), each giving USER on
# the host, outside the namespace, nothing
copies_hold() {
	local f k=0 out id bad=0
	id=$(user_id "$2")
	for f in $(find "$1/home/$2/.local/share/containers/storage/vfs/dir" -path '*/bin/x' 2>/dev/null); do
		k=$((k + 1))
		out=$(capnames "$f")
		[ "$out" = "$3" ] || { bad=1; echo "#   $f: '$out'"; }
		out=$(cur nsrun -H -u "$id" -- "$f")
		[ "$out" = "=" ] || { bad=1; echo "#   $f: run by $2 on the host: '$out'"; }
	done
	[ $k -gt 0 ] || { bad=1; echo "#   no bin/x in $2's storage"; }
	[ $bad = 0 ]
}

# scenario MODE ALICE WHAT BOB WHAT: alice builds and exports, bob runs;
# MODE ns or stock; ALICE and BOB: capnames of bin/x in their storage
scenario() {
	local m=$1 d=$base/$1 ctx f out
	rootless_users "$d/home"
	ctx=$d/home/alice/ctx
	mkdir -p "$ctx"
	cp -a /tests/build-rootfs "$ctx/rootfs"
	cp "$ctx/rootfs/usr/sbin/capsh" "$ctx/rootfs/bin/x"
	printf 'FROM scratch\nCOPY rootfs/ /\nRUN /usr/sbin/setcap cap_net_raw=ep /bin/x\n' \
		>"$ctx/Containerfile"
	chown -R 1000:1000 "$ctx"
	runs "$m: alice's rootless buildah build with RUN setcap exits 0" "$d/build.out" \
		buildah alice build --isolation chroot $NOSECCOMP -q -t localhost/capimg -f "$ctx/Containerfile" "$ctx"
	# Her storage: the value RUN setcap wrote in her namespace.
	check "$m: every copy of bin/x in alice's storage holds $3; alice on the host gets nothing from it" \
		copies_hold "$d" alice "$2"
	runs "$m: buildah push to an OCI archive exits 0" "$d/push.out" \
		buildah alice push -q localhost/capimg "oci-archive:$d/home/alice/capimg.tar"
	# The layers: which xattrs they carry, and bin/x's value.
	mkdir -p "$d/oci" && tar -xf "$d/home/alice/capimg.tar" -C "$d/oci"
	: >"$d/layer.xattrs"
	for f in "$d"/oci/blobs/sha256/*; do
		gzip -dc "$f" 2>/dev/null >"$d/l.tar" || cp "$f" "$d/l.tar"
		tar -tf "$d/l.tar" >/dev/null 2>&1 || continue
		strings "$d/l.tar" | grep -o 'SCHILY\.xattr\.[^=]*' >>"$d/layer.xattrs"
		grep -q 'SCHILY.xattr.security.capability=' "$d/l.tar" && cp "$d/l.tar" "$d/caps.tar"
	done
	is "$m: the layers carry security.capability and no other xattr" \
		"$(sort -u "$d/layer.xattrs")" "SCHILY.xattr.security.capability"
	# 20 bytes, then the record's newline: v2, no rootid, any user's.
	is "$m: the layer's value is v2 cap_net_raw=ep (no rootid: it works for any user)" \
		"$(paxval "$d/caps.tar" security.capability 21)" "${V2_NET_RAW}0a"
	# bob: the image from the archive, run as a non-root uid of his namespace.
	cp "$d/home/alice/capimg.tar" "$d/home/bob/capimg.tar"
	chown 1001:1001 "$d/home/bob/capimg.tar"
	out=$(buildah bob from $NOSECCOMP -q --name c "oci-archive:$d/home/bob/capimg.tar" 2>&1)
	is "$m: bob's buildah from of the archive exits 0" "$out" c
	# containers.conf's default capabilities leave out NET_RAW: without it
	# in the bounding set, exec of a file asking for it fails (EPERM).
	buildah bob run --isolation chroot --cap-add CAP_NET_RAW --user 1000:1000 c -- \
		/bin/x --print >"$d/run.out" 2>&1
	out=$(sed -n 's/^Current: //p' "$d/run.out")
	is "$m: bob's image run as uid 1000 of his namespace has CAP_NET_RAW" "$out" "cap_net_raw=ep"
	[ "$out" = cap_net_raw=ep ] || sed 's/^/#   /' "$d/run.out"
	check "$m: every copy in bob's storage holds $5; bob on the host gets nothing from it" \
		copies_hold "$d" bob "$4"
}

if [ ! -e "$SYSCTL" ]; then
	# Stock 6.12 itself (make demo): what users get there today.
	scenario stock "security.capability=$(v3_net_raw e8030000)" "a plain v3 value of rootid 1000" \
		"security.capability=$(v3_net_raw e9030000)" "a plain v3 value of rootid 1001"
	done_testing
	exit
fi
[ -w "$SYSCTL" ] || bail "$SYSCTL is writable"
echo 1 >"$SYSCTL"
scenario ns "security.capability@uid\\0751000=$(v3_net_raw e8030000)" "alice's key 1000" \
	"security.capability@uid\\0751001=$(v3_net_raw e9030000)" "bob's key 1001"
# Stock 6.12 gets there too, through v3: each namespace's setxattr is a plain
# v3 value of its root, and a read in the builder's own namespace is v2.
echo 0 >"$SYSCTL"
scenario stock "security.capability=$(v3_net_raw e8030000)" "a plain v3 value of rootid 1000" \
	"security.capability=$(v3_net_raw e9030000)" "a plain v3 value of rootid 1001"
echo 1 >"$SYSCTL"
done_testing
