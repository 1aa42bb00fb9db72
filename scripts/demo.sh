#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The main job: install packages, build the stock and the patched kernel and
# the tools, boot each in QEMU and run the walkthrough (demo/walkthrough.sh,
# with Debian's crun and rootless tools): first the problem on stock 6.12,
# then namespaced capabilities working.
. "$(dirname "$0")/lib.sh"
cd "$NSCAPS_ROOT"

bash scripts/deps.sh
[ -f nscap/Makefile ] && make -C nscap -s all >/dev/null
rm -rf "$BUILD/demo"
stage=$BUILD/demo/stage
mkdir -p "$stage/tests"
bash tests/guest/stage.sh "$stage"
bash tests/guest/stage-tools.sh "$stage"
# The walkthrough, then two of the real clients' scenarios (issue 14) that
# also have a stock half: tar between two containers, and a rootless buildah
# build. Drop the staged test list.
cp demo/walkthrough.sh "$stage/tests/walkthrough.sh"
cp tests/guest/tools-build.sh "$stage/tests/"
{
	echo "walkthrough|plain|sh /tests/walkthrough.sh"
	echo "tools-archive|tap|sh /tests/tools-archive.sh 1"
	echo "tools-build|tap|sh /tests/tools-build.sh"
} >"$stage/tests/list"

# The LSM guest's configuration (Debian's LSM stack, AF_UNIX for crun), stock
# and patched.
status=0
for kind in stock patched; do
	kernel=$(bash scripts/kernel-build.sh "$kind" lsm)
	bash vm/run.sh "$kernel" "$stage" "$BUILD/demo/$kind" --timeout 900 --append "kunit.enable=0"
	log="$BUILD/demo/$kind/console.log"
	echo
	echo "================ $kind kernel ================"
	sed -n '/^NSCAPS-BEGIN walkthrough/,/^NSCAPS-END walkthrough/p' "$log" | sed '1d;$d'
	for t in tools-archive tools-build; do
		echo
		echo "---------------- $t ($kind) ----------------"
		sed -n "/^NSCAPS-BEGIN $t/,/^NSCAPS-END $t/p" "$log" | sed '1d;$d' |
			grep -a '^ok\|^not ok\|^# ' || true
	done
	python3 vm/results.py "$log" >"$BUILD/demo/$kind/results.txt"
	if grep '^FAIL' "$BUILD/demo/$kind/results.txt"; then
		status=1
	fi
done
# One engine scenario users will recognise (issue 25): Debian's dockerd
# under userns-remap=default builds an image whose Dockerfile installs
# iputils-ping (its postinst runs setcap) and commits a container that ran
# setcap; then uid 1000 in a new container pings. Stock first, then patched.
for kind in stock patched; do
	kout=$BUILD/kernel/out-$kind-lsm
	estage=$BUILD/demo/engines-$kind
	bash tests/guest/engines/stage.sh "$stage" "$estage" "$kout"
	expect=stock
	[ $kind = patched ] && expect=ns
	echo "docker-userns-remap|tap|EXPECT=/tests/engines/expect-$expect.txt sh /tests/engines/inroot.sh sh /tests/engines/docker.sh userns-remap" \
		>"$estage/tests/list-demo"
	bash vm/run.sh "$kout/arch/x86/boot/bzImage" "$estage" "$BUILD/demo/engines-$kind-vm" --mem 4096 \
		--timeout 900 --append "kunit.enable=0 apparmor=0 nscaps.list=/tests/list-demo"
	echo
	echo "---------------- Docker, userns-remap=default ($kind) ----------------"
	grep -a '^RESULT\|^ok\|^not ok' "$BUILD/demo/engines-$kind-vm/console.log" | sed 's/^RESULT //' || true
	grep -q '^NSCAPS-END docker-userns-remap rc=0' "$BUILD/demo/engines-$kind-vm/console.log" || status=1
done
echo
echo "On the patched kernel Debian's dockerd reads only security.capability when it"
echo "commits a layer: under userns-remap the images lose the capability (see the"
echo "README, \"Docker and Podman\"); integrations/moby-20.10 is the engine's fix."
[ $status = 0 ] && echo "walkthrough complete" || echo "walkthrough FAILED (see above)"
exit $status
