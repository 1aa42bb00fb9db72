#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tools-runtime.sh - namespaced capabilities through Debian's OCI runtime and
# rootless user namespaces, and an OCI layer written by umoci (issue 14,
# scenarios 3, 6 and 4). TAP on stdout, exit 1 on failure.
#
#  3. crun runs OCI bundles whose config.json maps container 1 to host uids
#     100000+ and container 2 to 200000+. A directory the host shares with
#     both holds a binary. Container 1's root gives it cap_net_raw=ep; a
#     non-root uid of container 1 then has CAP_NET_RAW, container 2 and the
#     host have nothing. Then the same through crun's idmapped bind mount
#     (idmap=uids=...): the shared tree is owned by one image uid, mapped to
#     each container's root, so both containers share one value, as one
#     image layer serves containers with different mappings, and the host
#     still has nothing.
#  6. an OCI layer written by umoci (Go's archive/tar) carries the wildcard
#     security.capability@uid, made by nscap convert --to-wildcard from a
#     build's host value; unpacked, it grants its capabilities in every
#     container and never on the host.
#  4. rootless users as rootless tools set them up: /etc/subuid and
#     /etc/subgid, the setuid newuidmap/newgidmap of Debian's uidmap, and
#     util-linux's unshare --map-auto. alice's namespace gives a binary she
#     owns a capability for her namespace only; bob's namespace and the host
#     get nothing.
#
# Runs ONLY in the LSM guest, as root in the initial user namespace, with a
# tmpfs at $TMPDIR, on the patched kernel; needs Debian's crun, umoci,
# newuidmap, newgidmap, unshare and setpriv (staged at /usr/bin by
# tests/guest/stage-tools.sh), nscap, and libcap's setcap, getcap, capsh.
set -u
LC_ALL=C
export LC_ALL
. /tests/tap.sh
. /tests/rootless.sh
. /tests/crun.sh
CAPSH=$(command -v capsh)
base=${TMPDIR:?TMPDIR must be a tmpfs in the guest}/tools-runtime
rm -rf "$base"
mkdir -p "$base" && cd "$base" || exit 1
chmod 755 "$base"


# ---------------------------------------------------------------- 3. crun
echo "# scenario 3: $($CRUN --version | head -1)"
shared=$base/shared
crun_setup "$base" "$shared"

cp $CAPSH "$shared/x"
chmod 755 "$shared/x"
# The binary belongs to container 1's root, as a file it installed would.
chown 100000:100000 "$shared/x"
RW='"rbind","rw"'

out=$(ctr c1-root 100000 0 "$RW" 'setcap cap_net_raw=ep /shared/x && getcap /shared/x')
is "crun: container 1's root sets cap_net_raw=ep and reads it back" "$out" "/shared/x cap_net_raw=ep"
[ -s "$base/c1-root.err" ] && sed 's/^/#   crun: /' "$base/c1-root.err"
is "crun: the value lands under container 1's key, nothing else" "$(capnames "$shared/x")" \
	"security.capability@uid\\075100000=$(v3_net_raw a0860100)"
out=$(ctr c1-user 100000 1000 "$RW" 'capsh --print | sed -n s/^Current:.//p; /shared/x --print | sed -n s/^Current:.//p')
is "crun: a non-root uid of container 1 has nothing, then CAP_NET_RAW from the file" "$out" \
	"$(printf '=\ncap_net_raw=ep')"
out=$(ctr c2-user 200000 1000 "$RW" '/shared/x --print | sed -n s/^Current:.//p; getcap /shared/x 2>&1; echo end')
is "crun: container 2 (another mapping) reads no value and gets nothing" "$out" "$(printf '=\nend')"
out=$(ctr c2-root 200000 0 "$RW" 'setcap cap_net_raw=ep /shared/x 2>&1; echo rc=$?')
case $out in
*"Operation not permitted"*rc=1) pass "crun: container 2's root may not set a file container 1's root owns" ;;
*) flunk "crun: container 2's root may not set a file container 1's root owns"; echo "#   got: '$out'" ;;
esac
is "crun: the host's uid 1000 gets nothing from the file" "$(cur nsrun -H -u 1000 -- "$shared/x")" "="
is "crun: after all of it, the file holds container 1's value and nothing else (no plain value)" \
	"$(capnames "$shared/x")" "security.capability@uid\\075100000=$(v3_net_raw a0860100)"

# With crun's idmapped bind mount: the shared tree belongs to the image uid
# 5000 (no host user), which each container's mount maps to its own root.
rm -f "$shared/x"
cp $CAPSH "$shared/x"
chmod 755 "$shared/x"
chown 5000:5000 "$shared/x"
idmap() { echo "\"rbind\",\"rw\",\"idmap=uids=5000-$1-1;gids=5000-$1-1\""; }
out=$(ctr i1-root 100000 0 "$(idmap 100000)" 'stat -c %u:%g /shared/x; setcap cap_net_raw=ep /shared/x && getcap /shared/x')
if grep -q . "$base/i1-root.err" && ! [ -n "$out" ]; then
	flunk "crun idmap: container 1 runs with an idmapped /shared"
	sed 's/^/#   crun: /' "$base/i1-root.err"
else
	is "crun idmap: the image uid is container 1's root there, which sets the value" "$out" \
		"$(printf '0:0\n/shared/x cap_net_raw=ep')"
	is "crun idmap: the value lands under the image uid's key" "$(capnames "$shared/x")" \
		"security.capability@uid\\0755000=$(v3_net_raw 88130000)"
	out=$(ctr i1-user 100000 1000 "$(idmap 100000)" '/shared/x --print | sed -n s/^Current:.//p')
	is "crun idmap: a non-root uid of container 1 gets CAP_NET_RAW" "$out" "cap_net_raw=ep"
	out=$(ctr i2-user 200000 1000 "$(idmap 200000)" '/shared/x --print | sed -n s/^Current:.//p')
	is "crun idmap: container 2, mapping the image uid to its root too, shares the value" "$out" "cap_net_raw=ep"
	out=$(ctr i2-plain 200000 1000 "$RW" '/shared/x --print | sed -n s/^Current:.//p')
	is "crun idmap: container 2 without the idmapped mount gets nothing" "$out" "="
	out=$(ctr i1-plain 100000 1000 "$RW" '/shared/x --print | sed -n s/^Current:.//p')
	is "crun idmap: nor does container 1 without it (its own key is not the image uid's)" "$out" "="
	is "crun idmap: the host's uid 1000 gets nothing" "$(cur nsrun -H -u 1000 -- "$shared/x")" "="
	is "crun idmap: after all of it, the file holds the image uid's value and nothing else" \
		"$(capnames "$shared/x")" "security.capability@uid\\0755000=$(v3_net_raw 88130000)"
fi

# ------------------------------------------- 6. an OCI layer with the wildcard
# umoci (Go's archive/tar) builds a layer as an image pipeline would: a build
# left a host value on a binary, nscap turns it into the wildcard, umoci
# repacks. Go refuses PAX keys with '=', so @uid=K cannot travel in a layer;
# the wildcard's name has none.
UMOCI=/usr/bin/umoci
echo "# scenario 6: $($UMOCI --version)"
img=$base/oci
if $UMOCI init --layout "$img" && $UMOCI new --image "$img:app" &&
	$UMOCI unpack --image "$img:app" "$base/build" >/dev/null; then
	x=$base/build/rootfs/x
	cp $CAPSH "$x"
	chmod 755 "$x"
	setcap cap_net_raw=ep "$x"
	check "umoci: nscap convert --to-wildcard turns the build's host value into the wildcard" \
		nscap convert --to-wildcard "$x"
	check "umoci repack exits 0" sh -c "$UMOCI repack --image '$img:app' '$base/build' >/dev/null"
	# The layer just written: the newest gzip blob that holds x.
	layer=
	for b in $(ls -t "$img"/blobs/sha256/*); do
		if gzip -dc "$b" 2>/dev/null | tar -tf - 2>/dev/null | grep -qx 'x\|./x'; then layer=$b; break; fi
	done
	gzip -dc "$layer" >"$base/layer.tar" 2>/dev/null
	is "umoci: the layer's PAX header carries the wildcard, no plain value" \
		"$(strings "$base/layer.tar" | grep -o 'SCHILY\.xattr\.security\.capability[^=]*' | sort -u)" \
		"SCHILY.xattr.security.capability@uid"
	check "umoci unpack of the image (as host root) exits 0" \
		sh -c "$UMOCI unpack --image '$img:app' '$base/run' >/dev/null"
	y=$base/run/rootfs/x
	chmod 755 "$base/run"  # umoci makes the bundle 0700
	is "umoci: the unpacked file holds the wildcard, as v2" "$(capnames "$y")" \
		"security.capability@uid=0x0100000200200000000000000000000000000000"
	rm -rf "$shared" && ln -s "$base/run/rootfs" "$shared"
	out=$(ctr o1-user 100000 1000 "$RW" '/shared/x --print | sed -n s/^Current:.//p')
	is "umoci: a non-root uid of container 1 gets CAP_NET_RAW from the image" "$out" "cap_net_raw=ep"
	out=$(ctr o2-user 200000 1000 "$RW" '/shared/x --print | sed -n s/^Current:.//p')
	is "umoci: so does container 2, with another mapping" "$out" "cap_net_raw=ep"
	is "umoci: the host's uid 1000 gets nothing" "$(cur nsrun -H -u 1000 -- "$y")" "="
	is "umoci: after the containers ran, the file holds the wildcard and nothing else" \
		"$(capnames "$y")" "security.capability@uid=$V2_NET_RAW"
else
	flunk "umoci: init, new and unpack of an empty image"
fi

# ------------------------------------------------------- 4. rootless users
echo "# scenario 4: $($UNSHARE --version), newuidmap of Debian's uidmap"
home=$base/home
rootless_users "$home"

as alice cp $CAPSH "$home/alice/x"
# (--map-auto with --map-root-user: root is alice, 1.. her first 65535 subuids)
is "rootless: alice's namespace maps her subordinate ids" \
	"$(userns alice 'cat /proc/self/uid_map' | tr -s ' ' | sed 's/^ //')" \
	"$(printf '0 1000 1\n1 300000 65535')"
out=$(userns alice "setcap cap_net_raw=ep $home/alice/x && getcap $home/alice/x" 2>&1)
is "rootless: alice's namespace root sets cap_net_raw=ep on her binary" "$out" "$home/alice/x cap_net_raw=ep"
is "rootless: the value lands under alice's key, nothing else" "$(capnames "$home/alice/x")" \
	"security.capability@uid\\0751000=$(v3_net_raw e8030000)"
out=$(userns alice "$SETPRIV --reuid=1 --regid=1 --clear-groups $home/alice/x --print | sed -n s/^Current:.//p")
is "rootless: a non-root uid of alice's namespace (host uid 300000) gets CAP_NET_RAW" "$out" "cap_net_raw=ep"
is "rootless: alice on the host, outside her namespace, gets nothing" \
	"$(as alice "$home/alice/x" --print | sed -n 's/^Current: //p')" "="
out=$(userns bob "getcap $home/alice/x; $SETPRIV --reuid=1 --regid=1 --clear-groups $home/alice/x --print | sed -n s/^Current:.//p")
is "rootless: bob's namespace reads no value, and its uid 1 gets nothing" "$out" "="
out=$(userns bob "setcap cap_net_raw=ep $home/alice/x 2>&1; echo rc=\$?")
case $out in
*"Operation not permitted"*rc=1) pass "rootless: bob's namespace may not set alice's file" ;;
*) flunk "rootless: bob's namespace may not set alice's file"; echo "#   got: '$out'" ;;
esac
is "rootless: after all of it, the file holds alice's value and nothing else (no plain value)" \
	"$(capnames "$home/alice/x")" "security.capability@uid\\0751000=$(v3_net_raw e8030000)"

done_testing
