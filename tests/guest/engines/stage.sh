#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stage the engine guest (issue 25) into STAGE: the main boot's stage LSTAGE
# (tests/guest/lsm/stage.sh: modules, nsrun, nscap, container tools, the
# build context's root) plus
# Debian's engines as Debian installs them: docker.io (dockerd, docker),
# containerd with its runc shim, runc, podman with conmon and
# fuse-overlayfs. vm/initramfs.sh adds the libraries. Its own initramfs,
# since the engines are 220 MB the other boots need not unpack.
#   stage.sh LSTAGE STAGE [KOUT]
# KOUT: another kernel's build (stock 6.12's), whose modules replace
# LSTAGE's.
# Lists: tests/list-engines (the patched kernel: every mode, with
# fs.xattr_user_ns=1, then docker userns-remap with 0), tests/list-engines-
# stock (stock 6.12: docker userns-remap, the CI's stock column),
# tests/list-engines-stock-all (stock 6.12: every mode).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lstage=$1 stage=$2 kout=${3:-}
rm -rf "$stage"
cp -a "$lstage" "$stage"
if [ -n "$kout" ]; then
	[ -d "$kout/modules/lib/modules" ] || { echo "error: no $kout/modules (modules_install)" >&2; exit 1; }
	rm -rf "$stage/lib/modules"
	mkdir -p "$stage/lib"
	cp -a "$kout/modules/lib/modules" "$stage/lib/"
fi
mkdir -p "$stage/tests/engines" "$stage/usr/bin" "$stage/usr/sbin"
cp /usr/sbin/dockerd /usr/sbin/runc "$stage/usr/sbin/"
cp /usr/bin/docker /usr/bin/containerd /usr/bin/containerd-shim-runc-v2 \
	/usr/bin/podman /usr/bin/conmon /usr/bin/fuse-overlayfs /usr/bin/getfattr "$stage/usr/bin/"
# A dockerd rebuilt with integrations/moby-20.10 (integrations/dockerd.sh),
# when there is one: the engine half of the fix, run beside Debian's.
if [ -n "${NSCAPS_DOCKERD_PATCHED:-}" ]; then
	[ -x "$NSCAPS_DOCKERD_PATCHED" ] || { echo "error: NSCAPS_DOCKERD_PATCHED=$NSCAPS_DOCKERD_PATCHED is no program" >&2; exit 1; }
	cp "$NSCAPS_DOCKERD_PATCHED" "$stage/usr/sbin/dockerd-nscaps"
fi
# The images' base: the build context's root, with busybox's applets the
# RUN steps call (busybox sh does not run applets without them).
for a in cp rm mv chmod ln mkdir cat sed grep id ls; do
	ln -sf busybox "$stage/tests/build-rootfs/bin/$a"
done
# and the mount points a runtime would otherwise create as the container's
# root, which a remapped root may not do in an image directory of host root
mkdir -p "$stage"/tests/build-rootfs/{proc,sys,dev,etc,tmp,run,var,root}
chmod 1777 "$stage/tests/build-rootfs/tmp"
# and the files a runtime bind-mounts or links in /etc, for the same reason
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/tests/build-rootfs/etc/passwd"
printf 'root:x:0:\n' >"$stage/tests/build-rootfs/etc/group"
touch "$stage"/tests/build-rootfs/etc/{hosts,hostname,resolv.conf}
ln -sf /proc/mounts "$stage/tests/build-rootfs/etc/mtab"
# The everyday flow: a Debian package whose postinst runs setcap
# (iputils-ping: "setcap cap_net_raw+ep /bin/ping"), installed with dpkg in
# a RUN step. Its root: the build context's (busybox, setcap, capsh), dpkg
# and dpkg-divert, an empty dpkg database, ping's libraries and the .deb,
# fetched from Debian's mirror (the guest is offline).
deb=$stage/tests/engines/deb-rootfs
cp -a "$stage/tests/build-rootfs" "$deb"
mkdir -p "$deb/var/lib/dpkg/info" "$deb/var/lib/dpkg/updates" "$deb/var/lib/dpkg/triggers" \
	"$deb/usr/bin" "$deb/usr/sbin" "$deb/tmp"
: >"$deb/var/lib/dpkg/status"
: >"$deb/var/lib/dpkg/available"
(cd "$deb" && apt-get download -q iputils-ping >/dev/null 2>&1 && mv iputils-ping_*.deb iputils-ping.deb) ||
	{ echo "error: apt-get download iputils-ping failed" >&2; exit 1; }
dpkg-deb -x "$deb/iputils-ping.deb" "$deb/.ping"
for f in /usr/bin/dpkg /usr/bin/dpkg-divert /usr/bin/dpkg-deb /usr/bin/dpkg-split /bin/tar "$deb/.ping/bin/ping"; do
	for lib in $(ldd "$f" | grep -o '/[^ ]*' | grep -v '^/tmp\|deb-rootfs'); do
		mkdir -p "$deb$(dirname "$lib")"
		cp -L "$lib" "$deb$lib"
	done
done
rm -rf "$deb/.ping"
cp /usr/bin/dpkg /usr/bin/dpkg-divert /usr/bin/dpkg-deb /usr/bin/dpkg-split /bin/tar "$deb/usr/bin/"
ln -sf /bin/busybox "$deb/usr/bin/diff"
# dpkg wants these on PATH; they are never called for this package.
for p in ldconfig start-stop-daemon; do
	printf '#!/bin/sh\nexit 0\n' >"$deb/usr/sbin/$p"
	chmod 755 "$deb/usr/sbin/$p"
done
cp "$here"/lib.sh "$here"/inroot.sh "$here"/docker.sh "$here"/podman.sh "$here"/expect-*.txt "$stage/tests/engines/"
{
	echo "docker-default|tap|EXPECT=/tests/engines/expect-ns.txt sh /tests/engines/inroot.sh sh /tests/engines/docker.sh default"
	echo "docker-userns-remap|tap|EXPECT=/tests/engines/expect-ns.txt sh /tests/engines/inroot.sh sh /tests/engines/docker.sh userns-remap"
	[ -x "${NSCAPS_DOCKERD_PATCHED:-}" ] &&
		echo "docker-userns-remap-patched-dockerd|tap|DOCKERD=/usr/sbin/dockerd-nscaps EXPECT=/tests/engines/expect-fixed.txt sh /tests/engines/inroot.sh sh /tests/engines/docker.sh userns-remap"
	for m in rootful rootful-auto rootless rootless-auto; do
		echo "podman-$m|tap|EXPECT=/tests/engines/expect-ns.txt sh /tests/engines/inroot.sh sh /tests/engines/podman.sh $m"
	done
	for m in rootless rootless-auto; do
		echo "podman-$m-fuse|tap|EXPECT=/tests/engines/expect-ns.txt sh /tests/engines/inroot.sh sh /tests/engines/podman.sh $m fuse"
	done
	echo "docker-userns-remap-sysctl0|tap|echo 0 >/proc/sys/fs/xattr_user_ns && EXPECT=/tests/engines/expect-stock.txt sh /tests/engines/inroot.sh sh /tests/engines/docker.sh userns-remap"
} >"$stage/tests/list-engines"
echo "docker-userns-remap|tap|EXPECT=/tests/engines/expect-stock.txt sh /tests/engines/inroot.sh sh /tests/engines/docker.sh userns-remap" \
	>"$stage/tests/list-engines-stock"
# The whole matrix on stock 6.12 (the README's stock column; not in CI).
grep -v 'sysctl0\|patched-dockerd' "$stage/tests/list-engines" | sed 's/expect-ns/expect-stock/' \
	>"$stage/tests/list-engines-stock-all"
