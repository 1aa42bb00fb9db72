#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Put the kernel source the harness compiles into OUT:
#   ksrc.sh KSRC OUT
# KSRC is a kernel tree with the series applied (default of the Makefile:
# build/kernel/src-patched, made by scripts/kernel-build.sh; the work tree
# build/linux works too, read only).  Without one, the files are extracted
# by applying kernel/series to an empty scratch directory, restricted to
# the files the harness needs: a fresh clone fuzzes the committed series.
# OUT/fs/xattr_user_ns.c and OUT/include/linux/xattr_user_ns.h are
# rewritten only when they change; OUT/origin says where they came from.
set -euo pipefail
ksrc=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
files="fs/xattr_user_ns.c include/linux/xattr_user_ns.h"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -f "$ksrc/fs/xattr_user_ns.c" ] && [ -f "$ksrc/include/linux/xattr_user_ns.h" ]; then
	for f in $files; do
		mkdir -p "$tmp/$(dirname "$f")"
		cp "$ksrc/$f" "$tmp/$f"
	done
	origin="tree $ksrc"
else
	inc=
	for f in $files; do inc="$inc --include=$f"; done
	n=0
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2086
		(cd "$tmp" && git apply $inc "$root/kernel/patches/$p")
		n=$((n + 1))
	done <"$root/kernel/series"
	for f in $files; do
		[ -f "$tmp/$f" ] || { echo "ksrc.sh: kernel/series does not create $f" >&2; exit 1; }
	done
	origin="kernel/series ($n patches)"
fi
for f in $files; do
	mkdir -p "$out/$(dirname "$f")"
	cmp -s "$tmp/$f" "$out/$f" || cp "$tmp/$f" "$out/$f"
done
# Functions that arrive with later patches: their targets are built when
# the source defines them.
targets="fuzz_name_parse fuzz_name_map"
missing=
for t in "fuzz_list_rewrite:ssize_t xattr_user_ns_list(" "fuzz_raw_names:char \*xattr_user_ns_raw_names("; do
	if grep -q "^${t#*:}" "$out/fs/xattr_user_ns.c"; then
		targets="$targets ${t%%:*}"
	else
		missing="$missing ${t%%:*}"
	fi
done
new="$origin
targets=$targets
missing=$missing"
[ "$(cat "$out/origin" 2>/dev/null)" = "$new" ] || echo "$new" >"$out/origin"
echo "fuzzing kernel source from $origin${missing:+ (not in it:$missing)}" >&2
