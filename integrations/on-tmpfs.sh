#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest helper (integrations/stage.sh): run CMD in a tmpfs of its own, mode
# 1777 so that a user namespace whose root is host uid 100000 walks into it,
# with fs.xattr_user_ns set to SYSCTL during CMD and 1 afterwards; CMD runs
# there, with TMPDIR there too.
#   on-tmpfs.sh SYSCTL CMD [ARG...]
sysctl=$1
shift
mkdir t && mount -t tmpfs -o mode=1777 engine t || exit 1
echo "$sysctl" >/proc/sys/fs/xattr_user_ns || exit 1
TMPDIR=$(pwd)/t
export TMPDIR
(cd t && "$@")
rc=$?
echo 1 >/proc/sys/fs/xattr_user_ns
umount t
exit $rc
