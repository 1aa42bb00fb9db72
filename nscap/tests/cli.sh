#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cli.sh - command-line tests of nscap that never read or write an xattr:
# options, usage errors, exit codes, kernel probe, dump validation.
# Usage: sh tests/cli.sh path/to/nscap [nscap.1]      Output: TAP.
set -u
NSCAP=${1:?usage: cli.sh NSCAP [MANPAGE]}
MAN=${2:-}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
n=0 fail=0

ok() { # ok DESC CMD...: pass when CMD succeeds
	desc=$1; shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fail=$((fail + 1)); fi
}

run() { # run: capture stdout, stderr and exit status of nscap
	"$NSCAP" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

run --version
ok "--version prints 'nscap from nscaps X'" grep -Eq '^nscap from nscaps [0-9]+\.[0-9]+\.[0-9]+$' "$T/out"
ok "--version exits 0" test "$rc" -eq 0
run -V
ok "-V is --version" grep -q '^nscap from nscaps' "$T/out"
run --help
ok "--help exits 0" test "$rc" -eq 0
ok "--help starts with Usage:" sh -c 'head -n1 "$1" | grep -qx "Usage:"' - "$T/out"
ok "--help ends with the man page pointer" sh -c 'tail -n1 "$1" | grep -qx "For more details see nscap(1)."' - "$T/out"
run get --help
ok "subcommand --help exits 0" test "$rc" -eq 0
run
ok "no command: exit 2" test "$rc" -eq 2
ok "no command: points to --help" grep -q "Try 'nscap --help'" "$T/err"
run frobnicate x
ok "unknown command: exit 2" test "$rc" -eq 2
ok "unknown command: named" grep -q "unknown command 'frobnicate'" "$T/err"
run get
ok "get without files: exit 2" test "$rc" -eq 2
run get --bogus x
ok "unknown option: exit 2" test "$rc" -eq 2
for k in 0 01 +1 -1 4294967295 99999999999 '' ' 5' 5x; do
	run set --uid "$k" cap_net_raw=ep "$T/none"
	ok "set --uid '$k' refused with exit 2" test "$rc" -eq 2
done
run set --uid 5 cap_net_raw=ep "$T/none" --wildcard
ok "--uid with --wildcard: exit 2" test "$rc" -eq 2
run set cap_bogus=ep "$T/none"
ok "bad capability text: exit 2" test "$rc" -eq 2
ok "bad capability text: named" grep -q "invalid capabilities 'cap_bogus=ep'" "$T/err"
run set 'cap_net_raw=p cap_sys_admin=ei' "$T/none"
ok "partial effective set: exit 2 with reason" sh -c '[ "$1" -eq 2 ] && grep -q "effective set" "$2"' - "$rc" "$T/err"
run set --format v3 cap_net_raw=ep "$T/none"
ok "set --format v3 without --uid: exit 2" test "$rc" -eq 2
run convert "$T/none"
ok "convert without direction: exit 2" test "$rc" -eq 2
run convert --to-plain "$T/none"
ok "convert --to-plain without key: exit 2" test "$rc" -eq 2
run convert --to-uid --uid 5 "$T/none"
ok "convert --to-uid with --uid: exit 2" test "$rc" -eq 2
run convert --to-wildcard --wildcard "$T/none"
ok "convert --to-wildcard --wildcard: exit 2" test "$rc" -eq 2
run convert --to-wildcard --format v3 "$T/none"
ok "convert --to-wildcard --format v3: exit 2 (the wildcard is v2)" test "$rc" -eq 2
run convert --from-wildcard --format v3 "$T/none"
ok "convert --from-wildcard --format v3 without --uid: exit 2" test "$rc" -eq 2
run convert --to-wildcard --from-wildcard "$T/none"
ok "convert with two directions: exit 2, named" sh -c '[ "$1" -eq 2 ] && grep -q "exactly one of" "$2"' - "$rc" "$T/err"
run remove --all --uid 5 "$T/none"
ok "remove --all with --uid: exit 2" test "$rc" -eq 2

# Kernel probe, with the sysctl file faked through NSCAP_SYSCTL.
NSCAP_SYSCTL=$T/absent run status
ok "status: absent sysctl reported" grep -qx 'namespaced xattrs: absent' "$T/out"
ok "status: absent sysctl gives a Hint: line" grep -q '^Hint: this kernel lacks namespaced xattrs' "$T/err"
echo 0 >"$T/sysctl"
NSCAP_SYSCTL=$T/sysctl run status
ok "status: sysctl 0 is disabled" grep -qx 'namespaced xattrs: disabled' "$T/out"
ok "status: disabled gives the sysctl to set" grep -q 'sysctl -w fs.xattr_user_ns=1' "$T/err"
echo 1 >"$T/sysctl"
NSCAP_SYSCTL=$T/sysctl run status
ok "status: sysctl 1 is enabled, no hint" sh -c 'grep -qx "namespaced xattrs: enabled" "$1" && ! test -s "$2"' - "$T/out" "$T/err"
NSCAP_SYSCTL=$T/absent run -q status
ok "-q silences Hint: lines" test ! -s "$T/err"

# restore --dry-run parses and checks the dump, and writes nothing.
printf '# file: %s\nsecurity.capability=0x0100000200200000000000000000000000000000\nsecurity.capability@uid\\0751000=0x0100000300200000000000000000000000000000e8030000\n\n' "$T/none" >"$T/good"
run restore -n "$T/good"
ok "restore -n: a good dump passes" test "$rc" -eq 0
printf '# file: f\nsecurity.capability@uid\\0751000=0x01000002002000\n\n' >"$T/short"
run restore -n "$T/short"
ok "restore -n: truncated value refused, exit 1" test "$rc" -eq 1
ok "restore -n: message names line, file and cause" grep -q ':2: f: security.capability@uid=1000: truncated capability value' "$T/err"
printf '# file: f\nsecurity.capability@uid\\07501=0x0100000200200000000000000000000000000000\n\n' >"$T/badname"
run restore -n "$T/badname"
ok "restore -n: malformed @uid name refused" sh -c '[ "$1" -eq 1 ] && grep -q "malformed" "$2"' - "$rc" "$T/err"
printf 'security.capability=0x00\n' >"$T/nofile"
run restore -n "$T/nofile"
ok "restore -n: missing # file: line refused" sh -c '[ "$1" -eq 1 ] && grep -q ":1: expected" "$2"' - "$rc" "$T/err"
run restore -n "$T/does-not-exist"
ok "restore: missing dump file names it" sh -c '[ "$1" -eq 1 ] && grep -q "does-not-exist: No such file" "$2"' - "$rc" "$T/err"

if [ -n "$MAN" ]; then
	if command -v mandoc >/dev/null 2>&1; then
		ok "man page is clean under mandoc -Tlint" mandoc -Tlint -W warning "$MAN"
	else
		n=$((n + 1)); echo "ok $n - man page lint # SKIP mandoc not installed"
	fi
	"$NSCAP" --help | sed -n 's/^ \(-.\), \(--[a-z-]*\).*/\2/p' | sort -u >"$T/opts"
	missing=
	while read -r o; do
		grep -qF -- "$(echo "$o" | sed 's/-/\\-/g')" "$MAN" || missing="$missing $o"
	done <"$T/opts"
	ok "every --help option is in the man page${missing:+ (missing:$missing)}" test -z "$missing"
fi

echo "1..$n"
echo "# $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
