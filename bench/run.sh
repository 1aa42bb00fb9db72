#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: stock vs patched 6.12, same source, same config, one run.
#
#   bench/run.sh            build, boot, measure, print the table
#
# 1. Builds the stock and the patched kernel (scripts/kernel-build.sh, variant
#    test) in a build directory of its own (build/bench, or $BENCH_BUILD), so
#    it never races other builds for build/kernel/src-*.
# 2. Builds an "alloc" twin of each: the same .config with SLUB_TINY off and
#    SLUB_STATS + VM_EVENT_COUNTERS on, only to count slab and page
#    allocations per operation (the timed kernels stay as configured).
# 3. Boots each timed kernel with -icount shift=0 (guest clock = instruction
#    count) and runs bench/xattr_bench.c in it; then boots each alloc kernel.
# 4. bench/report.py prints the table and writes bench/results/latest.md and
#    bench/results/latest.csv (console logs stay in build/bench/runs/).
#
# Knobs: BENCH_ROUNDS (7), BENCH_EXEC_BOOTS (3: boots of each timed kernel
# whose exec rounds are pooled), BENCH_SCALE (0.5, multiplies loop lengths),
# BENCH_ALLOC (1; 0 skips the allocation kernels), BENCH_REBUILD (1; 0 boots
# the images already in $BENCH_BUILD/kernel, built with the series of then),
# BENCH_SERIES (a series file to use instead of kernel/series, e.g. to leave
# out a patch that does not build), BENCH_KSRC (a kernel tree to build as the
# patched kernel instead, e.g. a work tree of scripts/worktree.sh), BENCH_OUT
# (where the table goes, bench/results by default), BENCH_BUILD.
#
# The FUSE row (write_fuse_host) runs the nscaps_fuse helper of the patched
# tree's selftests (tools/testing/selftests/filesystems/nscaps/nscaps_fuse.c),
# built static against that tree's uapi headers, in both guests.
root=$(cd "$(dirname "$0")/.." && pwd)
export NSCAPS_BUILD=${BENCH_BUILD:-$root/build/bench}
. "$root/scripts/lib.sh"

rounds=${BENCH_ROUNDS:-7}
exec_boots=${BENCH_EXEC_BOOTS:-3}
scale=${BENCH_SCALE:-0.5}
rebuild=${BENCH_REBUILD:-1}
alloc=${BENCH_ALLOC:-1}
ksrc=${BENCH_KSRC:-}
[ -z "$ksrc" ] || ksrc=$(cd "$ksrc" && pwd)
[ "$rounds" -ge 5 ] || die "BENCH_ROUNDS must be at least 5"
start=$(date +%s)
runs=$BUILD/runs
mkdir -p "$runs"

# src_of KIND: the source tree the KIND kernels are built from.
src_of() {
	if [ "$1" = patched ] && [ -n "$ksrc" ]; then echo "$ksrc"; else echo "$BUILD/kernel/src-$1"; fi
}

# build_alloc KIND: the allocation-counting twin of out-KIND-test.
build_alloc() {
	local kind=$1 src base=$BUILD/kernel/out-$1-test
	src=$(src_of "$kind")
	local out=$BUILD/kernel/out-$1-alloc opt
	mkdir -p "$out"
	cp "$base/.config" "$out/.config"
	"$src/scripts/config" --file "$out/.config" \
		-d SLUB_TINY -e SLUB_DEBUG -e SLUB_STATS -e VM_EVENT_COUNTERS
	make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" -s olddefconfig >/dev/null
	for opt in SLUB_STATS VM_EVENT_COUNTERS; do
		grep -qx "CONFIG_$opt=y" "$out/.config" || die "alloc kernel ($kind): CONFIG_$opt did not stick"
	done
	log "building $kind/alloc in $out"
	if ! make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" bzImage >"$out/build.log" 2>&1; then
		grep -E 'error|Error' "$out/build.log" | head -20 >&2
		die "alloc kernel build failed ($kind): see $out/build.log"
	fi
	echo "$out/arch/x86/boot/bzImage"
}

rec=$BUILD/kernel/patched.series
declare -A bz
for kind in stock patched; do
	if [ "$rebuild" = 1 ]; then
		# the series the patched images get (recorded for BENCH_REBUILD=0)
		if [ $kind = patched ] && [ -n "$ksrc" ]; then
			# a work tree: its commits since nscaps-base, named as format-patch names them
			log "patched kernel from the tree $ksrc instead of kernel/series"
			git -C "$ksrc" log --reverse --format=%f nscaps-base..HEAD |
				awk '{ printf "%04d-%s.patch\n", NR, substr($0, 1, 52) }' >"$rec"
			bz[$kind-test]=$(bash "$root/scripts/kernel-build.sh" patched test --src "$ksrc")
		elif [ $kind = patched ] && [ -n "${BENCH_SERIES:-}" ]; then
			# a series file other than kernel/series (patches from kernel/patches)
			log "patched kernel from $BENCH_SERIES instead of kernel/series"
			SERIES_FILE=$BENCH_SERIES series_patches >"$rec"
			unpack_source "$BUILD/kernel/src-patched"
			apply_series "$BUILD/kernel/src-patched" "$SERIES_DIR" "$BENCH_SERIES"
			bz[$kind-test]=$(bash "$root/scripts/kernel-build.sh" patched test --src "$BUILD/kernel/src-patched")
		else
			[ $kind = patched ] && series_patches >"$rec"
			bz[$kind-test]=$(bash "$root/scripts/kernel-build.sh" "$kind" test)
		fi
		[ "$alloc" = 1 ] && bz[$kind-alloc]=$(build_alloc "$kind")
	else
		for v in test alloc; do
			[ $v = alloc ] && [ "$alloc" != 1 ] && continue
			bz[$kind-$v]=$BUILD/kernel/out-$kind-$v/arch/x86/boot/bzImage
			[ -f "${bz[$kind-$v]}" ] || die "BENCH_REBUILD=0 but ${bz[$kind-$v]} is missing"
		done
	fi
	# keep the images: a later kernel-build.sh run may rebuild them
	cp "${bz[$kind-test]}" "$runs/bzImage-$kind-test"
	bz[$kind-test]=$runs/bzImage-$kind-test
	if [ "$alloc" = 1 ]; then
		cp "${bz[$kind-alloc]}" "$runs/bzImage-$kind-alloc"
		bz[$kind-alloc]=$runs/bzImage-$kind-alloc
	fi
done
series=$( [ -f "$rec" ] && tr '\n' ' ' <"$rec" || echo unknown)
log "kernels built in $(( $(date +%s) - start ))s; series: ${series:-<empty>}"

# The FUSE server of the patched tree's selftests, against its uapi headers.
fuse_src=$(src_of patched)/tools/testing/selftests/filesystems/nscaps/nscaps_fuse.c
fuse_bin=$BUILD/nscaps_fuse
rm -f "$fuse_bin"
if [ -f "$fuse_src" ]; then
	make -C "$(src_of patched)" O="$BUILD/kernel/out-patched-test" ARCH=x86_64 -s headers >/dev/null
	gcc -O2 -Wall -Werror -static -isystem "$BUILD/kernel/out-patched-test/usr/include" \
		-o "$fuse_bin" "$fuse_src"
else
	log "warning: no $fuse_src in the patched tree: write_fuse_host will fail"
fi

# The guest programs: static, so the initramfs needs no libraries for them.
for mode in time alloc exec; do
	stage=$BUILD/stage-$mode
	rm -rf "$stage"
	mkdir -p "$stage/tests" "$stage/usr/local/bin"
	gcc -O2 -Wall -Wextra -Werror -static -o "$stage/usr/local/bin/xattr_bench" "$root/bench/xattr_bench.c"
	gcc -O2 -Wall -Wextra -Werror -static -nostdlib -fno-stack-protector \
		-o "$stage/usr/local/bin/capexit" "$root/bench/capexit.c"
	if [ -f "$fuse_bin" ]; then cp "$fuse_bin" "$stage/usr/local/bin/nscaps_fuse"; fi
	# The macro rows' programs: Debian's fuse-overlayfs, GNU true (a
	# dynamically linked exec; vm/initramfs.sh adds their libraries).
	mkdir -p "$stage/usr/bin"
	cp /usr/bin/fuse-overlayfs "$stage/usr/bin/"
	cp /usr/bin/true "$stage/usr/local/bin/true-gnu"
	args="--rounds $rounds --scale $scale"
	[ $mode = alloc ] && args="--alloc --scale $scale"
	if [ $mode = exec ]; then
		echo "xattr-bench|plain|for op in exec_host exec_ns_d1 exec_ns_d4 exec_ns_d16 exec_true_ns_d1; do /usr/local/bin/xattr_bench $args --only \$op; done" >"$stage/tests/list"
	else
		echo "xattr-bench|plain|/usr/local/bin/xattr_bench $args" >"$stage/tests/list"
	fi
done

# boot KIND MODE: run the benchmark in one kernel; its lines go to runs/KIND-MODE.txt
boot() {
	local kind=$1 mode=$2 variant=test icount=--icount out=$runs/$1-$2
	[ $mode = alloc ] && { variant=alloc; icount=; }
	rm -rf "$out"
	log "$kind kernel, $mode run"
	bash "$root/vm/run.sh" "${bz[$kind-$variant]}" "$BUILD/stage-$mode" "$out" \
		$icount --timeout 1500 --test-timeout 1400 --append "kunit.enable=0"
	tr -d '\r' <"$out/console.log" |
		sed -n '/^NSCAPS-BEGIN xattr-bench/,/^NSCAPS-END xattr-bench/p' >"$runs/$kind-$mode.txt"
	grep -q '^done$' "$runs/$kind-$mode.txt" ||
		log "warning: $kind/$mode run did not finish (see $out/console.log)"
}
for kind in stock patched; do boot $kind time; done
# Exec is the one operation whose count moves between boots (page allocator
# state, about 1%): more boots of each kernel, alternating, add their rounds
# of the exec operations to the same pool.
for b in $(seq 2 "$exec_boots"); do
	for kind in stock patched; do
		boot $kind exec
		sed -n '/^op=exec_/p' "$runs/$kind-exec.txt" >>"$runs/$kind-time.txt"
	done
done
if [ "$alloc" = 1 ]; then
	for kind in stock patched; do boot $kind alloc; done
fi

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$root" diff --quiet HEAD -- kernel 2>/dev/null || commit="$commit+dirty-kernel"
out=${BENCH_OUT:-$root/bench/results}
mkdir -p "$out"
python3 "$root/bench/report.py" --runs "$runs" --out "$out" \
	--commit "$commit" --series "$series" --series-file "${ksrc:-${BENCH_SERIES:-kernel/series}}" --rounds "$rounds" --scale "$scale" --exec-boots "$exec_boots" \
	--seconds $(( $(date +%s) - start ))
