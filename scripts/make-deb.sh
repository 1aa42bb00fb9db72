#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build installable Debian packages of the patched kernel with bindeb-pkg,
# from Debian's own configuration (not part of the test command: hours on
# two cores).
#   make-deb.sh [CONFIG]
# CONFIG  a kernel config file, plain or .xz (default: Debian's cloud-amd64
#         config, /usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz
#         from linux-config-6.12), or "tiny": tinyconfig + the base, test,
#         nscaps, modules and deb-tiny fragments, a small modular kernel that
#         takes the same pipeline (bindeb-pkg, signing, modules, boot) in
#         minutes.
# On top of CONFIG: CONFIG_XATTR_USER_NS=y, and module signing with a key the
# build generates (Debian's certificates and signing service are not here;
# see README, "Debian packages").
#
# Environment:
#   NSCAPS_DEB_CONFIG        same as CONFIG
#   NSCAPS_DEB_OUT=DIR       where the .deb files land (default $BUILD/deb/packages)
#   NSCAPS_DEB_REV=N         package version <Debian source version>+nscapsN (default 1)
#   NSCAPS_DEB_LOCALVERSION  release suffix (default -nscaps-FLAVOUR for a Debian
#                            config.ARCH_FEATURESET_FLAVOUR, -nscaps-tiny, else -nscaps)
#   NSCAPS_DEB_DBG=1         also build linux-image-*-dbg (debug symbols, GBs)
#   NSCAPS_KSRC=DIR          build this tree instead of Debian's source + kernel/series
#   NSCAPS_DEB_CCACHE=DIR    ccache directory (default /var/cache/nscaps/ccache-deb,
#                            not the test command's), NSCAPS_DEB_CCACHE_MAXSIZE (16G)
# The full log is $BUILD/deb/build.log; the terminal gets a line per 500
# compiled objects and per stage.
. "$(dirname "$0")/lib.sh"

cfg_in=${1:-${NSCAPS_DEB_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz}}
rev=${NSCAPS_DEB_REV:-1}
# A cache of its own: one distribution build (debug info for BTF) would
# otherwise evict the test command's kernels from the shared one.
export CCACHE_DIR=${NSCAPS_DEB_CCACHE:-/var/cache/nscaps/ccache-deb}
export CCACHE_MAXSIZE=${NSCAPS_DEB_CCACHE_MAXSIZE:-16G}
work=$BUILD/deb
out=${NSCAPS_DEB_OUT:-$work/packages}
obj=$work/obj
blog=$work/build.log
t0=$(date +%s)

# What bindeb-pkg runs on 6.12 (debian/rules calls dh_*, depmod, pahole for
# Debian's BTF, openssl for the generated signing key) and Debian's configs.
bash "$NSCAPS_ROOT/scripts/deps.sh" dpkg-dev debhelper kmod dwarves openssl \
	linux-config-6.12

case $cfg_in in
tiny) ;;
*) [ -f "$cfg_in" ] || die "config file $cfg_in not found" ;;
esac
[[ $rev =~ ^[0-9]+$ ]] || die "NSCAPS_DEB_REV must be a number, not '$rev'"

# The release says nscaps and, for Debian's configs, the flavour, as Debian's
# own 6.12.118+deb12-cloud-amd64 does; packages of different configs can then
# be installed side by side.
case $(basename "$cfg_in") in
tiny) lv=-nscaps-tiny ;;
config.*_*_*) f=$(basename "$cfg_in" .xz); lv=-nscaps-${f##*_} ;;
*) lv=-nscaps ;;
esac
lv=${NSCAPS_DEB_LOCALVERSION:-$lv}
pkgver=$(ksrc_version)+nscaps$rev

# Only what bindeb-pkg makes is removed from NSCAPS_DEB_OUT, so that one
# kernel's packages are there.
rm -rf "$obj"
mkdir -p "$obj" "$out" "$CCACHE_DIR"
for d in "$work" "$out"; do
	rm -f "$d"/linux-image-*.deb "$d"/linux-headers-*.deb "$d"/linux-libc-dev_*.deb \
		"$d"/linux-upstream_*.buildinfo "$d"/linux-upstream_*.changes
done
rm -f "$out/nscaps-deb.env"
if [ -n "${NSCAPS_KSRC:-}" ]; then
	src=$(cd "$NSCAPS_KSRC" && pwd)
	log "building the tree $src"
else
	src=$work/src
	log "unpacking linux-source-6.12 $(ksrc_version) into $src"
	unpack_source "$src"
	apply_series "$src"
fi

kmake() {
	make -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" LOCALVERSION="$lv" \
		-j"$(nproc)" "$@"
}

# 1. The configuration.
if [ "$cfg_in" = tiny ]; then
	log "config: tinyconfig + base test nscaps modules deb-tiny"
	kmake -s tinyconfig >/dev/null
	set --
	for f in base test nscaps modules deb-tiny; do
		set -- "$@" "$NSCAPS_ROOT/kernel/config/$f.config"
	done
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" \
		>"$work/merge.log" 2>&1
	want=$NSCAPS_ROOT/kernel/config/deb-tiny.config
else
	log "config: $cfg_in"
	case $cfg_in in
	*.xz) xz -dc "$cfg_in" >"$obj/.config" ;;
	*) cp "$cfg_in" "$obj/.config" ;;
	esac
	want=
fi
cp "$obj/.config" "$work/config.input"
# Module signing without Debian's keys: Debian builds its packages unsigned
# and signs vmlinuz and modules afterwards with keys held by its signing
# service (linux-signed-amd64); its real config trusts
# debian/certs/debian-uefi-certs.pem, which no source package ships. Here
# the build generates a key pair (certs/signing_key.pem, the only value that
# makes kbuild generate one), builds its certificate into the kernel, and
# modules_install signs every module with it, so modules load without
# tainting and would still load under lockdown.
"$src/scripts/config" --file "$obj/.config" \
	--enable XATTR_USER_NS \
	--set-str SYSTEM_TRUSTED_KEYS "" \
	--set-str SYSTEM_REVOCATION_KEYS "" \
	--set-str MODULE_SIG_KEY certs/signing_key.pem \
	--enable MODULE_SIG_ALL
kmake -s olddefconfig >/dev/null

# Every option asked for must have survived olddefconfig.
bad=0
check_opt() {
	grep -qx "$1" "$obj/.config" ||
		{ echo "  wanted $1, got $(grep "^${1%%=*}=" "$obj/.config" || echo unset)" >&2; bad=1; }
}
check_opt CONFIG_XATTR_USER_NS=y
if grep -qx CONFIG_MODULE_SIG=y "$obj/.config"; then
	check_opt CONFIG_MODULE_SIG_ALL=y
	check_opt 'CONFIG_MODULE_SIG_KEY="certs/signing_key.pem"'
fi
if [ -n "$want" ]; then
	while IFS= read -r line; do
		case $line in CONFIG_*=*) check_opt "$line" ;; esac
	done <"$want"
fi
[ $bad = 0 ] || die "kernel config lost requested options (see above)"
"$src/scripts/diffconfig" "$work/config.input" "$obj/.config" >"$work/config.diff" || true
krel=$(kmake -s --no-print-directory kernelrelease | tail -1)
log "release $krel, package version $pkgver; $(grep -c . "$work/config.diff") options differ from the input config ($work/config.diff)"

# 2. bindeb-pkg. The build runs as a job of its own (process group = its
# pid, set -m) so that stopping this script stops all of it.
profiles=pkg.linux-upstream.nokerneldbg
[ "${NSCAPS_DEB_DBG:-0}" = 1 ] && profiles=
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-unstable}")
log "bindeb-pkg with -j$(nproc), ccache in $CCACHE_DIR; full log: $blog"
set -m
(
	export DEB_BUILD_PROFILES=$profiles KDEB_PKGVERSION=$pkgver KDEB_CHANGELOG_DIST=$codename
	export DEBFULLNAME=${DEBFULLNAME:-nscaps} DEBEMAIL=${DEBEMAIL:-nscaps@localhost}
	kmake bindeb-pkg
) >"$blog" 2>&1 </dev/null &
bpid=$!
set +m
echo "$bpid" >"$work/build.pid"
trap 'kill -- -"$bpid" 2>/dev/null || true' EXIT
trap 'echo "== stopped; killing the build" >&2; exit 130' INT TERM

# Progress: objects compiled so far (CC/AS lines of kbuild), the stage.
step=500 next=500 stage=
while kill -0 "$bpid" 2>/dev/null; do
	sleep 15
	n=$(grep -cE '^  (CC|AS)( \[M\])? ' "$blog" || true)
	s=$(grep -oE '^  (LD      vmlinux$|MODPOST Module.symvers|(INSTALL|SIGN) .*/lib/modules/)|^dpkg-deb: building package .[^ ]*' "$blog" | tail -1 || true)
	case $s in
	*vmlinux) s="linking vmlinux" ;;
	*MODPOST*) s="modpost" ;;
	*INSTALL*|*SIGN*) s="installing and signing modules" ;;
	dpkg-deb*) s="packaging ${s##* }" ;;
	esac
	el=$(( ($(date +%s) - t0) / 60 ))
	if [ "$n" -ge "$next" ] || { [ -n "$s" ] && [ "$s" != "$stage" ]; }; then
		echo "   [${el} min] $n objects compiled${s:+, $s}"
		while [ "$next" -le "$n" ]; do next=$((next + step)); done
		stage=$s
	fi
done
trap - EXIT INT TERM
rc=0
wait "$bpid" || rc=$?
rm -f "$work/build.pid"
if [ $rc != 0 ]; then
	grep -E 'error:|undefined reference|ERROR:|\*\*\*|^dpkg-buildpackage: error' "$blog" | head -40 >&2
	die "bindeb-pkg failed (exit $rc): see $blog"
fi

# 3. The packages, and what deb-boot.sh needs to test them.
mv "$work"/*.deb "$out"/
mv "$work"/*.buildinfo "$work"/*.changes "$out"/ 2>/dev/null || true
cat >"$out/nscaps-deb.env" <<EOF
KSRC=$src
KOBJ=$obj
KERNELRELEASE=$krel
PKGVERSION=$pkgver
CONFIG=$cfg_in
EOF
log "packages in $out ($(( $(date +%s) - t0 )) s):"
for d in "$out"/linux-*.deb; do
	printf '   %-52s %-30s %s\n' "$(dpkg-deb -f "$d" Package)" "$(dpkg-deb -f "$d" Version)" \
		"$(du -h "$d" | cut -f1)"
done
