#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The project's test command: installs packages, builds the patched kernel,
# its selftests and the tools, boots the kernel in QEMU, runs everything and
# prints one closing line "N passed, N failed, N skipped". Exit 1 on any failure.
# Beside the guest (QEMU's TCG uses one core) the LSM guest's kernel builds
# (Debian's LSM stack, AppArmor, SELinux, IMA, EVM, audit, overlayfs and FUSE
# as modules; booted twice after the main guest, tests/guest/lsm/), stock
# 6.12 with the LSM guest's config (booted last: EVM's check and the engines'
# column on stock), then two kernels that are only compiled and linked,
# never booted (CONFIG_XATTR_USER_NS=n, CONFIG_SECURITY=n).
#
# Environment:
#   NSCAPS_VARIANT=debug|test  kernel config to boot (default debug: KASAN,
#                              UBSAN, lockdep; see README)
#   NSCAPS_KSRC=DIR            build this kernel tree (e.g. build/linux) instead
#                              of Debian's source + kernel/series
#   NSCAPS_PROVOKE=fail|warn   add a failing test or a kernel WARN on purpose,
#                              to check that the run turns red
. "$(dirname "$0")/lib.sh"
cd "$NSCAPS_ROOT"

variant=${NSCAPS_VARIANT:-debug}
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

# 2. The patched kernel and what runs in it.
if [ -n "${NSCAPS_KSRC:-}" ]; then
	kernel=$(bash scripts/kernel-build.sh patched "$variant" --src "$NSCAPS_KSRC")
	ksrc=$NSCAPS_KSRC
else
	kernel=$(bash scripts/kernel-build.sh patched "$variant")
	ksrc=$BUILD/kernel/src-patched
fi
kout=$BUILD/kernel/out-patched-$variant

# Builds that only have to compile and link, from the same tree; nothing
# boots them: what distributions build besides the booted configs. The
# series with CONFIG_XATTR_USER_NS=n (the callers link against the header's
# stubs), and CONFIG_SECURITY=n. overlayfs and FUSE as modules need no build
# of their own: the LSM guest's kernel builds them so (modpost checks that
# what overlay.ko and fuse.ko need from the series is exported;
# scripts/bisect-series.sh builds the modules variant for every patch). They
# run beside the guests, which keep one core busy; their lines are added
# after.
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
# The LSM guest's kernel first (it boots after the main guest), then stock
# 6.12 with the LSM guest's config (EVM's check and the engines' column on
# stock, booted after it), then the compile-only builds, which nothing waits
# for but the summary.
lsm_ready=$BUILD/check/lsm-built
stock_ready=$BUILD/check/stock-lsm-built
beside_guest() {
	build_one lsm lsm
	touch "$lsm_ready"
	build_one stock-lsm lsm stock
	touch "$stock_ready"
	build_one xattr-user-ns-off nofeature
	build_one security-off nosecurity
}
log "beside the guest: the LSM guest's kernel, stock 6.12's, then compile-only builds: CONFIG_XATTR_USER_NS=n, CONFIG_SECURITY=n"
builds_results=$BUILD/check/results-builds.txt
beside_guest >"$builds_results" 2>&1 &
builds_pid=$!
trap 'kill "$builds_pid" 2>/dev/null || true' EXIT

stage=$BUILD/check/stage
mkdir -p "$stage/tests"
dirs="capabilities mount_setattr"
[ -d "$ksrc/tools/testing/selftests/filesystems/nscaps" ] && dirs="$dirs filesystems/nscaps"
log "selftests: $dirs"
bash scripts/selftests.sh "$ksrc" "$kout" "$stage" $dirs
bash tests/guest/stage.sh "$stage"
bash tests/hardening/stage.sh "$stage"
bash tests/invariants/stage.sh "$ksrc" "$stage"
bash integrations/stage.sh "$stage"
case ${NSCAPS_PROVOKE:-} in
fail) echo "provoked-failure|plain|echo 'failing on purpose (NSCAPS_PROVOKE=fail)'; false" >>"$stage/tests/list" ;;
warn) echo "provoked-warn|plain|mount -t debugfs none /sys/kernel/debug && echo WARNING >/sys/kernel/debug/provoke-crash/DIRECT" >>"$stage/tests/list" ;;
'') ;;
*) die "NSCAPS_PROVOKE must be fail or warn" ;;
esac
mem=1024 smp=1
# The debug kernel is SMP (debug.config): two vCPUs, so that the race tests
# run concurrently under KASAN and lockdep.
[ "$variant" = debug ] && mem=2048 smp=2
bash vm/run.sh "$kernel" "$stage" "$BUILD/check/vm" --mem $mem --smp $smp --timeout 3000
t_guest=$(date +%s)

# The LSM guest (issue 13, part 3): Debian's LSM stack, booted twice, as
# AppArmor and SELinux are exclusive: the default order (AppArmor: the nscaps
# kselftests, audit, modprobe, fuse-overlayfs), then lsm= with SELinux.
while [ ! -e "$lsm_ready" ] && kill -0 "$builds_pid" 2>/dev/null; do sleep 5; done
log "LSM guest kernel ready $(($(date +%s) - t_guest)) s after the main guest"
lsm_results=$BUILD/check/results-lsm.txt
: >"$lsm_results"
if grep -q '^PASS build:lsm' "$builds_results"; then
	lkout=$BUILD/kernel/out-patched-lsm
	lstage=$BUILD/check/stage-lsm
	if bash tests/guest/lsm/stage.sh "$lkout" "$stage" "$lstage" 2>"$BUILD/check/stage-lsm.log"; then
		# evm=fix: EVM lets root label files that have no HMAC yet, as an
		# image is labelled before it is enforced; exec appraisal still
		# verifies every HMAC (tests/guest/lsm/evm.sh runs last).
		bash vm/run.sh "$lkout/arch/x86/boot/bzImage" "$lstage" "$BUILD/check/vm-apparmor" --timeout 1500 \
			--append "evm=fix"
		python3 vm/results.py "$BUILD/check/vm-apparmor/console.log" --prefix lsm-apparmor >>"$lsm_results"
		# Debian's order without apparmor: selinux is then the first exclusive LSM.
		order=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$lkout/debian-lsm.config" | sed 's/apparmor,//')
		bash vm/run.sh "$lkout/arch/x86/boot/bzImage" "$lstage" "$BUILD/check/vm-selinux" --timeout 900 \
			--append "lsm=$order nscaps.list=/tests/list-selinux"
		python3 vm/results.py "$BUILD/check/vm-selinux/console.log" --prefix lsm-selinux >>"$lsm_results"
		# The engines (issue 25): Debian's docker.io and podman, every mode,
		# on an initramfs of their own. apparmor=0: Debian's docker.io
		# loads its docker-default profile with apparmor_parser (package
		# apparmor, which it recommends and this guest does not have).
		# It runs beside the stock boots below (QEMU's TCG uses one core).
		estage=$BUILD/check/stage-engines
		engines_pid=
		if bash tests/guest/engines/stage.sh "$lstage" "$estage" 2>"$BUILD/check/stage-engines.log"; then
			bash vm/run.sh "$lkout/arch/x86/boot/bzImage" "$estage" "$BUILD/check/vm-engines" \
				--mem 4096 --timeout 2400 --append "apparmor=0 nscaps.list=/tests/list-engines" \
				>"$BUILD/check/vm-engines.log" 2>&1 &
			engines_pid=$!
			trap 'kill "$builds_pid" "$engines_pid" 2>/dev/null || true' EXIT
		else
			echo "FAIL engines-guest: staging failed: $(tail -1 "$BUILD/check/stage-engines.log")" >>"$lsm_results"
		fi
		# Stock 6.12, same config and initramfs, EVM's check only: the
		# plain value's offline edit is refused there too; namespaced
		# values are not protected (what the EVM patch, 0012, adds).
		while [ ! -e "$stock_ready" ] && kill -0 "$builds_pid" 2>/dev/null; do sleep 5; done
		if grep -q '^PASS build:stock-lsm' "$builds_results"; then
			bash vm/run.sh "$BUILD/kernel/out-stock-lsm/arch/x86/boot/bzImage" "$lstage" \
				"$BUILD/check/vm-stock-evm" --timeout 900 --append "evm=fix nscaps.list=/tests/list-stock"
			python3 vm/results.py "$BUILD/check/vm-stock-evm/console.log" --prefix stock-lsm >>"$lsm_results"
			# The engines' stock column: docker userns-remap, build and commit.
			# Its own stage: stock 6.12's overlay.ko.
			if [ -d "$estage" ] && bash tests/guest/engines/stage.sh "$lstage" "$estage-stock" \
				"$BUILD/kernel/out-stock-lsm" 2>>"$BUILD/check/stage-engines.log"; then
				bash vm/run.sh "$BUILD/kernel/out-stock-lsm/arch/x86/boot/bzImage" "$estage-stock" \
					"$BUILD/check/vm-stock-engines" --mem 4096 --timeout 1200 \
					--append "apparmor=0 nscaps.list=/tests/list-engines-stock"
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
	else
		echo "FAIL lsm-guest: staging failed: $(tail -1 "$BUILD/check/stage-lsm.log")" >>"$lsm_results"
	fi
else
	echo "FAIL lsm-guest: its kernel did not build (see $BUILD/check/build-lsm.log)" >>"$lsm_results"
fi
t_lsm=$(date +%s)
log "LSM guest done in $((t_lsm - t_guest)) s"
wait "$builds_pid" || true
trap - EXIT
log "builds beside the guests done $(($(date +%s) - t_lsm)) s after the LSM guest"
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
