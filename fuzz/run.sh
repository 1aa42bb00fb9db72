#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every built fuzz target for a fixed time.
#   run.sh fuzz|smoke SECONDS
# Each target starts from its seeds (corpus/<target>/) plus what earlier runs
# found (build/corpus/<target>/), with xattr.dict.  Prints one TAP line per
# target, "ok N - fuzz_xxx: E execs, 0 crashes", and a summary line
# "# fuzz: execs=E crashes=C targets=T seconds=S" (also in
# build/fuzz-summary.txt, read by tests/hardening/table.sh).  Crashing
# inputs are kept in build/crashes/.  Exit 1 on any crash.
set -uo pipefail
mode=$1 secs=$2
here=$(cd "$(dirname "$0")" && pwd)
b=$here/build
mkdir -p "$b/crashes" "$b/logs"
targets=$(sed -n 's/^targets=//p' "$b/ksrc/origin")
skipped=$(sed -n 's/^missing=//p' "$b/ksrc/origin")
n=0 total=0 crashes=0 fail=0
ntargets=$(echo $targets $skipped | wc -w)
echo "1..$ntargets"
for t in $targets; do
	n=$((n + 1))
	mkdir -p "$b/corpus/$t"
	maxlen=512
	case $t in fuzz_list_rewrite|fuzz_raw_names) maxlen=8192 ;; esac
	log=$b/logs/$t.log
	before=$(ls "$b/crashes" | grep -c "^$t-" || true)
	"$b/$t" -max_total_time="$secs" -max_len=$maxlen -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-dict="$here/xattr.dict" -artifact_prefix="$b/crashes/$t-" \
		"$b/corpus/$t" "$here/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ -z "$execs" ]; then
		# a crash ends the run before the final stats: take the last status line
		execs=$(grep -o '#[0-9]*' "$log" | tail -1 | tr -d '#')
	fi
	: "${execs:=0}"
	after=$(ls "$b/crashes" | grep -c "^$t-" || true)
	c=$((after - before))
	[ $rc != 0 ] && [ $c = 0 ] && c=1
	total=$((total + execs))
	crashes=$((crashes + c))
	if [ $c = 0 ]; then
		echo "ok $n - $t: $execs execs, 0 crashes"
	else
		fail=1
		echo "not ok $n - $t: $execs execs, $c crashes (log: $log)"
		grep -m3 -E 'invariant failed|ERROR: AddressSanitizer|runtime error|LeakSanitizer|WARN' "$log" | sed 's/^/# /'
		ls -t "$b/crashes" | grep "^$t-" | head -3 | sed "s|^|# input: $b/crashes/|"
	fi
done
for t in $skipped; do
	n=$((n + 1))
	echo "ok $n - $t # SKIP its kernel function is not in the fuzzed source"
done
origin=$(head -1 "$b/ksrc/origin" 2>/dev/null)
summary="# fuzz: execs=$total crashes=$crashes targets=$ntargets seconds=$secs source=$origin"
echo "$summary"
echo "$summary" >"$b/fuzz-summary.txt"
exit $fail
