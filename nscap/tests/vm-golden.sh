#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-golden.sh - golden and end-to-end tests of nscap against getcap, setcap,
# getfattr and setfattr on the same files. TAP on stdout, exit 1 on failure.
#
# Runs ONLY in the test guest (never on a host filesystem or host kernel): as
# root, in the initial user namespace, with a tmpfs at $TMPDIR and nscap,
# getcap, setcap, getfattr, setfattr (and optionally nsrun) on PATH. Busybox
# sh is enough. Registered by tests/guest/stage.sh; runs on stock 6.12 (raw
# @uid administration by host root) and on the patched kernel (plus the
# namespaced behaviour, when /proc/sys/fs/xattr_user_ns exists).
set -u
LC_ALL=C
export LC_ALL
base=${TMPDIR:?TMPDIR must be a tmpfs in the guest}/nscap-golden
rm -rf "$base"
mkdir -p "$base" && cd "$base" || exit 1
chmod 755 "$base"
. /tests/tap.sh
patched=0
[ -e /proc/sys/fs/xattr_user_ns ] && [ "$(cat /proc/sys/fs/xattr_user_ns)" != 0 ] && patched=1
echo "# kernel $(uname -r), namespaced xattrs: $([ $patched = 1 ] && echo yes || echo no)"

# hexval FILE NAME: the value of NAME as getfattr prints it in hex
hexval() { getfattr --absolute-names -n "$2" -e hex "$1" 2>/dev/null | sed -n "s/^[^=]*=//p"; }
# has_err FILE TEXT: FILE (stderr) contains TEXT
has() { grep -qF -- "$2" "$1"; }

V3_NET_RAW_1000=$(v3_net_raw e8030000)
# What host root reads from raw "@uid=1000": v3 with rootid 1000, as stored.
AT_1000_NET_RAW=$V3_NET_RAW_1000

# ---- get vs getcap ------------------------------------------------------
: >f0
: >f1; setcap cap_net_raw=ep f1
: >f2; setcap 'cap_net_raw,cap_net_admin+p cap_sys_time+i' f2
: >f3; setcap -n 1000 cap_net_bind_service=ep f3
: >f4; setcap 'cap_kill=p' f4
: >f5; setcap 'cap_net_raw+eip cap_sys_time+ei cap_chown+ep' f5
nscap get f0 >out.n 2>err.n; getcap f0 >out.g 2>&1
EMPTY_OK=1 same "get f0 (no value) prints nothing, like getcap" out.n out.g
for f in f1 f2 f3 f4 f5; do
	nscap get $f >out.n 2>err.n; getcap $f >out.g 2>&1
	same "get $f prints what getcap prints" out.n out.g
done
nscap get -n f3 >out.n; getcap -n f3 >out.g
same "get -n shows [rootid=1000] like getcap -n" out.n out.g
nscap get f0 f1 f2 f3 f4 f5 >out.n; getcap f0 f1 f2 f3 f4 f5 >out.g
same "get of several files matches getcap, same order" out.n out.g
mkdir -p tree/sub; : >tree/a; : >tree/sub/b; : >tree/sub/c
setcap cap_chown=ep tree/a; setcap cap_kill=ei tree/sub/c; ln -s a tree/link
nscap get -r tree >out.n; getcap -r tree >out.g
same "get -r matches getcap -r" out.n out.g
nscap get tree/link >out.n
EMPTY_OK=1 same "get of a symlink prints nothing, like getcap" out.n /dev/null
nscap get nonexistent >out.n 2>err.n; rc=$?
check "get of a missing file exits 1" [ $rc = 1 ]
check "get error names file and cause" has err.n "nonexistent: No such file or directory"

# ---- set / verify vs setcap / getfattr ----------------------------------
: >s1
check "set exits 0 and is silent" sh -c '[ -z "$(nscap set cap_sys_time=ep s1 2>&1)" ]'
getcap s1 >out.g
file_is "set: getcap reads the value back" out.g "s1 cap_sys_time=ep"
hexval s1 security.capability >out.h
file_is "set: plain value is v2, byte for byte" out.h "$V2_SYS_TIME"
nscap verify cap_sys_time=ep s1 >out.n; rc1=$?; setcap -v cap_sys_time=ep s1 >out.g; rc2=$?
same "verify OK prints what setcap -v prints" out.n out.g
check "verify OK exits 0 like setcap -v" [ $rc1 = 0 -a $rc2 = 0 ]
nscap verify cap_net_raw=eip s1 >out.n; rc1=$?; setcap -v cap_net_raw=eip s1 >out.g; rc2=$?
same "verify mismatch prints what setcap -v prints" out.n out.g
check "verify mismatch exits 1 like setcap -v" [ $rc1 = 1 -a $rc2 = 1 ]
nscap verify cap_sys_time=p s1 >out.n; setcap -v cap_sys_time=p s1 >out.g
same "verify effective-only difference matches setcap -v" out.n out.g
nscap verify = f0 >out.n; rc1=$?; setcap -v = f0 >out.g; rc2=$?
same "verify of a file without value against '=' matches setcap -v" out.n out.g
check "verify '=' on a file without value: same exit status as setcap -v" [ $rc1 = $rc2 ]

# ---- namespaced values set raw by host root -------------------------------
: >u1
nscap set --uid 1000 cap_net_raw=ep u1
hexval u1 'security.capability@uid=1000' >out.h
file_is "set --uid 1000 stores cap_net_raw under @uid=1000 (v3 rootid 1000; v2 view on patched)" out.h "$AT_1000_NET_RAW"
nscap set --uid 200 --format v2 cap_net_raw=ep u1
hexval u1 'security.capability@uid=200' >out.h
file_is "set --uid 200 --format v2 stores v2" out.h "$V2_NET_RAW"
nscap set --wildcard cap_chown=ep u1
hexval u1 'security.capability@uid' >out.h
file_is "set --wildcard stores v2 under @uid" out.h "$V2_CHOWN"
setfattr -n 'security.capability@uid=2000' -v "$V2_NET_ADMIN" u1
setcap cap_sys_time=ep u1
nscap list u1 >out.n
printf '%s\n' "u1 cap_sys_time=ep" "u1 cap_net_raw=ep [uid=200]" "u1 cap_net_raw=ep [uid=1000]" \
	"u1 cap_net_admin=ep [uid=2000]" "u1 cap_chown=ep [uid=*]" >out.w
same "list: plain, then keys in numeric order, then wildcard" out.n out.w
# The text of a raw value must be getcap's text for the same bytes.
: >u2; setfattr -n security.capability -v "$V2_NET_ADMIN" u2
getcap u2 | sed 's/^u2 //' >out.g
nscap list u1 | sed -n 's/^u1 \(.*\) \[uid=2000\]$/\1/p' >out.n
same "list: text of a raw @uid value equals getcap's for the same bytes" out.n out.g
: >u3; setcap -n 1000 cap_net_raw=ep u3
nscap list u3 >out.n
file_is "list: plain v3 shows its rootid" out.n "u3 cap_net_raw=ep [rootid=1000]"
if setfattr -n 'security.capability@uid=1000' -v 0x0100000300200000000000000000000000000000d0070000 u3 2>err.s; then
	nscap list u3 >out.n
	printf '%s\n' "u3 cap_net_raw=ep [rootid=1000]" "u3 cap_net_raw=ep [uid=1000 rootid=2000]" >out.w
	same "list: a v3 value whose rootid is not its key is flagged" out.n out.w
else
	check "only a patched kernel refuses @uid=1000 with rootid 2000" [ $patched = 1 ]
fi
nscap list f0 >out.n
EMPTY_OK=1 same "list: no values, no output" out.n /dev/null

# ---- dump vs getfattr -------------------------------------------------------
setfattr -n user.plain -v hello u1
setfattr -n 'user.with=equals' -v 0x00ff u1
setfattr -n 'user.back\slash' -v 1 u1
setfattr -n 'user.sp ace' -v 2 u1
nscap dump --all u1 >out.n; getfattr -d -m - -e hex u1 >out.g
same "dump --all equals getfattr -d -m - -e hex (names escaped alike)" out.n out.g
check "dump escapes = in names as \\075" grep -qF 'security.capability@uid\0751000=' out.n
nscap dump u1 >out.n; getfattr -d -m '^security\.capability(@.*)?$' -e hex u1 >out.g
same "dump equals getfattr limited to security.capability*" out.n out.g
nscap dump "$base/u1" >out.n 2>err.n; getfattr -d -m '^security\.capability(@.*)?$' -e hex "$base/u1" >out.g 2>err.g
same "dump of an absolute path strips '/' like getfattr" out.n out.g
sed 's/^getfattr:/nscap:/' err.g >err.w
same "dump warns about the stripped '/' like getfattr" err.n err.w
nscap dump --all f0 u1 s1 >out.n; getfattr -d -m - -e hex f0 u1 s1 >out.g
same "dump of several files (one without values) equals getfattr" out.n out.g
mkdir -p 'odd dir/sub'; : >'odd dir/x=y'; : >'odd dir/sub/z'
setcap cap_kill=ep 'odd dir/x=y'; nscap set --uid 7 cap_chown=ep 'odd dir/sub/z'
nscap dump -R --all 'odd dir' >out.n; getfattr -R -d -m - -e hex 'odd dir' >out.g
same "dump -R --all equals getfattr -R (spaces, = in paths)" out.n out.g
odd=$(printf 'back\\slash\nnew line')
: >"$odd"; setcap cap_kill=ep "$odd"; nscap set --uid 9 cap_chown=ep "$odd"
nscap dump "$odd" >out.n; getfattr -d -m '^security\.capability(@.*)?$' -e hex "$odd" >out.g
same "dump quotes backslash and newline in paths like getfattr" out.n out.g
check "dump wrote the path escapes" grep -qxF '# file: back\134slash\012new line' out.n
nscap dump tree/link >out.n; getfattr -d -m '^security\.capability(@.*)?$' -e hex tree/link >out.g
same "dump follows a symlink like getfattr" out.n out.g
nscap dump -P tree/link >out.n; getfattr -h -d -m '^security\.capability(@.*)?$' -e hex tree/link >out.g
EMPTY_OK=1 same "dump -P reads the symlink itself like getfattr -h" out.n out.g

# ---- dump -> restore round trips -------------------------------------------
mkdir -p copy1 copy2
: >copy1/u1; : >copy2/u1
nscap dump --all u1 | sed 's|^# file: u1$|# file: copy1/u1|' >dump.txt
check "setfattr --restore accepts nscap dump" setfattr --restore=dump.txt
check "nscap restore accepts the same dump" sh -c 'sed "s|copy1/|copy2/|" dump.txt >dump2.txt && nscap restore dump2.txt'
for name in security.capability security.capability@uid=200 security.capability@uid=1000 \
	security.capability@uid=2000 security.capability@uid user.plain user.with=equals; do
	hexval u1 "$name" >v.o
	hexval copy1/u1 "$name" >v.1
	hexval copy2/u1 "$name" >v.2
	same "round trip via setfattr --restore: $name byte for byte" v.1 v.o
	same "round trip via nscap restore: $name byte for byte" v.2 v.o
done
getfattr -d -m - -e hex copy1/u1 | sed 's|copy1/||' >out.1
getfattr -d -m - -e hex u1 >out.o
same "setfattr --restore copy has exactly the original's names" out.1 out.o
getfattr -d -m - -e hex copy2/u1 | sed 's|copy2/||' >out.2
same "nscap restore copy has exactly the original's names" out.2 out.o
getfattr -d -m - -e hex u1 | sed 's|^# file: u1$|# file: copy3|' >gdump.txt
: >copy3
check "nscap restore reads getfattr's own dump" nscap restore gdump.txt
hexval copy3 'security.capability@uid=1000' >out.h
file_is "restore of a getfattr dump sets @uid=1000" out.h "$AT_1000_NET_RAW"
printf '# file: copy4\nsecurity.capability@uid\\0751000=0x01000002002000\n\n' >bad.txt
: >copy4
nscap restore bad.txt 2>err.n; rc=$?
check "restore refuses a truncated capability value (exit 1)" [ $rc = 1 ]
check "restore error names line, file, name and cause" has err.n "bad.txt:2: copy4: security.capability@uid=1000: truncated capability value"
getfattr -d -m - copy4 >out.n
EMPTY_OK=1 same "restore wrote nothing after a failed check" out.n /dev/null

# ---- convert ----------------------------------------------------------------
: >c1; setcap -n 1000 cap_net_raw=ep c1
check "convert --to-uid exits 0" nscap convert --to-uid c1
hexval c1 'security.capability@uid=1000' >out.h
file_is "convert --to-uid: plain v3 rootid 1000 became @uid=1000" out.h "$AT_1000_NET_RAW"
getcap c1 >out.g
EMPTY_OK=1 same "convert --to-uid: plain value removed" out.g /dev/null
nscap convert --to-uid c1 2>err.n; rc=$?
check "convert --to-uid without a plain value fails, names the file" sh -c '[ $1 = 1 ] && grep -q "c1: security.capability: No such attribute" "$2"' - $rc err.n
: >c2; setcap cap_net_raw=ep c2
nscap convert --to-uid c2 2>err.n; rc=$?
check "convert --to-uid refuses a v2 value" sh -c '[ $1 = 1 ] && grep -q "without a rootid" "$2"' - $rc err.n
hexval c2 security.capability >out.h
file_is "convert --to-uid left the v2 value alone" out.h "$V2_NET_RAW"
: >c3; setcap -n 1000 cap_sys_time=ep c3; nscap set --uid 1000 cap_kill=ep c3
nscap convert --to-uid c3 2>err.n; rc=$?
check "convert --to-uid refuses to overwrite an existing key" sh -c '[ $1 = 1 ] && grep -q "already exists" "$2"' - $rc err.n
nscap convert --to-uid --force --format v2 c3
hexval c3 'security.capability@uid=1000' >out.h
file_is "convert --to-uid --force --format v2 writes v2" out.h "$V2_SYS_TIME"
check "convert --to-plain --uid 1000 exits 0" nscap convert --to-plain --uid 1000 c1
hexval c1 security.capability >out.h
file_is "convert --to-plain: plain v2 from key 1000" out.h "$V2_NET_RAW"
nscap set --wildcard cap_chown=ep c1
nscap convert --to-plain --wildcard --strip c1
nscap list c1 >out.n
file_is "convert --to-plain --wildcard --strip: only the plain value is left" out.n "c1 cap_chown=ep"

# convert --to-wildcard / --from-wildcard: an image pipeline turns a value into
# the wildcard (any container, never the host) and back, byte for byte.
: >w1; setcap cap_net_raw=ep w1
check "convert --to-wildcard moves the plain value" nscap convert --to-wildcard w1
hexval w1 'security.capability@uid' >out.h
file_is "convert --to-wildcard: the wildcard holds the plain value, as v2" out.h "$V2_NET_RAW"
nscap list w1 >out.n
file_is "convert --to-wildcard: the plain value is gone (the host gets nothing)" out.n "w1 cap_net_raw=ep [uid=*]"
check "convert --from-wildcard moves it back" nscap convert --from-wildcard w1
hexval w1 security.capability >out.h
file_is "convert --from-wildcard: the plain value is back, byte for byte" out.h "$V2_NET_RAW"
nscap list w1 >out.n
file_is "convert --from-wildcard: no wildcard is left" out.n "w1 cap_net_raw=ep"
: >w2; nscap set --uid 1000 cap_net_raw=ep w2; setcap cap_kill=ep w2
check "convert --to-wildcard --uid 1000 moves key 1000's value" nscap convert --to-wildcard --uid 1000 w2
nscap list w2 >out.n
file_is "convert --to-wildcard --uid 1000: plain kept, key gone, wildcard set" out.n \
	"w2 cap_kill=ep" "w2 cap_net_raw=ep [uid=*]"
check "convert --from-wildcard --uid 1000 moves it back" nscap convert --from-wildcard --uid 1000 w2
hexval w2 'security.capability@uid=1000' >out.h
file_is "convert --from-wildcard --uid 1000: v3 with rootid 1000, as set --uid writes" out.h "$AT_1000_NET_RAW"
nscap set --wildcard cap_chown=ep w2
nscap convert --to-wildcard w2 2>err.n; rc=$?
check "convert --to-wildcard keeps an existing wildcard (exit 1, named)" sh -c '[ $1 = 1 ] && grep -q "w2: security.capability@uid: already exists" "$2"' - $rc err.n
nscap list w2 >out.n
file_is "convert --to-wildcard refused: every value as it was" out.n \
	"w2 cap_kill=ep" "w2 cap_net_raw=ep [uid=1000]" "w2 cap_chown=ep [uid=*]"
check "convert --to-wildcard -f overwrites it" nscap convert --to-wildcard -f w2
nscap list w2 >out.n
file_is "convert --to-wildcard -f: the plain cap_kill became the wildcard" out.n \
	"w2 cap_net_raw=ep [uid=1000]" "w2 cap_kill=ep [uid=*]"
nscap convert --from-wildcard --uid 1000 w2 2>err.n; rc=$?
check "convert --from-wildcard keeps an existing key (exit 1, named)" sh -c '[ $1 = 1 ] && grep -q "w2: security.capability@uid=1000: already exists" "$2"' - $rc err.n
nscap list w2 >out.n
file_is "convert --from-wildcard refused: every value as it was" out.n \
	"w2 cap_net_raw=ep [uid=1000]" "w2 cap_kill=ep [uid=*]"
nscap remove --uid 1000 w2
check "convert --from-wildcard --uid 1000 --format v2 exits 0" nscap convert --from-wildcard --uid 1000 --format v2 w2
hexval w2 'security.capability@uid=1000' >out.h
file_is "convert --from-wildcard --format v2: key 1000 holds v2" out.h "$V2_KILL"
: >w4; setcap -n 1000 cap_net_raw=ep w4
nscap convert --to-wildcard w4 && nscap convert --from-wildcard w4
hexval w4 security.capability >out.h
file_is "convert round trip of a plain v3 value gives it back as v2 (the rootid is gone)" out.h "$V2_NET_RAW"
: >w3
nscap convert --from-wildcard w3 2>err.n; rc=$?
check "convert --from-wildcard without a wildcard fails, names file and name" sh -c '[ $1 = 1 ] && grep -q "w3: security.capability@uid: No such attribute" "$2"' - $rc err.n

# ---- remove -------------------------------------------------------------------
: >r1; setcap cap_kill=ep r1; nscap set --uid 5 cap_chown=ep r1; nscap set --wildcard cap_chown=ep r1
check "remove --uid 5 exits 0" nscap remove --uid 5 r1
check "remove --uid 5 removed only that key" sh -c '[ "$(nscap list r1 | wc -l)" = 2 ] && ! getfattr -n "security.capability@uid=5" r1 2>/dev/null'
nscap remove --uid 5 r1 2>err.n; rc=$?
check "remove of a missing key fails and names file and name" sh -c '[ $1 = 1 ] && grep -q "r1: security.capability@uid=5: No such attribute" "$2"' - $rc err.n
check "remove --all exits 0" nscap remove --all r1
nscap list r1 >out.n
EMPTY_OK=1 same "remove --all left no security.capability* value" out.n /dev/null

# ---- hostile values and names ----------------------------------------------------
: >h1; nscap set --uid 1000 cap_net_raw=ep h1
if setfattr -n 'security.capability@uid=3000' -v 0x01000002 h1 2>/dev/null; then
	nscap list h1 >out.n 2>err.n; rc=$?
	check "list: truncated raw value reported, exit 1" sh -c '[ $1 = 1 ] && grep -q "h1: security.capability@uid=3000: truncated capability value (4 bytes)" "$2"' - $rc err.n
	file_is "list: good values still listed next to a bad one" out.n "h1 cap_net_raw=ep [uid=1000]"
	nscap dump h1 >out.n; getfattr -d -m '^security\.capability(@.*)?$' -e hex h1 >out.g
	same "dump copies a bad value verbatim, like getfattr" out.n out.g
else
	check "the kernel refuses a truncated @uid value" [ $patched = 1 ]
	nscap list h1 >out.n 2>err.n; rc=$?
	check "patched: list exits 0 when the kernel kept the bad value out" [ $rc = 0 ]
	file_is "patched: the refused value left only the good one" out.n "h1 cap_net_raw=ep [uid=1000]"
fi
if [ $patched = 1 ]; then
	setfattr -n 'security.capability@uid=01' -v "$V2_NET_RAW" h1 2>err.n; rc=$?
	check "patched kernel: @uid=01 is EINVAL" sh -c '[ $1 != 0 ] && grep -q "Invalid argument" "$2"' - $rc err.n
	getfattr -d -m - h1 2>/dev/null | grep -c 'uid\\07501' >out.n
	file_is "patched: no malformed @uid=01 name was stored" out.n "0"
else
	setfattr -n 'security.capability@uid=01' -v "$V2_NET_RAW" h1
	nscap list h1 >out.n 2>err.n; rc=$?
	check "stock kernel: list warns about a malformed @uid=01, exit 1" sh -c '[ $1 = 1 ] && grep -q "h1: security.capability@uid=01: malformed name" "$2"' - $rc err.n
fi

# ---- kernel probe -------------------------------------------------------------------
nscap status >out.n 2>err.n
if [ $patched = 1 ]; then
	check "status: enabled, no Hint" sh -c 'grep -qx "namespaced xattrs: enabled" "$1" && ! grep -q Hint "$2"' - out.n err.n
else
	check "status: absent or disabled, with a Hint: line" sh -c 'grep -Eqx "namespaced xattrs: (absent|disabled)" "$1" && grep -q "^Hint: " "$2"' - out.n err.n
fi

# ---- inside a user namespace --------------------------------------------------------
if ! command -v nsrun >/dev/null 2>&1; then
	skip "namespace tests" "nsrun not found"
else
	: >ns1; chown 3000:3000 ns1; setcap cap_kill=ep ns1
	nsrun -m "0 1000 65536" -- nscap get ns1 >out.n 2>/dev/null
	nsrun -m "0 1000 65536" -- getcap ns1 >out.g 2>/dev/null
	same "in a namespace: get of the host's v2 value matches getcap" out.n out.g
	if [ $patched = 1 ]; then
		nscap set --uid 1000 cap_net_raw=ep ns1
		nsrun -m "0 1000 65536" -- nscap get ns1 >out.n
		nsrun -m "0 1000 65536" -- getcap ns1 >out.g
		same "patched: namespace 1000 gets its own value, as getcap does" out.n out.g
		file_is "patched: namespace 1000 resolves @uid=1000" out.n "ns1 cap_net_raw=ep"
		nsrun -m "0 2000 65536" -- nscap get ns1 >out.n
		file_is "patched: namespace 2000 falls back to the host's value" out.n "ns1 cap_kill=ep"
		nsrun -m "0 2000 65536" -- nscap set cap_sys_time=ep ns1
		nscap list ns1 >out.n
		printf '%s\n' "ns1 cap_kill=ep" "ns1 cap_net_raw=ep [uid=1000]" "ns1 cap_sys_time=ep [uid=2000]" >out.w
		same "patched: a write from namespace 2000 lands in @uid=2000 only" out.n out.w
		nsrun -m "0 2000 65536" -- nscap verify cap_sys_time=ep ns1 >out.n
		file_is "patched: verify inside namespace 2000" out.n "ns1: OK"
		# A namespace may write its own value but not remove the wildcard:
		# the move is undone, nothing changes.
		: >ns2; chown 1000:1000 ns2; nscap set --wildcard cap_chown=ep ns2
		nsrun -m "0 1000 65536" -- nscap convert --from-wildcard ns2 2>err.n; rc=$?
		check "patched: convert --from-wildcard in a namespace fails on the wildcard's removal (exit 1)" \
			sh -c '[ $1 = 1 ] && grep -q "ns2: security.capability@uid: Operation not permitted" "$2"' - $rc err.n
		check "patched: ... and says it put its own value back" has err.n "put back as it was; nothing changed"
		nscap list ns2 >out.n
		file_is "patched: the failed move changed nothing" out.n "ns2 cap_chown=ep [uid=*]"
	else
		nsrun -m "0 1000 65536" -- nscap set cap_sys_time=ep ns1 2>err.n
		nscap list ns1 >out.n
		file_is "stock: a namespace write replaces the host's value with v3" out.n "ns1 cap_sys_time=ep [rootid=1000]"
		nsrun -m "0 1000 65536" -- nscap get ns1 >/dev/null 2>err.n
		check "stock: get in a namespace prints the Hint: line" has err.n "Hint: this kernel lacks namespaced xattrs"
	fi
fi

cd / && rm -rf "$base"
done_testing
