#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The harness's own tests: vm/results.py on recorded console logs must give
# the reviewed results in fixtures/*.expected (a failing case, a WARN, a
# KASAN report with a panic, a missing KUnit suite, skips).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for log in "$here"/fixtures/*.log; do
	name=$(basename "$log" .log)
	if diff -u "$here/fixtures/$name.expected" \
		<(python3 "$here/../../vm/results.py" "$log" --expect-kunit demo) >&2; then
		echo "PASS harness:$name"
	else
		echo "FAIL harness:$name: results differ from fixtures/$name.expected"
	fi
done
