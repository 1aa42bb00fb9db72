# SPDX-License-Identifier: GPL-2.0
# Shared paths and helpers for the nscaps scripts; sourced, not run.
set -euo pipefail

NSCAPS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${NSCAPS_BUILD:-$NSCAPS_ROOT/build}
KSRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
SERIES_DIR=$NSCAPS_ROOT/kernel/patches
SERIES_FILE=$NSCAPS_ROOT/kernel/series
# ccache lives outside the clone so fresh clones on this machine reuse it.
export CCACHE_DIR=${CCACHE_DIR:-/var/cache/nscaps/ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Reproducible kernel banners, so unchanged objects come out of ccache.
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=nscaps KBUILD_BUILD_HOST=nscaps

die() { echo "error: $*" >&2; exit 1; }
log() { echo "== $*" >&2; }

# ksrc_version: the Debian package version of the installed kernel source.
ksrc_version() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
		die "linux-source-6.12 is not installed (run scripts/deps.sh)"
}

# series_patches: the patch files named by kernel/series, in order.
series_patches() {
	[ -f "$SERIES_FILE" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES_FILE"
}

# unpack_source DIR: a fresh copy of Debian's 6.12 tree in DIR.
unpack_source() {
	local dir=$1
	[ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing (run scripts/deps.sh)"
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xf "$KSRC_TARBALL" -C "$dir" --strip-components=1
}
