# SPDX-License-Identifier: GPL-2.0
# OCI containers with Debian's crun, for the guest's tests and the
# walkthrough (sourced; busybox sh). A container's root is an empty tree over
# which config.json binds the guest's own /bin, /lib, /usr, ... read-only, so
# no image is needed; a host directory is shared at /shared.
CRUN=/usr/bin/crun UNSHARE=/usr/bin/unshare
# crun_setup DIR SHARED: bundles, state and that root under DIR; SHARED is
# the host directory every container sees at /shared
crun_setup() {
	crun_dir=$1 crun_shared=$2
	crun_rootfs=$1/rootfs
	mkdir -p "$crun_rootfs"/bin "$crun_rootfs"/sbin "$crun_rootfs"/lib "$crun_rootfs"/lib64 \
		"$crun_rootfs"/usr "$crun_rootfs"/etc "$crun_rootfs"/proc "$crun_rootfs"/dev \
		"$crun_rootfs"/tmp "$crun_rootfs"/shared "$crun_shared"
	chmod 755 "$crun_rootfs" "$crun_shared"
}

# bundle NAME HOSTBASE UID SHARED_OPTS CMD: write bundle NAME, whose
# container maps 0..65535 to HOSTBASE..; its process runs CMD (sh -c) as
# container uid UID, with CAP_NET_RAW in its bounding set (as Docker's
# default has it; CRUN_BOUNDING, JSON strings, replaces it for non-root uids)
# and, for root, the capabilities a runtime gives root; /shared binds SHARED with SHARED_OPTS (JSON strings).
bundle() {
	local name=$1 hb=$2 uid=$3 opts=$4 cmd caps ro m
	# CMD as a JSON string: backslashes and double quotes escaped.
	cmd=$(printf '%s' "$5" | sed 's/[\\"]/\\&/g')
	caps=${CRUN_BOUNDING:-'"CAP_NET_RAW"'}
	[ "$uid" = 0 ] && caps='"CAP_NET_RAW","CAP_SETFCAP","CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FOWNER","CAP_SETUID","CAP_SETGID"'
	ro=""
	for m in bin sbin lib lib64 usr etc; do
		[ -d "/$m" ] || continue
		ro="$ro{\"destination\":\"/$m\",\"type\":\"bind\",\"source\":\"/$m\",\"options\":[\"rbind\",\"ro\"]},"
	done
	mkdir -p "$crun_dir/$name"
	cat >"$crun_dir/$name/config.json" <<EOF
{
 "ociVersion": "1.0.2",
 "process": {
  "terminal": false,
  "user": {"uid": $uid, "gid": $uid},
  "args": ["/bin/sh", "-c", "$cmd"],
  "env": ["PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"],
  "cwd": "/",
  "capabilities": {"bounding": [$caps], "permitted": [$( [ "$uid" = 0 ] && echo "$caps")],
   "effective": [$( [ "$uid" = 0 ] && echo "$caps")], "inheritable": [], "ambient": []},
  "noNewPrivileges": false
 },
 "root": {"path": "$crun_rootfs", "readonly": true},
 "hostname": "$name",
 "mounts": [
  {"destination": "/proc", "type": "proc", "source": "proc"},
  {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
  {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["mode=1777"]},
  $ro
  {"destination": "/shared", "type": "bind", "source": "$crun_shared", "options": [$opts]}
 ],
 "linux": {
  "namespaces": [{"type": "user"}, {"type": "mount"}, {"type": "pid"}, {"type": "ipc"}, {"type": "uts"}],
  "uidMappings": [{"containerID": 0, "hostID": $hb, "size": 65536}],
  "gidMappings": [{"containerID": 0, "hostID": $hb, "size": 65536}]
 }
}
EOF
}
# ctr NAME HOSTBASE UID SHARED_OPTS CMD: run that container once; its output
# on stdout, crun's errors in DIR/NAME.err. crun looks at /sys/fs/cgroup
# even with --cgroup-manager=disabled; the guest's kernel has no cgroups, so
# a private mount namespace gives it an empty tmpfs there. The guest's root
# is an initramfs, where pivot_root() is refused: --no-pivot, as for any
# runtime on a ramdisk root.
ctr() {
	bundle "$@"
	$UNSHARE -m sh -c 'if [ -d /sys/fs/cgroup ]; then
			mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null || :
		else
			mount -t tmpfs none /sys/fs && mkdir /sys/fs/cgroup || exit 125
		fi
		exec "$@"' - \
		$CRUN --root "$crun_dir/state" --cgroup-manager=disabled run --no-pivot \
		--bundle "$crun_dir/$1" "$1" </dev/null 2>"$crun_dir/$1.err"
}

