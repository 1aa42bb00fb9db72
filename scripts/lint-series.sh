#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict over every patch of the series. Errors fail; a
# warning or check passes only if kernel/checkpatch-accepted names its patch
# and type with the reason it stays. Each patch must also be authored and
# signed off by kernel/author. Prints result lines per patch.
#   lint-series.sh [PATCH...]   (default: every patch of kernel/series)
. "$(dirname "$0")/lib.sh"

accepted=$NSCAPS_ROOT/kernel/checkpatch-accepted
tool=$BUILD/checkpatch
if [ ! -x "$tool/scripts/checkpatch.pl" ]; then
	mkdir -p "$tool"
	tar -xf "$KSRC_TARBALL" -C "$tool" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
fi
# --no-tree leaves checkpatch without a root, and its CamelCase check would
# then search /include; give it this small tree, whose include/ is empty.
mkdir -p "$tool/include"
author=$(cat "$NSCAPS_ROOT/kernel/author")
case $author in *@invalid*|'') die "kernel/author is a placeholder: '$author'" ;; esac
[ $# -gt 0 ] || set -- $(series_patches)
for p in "$@"; do
	# From: as git mailinfo reads it (a long header is folded), and the
	# sign-offs of the message (above the --- line).
	from=$(awk '/^$/ { exit } /^From: / { f = substr($0, 7); on = 1; next }
		on && /^[ \t]/ { sub(/^[ \t]+/, " "); f = f $0; next } { on = 0 } END { print f }' \
		"$SERIES_DIR/$p")
	if [ "$from" = "$author" ] &&
	   sed '/^---$/q' "$SERIES_DIR/$p" | grep -qxF "Signed-off-by: $author"; then
		echo "PASS author:$p"
	else
		echo "FAIL author:$p: From '$from', or no 'Signed-off-by: $author'"
	fi
	report=$(cd "$tool" && perl scripts/checkpatch.pl --strict --no-tree --root=. --show-types \
		--terse "$SERIES_DIR/$p" || true)
	bad=
	while IFS= read -r line; do
		type=$(sed -n 's/.*: \(ERROR\|WARNING\|CHECK\):\([A-Z_]*\):.*/\1:\2/p' <<<"$line")
		[ -n "$type" ] || continue
		case $type in
		ERROR:*) bad="$bad ${type}" ;;
		*) grep -q "^$p ${type#*:} " "$accepted" 2>/dev/null || bad="$bad ${type}" ;;
		esac
	done <<<"$report"
	if [ -z "$bad" ]; then
		echo "PASS checkpatch:$p"
	else
		echo "FAIL checkpatch:$p:$bad"
		echo "$report" | sed 's/^/    /' >&2
	fi
done
