#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stage the project's own guest tests (beside the kselftests) into STAGE.
#   stage.sh STAGE
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
stage=$1
mkdir -p "$stage/tests" "$stage/usr/local/bin"
# The TAP helpers every guest shell test sources.
cp "$root/tests/guest/tap.sh" "$stage/tests/tap.sh"
if [ -x "$root/nscap/build/nscap" ]; then
	cp "$root/nscap/build/nscap" "$stage/usr/local/bin/nscap"
	if [ -f "$root/nscap/tests/vm-golden.sh" ]; then
		cp "$root/nscap/tests/vm-golden.sh" "$stage/tests/nscap-golden.sh"
		echo "nscap-golden|tap|sh /tests/nscap-golden.sh" >>"$stage/tests/list"
	fi
fi
gcc -O2 -Wall -Wextra -Werror -o "$stage/usr/local/bin/nsrun" "$root/vm/tools/nsrun.c"
mkdir -p "$stage/usr/local/lib"
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$stage/usr/local/lib/socketpair-pipe.so" \
	"$root/tests/guest/socketpair-pipe.c" -ldl
cp "$root/tests/guest/tools-archive.sh" "$stage/tests/tools-archive.sh"
echo "tools-archive|tap|sh /tests/tools-archive.sh" >>"$stage/tests/list"
