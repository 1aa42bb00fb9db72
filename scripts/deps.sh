#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install everything the build, the VM and the tests need on Debian 12.
#   deps.sh [PACKAGE...]   also installs the given packages (scripts that
#                          need more than the test command, e.g. make-deb.sh)
set -euo pipefail
pkgs=(
	make gcc libc6-dev git patch xz-utils ccache python3 perl
	linux-source-6.12 flex bison bc libelf-dev libssl-dev cpio
	qemu-system-x86 busybox-static e2fsprogs
	libcap-dev libcap2-bin libcap-ng-dev attr mandoc
	tar rsync coreutils
	clang llvm libclang-rt-14-dev
	# The LSM guest: Debian's LSM order, the SELinux policy compiler,
	# modules.dep, and the tools its checks run.
	linux-config-6.12 checkpolicy kmod auditd fuse-overlayfs fuse3 keyutils
	ima-evm-utils
	# Real clients in the LSM guest (issue 14): Debian's OCI runtime, OCI
	# image tools, and the setuid newuidmap/newgidmap rootless tools use.
	crun umoci buildah uidmap
	# The engines' archivers, patched (issue 25): Go and Debian's sources
	# of moby 20.10 and containers/storage 1.43 (integrations/build.sh).
	golang-go golang-github-docker-docker-dev
	golang-github-containers-storage-dev golang-github-ulikunitz-xz-dev
	# The engines themselves (issue 25), staged into the engine guest.
	docker.io containerd runc podman conmon
	"$@"
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "== installing: ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# Packages only: no daemon of theirs (dockerd, containerd, auditd)
	# starts on this machine; the guests run them.
	rc=/usr/sbin/policy-rc.d
	had_rc=0
	[ -e $rc ] && had_rc=1
	if [ $had_rc = 0 ]; then
		printf '#!/bin/sh\nexit 101\n' >$rc && chmod 755 $rc
		trap 'rm -f $rc' EXIT
	fi
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	# ... nor at the next boot: the daemons the engines' packages enable.
	for u in docker.socket docker.service containerd.service; do
		systemctl disable "$u" >/dev/null 2>&1 || true
	done
fi
