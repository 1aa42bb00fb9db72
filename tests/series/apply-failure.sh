#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A patch that no longer applies must stop the build with a message naming the
# patch and the file. Uses a scratch tree holding the top Makefile only.
. "$(dirname "$0")/../../scripts/lib.sh"

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
unpack_source "$t/src" Makefile
mkdir -p "$t/patches"
cat >"$t/patches/0001-stale.patch" <<'P'
--- a/Makefile
+++ b/Makefile
@@ -1,3 +1,3 @@
 # SPDX-License-Identifier: GPL-2.0
-VERSION = 5
+VERSION = 7
 PATCHLEVEL = 12
P
echo 0001-stale.patch >"$t/series"
if msg=$( (apply_series "$t/src" "$t/patches" "$t/series") 2>&1); then
	echo "FAIL series:stale-patch-is-named: a stale patch applied"
elif grep -q 'patch 0001-stale.patch does not apply' <<<"$msg" && grep -q 'Makefile' <<<"$msg"; then
	echo "PASS series:stale-patch-is-named"
else
	echo "FAIL series:stale-patch-is-named: message was: $msg"
fi
