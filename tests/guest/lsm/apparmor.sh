#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# apparmor.sh - the LSM guest's default boot runs Debian's stack with
# AppArmor (the first exclusive LSM of Debian's order), SELinux not active.
# The nscaps kselftests then run under it. TAP on stdout.
set -u
. /tests/lsm/tap.sh
grep -q ' /sys/kernel/security ' /proc/mounts || mount -t securityfs none /sys/kernel/security
lsms=$(cat /sys/kernel/security/lsm)
echo "# /sys/kernel/security/lsm: $lsms"
for l in capability landlock lockdown yama apparmor ima evm; do
	case ,$lsms, in
	*,$l,*) pass "$l is active" ;;
	*) flunk "$l is active" ;;
	esac
done
case ,$lsms, in
*,selinux,*) flunk "selinux is not active (exclusive with AppArmor)" ;;
*) pass "selinux is not active (exclusive with AppArmor)" ;;
esac
is "/sys/module/apparmor/parameters/enabled" "$(cat /sys/module/apparmor/parameters/enabled)" Y
check "AppArmor's securityfs tree is there" test -e /sys/kernel/security/apparmor/profiles
done_testing
