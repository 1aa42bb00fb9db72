#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Pack the guest's initramfs: busybox, the guest init, Debian's xattr and
# capability tools, GNU tar, rsync and GNU cp (with their shared libraries)
# and a staged test directory. The GNU programs sit at Debian's paths
# (/usr/bin/tar, /usr/bin/rsync, /usr/bin/cp), ahead of busybox's applets in
# /bin on the guest's PATH; tests name them by absolute path.
#   initramfs.sh STAGE OUT.cpio.gz
# STAGE holds tests/list ("name|kind|command" lines, kind tap or plain) and the
# files the commands use; it is copied to / in the guest.
. "$(dirname "$0")/../scripts/lib.sh"

stage=$1 out=$2
[ -f "$stage/tests/list" ] || die "$stage/tests/list missing"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,root,mnt}
cp /bin/busybox "$root/bin/busybox"
for a in $(/bin/busybox --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done

# add_elf FILE: copy a host program and the libraries it loads, same paths.
add_elf() {
	local f=$1 lib
	mkdir -p "$root$(dirname "$f")"
	cp -L "$f" "$root$f"
	for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
for p in getfattr setfattr getcap setcap capsh mke2fs debugfs tar rsync cp; do
	f=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$p") || die "$p not found (run scripts/deps.sh)"
	add_elf "$f"
done
ln -s "$(PATH=/usr/sbin:/sbin command -v mke2fs)" "$root/sbin/mkfs.ext4"
cp /etc/mke2fs.conf "$root/etc/"
# libattr (cp --preserve=xattr) reads which names to skip from here; without
# it the guest's cp would not behave as Debian's.
cp /etc/xattr.conf "$root/etc/"
# glibc dlopen()s libgcc_s for pthread_exit and cancellation.
mkdir -p "$root/lib/x86_64-linux-gnu"
cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$root/lib/x86_64-linux-gnu/"
# Test programs staged as dynamic ELF files need their libraries too.
while IFS= read -r -d '' f; do
	if head -c4 "$f" | grep -q ELF; then
		for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	fi
done < <(find "$stage" -type f -perm -u+x -print0)

echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
cp -a "$stage"/. "$root"/
install -m 755 "$NSCAPS_ROOT/vm/guest-init.sh" "$root/init"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out"
