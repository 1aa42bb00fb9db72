# SPDX-License-Identifier: GPL-2.0
# Rootless users as rootless container tools set them up, for the guest's
# tests (sourced; busybox sh): alice (uid 1000) and bob (1001), their ranges
# in /etc/subuid and /etc/subgid, and Debian's setuid newuidmap/newgidmap
# (staged at /usr/bin, with util-linux's unshare and setpriv).
SETPRIV=/usr/bin/setpriv UNSHARE=/usr/bin/unshare
# rootless_users DIR: (re)create alice and bob, their homes under DIR
rootless_users() {
	# Debian installs newuidmap and newgidmap setuid root; the initramfs
	# copy is not.
	chown 0:0 /usr/bin/newuidmap /usr/bin/newgidmap
	chmod 4755 /usr/bin/newuidmap /usr/bin/newgidmap
	sed -i -e '/^alice:/d' -e '/^bob:/d' /etc/passwd /etc/group
	printf 'alice:x:1000:1000:alice:%s/alice:/bin/sh\nbob:x:1001:1001:bob:%s/bob:/bin/sh\n' \
		"$1" "$1" >>/etc/passwd
	printf 'alice:x:1000:\nbob:x:1001:\n' >>/etc/group
	printf 'alice:300000:65536\nbob:400000:65536\n' >/etc/subuid
	cp /etc/subuid /etc/subgid
	mkdir -p "$1/alice" "$1/bob"
	chown 1000:1000 "$1/alice"
	chown 1001:1001 "$1/bob"
	chmod 755 "$1" "$1/alice" "$1/bob"
}
# user_id USER, user_home USER: USER's uid and home, from /etc/passwd
user_id() { sed -n "s/^$1:x:\([0-9]*\):.*/\1/p" /etc/passwd; }
user_home() { sed -n "s/^$1:x:[^:]*:[^:]*:[^:]*:\([^:]*\):.*/\1/p" /etc/passwd; }
# as USER CMD...: CMD as the unprivileged host user USER (uid, gid, HOME)
as() {
	local id home
	id=$(user_id "$1")
	home=$(user_home "$1")
	shift
	HOME=$home $SETPRIV --reuid="$id" --regid="$id" --clear-groups "$@"
}
# userns USER CMD: CMD (sh -c) as root of USER's rootless namespace, as
# util-linux makes it: 0 is USER, 1.. USER's first subordinate ids
userns() { as "$1" $UNSHARE --map-auto --map-root-user sh -c "$2"; }
