# SPDX-License-Identifier: GPL-2.0
# What the engine tests (docker.sh, podman.sh) share; sourced after
# /tests/tap.sh by busybox sh.

# engine_env: what Debian's engines expect of a booted system and the
# initramfs lacks (cgroup2, devpts, shm, mqueue, /var/run, name service)
engine_env() {
	modprobe overlay 2>/dev/null
	modprobe fuse 2>/dev/null
	mkdir -p /sys/fs/cgroup /run /dev/pts /dev/shm /dev/mqueue /etc/containers
	grep -q ' /sys/fs/cgroup ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
	grep -q ' /dev/pts ' /proc/mounts || mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts
	grep -q ' /dev/shm ' /proc/mounts || mount -t tmpfs shm /dev/shm
	grep -q ' /dev/mqueue ' /proc/mounts || mount -t mqueue mqueue /dev/mqueue
	mkdir -p /var
	[ -e /var/run ] || ln -s /run /var/run
	# What udev's rules give /dev/fuse on Debian (rootless fuse-overlayfs).
	[ -c /dev/fuse ] && chmod 666 /dev/fuse
	printf 'passwd: files\ngroup: files\nhosts: files\n' >/etc/nsswitch.conf
	: >/etc/resolv.conf
	echo "127.0.0.1 localhost" >/etc/hosts
}

# host_gets TAG UPPER MODE: bin/x as the container left it in its upper
# directory UPPER gives host uid 1000, outside any namespace, nothing, in
# every mode with a user namespace (without one the container is host root:
# printed, not asserted)
host_gets() {
	local out mnt=/mnt/nscaps-upper
	mkdir -p "$mnt"
	if [ -z "$2" ] || ! mount --bind "$2" "$mnt"; then
		flunk "$1: the container's upper directory is found"
		return
	fi
	out=$(cur nsrun -H -u 1000 -- "$mnt/bin/x")
	umount "$mnt"
	echo "# $1: bin/x in the container's upper dir, run by host uid 1000: '$out'"
	case $3 in
	default | rootful) ;;
	*) is "$1: the container's setcap gives host uid 1000 nothing" "$out" "=" ;;
	esac
}

# layer_value ARCHIVE [PATH]: the security.capability PAX record of PATH
# (bin/x) in the layers of a docker-archive (docker save, podman save), in
# hex: 20 bytes (v2), 24 for a v3 value (its rootid included); "none" if
# the layer holding PATH has no record, "absent" if no layer holds PATH
layer_value() {
	local d=$1.x f=${2:-bin/x} l v=absent
	rm -rf "$d"
	mkdir -p "$d"
	tar -x -f "$1" -C "$d" 2>/dev/null
	for l in $(find "$d" -name '*.tar'); do
		tar -t -f "$l" 2>/dev/null | grep -qx "$f" || continue
		v=$(paxval "$l" security.capability 20)
		case $v in 0x01000003*) v=$(paxval "$l" security.capability 24) ;; esac
		[ -n "$v" ] || v=none
		echo "# $1: layer xattrs: $(strings "$l" | grep -o 'SCHILY\.xattr\.[^=]*' | sort -u | xargs)" >&2
	done
	rm -rf "$d"
	echo "$v"
}

# result KEY VALUE: what a flow gave (KEY: "engine mode [store] image
# flow"), printed as a RESULT line and, when EXPECT names a file of "KEY =
# VALUE" lines (engines-expect.txt, by kernel semantics), asserted
result() {
	local want
	echo "RESULT $1 = $2"
	[ -n "${EXPECT:-}" ] || return 0
	want=$(awk -v k="$1 = " 'index($0, k) == 1 { print substr($0, length(k) + 1); exit }' "$EXPECT")
	is "$1" "$2" "${want:-<no expectation in $EXPECT>}"
}

# PING_CMD: run in a container, prints "ok" if /bin/ping (iputils; a bare
# "ping" is busybox's applet) as the container's user reaches 127.0.0.1,
# "denied" if the kernel refused its socket (EPERM), "error" if it failed
# otherwise, and then ping's complaint. With NO_PING_SOCKETS (docker run
# --sysctl) only a raw socket works, that is CAP_NET_RAW or setuid: Docker
# 20.10 otherwise opens ICMP datagram sockets to every group of a
# container without userns-remap, and ping works without any capability.
NO_PING_SOCKETS='net.ipv4.ping_group_range=1 0'
PING_CMD='/bin/ping -c 1 -W 5 127.0.0.1 >/tmp/ping.out 2>&1 && echo ok ||
	{ if grep -q "Operation not permitted" /tmp/ping.out; then echo denied; else echo error; fi; tail -2 /tmp/ping.out; }'
# ping_result KEY CMD...: result KEY of CMD (a container running PING_CMD),
# its complaint as a comment
ping_result() {
	local k=$1 out
	shift
	out=$("$@" 2>&1)
	echo "$out" | sed '1d; s/^/# ping: /'
	result "$k" "$(echo "$out" | head -1)"
}

# cap_result KEY CMD...: result KEY of CMD (a container running bin/x, that
# is capsh, --print): its "Current:" capabilities, or "error" and CMD's
# output as comments when it printed none (the container did not run)
cap_result() {
	local k=$1 out u
	shift
	out=$("$@" 2>&1)
	u=$(echo "$out" | sed -n 's/^Current: //p')
	[ -n "$u" ] || echo "$out" | tail -5 | sed 's/^/#   /'
	result "$k" "${u:-error}"
}
