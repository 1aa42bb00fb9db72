#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a kernel out of tree (O=) with ccache.
#   kernel-build.sh KIND VARIANT [--src DIR]
# KIND:    patched (Debian source + kernel/series) | stock (Debian source only)
# VARIANT: (kernel/config/*.config fragments on tinyconfig)
#          lsm       every guest of the test command boots it: Debian's LSM
#                    order (from linux-config-6.12), AppArmor, SELinux, IMA,
#                    EVM, audit, overlayfs and FUSE as modules (installed
#                    into OUT/modules), SMP and lockdep, KUnit
#          debug     lsm with KASAN and UBSAN (NSCAPS_VARIANT=debug)
#          test | bench   the small config of the benchmarks and nscap's VM
#                    test: everything built in, KUnit, no LSM
#          modules | nofeature | nosecurity   compile-only builds, never booted:
#            modules    overlayfs and FUSE as modules, JUMP_LABEL, SECURITY
#                       (scripts/bisect-series.sh)
#            nofeature  lsm with CONFIG_XATTR_USER_NS=n (patched only)
#            nosecurity CONFIG_SECURITY=n, modules, JUMP_LABEL
# --src DIR builds an existing tree instead (e.g. the work tree build/linux).
# Prints the path of the bzImage on stdout.
. "$(dirname "$0")/lib.sh"

kind=${1:-}; variant=${2:-}; shift 2 || true
src=
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$2; shift 2 ;;
	*) die "unknown option $1" ;;
	esac
done
case $kind in patched|stock) ;; *) die "usage: $0 patched|stock lsm|debug|test|bench|modules|nofeature|nosecurity [--src DIR]" ;; esac

cfg=$NSCAPS_ROOT/kernel/config
# The kernel the test command boots; debug and nofeature are variations of it.
lsm_frags="base lsm debian-lsm checks kunit"
case $variant in
test|bench) frags="base test kunit" ;;
lsm) frags=$lsm_frags ;;
debug) frags="$lsm_frags debug" ;;
modules) frags="base modules" ;;
nofeature) frags="$lsm_frags nofeature" ;;
nosecurity) frags="base nosecurity" ;;
*) die "unknown variant '$variant' (lsm|debug|test|bench|modules|nofeature|nosecurity)" ;;
esac
# Options that exist only with the series applied (nofeature turns them off).
if [ "$kind" = patched ] && [ "$variant" != nofeature ]; then
	frags="$frags nscaps"
fi

if [ -z "$src" ]; then
	src=$BUILD/kernel/src-$kind
	log "unpacking linux-source-6.12 $(ksrc_version) into $src"
	unpack_source "$src"
	if [ "$kind" = patched ]; then apply_series "$src"; fi
fi
src=$(cd "$src" && pwd)
out=$BUILD/kernel/out-$kind-$variant
mkdir -p "$out" "$CCACHE_DIR"

kmake() { make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" "$@"; }

log "configuring $kind/$variant: tinyconfig + $frags"
kmake -s tinyconfig >/dev/null
case $frags in *debian-lsm*)
	# Debian's LSM order, verbatim, as a fragment of its own.
	debcfg=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
	[ -f "$debcfg" ] || die "$debcfg missing (run scripts/deps.sh)"
	xzcat "$debcfg" | grep '^CONFIG_LSM=' >"$out/debian-lsm.config" ||
		die "no CONFIG_LSM in $debcfg"
	;;
esac
set --
for f in $frags; do
	if [ -f "$cfg/$f.config" ]; then
		set -- "$@" "$cfg/$f.config"
	elif [ -f "$out/$f.config" ]; then
		set -- "$@" "$out/$f.config"
	fi
done
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@" >"$out/merge.log" 2>&1
kmake -s olddefconfig >/dev/null
# Every option a fragment asks for must have survived olddefconfig.
bad=0
defined=
if [ "${NSCAPS_KCONFIG_PARTIAL:-0}" = 1 ]; then
	defined=$(find "$src" -name 'Kconfig*' -not -path '*/tools/*' -exec grep -h '^config ' {} + | sort -u)
fi
for f in "$@"; do
	while IFS= read -r line; do
		case $line in CONFIG_*=*) ;; *) continue ;; esac
		opt=${line%%=*}
		val=${line#*=}
		# The series' own options do not exist in a stock tree, nor, for
		# scripts/bisect-series.sh (NSCAPS_KCONFIG_PARTIAL=1), before the
		# patch that adds them.
		case $kind:$opt in stock:CONFIG_XATTR_USER_NS*) continue ;; esac
		if [ "${NSCAPS_KCONFIG_PARTIAL:-0}" = 1 ] &&
		   ! grep -qx "config ${opt#CONFIG_}" <<<"$defined"; then
			continue
		fi
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$out/.config" && { echo "  $opt: wanted n, got $(grep "^$opt=" "$out/.config")" >&2; bad=1; }
		else
			grep -qx "$line" "$out/.config" || { echo "  $opt: wanted $val, got $(grep "^$opt=" "$out/.config" || echo unset)" >&2; bad=1; }
		fi
	done <"$f"
done
[ $bad = 0 ] || die "kernel config for $kind/$variant lost requested options (see above)"
# Modules are built (and modpost run) wherever the config has them.
targets=bzImage
grep -qx 'CONFIG_MODULES=y' "$out/.config" && targets="bzImage modules"

log "building $kind/$variant in $out"
# shellcheck disable=SC2086
if ! kmake $targets >"$out/build.log" 2>&1; then
	# Compiler and linker errors, modpost's undefined symbols, make's.
	grep -E 'error:|undefined reference|ERROR:|\*\*\*' "$out/build.log" | head -40 >&2
	die "kernel build failed ($kind/$variant): see $out/build.log"
fi
if [ "$variant" = lsm ] || [ "$variant" = debug ]; then
	# The guest's /lib/modules/RELEASE, for modprobe (vm/initramfs.sh --modules).
	rm -rf "$out/modules"
	kmake -s modules_install INSTALL_MOD_PATH="$out/modules" >>"$out/build.log" 2>&1 ||
		die "modules_install failed ($kind/$variant): see $out/build.log"
fi
echo "$out/arch/x86/boot/bzImage"
