#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The project's test command: installs packages, builds the patched kernel,
# its selftests and the tools, boots the kernel in QEMU, runs everything and
# prints one closing line "N passed, N failed, N skipped". Exit 1 on any failure.
# One patched kernel (Debian's LSM stack, overlayfs and FUSE as modules,
# SMP, lockdep, KUnit) boots three times: every test with AppArmor (two
# vCPUs), SELinux, and Docker and Podman (tests/guest/engines/). Beside the
# boots, stock 6.12 builds with the same config (booted last: EVM's check
# and the engines' stock column), then two kernels that are only compiled
# and linked, never booted (CONFIG_XATTR_USER_NS=n, CONFIG_SECURITY=n).
#
# Environment:
#   NSCAPS_VARIANT=lsm|debug   patched kernel config (default lsm; debug adds
#                              KASAN and UBSAN to every patched boot)
#   NSCAPS_KSRC=DIR            build this kernel tree (e.g. build/linux) instead
#                              of Debian's source + kernel/series
#   NSCAPS_PROVOKE=fail|warn   add a failing test or a kernel WARN on purpose,
#                              to check that the run turns red
. "$(dirname "$0")/lib.sh"
cd "$NSCAPS_ROOT"

variant=${NSCAPS_VARIANT:-lsm}
case $variant in lsm|debug) ;; *) die "NSCAPS_VARIANT must be lsm or debug" ;; esac
# KASAN and UBSAN (debug) slow every patched boot under TCG about threefold.
slow=1
[ "$variant" = debug ] && slow=3
bash scripts/deps.sh
results=$BUILD/check/results.txt
rm -rf "$BUILD/check"
mkdir -p "$BUILD/check"
: >"$results"
t0=$(date +%s)

# 1. Host-side tests: the harness's own parser, the series, the tool.
log "harness self-test"
bash tests/harness/run.sh >>"$results"

log "series: checkpatch --strict"
bash scripts/lint-series.sh >>"$results"

log "series: import/export round trip, stale patch detection"
if bash scripts/roundtrip.sh >"$BUILD/check/roundtrip.log" 2>&1; then
	echo "PASS series:import-export-round-trip" >>"$results"
else
	echo "FAIL series:import-export-round-trip: see $BUILD/check/roundtrip.log" >>"$results"
fi
bash tests/series/apply-failure.sh >>"$results"

if [ -f nscap/Makefile ]; then
	log "nscap: unit tests (plain, then ASan+UBSan)"
	for target in check check-asan; do
		if make -C nscap -s "$target" >"$BUILD/check/nscap-$target.log" 2>&1; then
			python3 vm/results.py --tap "$BUILD/check/nscap-$target.log" "nscap-$target" >>"$results"
		else
			python3 vm/results.py --tap "$BUILD/check/nscap-$target.log" "nscap-$target" >>"$results"
			echo "FAIL nscap-$target: make $target failed" >>"$results"
		fi
	done
	make -C nscap -s all >/dev/null
fi

log "fuzz: smoke run of the kernel's parser and list rewriter (libFuzzer)"
make -C fuzz -s smoke KSRC="${NSCAPS_KSRC:-$BUILD/kernel/fuzz-src}" >"$BUILD/check/fuzz-smoke.log" 2>&1 ||
	echo "FAIL fuzz-smoke: make smoke failed (see $BUILD/check/fuzz-smoke.log)" >>"$results"
python3 vm/results.py --tap "$BUILD/check/fuzz-smoke.log" fuzz-smoke >>"$results"

# 2. The patched kernel and what runs in it: one kernel for every patched
# boot (kernel-build.sh lsm: Debian's LSM stack, overlayfs and FUSE as
# modules, SMP, lockdep, KUnit).
if [ -n "${NSCAPS_KSRC:-}" ]; then
	kernel=$(bash scripts/kernel-build.sh patched "$variant" --src "$NSCAPS_KSRC")
	ksrc=$NSCAPS_KSRC
else
	kernel=$(bash scripts/kernel-build.sh patched "$variant")
	ksrc=$BUILD/kernel/src-patched
fi
kout=$BUILD/kernel/out-patched-$variant

# Beside the guests, which keep one or two cores busy: stock 6.12 with the
# same config (its boots come last), then builds that only have to compile
# and link, what distributions build besides the booted config: the series
# with CONFIG_XATTR_USER_NS=n (the callers, overlay.ko and fuse.ko among
# them, link against the header's stubs; the LSM kernel's other objects come
# from ccache), and CONFIG_SECURITY=n. scripts/bisect-series.sh builds these
# and the modules variant for every patch. Their lines are added after.
# build_one NAME VARIANT [stock]: build VARIANT from the same tree (or from
# Debian's source without the series); one PASS or FAIL line (the first
# compiler, linker or modpost error, and how many).
build_one() {
	local name=$1 v=$2 blog=$BUILD/check/build-$2${3:+-$3}.log errs why n t=$(date +%s)
	local how=(patched "$v" --src "$ksrc")
	[ "${3:-}" = stock ] && how=(stock "$v")
	if bash scripts/kernel-build.sh "${how[@]}" >/dev/null 2>"$blog"; then
		echo "PASS build:$name"
		echo "== build:$name took $(($(date +%s) - t)) s" >&2
	else
		errs=$(grep -E 'error:|undefined reference|ERROR:' "$blog" |
			grep -v '^error: kernel build failed' || true)
		why=${errs%%$'\n'*}
		n=$(grep -c . <<<"$errs" || true)
		if [ -z "$why" ]; then
			why=$(tail -1 "$blog")
		elif [ "$n" -gt 1 ]; then
			why="$why (and $((n - 1)) more)"
		fi
		echo "FAIL build:$name: $why; see $blog"
	fi
}
stock_ready=$BUILD/check/stock-lsm-built
beside_guest() {
	build_one stock-lsm lsm stock
	touch "$stock_ready"
	build_one xattr-user-ns-off nofeature
	build_one security-off nosecurity
}
log "beside the guests: stock 6.12's kernel, then compile-only builds: CONFIG_XATTR_USER_NS=n, CONFIG_SECURITY=n"
builds_results=$BUILD/check/results-builds.txt
beside_guest >"$builds_results" 2>&1 &
builds_pid=$!
trap 'kill "$builds_pid" 2>/dev/null || true' EXIT

mstage=$BUILD/check/stage-main
mkdir -p "$mstage/tests"
dirs="capabilities mount_setattr"
[ -d "$ksrc/tools/testing/selftests/filesystems/nscaps" ] && dirs="$dirs filesystems/nscaps"
log "selftests: $dirs"
bash scripts/selftests.sh "$ksrc" "$kout" "$mstage" $dirs
bash tests/guest/stage.sh "$mstage"
bash tests/hardening/stage.sh "$mstage"
bash tests/invariants/stage.sh "$ksrc" "$mstage"
bash integrations/stage.sh "$mstage"
case ${NSCAPS_PROVOKE:-} in
fail) echo "provoked-failure|plain|echo 'failing on purpose (NSCAPS_PROVOKE=fail)'; false" >>"$mstage/tests/list" ;;
warn) echo "provoked-warn|plain|mount -t debugfs none /sys/kernel/debug && echo WARNING >/sys/kernel/debug/provoke-crash/DIRECT" >>"$mstage/tests/list" ;;
'') ;;
*) die "NSCAPS_PROVOKE must be fail or warn" ;;
esac
# The guest (tests/guest/lsm/stage.sh): the modules, then all of the above,
# then the LSM checks (issue 13: AppArmor, audit, fuse-overlayfs, the real
# clients, EVM last), with Debian's default order (AppArmor). Two vCPUs, so
# that the race tests run concurrently under lockdep (and, with
# NSCAPS_VARIANT=debug, KASAN and UBSAN). evm=fix: EVM lets
# root label files that have no HMAC yet, as an image is labelled before it
# is enforced; exec appraisal still verifies every HMAC (evm.sh runs last).
stage=$BUILD/check/stage
lsm_results=$BUILD/check/results-lsm.txt
: >"$lsm_results"
if ! bash tests/guest/lsm/stage.sh "$kout" "$mstage" "$stage" 2>"$BUILD/check/stage-lsm.log"; then
	# Nothing can boot: the host's results and one closing line, red.
	echo "FAIL guest-staging: $(tail -1 "$BUILD/check/stage-lsm.log")" >>"$results"
	kill "$builds_pid" 2>/dev/null || true
	sort -s -k1,1 "$results" >"$results.sorted"
	summarize "$results.sorted" "$t0" "results (staging failed: see $BUILD/check/stage-lsm.log)"
	exit 1
fi
# The engines (issue 25: Debian's docker.io and podman, every mode, on an
# initramfs of their own) boot the same kernel beside the main boot (one
# vCPU each), so
# that the longest boot does not start last; apparmor=0: Debian's docker.io
# loads its docker-default profile with apparmor_parser, which this guest
# does not have. Boots that run no KUnit suite pass kunit.enable=0.
estage=$BUILD/check/stage-engines
engines_pid=
if bash tests/guest/engines/stage.sh "$stage" "$estage" 2>"$BUILD/check/stage-engines.log"; then
	bash vm/run.sh "$kernel" "$estage" "$BUILD/check/vm-engines" \
		--mem 4096 --timeout $((2400 * slow)) --test-timeout $((900 * slow)) --append "kunit.enable=0 apparmor=0 nscaps.list=/tests/list-engines" \
		>"$BUILD/check/vm-engines.log" 2>&1 &
	engines_pid=$!
	trap 'kill "$builds_pid" "$engines_pid" 2>/dev/null || true' EXIT
else
	echo "FAIL engines-guest: staging failed: $(tail -1 "$BUILD/check/stage-engines.log")" >>"$lsm_results"
fi
# slub_debug=FZP: red zones, poisoning and sanity checks on every slab
# cache, what catches a heap overflow of the name parser or the list
# rewrite without KASAN.
bash vm/run.sh "$kernel" "$stage" "$BUILD/check/vm" --mem 2048 --smp 2 --timeout $((3000 * slow)) --test-timeout $((900 * slow)) \
	--append "evm=fix slub_debug=FZP"
t_guest=$(date +%s)

# SELinux (exclusive with AppArmor: Debian's order without apparmor).
order=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$kout/debian-lsm.config" | sed 's/apparmor,//')
bash vm/run.sh "$kernel" "$stage" "$BUILD/check/vm-selinux" --timeout $((900 * slow)) \
	--append "kunit.enable=0 lsm=$order nscaps.list=/tests/list-selinux"
python3 vm/results.py "$BUILD/check/vm-selinux/console.log" --prefix lsm-selinux >>"$lsm_results"
# Stock 6.12, same config and initramfs: EVM's check (the plain value's
# offline edit is refused there too; namespaced values are not protected,
# what the EVM patch, 0010, adds), then the engines' stock column (docker
# userns-remap, build and commit) on its own stage with stock's modules.
while [ ! -e "$stock_ready" ] && kill -0 "$builds_pid" 2>/dev/null; do sleep 5; done
log "stock kernel ready $(($(date +%s) - t_guest)) s after the main guest"
skout=$BUILD/kernel/out-stock-lsm
if grep -q '^PASS build:stock-lsm' "$builds_results"; then
	bash vm/run.sh "$skout/arch/x86/boot/bzImage" "$stage" "$BUILD/check/vm-stock-evm" --timeout 900 \
		--append "kunit.enable=0 evm=fix nscaps.list=/tests/list-stock"
	python3 vm/results.py "$BUILD/check/vm-stock-evm/console.log" --prefix stock-lsm >>"$lsm_results"
	if [ -d "$estage" ] && bash tests/guest/engines/stage.sh "$stage" "$estage-stock" "$skout" \
		2>>"$BUILD/check/stage-engines.log"; then
		bash vm/run.sh "$skout/arch/x86/boot/bzImage" "$estage-stock" \
			"$BUILD/check/vm-stock-engines" --mem 4096 --timeout 1200 \
			--append "kunit.enable=0 apparmor=0 nscaps.list=/tests/list-engines-stock"
		python3 vm/results.py "$BUILD/check/vm-stock-engines/console.log" --prefix stock-engines >>"$lsm_results"
	else
		echo "FAIL stock-engines-guest: staging failed: $(tail -1 "$BUILD/check/stage-engines.log")" >>"$lsm_results"
	fi
else
	echo "FAIL stock-lsm-guest: its kernel did not build (see $BUILD/check/build-lsm-stock.log)" >>"$lsm_results"
fi
if [ -n "$engines_pid" ]; then
	wait "$engines_pid" || true
	if [ -s "$BUILD/check/vm-engines/console.log" ]; then
		python3 vm/results.py "$BUILD/check/vm-engines/console.log" --prefix engines >>"$lsm_results"
	else
		echo "FAIL engines-guest: no console log (see $BUILD/check/vm-engines.log)" >>"$lsm_results"
	fi
fi
t_lsm=$(date +%s)
log "other boots done in $((t_lsm - t_guest)) s"
wait "$builds_pid" || true
trap - EXIT
log "builds beside the guests done $(($(date +%s) - t_lsm)) s after the other boots"
if grep -q '^\(PASS\|FAIL\) build:' "$builds_results"; then
	grep '^\(PASS\|FAIL\) build:' "$builds_results" >>"$results"
fi
# One line per build_one call of beside_guest().
[ "$(grep -c '^\(PASS\|FAIL\) build:' "$builds_results")" = "$(declare -f beside_guest | grep -c 'build_one ')" ] ||
	echo "FAIL build: the builds beside the guest did not all report (see $builds_results)" >>"$results"
kunit=$(cat kernel/kunit-suites 2>/dev/null | sed 's/#.*//' | xargs)
python3 vm/results.py "$BUILD/check/vm/console.log" --expect-kunit $kunit >>"$results"
cat "$lsm_results" >>"$results"

# 3. One summary.
sort -s -k1,1 "$results" >"$results.sorted"
summarize "$results.sorted" "$t0" "results (console: $BUILD/check/vm/console.log)"
