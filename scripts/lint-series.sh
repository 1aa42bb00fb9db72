#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict over every patch of the series. Errors fail; a
# warning or check passes only if kernel/checkpatch-accepted names its patch
# and type with the reason it stays. Prints one result line per patch.
. "$(dirname "$0")/lib.sh"

accepted=$NSCAPS_ROOT/kernel/checkpatch-accepted
tool=$BUILD/checkpatch
if [ ! -x "$tool/scripts/checkpatch.pl" ]; then
	mkdir -p "$tool"
	tar -xf "$KSRC_TARBALL" -C "$tool" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
fi
for p in $(series_patches); do
	report=$(cd "$tool" && perl scripts/checkpatch.pl --strict --no-tree --show-types \
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
