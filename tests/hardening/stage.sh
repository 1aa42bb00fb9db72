#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stage the hardening guest programs into STAGE (see vm/guest-init.sh):
#   stage.sh STAGE
# Builds hostile_xattr, stress and race into STAGE/usr/local/bin and appends their
# "name|tap|command" lines to STAGE/tests/list.
# HARDENING_RANDOM (random operations per filesystem, default 1500) and
# HARDENING_STRESS_SECONDS (default 20) and HARDENING_RACE_SECONDS (default 8,
# per race) size the runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
stage=$1
mkdir -p "$stage/tests" "$stage/usr/local/bin"
for p in hostile_xattr stress race; do
	gcc -O2 -Wall -Werror -o "$stage/usr/local/bin/$p" "$here/$p.c"
done
cat >>"$stage/tests/list" <<LIST
hardening-hostile|tap|hostile_xattr -n ${HARDENING_RANDOM:-1500}
hardening-stress|tap|stress -t ${HARDENING_STRESS_SECONDS:-20}
hardening-race|tap|race -t ${HARDENING_RACE_SECONDS:-8}
LIST
