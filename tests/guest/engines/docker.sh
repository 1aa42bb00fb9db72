#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# docker.sh MODE - Debian's dockerd (20.10) in the guest, offline, in MODE
# (default or userns-remap): build with RUN setcap, run + setcap + commit,
# save (the layer's PAX records), then load into a daemon of the other mode
# and run as uid 1000. TAP on stdout. Prints what each flow gave; the
# expected column comes from EXPECT (a file of "flow result" lines), so the
# same script runs on stock and patched kernels.
set -u
LC_ALL=C
export LC_ALL HOME=/root
. /tests/tap.sh
. /tests/engines/lib.sh
mode=$1
base=${TMPDIR:?}/docker-$mode
mkdir -p "$base" && cd "$base" || exit 1

# dockerd's remap user, as Debian's adduser makes it for userns-remap=default
grep -q '^dockremap:' /etc/passwd || {
	echo "dockremap:x:999:999::/nonexistent:/bin/false" >>/etc/passwd
	echo "dockremap:x:999:" >>/etc/group
}
for f in /etc/subuid /etc/subgid; do
	grep -q '^dockremap:' $f 2>/dev/null || echo "dockremap:100000:65536" >>$f
done
mkdir -p /var/lib/docker /etc/docker

# start_dockerd MODE: a daemon on a fresh /var/lib/docker (tmpfs)
start_dockerd() {
	local remap=
	[ "$1" = userns-remap ] && remap=--userns-remap=default
	umount /var/lib/docker 2>/dev/null
	mount -t tmpfs -o mode=711 docker /var/lib/docker
	"${DOCKERD:-/usr/sbin/dockerd}" --iptables=false --ip-masq=false --bridge=none \
		--storage-driver overlay2 $remap >"$base/dockerd-$1.log" 2>&1 &
	echo $! >"$base/dockerd.pid"
	local i=0
	while [ $i -lt 300 ]; do
		docker version >/dev/null 2>&1 && return 0
		sleep 1
		i=$((i + 1))
	done
	tail -30 "$base/dockerd-$1.log" | sed 's/^/#   /'
	return 1
}
stop_dockerd() {
	[ -s "$base/dockerd.pid" ] || return 0
	kill "$(cat "$base/dockerd.pid")" 2>/dev/null
	local i=0
	while kill -0 "$(cat "$base/dockerd.pid")" 2>/dev/null && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
	pkill containerd 2>/dev/null
	sleep 1
	rm -f "$base/dockerd.pid"
}

engine_env
# No daemon outlives the test (a bail, a failed step): the next test's
# dockerd would find its socket and pid file taken.
trap stop_dockerd EXIT
other=default
[ "$mode" = default ] && other=userns-remap
echo "# docker $mode on $(uname -r), fs.xattr_user_ns=$(cat /proc/sys/fs/xattr_user_ns 2>/dev/null || echo none)"
start_dockerd "$mode" || bail "dockerd ($mode) starts"
pass "dockerd ($mode) starts"
tar -C /tests/build-rootfs -c . | docker import - nscaps/base >/dev/null 2>"$base/import.err" ||
	{ sed 's/^/#   /' "$base/import.err"; bail "docker import of the base rootfs"; }
mkdir -p ctx
printf 'FROM nscaps/base\nRUN cp /usr/sbin/capsh /bin/x && /usr/sbin/setcap cap_net_raw=ep /bin/x\n' >ctx/Dockerfile
if DOCKER_BUILDKIT=0 docker build --network none -q -t nscaps/built ctx >build.out 2>&1; then
	pass "docker $mode: build with RUN setcap"
else
	flunk "docker $mode: build with RUN setcap"; sed 's/^/#   /' build.out
fi
# The everyday flow: a package whose postinst runs setcap.
mkdir -p pctx && cp -a /tests/engines/deb-rootfs pctx/root
printf 'FROM scratch\nCOPY root/ /\nRUN /usr/bin/dpkg --force-depends,bad-path -i /iputils-ping.deb && rm /iputils-ping.deb\n' >pctx/Dockerfile
if DOCKER_BUILDKIT=0 docker build --network none -q -t nscaps/ping pctx >pbuild.out 2>&1; then
	pass "docker $mode: build with RUN dpkg -i iputils-ping (postinst: setcap)"
else
	flunk "docker $mode: build with RUN dpkg -i iputils-ping (postinst: setcap)"; sed 's/^/#   /' pbuild.out
fi
runs "docker $mode: run + setcap in the container" run.out docker run --network none --name c1 nscaps/base \
	sh -c 'cp /usr/sbin/capsh /bin/x && /usr/sbin/setcap cap_net_raw=ep /bin/x'
host_gets "docker $mode" "$(docker inspect c1 --format '{{.GraphDriver.Data.UpperDir}}' 2>/dev/null)" "$mode"
runs "docker $mode: commit" commit.out docker commit c1 nscaps/committed

for img in built committed; do
	runs "docker $mode: save $img" save.out docker save -o "$base/$img.tar" nscaps/$img
	result "docker $mode $img layer" "$(layer_value "$base/$img.tar")"
done
runs "docker $mode: save ping" save.out docker save -o "$base/ping.tar" nscaps/ping
result "docker $mode ping layer" "$(layer_value "$base/ping.tar" bin/ping)"
ping_result "docker $mode ping run-1000-same" \
	docker run --rm --network none --sysctl "$NO_PING_SOCKETS" --user 1000 nscaps/ping sh -c "$PING_CMD"
for img in built committed; do
	cap_result "docker $mode $img run-1000-same" \
		docker run --rm --network none --user 1000 nscaps/$img /bin/x --print
done
stop_dockerd
start_dockerd "$other" || bail "dockerd ($other) starts"
for img in built committed; do
	runs "docker $mode: load $img into the $other daemon" load.out docker load -i "$base/$img.tar"
	cap_result "docker $mode $img run-1000-$other" \
		docker run --rm --network none --user 1000 nscaps/$img /bin/x --print
done
runs "docker $mode: load ping into the $other daemon" load.out docker load -i "$base/ping.tar"
ping_result "docker $mode ping run-1000-$other" \
	docker run --rm --network none --sysctl "$NO_PING_SOCKETS" --user 1000 nscaps/ping sh -c "$PING_CMD"
stop_dockerd
done_testing
