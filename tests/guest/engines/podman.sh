#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# podman.sh MODE [fuse] - Debian's podman (4.3) in the guest, offline, in
# MODE: rootful (no user namespace), rootful-auto (--userns=auto, ranges of
# the "containers" user), rootless (alice's default mapping, 0 -> 1000) or
# rootless-auto (--userns=auto inside alice's namespace); "fuse" stores
# layers with fuse-overlayfs instead of the kernel's overlayfs. Flows: build
# with RUN setcap, run + setcap + commit, save (the layer's PAX records),
# load into fresh storage, run as uid 1000 in a container of the other
# mapping. Prints RESULT lines (engines-expect.sh turns them into TAP).
# podman build has no --userns=auto: the auto modes build with the mapping
# auto would choose for a first container (--userns-uid-map of the range).
set -u
LC_ALL=C
export LC_ALL HOME=/root
. /tests/tap.sh
. /tests/rootless.sh
. /tests/engines/lib.sh
mode=$1 store=${2:-native}
base=${TMPDIR:?}/podman-$mode-$store
rm -rf "$base"
mkdir -p "$base" && chmod 755 "$base" && cd "$base" || exit 1
engine_env
mkdir -p -m 1777 /var/tmp
rootless_users "$base/home"
# podman's --userns=auto takes its ranges from the user "containers".
grep -q '^containers:' /etc/passwd || {
	printf 'containers:x:998:998::/nonexistent:/bin/false\n' >>/etc/passwd
	printf 'containers:x:998:\n' >>/etc/group
}
printf 'containers:2147483647:2147483648\n' >>/etc/subuid
printf 'containers:2147483647:2147483648\n' >>/etc/subgid
# No systemd, no journald: cgroupfs and a file for events, everywhere.
# Debian's default capabilities plus NET_RAW (Docker's default set has it):
# a file capability needs it in the bounding set, and "--cap-add" would
# also give it to a non-root user as an ambient capability, whatever the
# file says.
cat >/etc/containers/containers.conf <<'EOC'
[containers]
default_capabilities = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "NET_BIND_SERVICE",
  "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT", "NET_RAW"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "crun"
EOC
fuseopt=
[ "$store" = fuse ] && fuseopt="--storage-opt overlay.mount_program=/usr/bin/fuse-overlayfs"
case $mode in
rootful | rootful-auto) who=root ;;
rootless | rootless-auto) who=alice ;;
*) bail "unknown mode $mode" ;;
esac
# P PHASE ARG...: podman of MODE's user, on storage of its own for PHASE
P() {
	local ph=$1 d
	shift
	if [ $who = root ]; then
		d=$base/storage-$ph
		mkdir -p "$d"
		podman --root "$d/root" --runroot "/run/p$$-$ph" --storage-driver overlay $fuseopt "$@"
	else
		d=$base/home/alice/storage-$ph
		# Paths of podman's run directories must stay short (sockets).
		mkdir -p -m 700 "/run/a$$-$ph" /run/a$$-xdg
		chown 1000:1000 "/run/a$$-$ph" /run/a$$-xdg
		as alice mkdir -p "$d" "$base/home/alice/tmp"
		as alice env XDG_RUNTIME_DIR=/run/a$$-xdg TMPDIR="$base/home/alice/tmp" \
			podman --root "$d/root" --runroot "/run/a$$-$ph" --storage-driver overlay $fuseopt \
			--cgroup-manager cgroupfs "$@"
	fi
}
# The mapping flags of MODE for build, and for run (auto modes).
case $mode in
rootful-auto) bmap="--userns-uid-map 0:2147483647:65536 --userns-gid-map 0:2147483647:65536"
	# the size: podman 4.3 otherwise sizes the namespace from the ids an
	# image built with a mapping records, host ids, and refuses
	rmap=--userns=auto:size=65536 other=rootful ;;
rootless-auto) bmap="--userns-uid-map 0:1:65536 --userns-gid-map 0:1:65536"
	rmap=--userns=auto other=rootless ;;
rootful) bmap= rmap= other=rootful-auto ;;
rootless) bmap= rmap= other=rootless-auto ;;
esac
# The run flags of the other mode (for loaded images).
case $other in *-auto) omap=--userns=auto ;; *) omap= ;; esac
[ $who = alice ] && rless="--cgroups disabled" || rless=
sfx=; [ "$store" = fuse ] && sfx=" fuse-overlayfs"
tag="podman $mode$sfx"
echo "# $tag on $(uname -r), fs.xattr_user_ns=$(cat /proc/sys/fs/xattr_user_ns 2>/dev/null || echo none)"

ctx=$base/home/alice/ctx
mkdir -p "$ctx"
tar -C /tests/build-rootfs -c . >"$ctx/base.tar"
printf 'FROM localhost/nscaps/base\nRUN cp /usr/sbin/capsh /bin/x && /usr/sbin/setcap cap_net_raw=ep /bin/x\n' \
	>"$ctx/Containerfile"
chown -R 1000:1000 "$ctx"
runs "$tag: import of the base rootfs" import.out P a import "$ctx/base.tar" localhost/nscaps/base
runs "$tag: build with RUN setcap" build.out P a build $bmap --network none -q -t localhost/nscaps/built "$ctx"
runs "$tag: run + setcap in the container" run.out P a run $rless $rmap --network none --name c1 \
	localhost/nscaps/base sh -c 'cp /usr/sbin/capsh /bin/x && /usr/sbin/setcap cap_net_raw=ep /bin/x'
up=$(P a inspect c1 --format '{{.GraphDriver.Data.UpperDir}}' 2>/dev/null)
host_gets "$tag" "$up" "$mode"
runs "$tag: commit" commit.out P a commit -q c1 localhost/nscaps/committed
# Gone before the runs: --userns=auto then picks c1's range again, the
# container root of the build and of the commit.
P a rm -f c1 >/dev/null 2>&1
for img in built committed; do
	rm -f "$ctx/$img.tar"
	runs "$tag: save $img" save.out P a save -o "$ctx/$img.tar" localhost/nscaps/$img
	result "podman $mode$sfx $img layer" "$(layer_value "$ctx/$img.tar")"
	cap_result "podman $mode$sfx $img run-1000-same" \
		P a run --rm $rless $rmap --network none --user 1000 localhost/nscaps/$img /bin/x --print
	runs "$tag: load $img into fresh storage" load.out P b load -q -i "$ctx/$img.tar"
	cap_result "podman $mode$sfx $img run-1000-$other" \
		P b run --rm $rless $omap --network none --user 1000 localhost/nscaps/$img /bin/x --print
done
done_testing
