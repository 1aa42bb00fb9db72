#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the test guest: run each entry of /tests/list, framed by markers
# that vm/results.py reads back from the serial console.
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
# KUnit has printed its results during boot; wait for nothing else.
echo "NSCAPS-GUEST-START $(uname -r)"
timeout=$(sed -n 's/.*nscaps.timeout=\([0-9]*\).*/\1/p' /proc/cmdline)
: "${timeout:=600}"
# nscaps.list=FILE: another list of the same initramfs (the LSM guest's
# SELinux boot).
list=$(sed -n 's/.*nscaps.list=\([^ ]*\).*/\1/p' /proc/cmdline)
: "${list:=/tests/list}"
while IFS='|' read -r name kind cmd; do
	case $name in ''|'#'*) continue ;; esac
	echo "NSCAPS-BEGIN $name $kind"
	work=$(mktemp -d /tmp/t.XXXXXX)
	chmod 755 "$work"  # containers in the tests must reach their files
	(cd "$work" && TMPDIR=$work timeout "$timeout" sh -c "$cmd") </dev/null 2>&1
	rc=$?
	rm -rf "$work"
	echo "NSCAPS-END $name rc=$rc"
done <"$list"
echo "NSCAPS-GUEST-DONE"
sync
reboot -f
