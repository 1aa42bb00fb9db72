#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stage the stacking-invariants test into STAGE (see vm/guest-init.sh):
#   stage.sh KSRC STAGE
# Builds stack_invariants_test against KSRC's selftest headers into
# STAGE/kselftest/filesystems/nscaps, which must hold nscaps_caps already
# (scripts/selftests.sh stages it), and appends its "name|tap|command" line
# to STAGE/tests/list.
#   NSCAPS_INV_SECONDS  time budget in the guest (default 300)
#   NSCAPS_SEED         the sample; by default that of the patches and of
#                       this test (eight hex digits of a hash of their git
#                       objects), so that every clone of them draws the same
#                       stacks, and a change of the kernel or the test
#                       others (a commit of anything else does not).
#                       The test prints it; "NSCAPS_SEED=S NSCAPS_CONFIG=I"
#                       replays stack I.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ksrc=$1 stage=$2
dest=$stage/kselftest/filesystems/nscaps
sel=$ksrc/tools/testing/selftests
[ -x "$dest/nscaps_caps" ] || { echo "no $dest/nscaps_caps" >&2; exit 1; }
gcc -O2 -Wall -Werror -I "$sel" -I "$sel/filesystems/nscaps" \
	-o "$dest/stack_invariants_test" "$here/stack_invariants_test.c"
# The kernel's patches and the test program: not the cover letter or a README.
trees=$(git -C "$here/../.." ls-tree HEAD kernel/patches/ tests/invariants/stack_invariants_test.c \
	2>/dev/null | grep -v 0000-cover-letter || true)
seed=${NSCAPS_SEED:-$((16#$(printf '%s' "${trees:-6}" | sha1sum | cut -c1-8)))}
env="NSCAPS_SEED=$seed NSCAPS_INV_SECONDS=${NSCAPS_INV_SECONDS:-300}"
echo "stack-invariants|tap|cd /kselftest/filesystems/nscaps && $env ./stack_invariants_test" >>"$stage/tests/list"
