#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# inroot.sh CMD...: run CMD (an engine test) on a root filesystem that is a
# mount of its own, as on a booted system: a tmpfs copy of the guest's
# root, made once per boot, moved onto / in a mount namespace of CMD's own,
# as switch_root does. The initramfs root (rootfs) cannot be pivot_root()ed
# away, which every OCI runtime does when it starts a container; and a
# plain chroot would make the kernel refuse new user namespaces (EPERM).
r=/newroot
if ! grep -q " $r tmpfs " /proc/mounts; then
	mkdir -p $r
	mount -t tmpfs -o mode=755 newroot $r || exit 1
	for d in /*; do
		case $d in /proc | /sys | /dev | /tmp | /run | /mnt | $r) ;; *) cp -a "$d" $r/ ;; esac
	done
	mkdir -p $r/proc $r/sys $r/dev $r/tmp $r/run $r/mnt
	mount --rbind /proc $r/proc
	mount --rbind /sys $r/sys
	mount --rbind /dev $r/dev
	mount --rbind /tmp $r/tmp
fi
exec /usr/bin/unshare -m --propagation private /bin/sh -c \
	'cd /newroot && mount --move . / && exec chroot . /bin/sh -c "cd \"\$1\" && shift && exec \"\$@\"" sh "$@"' \
	sh "$PWD" "$@"
