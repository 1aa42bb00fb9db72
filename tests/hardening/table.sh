#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The hardening table of the README from a guest console log and the fuzz
# summary:
#   table.sh CONSOLE_LOG [FUZZ_SUMMARY]
# CONSOLE_LOG: the console.log of a run whose stage included
# tests/hardening/stage.sh (the main boot's, for the kernel reports).
# FUZZ_SUMMARY: the "# fuzz: execs=... crashes=..." line file written by
# make -C fuzz fuzz|smoke (default fuzz/build/fuzz-summary.txt).
# Prints a Markdown table; exit 1 if any figure that must be 0 is not.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
log=$1
fz=${2:-$root/fuzz/build/fuzz-summary.txt}
[ -f "$log" ] || { echo "table.sh: no console log $log" >&2; exit 2; }

val() { # val KEY FILE: last "KEY=N" on a "# ..." line
	grep -o "[# ].*\b$1=[0-9]*" "$2" | sed -n "s/.*\b$1=\([0-9]*\).*/\1/p" | tail -1
}
# Sum a key over all "# key=N" lines of the hardening programs.
sum() {
	grep -aoE "^# ([a-z]+=[0-9]+ ?)+" "$log" | grep -oE "\b$1=[0-9]+" |
		cut -d= -f2 | awk '{s+=$1} END {print s+0}'
}
inputs=$(sum inputs)
ops=$(sum ops)
lost=$(sum lost)
stale=$(sum stale)
# Kernel reports: KASAN, UBSAN, lockdep, warnings, oopses, hung tasks,
# leaks, list corruption (the patterns vm/results.py's checks use, widened).
reports=$(grep -acE 'BUG: KASAN|UBSAN:|WARNING: (possible|inconsistent|suspicious)|possible circular locking|WARNING: CPU:|general protection fault|Oops:|Kernel panic|BUG: unable to handle|kernel BUG at|list_add corruption|list_del corruption|INFO: task .* blocked|unreferenced object|BUG: sleeping function' "$log" || true)
kernel=$(grep -aom1 'NSCAPS-GUEST-START .*' "$log" | cut -d' ' -f2 || true)
debug=no
grep -aq 'KernelAddressSanitizer initialized\|kasan: KernelAddressSanitizer' "$log" && debug="yes (KASAN)"
tests=$(awk '/NSCAPS-BEGIN hardening-/{on=1} /NSCAPS-END hardening-/{on=0} on' "$log")
pass=$(echo "$tests" | grep -acE '^ok [0-9]+ ' || true)
fail=$(echo "$tests" | grep -acE '^not ok [0-9]+ ' || true)
skip=$(echo "$tests" | grep -acE '^ok [0-9]+ .*# SKIP' || true)
if [ -f "$fz" ]; then
	execs=$(val execs "$fz")
	crashes=$(val crashes "$fz")
	secs=$(val seconds "$fz")
	targets=$(val targets "$fz")
	fsrc=$(sed -n 's/.*source=//p' "$fz")
else
	execs=n/a crashes=n/a secs=? targets=? fsrc=?
fi
cat <<TABLE
| figure | value |
|---|---|
| hostile inputs tried (names, sizes, flags, list sizes) | ${inputs:-0} |
| syscalls run (hostile_xattr + stress) | ${ops:-0} |
| kernel reports on the console (KASAN, UBSAN, lockdep, WARN, oops) | $reports |
| lost values / stale values after stress and ENOSPC | ${lost:-0} / ${stale:-0} |
| fuzz executions ($targets targets, ${secs}s each) | $execs |
| fuzz crashes | $crashes |
| guest test points: passed / failed / skipped | $((pass - skip)) / $fail / $skip |

Kernel: ${kernel:-?}, debug checkers: $debug. Fuzzed source: $fsrc.
TABLE
bad=0
[ "$reports" = 0 ] || bad=1
[ "${lost:-0}" = 0 ] && [ "${stale:-0}" = 0 ] || bad=1
[ "$crashes" = 0 ] || bad=1
[ "$fail" = 0 ] || bad=1
exit $bad
