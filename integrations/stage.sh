#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stage the engine archivers' guest tests (issue 25) into STAGE:
#   integrations/stage.sh STAGE
# Builds them (integrations/build.sh) and appends to STAGE/tests/list the
# test program, once with fs.xattr_user_ns on and once off, and the two
# patched packages' own Go tests. Each runs on a tmpfs of its own (mode
# 1777: the user namespace whose root is host uid 100000 walks into it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
stage=$1
bash "$here/build.sh" >&2
mkdir -p "$stage/engine" "$stage/tests"
cp "${NSCAPS_BUILD:-$top/build}"/integrations/bin/* "$stage/engine/"
cp "$here/on-tmpfs.sh" "$stage/engine/"
run="sh /engine/on-tmpfs.sh"
cat >>"$stage/tests/list" <<LIST
engine-archive|tap|$run 1 /engine/engine-archive
engine-archive-sysctl0|tap|$run 0 /engine/engine-archive
moby-archive-gotest|plain|$run 1 /engine/moby-archive.test -test.v -test.run 'UserNSCapability|CapabilityV2'
storage-archive-gotest|plain|$run 1 /engine/storage-archive.test -test.v -test.run 'UserNSCapability|CapabilityV2'
LIST
