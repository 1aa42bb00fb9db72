#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Per-kernel-function instruction profile of one benchmark operation, stock
# vs patched:
#   bash bench/profile/profile.sh OP [KIND...]      (KIND: stock, patched)
# e.g. OP=list_ns_10_d1.  Prints the table and writes it to $PROFILE_DIR/OP.txt.
#
# Inputs, in $PROFILE_DIR (build/profile): bzImage-KIND-test and stage/ (the
# bench's guest programs); when missing they are copied from the last
# "make bench" (build/bench/runs/bzImage-KIND-test, build/bench/stage-time).
# Needs libglib2.0-dev for the plugin.
#
# How: each kernel boots once under the bench's conditions (vm/run.sh
# --icount, i.e. -icount shift=0; one vCPU; "kunit.enable=0 nokaslr") with the
# TCG plugin bench/profile/tbcount.c loaded (NSCAPS_QEMU_EXTRA) and runs
# "xattr_bench --only OP --rounds R --scale S".  The plugin counts only while
# xattr_bench is inside its loop(): its markers are the first block of loop()
# (starts the next phase) and the block after each call of loop() (stops);
# addresses and code bytes come from the staged binary.  Phase 1 is the
# warm-up loop (n/4+1 calls), phases 2..R+1 the R timed rounds of n calls,
# the same calls whose ns_per_op the bench prints, so boot, setup, process
# start-up and the printing between rounds are not counted.  Instructions per
# call: the rounds' sum divided by R*n; for write_* ops, whose loop() also
# opens and closes the file, (rounds - R*warm-up) / (R*(n - n/4 - 1)), which
# cancels the open and close.  Blocks are mapped to functions with the guest's
# own /proc/kallsyms (taken once per image by a short boot and kept in
# kallsyms-KIND-<md5>.txt): the image the bench measured need not match any
# System.map left in the build tree.
#
# set_ns_d1 and remove_ns_d1 run the same loop (setxattr, removexattr,
# alternating); the plugin splits it at __x64_sys_setxattr and
# __x64_sys_removexattr (split=), and the table shows the bucket of the
# operation: that call's body and return plus the next call's entry, which
# costs what its own entry costs.
#
# Knobs: PROFILE_ROUNDS (5, at most 15), PROFILE_SCALE (0.5, the bench's),
# PROFILE_DIR, PROFILE_MIN (0.5: rows below this many instructions per call
# in both kernels are left out of the table).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
P=${PROFILE_DIR:-$root/build/profile}
rounds=${PROFILE_ROUNDS:-5} scale=${PROFILE_SCALE:-0.5}
[ $# -ge 1 ] || { echo "usage: $0 OP [KIND...]" >&2; exit 2; }
op=$1; shift
kinds=("$@"); [ ${#kinds[@]} -gt 0 ] || kinds=(stock patched)
log() { echo "== $*" >&2; }

mkdir -p "$P/bin"
[ -d "$P/stage" ] || cp -a "$root/build/bench/stage-time" "$P/stage"
gcc -O2 -Wall -Werror -shared -fPIC -fvisibility=hidden $(pkg-config --cflags glib-2.0) \
	-o "$P/bin/tbcount.so" "$here/tbcount.c" $(pkg-config --libs glib-2.0)

# the markers: loop()'s entry and the return site of each call of it, each
# with its first 8 bytes of code
xb_bin=$P/stage/usr/local/bin/xattr_bench
bytes_at() {
	objdump -s --start-address=$((0x$1)) --stop-address=$((0x$1 + 8)) "$xb_bin" |
		awk '/^ [0-9a-f]+ / { print $2 $3 }' | head -c 16
}
loop_addr=$(nm "$xb_bin" | awk '$3 == "loop" { print $1 }' | sed 's/^0*//')
[ -n "$loop_addr" ] || { echo "error: no loop() in $xb_bin" >&2; exit 1; }
marks=",on=$loop_addr/$(bytes_at "$loop_addr")"
for ret in $(objdump -d "$xb_bin" | awk -v l="$loop_addr" '
		$0 ~ "call +[0-9a-f]+ <loop>" { want = 1; next }
		want && /^ +[0-9a-f]+:/ { sub(":", "", $1); print $1; want = 0 }'); do
	marks+=",off=$ret/$(bytes_at "$ret")"
done
[ "$(grep -o off= <<<"$marks" | wc -l)" -ge 2 ] || { echo "error: no calls of loop() found" >&2; exit 1; }

# boot KIND OUTDIR LIST [PLUGIN-ARGS|noplugin]: one boot of KIND's image running LIST
boot() {
	local kind=$1 out=$2 list=$3 pargs=${4:-} stage=$P/stage-run
	rm -rf "$stage" "$out"
	cp -a "$P/stage" "$stage"
	printf '%s\n' "$list" >"$stage/tests/list"
	mkdir -p "$out"
	local extra=
	[ "$pargs" = noplugin ] || extra="-plugin file=$P/bin/tbcount.so,out=$out/tb.txt$pargs"
	NSCAPS_QEMU_EXTRA=$extra bash "$root/vm/run.sh" "$P/bzImage-$kind-test" "$stage" "$out" \
		--icount --timeout 1500 --test-timeout 1400 --append "kunit.enable=0 nokaslr"
	grep -q '^NSCAPS-GUEST-DONE' "$out/console.log" ||
		{ echo "error: $kind boot did not finish: $out/console.log" >&2; exit 1; }
}

args=()
for kind in "${kinds[@]}"; do
	bz=$P/bzImage-$kind-test
	[ -f "$bz" ] || cp "$root/build/bench/runs/bzImage-$kind-test" "$bz" ||
		{ echo "error: $bz missing (run make bench first)" >&2; exit 1; }
	ks=$P/kallsyms-$kind-$(md5sum "$bz" | cut -c1-12).txt
	if [ ! -s "$ks" ]; then
		log "$kind: kallsyms boot"
		boot "$kind" "$P/run-$kind-kallsyms" \
			"kallsyms|plain|echo KSYMS-BEGIN; cat /proc/kallsyms; echo KSYMS-END; echo KASLR \$(cat /proc/cmdline)" noplugin
		tr -d '\r' <"$P/run-$kind-kallsyms/console.log" |
			sed -n '/^KSYMS-BEGIN/,/^KSYMS-END/p' | sed '1d;$d' >"$ks.tmp"
		mv "$ks.tmp" "$ks"
	fi
	split=
	case $op in
	set_ns_d1|remove_ns_d1)
		a=$(awk '$3 == "__x64_sys_setxattr" { print $1 }' "$ks")
		b=$(awk '$3 == "__x64_sys_removexattr" { print $1 }' "$ks")
		[ -n "$a" ] && [ -n "$b" ] || { echo "error: no syscall symbols in $ks" >&2; exit 1; }
		split=",split=$a:$b" ;;
	esac
	out=$P/run-$kind-$op
	log "$kind: $op, $rounds rounds"
	boot "$kind" "$out" "profile|plain|/usr/local/bin/xattr_bench --only $op --rounds $rounds --scale $scale" "$marks$split"
	args+=(--kernel "$kind" "$ks" "$out/tb.txt" "$out/console.log")
done
python3 "$here/tbreport.py" --op "$op" --rounds "$rounds" --min "${PROFILE_MIN:-0.5}" \
	--latest "$root/bench/results/latest.md" "${args[@]}" | tee "$P/$op.txt"
