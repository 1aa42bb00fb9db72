#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the kernel of a linux-image .deb (from make-deb.sh) in QEMU and run the
# series' selftests and the project's guest tests there, modules loaded with
# modprobe first. Prints PASS/FAIL lines and "N passed, N failed, N skipped";
# exit 1 on any failure.
#   deb-boot.sh [DEBDIR] [--src DIR]
# DEBDIR  where make-deb.sh put the packages (default $BUILD/deb/packages)
# --src   the kernel tree to build the selftests from (default: the tree
#         make-deb.sh built, from DEBDIR/nscaps-deb.env; else Debian's source
#         + kernel/series, unpacked fresh)
# Environment:
#   NSCAPS_DEB_MODULES  modules to modprobe before the tests (default
#                       "overlay fuse loop": the tests use all three, and
#                       Debian builds overlayfs and loop as modules)
#   NSCAPS_DEB_MEM      guest memory in MB (default 2048)
#   NSCAPS_DEB_TIMEOUT  seconds before the guest is killed (default 2400)
. "$(dirname "$0")/lib.sh"
cd "$NSCAPS_ROOT"

debdir=$BUILD/deb/packages src=
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$2; shift 2 ;;
	-*) die "unknown option $1 (usage: $0 [DEBDIR] [--src DIR])" ;;
	*) debdir=$1; shift ;;
	esac
done
modules=${NSCAPS_DEB_MODULES:-overlay fuse loop}
work=$BUILD/deb-boot
t0=$(date +%s)
# kmod: depmod here, modprobe in the guest (Debian's, not busybox's).
bash scripts/deps.sh kmod

shopt -s nullglob
debs=()
for d in "$debdir"/linux-image-*.deb; do
	case $d in *-dbg_*) ;; *) debs+=("$d") ;; esac
done
shopt -u nullglob
[ ${#debs[@]} = 1 ] ||
	die "want exactly one linux-image .deb in $debdir, found ${#debs[@]} (run scripts/make-deb.sh)"
deb=${debs[0]}
pkg=$(dpkg-deb -f "$deb" Package)
krel=${pkg#linux-image-}
log "$pkg $(dpkg-deb -f "$deb" Version) ($(du -h "$deb" | cut -f1))"

rm -rf "$work"
mkdir -p "$work"
dpkg-deb -x "$deb" "$work/root"
kernel=$work/root/boot/vmlinuz-$krel
[ -f "$kernel" ] || die "$deb has no boot/vmlinuz-$krel"
moddir=
for m in "$work/root/lib/modules/$krel" "$work/root/usr/lib/modules/$krel"; do
	[ -d "$m" ] && moddir=$m
done
[ -n "$moddir" ] || die "$deb has no lib/modules/$krel"

# The tree: the one the packages were built from, so the selftests match.
if [ -z "$src" ] && [ -f "$debdir/nscaps-deb.env" ]; then
	src=$(sed -n 's/^KSRC=//p' "$debdir/nscaps-deb.env")
	[ -d "$src" ] || { log "$src (from $debdir/nscaps-deb.env) is gone"; src=; }
fi
if [ -z "$src" ]; then
	src=$work/src
	log "unpacking linux-source-6.12 $(ksrc_version) into $src"
	unpack_source "$src"
	apply_series "$src"
fi

# 1. The stage: the modules entry first, so its PASS/FAIL comes before the
# tests that need the modules; then what scripts/check.sh stages.
stage=$work/stage
mkdir -p "$stage/tests" "$work/hdr"
cp tests/guest/modules.sh "$stage/tests/modules.sh"
echo "modules|tap|sh /tests/modules.sh $modules" >"$stage/tests/list"
dirs="capabilities mount_setattr"
[ -d "$src/tools/testing/selftests/filesystems/nscaps" ] && dirs="$dirs filesystems/nscaps"
log "selftests: $dirs"
# shellcheck disable=SC2086  # one argument per directory
bash scripts/selftests.sh "$src" "$work/hdr" "$stage" $dirs
[ -f nscap/Makefile ] && make -C nscap -s all >/dev/null
bash tests/guest/stage.sh "$stage"

# 2. The package's modules and kmod. vm/initramfs.sh copies the stage to the
# guest's /, so they land at /lib/modules and /usr/sbin there. The package
# ships depmod's indexes; they are rebuilt for the staged copy all the same,
# as a host's postinst would.
log "modules: $(find "$moddir" -name '*.ko*' | wc -l) from the package ($(du -sh "$moddir" | cut -f1))"
mkdir -p "$stage/lib/modules" "$stage/usr/bin" "$stage/usr/sbin"
cp -a "$moddir" "$stage/lib/modules/"
rm -f "$stage/lib/modules/$krel/build" "$stage/lib/modules/$krel/source"
depmod -b "$stage" "$krel"
cp -L "$(command -v kmod)" "$stage/usr/bin/kmod"
for t in modprobe lsmod insmod rmmod modinfo depmod; do
	ln -sf ../bin/kmod "$stage/usr/sbin/$t"
done

# 3. Boot. Debian's configs build the 8250 serial console and initramfs
# support in, so the bzImage boots straight from QEMU's -kernel.
bash vm/run.sh "$kernel" "$stage" "$work/vm" --mem "${NSCAPS_DEB_MEM:-2048}" \
	--timeout "${NSCAPS_DEB_TIMEOUT:-2400}"
results=$work/results.txt
python3 vm/results.py "$work/vm/console.log" >"$results"
summarize "$results" "$t0" "results of $pkg (console: $work/vm/console.log)"
