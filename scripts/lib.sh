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
# summarize RESULTS T0 TITLE: print RESULTS (PASS/FAIL/SKIP lines), the wall
# time since T0 and the closing line "N passed, N failed, N skipped"; false
# if anything failed or nothing passed.
summarize() {
	local pass fail skip
	echo
	echo "== $3"
	awk '{ print "  " $0 }' "$1"
	pass=$(grep -c '^PASS ' "$1" || true)
	fail=$(grep -c '^FAIL ' "$1" || true)
	skip=$(grep -c '^SKIP ' "$1" || true)
	echo "== wall time: $(($(date +%s) - $2)) s"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
}

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

# unpack_source DIR [PATH...]: a fresh copy of Debian's 6.12 tree in DIR
# (only the given paths, relative to the tree's top, if any are given).
unpack_source() {
	local dir=$1 top
	shift
	[ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing (run scripts/deps.sh)"
	rm -rf "$dir"
	mkdir -p "$dir"
	top=linux-source-6.12
	tar -xf "$KSRC_TARBALL" -C "$dir" --strip-components=1 "${@/#/$top/}"
}

# am_series TREE [PATCHDIR SERIESFILE]: commit the series on the git work
# tree TREE, one commit per patch, with git am (worktree.sh import and
# range-diff.sh; the committer comes from the environment).
am_series() {
	local tree=$1 pdir=${2:-$SERIES_DIR} sfile=${3:-$SERIES_FILE} p
	for p in $(SERIES_FILE=$sfile series_patches); do
		[ -f "$pdir/$p" ] || die "series names $p, which is not in $pdir"
		if ! git -C "$tree" am -q --keep-cr "$pdir/$p" >&2; then
			git -C "$tree" am --abort || true
			die "patch $p does not apply to linux-source-6.12 $(ksrc_version)"
		fi
	done
}

# apply_series DIR [PATCHDIR SERIESFILE]: apply the series to the tree in DIR.
# A patch that does not apply stops with its name and the failing files and hunks.
apply_series() {
	local dir=$1 pdir=${2:-$SERIES_DIR} sfile=${3:-$SERIES_FILE} p out n=0
	for p in $(SERIES_FILE=$sfile series_patches); do
		[ -f "$pdir/$p" ] || die "series names $p, which is not in $pdir"
		if ! out=$(patch -d "$dir" -p1 -N --dry-run <"$pdir/$p" 2>&1); then
			echo "$out" | sed 's/^/  /' >&2
			die "patch $p does not apply to linux-source-6.12 $(ksrc_version) (failing files and hunks above)"
		fi
		patch -d "$dir" -p1 -N -s <"$pdir/$p" >/dev/null
		n=$((n + 1))
	done
	log "applied $n patches from $(basename "$sfile")"
}
