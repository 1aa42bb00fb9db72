# SPDX-License-Identifier: GPL-2.0
# TAP helpers of the LSM guest's tests (sourced by busybox sh; helpers keep
# their variables local: busybox sh has one global scope).
n=0 fail=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
# check DESC CMD...: CMD succeeds
check() {
	local desc=$1
	shift
	if "$@"; then pass "$desc"; else flunk "$desc"; fi
}
# refuse DESC CMD...: CMD fails
refuse() {
	local desc=$1
	shift
	if "$@"; then flunk "$desc"; else pass "$desc"; fi
}
# is DESC GOT WANT: two strings are equal
is() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		flunk "$1"
		echo "#   got:  '$2'"
		echo "#   want: '$3'"
	fi
}
bail() {
	flunk "$1"
	echo "1..$n"
	exit 1
}
done_testing() {
	echo "1..$n"
	[ "$fail" = 0 ]
}
# cur CMD...: the "Current:" capability line of capsh --print run by CMD
cur() { "$@" --print 2>/dev/null | sed -n 's/^Current: //p'; }
# label FILE: FILE's security.selinux as host root reads it (the in-core
# label: SELinux answers this read), without the trailing NUL
label() { getfattr --absolute-names --only-values -h -n security.selinux "$1" 2>/dev/null | tr -d '\000'; }
# names FILE: every xattr name=value (text) of FILE as host root lists them
names() { getfattr --absolute-names -h -d -m - "$1" 2>/dev/null | sed -e '/^# file: /d' -e '/^$/d' | sort; }

V2_KILL=0x0100000220000000000000000000000000000000
V2_NET_RAW=0x0100000200200000000000000000000000000000
V2_NET_ADMIN=0x0100000200100000000000000000000000000000
# v3 values as the host reads them: rootid 100000 (a0860100)
V3_NET_RAW_100000=0x0100000300200000000000000000000000000000a0860100
V3_NET_ADMIN_100000=0x0100000300100000000000000000000000000000a0860100
A="0 100000 65536" B="0 200000 65536"
