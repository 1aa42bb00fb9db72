# SPDX-License-Identifier: GPL-2.0
# TAP helpers of the guest's shell tests (and the few checks several of them
# make), sourced from /tests/tap.sh by busybox sh; helpers keep their
# variables local, since ash's locals are dynamically scoped.
n=0 fail=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
# skip DESC WHY: a point that cannot run here, and why
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# check DESC CMD...: CMD succeeds
check() {
	local desc=$1
	shift
	if "$@"; then pass "$desc"; else flunk "$desc"; fi
}
# runs DESC LOG CMD...: CMD succeeds; its output in LOG, shown if it fails
runs() {
	local desc=$1 log=$2
	shift 2
	if "$@" >"$log" 2>&1; then
		pass "$desc"
	else
		flunk "$desc"
		sed 's/^/#   /' "$log"
	fi
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
# same DESC A B: files A and B are byte-identical (A non-empty unless
# EMPTY_OK=1)
same() {
	if cmp -s "$2" "$3" && { [ "${EMPTY_OK:-0}" = 1 ] || [ -s "$2" ]; }; then
		pass "$1"
	else
		flunk "$1"
		echo "# --- got ($2)"; sed 's/^/#   /' "$2"
		echo "# --- want ($3)"; sed 's/^/#   /' "$3"
	fi
}
# file_is DESC FILE [LINE...]: FILE holds exactly these lines (none: empty)
file_is() {
	local desc=$1 file=$2 want=${TMPDIR:-/tmp}/.tap-want
	shift 2
	if [ $# = 0 ]; then : >"$want"; else printf '%s\n' "$@" >"$want"; fi
	EMPTY_OK=1 same "$desc" "$file" "$want"
}
bail() {
	flunk "$1"
	echo "1..$n"
	exit 1
}
done_testing() {
	echo "1..$n"
	echo "# $((n - fail)) passed, $fail failed"
	[ "$fail" = 0 ]
}
# cur CMD...: the "Current:" capability line of capsh --print run by CMD
cur() { "$@" --print 2>/dev/null | sed -n 's/^Current: //p'; }
# paxval TARFILE NAME BYTES: hex (0x...) of the first BYTES bytes of NAME's
# value in the first PAX record of NAME in TARFILE (the record is
# "LEN SCHILY.xattr.NAME=VALUE")
paxval() {
	local k
	k=$(printf 'SCHILY.xattr.%s=' "$2" | xxd -p | tr -d '\n')
	xxd -p "$1" | tr -d '\n' | grep -o "$k[0-9a-f]\{$(($3 * 2))\}" | head -1 | sed "s/^$k/0x/"
}
# capnames FILE: the security.capability names and values (hex) of FILE as
# host root lists them, sorted; getfattr prints '=' in a name as \075
capnames() {
	getfattr --absolute-names -h -d -m '^security\.capability' -e hex "$1" 2>/dev/null |
		grep '^security\.capability' | sort
}
# Values in hex as getfattr -e hex prints them: v2 values of one capability
# (=ep), and (v3_net_raw K) cap_net_raw=ep as v3 with rootid K (little-endian
# hex), which is what host root reads from a raw security.capability@uid=K.
V2_NET_RAW=0x0100000200200000000000000000000000000000
V2_KILL=0x0100000220000000000000000000000000000000
V2_NET_ADMIN=0x0100000200100000000000000000000000000000
V2_CHOWN=0x0100000201000000000000000000000000000000
V2_SYS_TIME=0x0100000200000002000000000000000000000000
V3_NET_RAW_100000=0x0100000300200000000000000000000000000000a0860100
v3_net_raw() { echo "0x0100000300200000000000000000000000000000$1"; }
