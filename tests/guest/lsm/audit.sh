#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# audit.sh - the BPRM_FCAPS record (type=1321) of an exec that applied a
# namespace's capability value names that namespace's root as frootid, and
# the capabilities exec applied (issue 13, part 3). TAP on stdout.
#
# Debian's auditctl sets an execve rule; no auditd runs, so the kernel prints
# the records on its log (pr_notice, rate-limited by printk_ratelimit: 10
# lines per 5 s, hence the pauses). One file carries the host's cap_kill and
# container A's cap_net_raw; exec by uid 1000 of A, then by host uid 1000.
#
# Runs ONLY in the LSM guest, as root in the initial user namespace.
set -u
. /tests/lsm/tap.sh
AUDITCTL=/sbin/auditctl
base=${TMPDIR:?}/audit
mkdir -p "$base" && cd "$base" || exit 1
chmod 755 "$base"
trap '$AUDITCTL -D >/dev/null 2>&1; $AUDITCTL -e 0 >/dev/null 2>&1' EXIT

# record USER: the last BPRM_FCAPS line in the kernel log, after an exec by
# USER (kauditd prints asynchronously: wait for it)
record() {
	local i=0
	while [ $i -lt 20 ]; do
		dmesg | grep 'type=1321 ' | tail -1 >rec.out
		[ -s rec.out ] && break
		sleep 0.5
		i=$((i + 1))
	done
	echo "# $(cat rec.out)"
	dmesg | grep -E 'type=(1300|1302) ' | sed 's/^/# /'
}
# field NAME: NAME's value in the record
field() { sed -n "s/.*[ :]$1=\([^ ]*\).*/\1/p" rec.out; }

cp /usr/sbin/capsh bin
chown 100000:100000 bin
check "host root sets cap_kill" setcap cap_kill=ep bin
check "A's root sets cap_net_raw (its own value)" nsrun -m "$A" -- setcap cap_net_raw=ep bin
getfattr --absolute-names -d -m - -e hex bin | sed -e '/^# file: /d' -e '/^$/d' | sort >names.out
is "host lists its cap_kill and A's value under @uid=100000" "$(cat names.out)" \
	"$(printf '%s\n' "security.capability=$V2_KILL" "security.capability@uid\\075100000=$V3_NET_RAW_100000")"

check "auditctl -e 1 enables audit" sh -c "$AUDITCTL -e 1 >/dev/null"
$AUDITCTL -D >/dev/null
check "auditctl: an execve rule for host uid 101000 (uid 1000 of A)" \
	$AUDITCTL -a always,exit -F arch=b64 -S execve -F uid=101000 -k nscaps-ns
check "auditctl: an execve rule for host uid 1000" \
	$AUDITCTL -a always,exit -F arch=b64 -S execve -F uid=1000 -k nscaps-host
$AUDITCTL -l | sed 's/^/# rule: /'

sleep 6
dmesg -c >/dev/null
is "exec by uid 1000 in A gets A's cap_net_raw" "$(cur nsrun -m "$A" -u 1000 -- ./bin)" "cap_net_raw=ep"
record
[ -s rec.out ] && pass "A's exec: a BPRM_FCAPS record is logged" || flunk "A's exec: a BPRM_FCAPS record is logged"
is "A's exec: frootid is A's root, 100000" "$(field frootid)" 100000
is "A's exec: fver=3 (A's value is stored as v3, rootid 100000)" "$(field fver)" 3
is "A's exec: fp is cap_net_raw" "$(field fp)" 0000000000002000
is "A's exec: fi is empty" "$(field fi)" 0
is "A's exec: fe=1" "$(field fe)" 1
# nsrun's child, not A's root before the map was written, keeps every
# capability of A as uid 1000: exec replaces them by the file's.
is "A's exec: old_pp is every capability (nsrun's child in A)" "$(field old_pp)" 000001ffffffffff
is "A's exec: pp is cap_net_raw" "$(field pp)" 0000000000002000
is "A's exec: pe is cap_net_raw" "$(field pe)" 0000000000002000
is "A's exec: pi, pa empty" "$(field pi) $(field pa)" "0 0"

sleep 6
dmesg -c >/dev/null
is "exec by host uid 1000 gets the host's cap_kill" "$(cur nsrun -H -u 1000 -- ./bin)" "cap_kill=ep"
record
[ -s rec.out ] && pass "host exec: a BPRM_FCAPS record is logged" || flunk "host exec: a BPRM_FCAPS record is logged"
is "host exec: frootid=0" "$(field frootid)" 0
is "host exec: fver=2" "$(field fver)" 2
is "host exec: old_pp is empty (host uid 1000)" "$(field old_pp)" 0
is "host exec: fp is cap_kill" "$(field fp)" 0000000000000020
is "host exec: pp is cap_kill" "$(field pp)" 0000000000000020
is "host exec: pe is cap_kill" "$(field pe)" 0000000000000020
done_testing
