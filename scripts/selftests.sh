#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build kselftest directories of a kernel tree against its exported headers
# and stage them for the guest.
#   selftests.sh SRC OUT STAGE DIR...
# Each DIR (relative to tools/testing/selftests) is installed to
# STAGE/kselftest/DIR and every program it lists in TEST_GEN_PROGS becomes a
# "tap" entry of STAGE/tests/list.
. "$(dirname "$0")/lib.sh"

src=$(cd "$1" && pwd) out=$(cd "$2" && pwd)
mkdir -p "$3" && stage=$(cd "$3" && pwd)
shift 3
make -C "$src" O="$out" ARCH=x86_64 -s headers >/dev/null
mkdir -p "$stage/tests"
for dir in "$@"; do
	sdir=$src/tools/testing/selftests/$dir
	[ -d "$sdir" ] || die "no selftest directory $dir in $src"
	dest=$stage/kselftest/$dir
	mkdir -p "$dest"
	make -C "$sdir" -s OUTPUT="$dest" KHDR_INCLUDES="-isystem $out/usr/include" \
		top_srcdir="$src" >"$out/selftest-${dir//\//-}.log" 2>&1 ||
		{ cat "$out/selftest-${dir//\//-}.log" >&2; die "selftests $dir failed to build"; }
	progs=$(make -C "$sdir" -s --no-print-directory OUTPUT="$dest" \
		-f - print-progs <<'MK'
include Makefile
print-progs:
	@echo $(notdir $(TEST_GEN_PROGS) $(TEST_PROGS))
MK
)
	[ -n "$progs" ] || die "selftests $dir lists no programs"
	for p in $progs; do
		echo "${dir//\//-}-$p|tap|cd /kselftest/$dir && ./$p" >>"$stage/tests/list"
	done
done
