#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stage Debian's container tools into STAGE for a guest whose kernel has
# AF_UNIX (the LSM guest, the walkthrough's): crun, umoci, buildah and the
# configuration containers-common gives it, the rootless tools (setuid
# newuidmap/newgidmap, util-linux unshare and setpriv), the shell helpers
# that drive them (tests/guest/crun.sh, rootless.sh) and the root of
# tools-build.sh's build context. vm/initramfs.sh adds their libraries.
#   stage-tools.sh STAGE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
stage=$1
mkdir -p "$stage/usr/bin" "$stage/tests" "$stage/etc/containers" "$stage/usr/share/containers"
cp /usr/bin/crun /usr/bin/umoci /usr/bin/buildah /usr/bin/newuidmap /usr/bin/newgidmap \
	/usr/bin/unshare /usr/bin/setpriv "$stage/usr/bin/"
cp /etc/containers/policy.json "$stage/etc/containers/"
cp /usr/share/containers/containers.conf /usr/share/containers/seccomp.json "$stage/usr/share/containers/"
cp "$here/tap.sh" "$here/crun.sh" "$here/rootless.sh" "$stage/tests/"
# The build context's root (tools-build.sh): busybox, setcap and capsh with
# their libraries (the guest has no ldd).
ctx=$stage/tests/build-rootfs
mkdir -p "$ctx/bin"
cp /bin/busybox "$ctx/bin/busybox"
ln -sf busybox "$ctx/bin/sh"
for f in /usr/sbin/setcap /usr/sbin/capsh; do
	for lib in "$f" $(ldd "$f" | grep -o '/[^ ]*'); do
		mkdir -p "$ctx$(dirname "$lib")"
		cp -L "$lib" "$ctx$lib"
	done
done
