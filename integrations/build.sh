#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# integrations/build.sh - apply the engine patches (issue 25) to Debian's Go
# sources of moby 20.10 and containers/storage 1.43 and build, offline and
# static (CGO_ENABLED=0), the programs that test them in a guest:
#
#   build/integrations/bin/engine-archive       integrations/test/engine-archive
#   build/integrations/bin/moby-archive.test    go test -c of the patched
#   build/integrations/bin/storage-archive.test   pkg/archive packages
#
# The patched packages live in a GOPATH of their own,
# build/integrations/gopath, ahead of Debian's /usr/share/gocode in GOPATH
# (GO111MODULE=off): only pkg/archive of each is replaced, every other
# package comes from Debian. Nothing is downloaded (GOPROXY=off).
#
#   integrations/build.sh          build (about 1 minute cold on 2 cores)
#   integrations/build.sh check    build, then the host-safe checks: the unit
#                                  test TestCapabilityV2 (no xattr) and
#                                  engine-archive -negative-only (as root;
#                                  writes no xattr)
#
# Needs (Debian 12): golang-go golang-github-docker-docker-dev
# golang-github-containers-storage-dev golang-github-ulikunitz-xz-dev
# (c/storage's pkg/archive imports it; its -dev package does not depend on it).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
B=${NSCAPS_BUILD:-$top/build}/integrations
gocode=/usr/share/gocode/src
moby=github.com/docker/docker
storage=github.com/containers/storage

die() { echo "error: $*" >&2; exit 1; }
log() { echo "== $*" >&2; }

# The package versions the patches were made against; another version is
# tried, with a warning, and must apply cleanly.
declare -A want=(
	[golang-go]=2:1.19~1
	[golang-github-docker-docker-dev]=20.10.24+dfsg1-1+deb12u1
	[golang-github-containers-storage-dev]=1.43.0+ds1-8
	[golang-github-ulikunitz-xz-dev]=
)
for p in "${!want[@]}"; do
	v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null) ||
		die "$p is not installed: apt-get install -y ${!want[*]}"
	if [ -n "${want[$p]}" ] && [ "$v" != "${want[$p]}" ]; then
		echo "warning: $p is $v, the patches were made against ${want[$p]}" >&2
	fi
done

export GO111MODULE=off GOPATH=$B/gopath:/usr/share/gocode GOCACHE=$B/cache \
	GOPROXY=off GOFLAGS=-trimpath CGO_ENABLED=0
go=(nice -n 19 go)

log "patching Debian's pkg/archive sources into $B/gopath"
rm -rf "$B/gopath"
mkdir -p "$B/gopath/src/$moby/pkg" "$B/gopath/src/$storage/pkg" \
	"$B/gopath/src/gotest.tools" "$B/bin"
cp -a "$gocode/$moby/pkg/archive" "$B/gopath/src/$moby/pkg/"
cp -a "$gocode/$storage/pkg/archive" "$B/gopath/src/$storage/pkg/"
for p in "$here"/moby-20.10/*.patch; do
	patch -s -p1 -N --no-backup-if-mismatch -d "$B/gopath/src/$moby" <"$p" ||
		die "$p does not apply to $gocode/$moby"
done
for p in "$here"/containers-storage-1.43/*.patch; do
	patch -s -p1 -N --no-backup-if-mismatch -d "$B/gopath/src/$storage" <"$p" ||
		die "$p does not apply to $gocode/$storage"
done
# moby's tests import gotest.tools/v3; Debian installs that module at
# gotest.tools (GOPATH mode has no module paths).
ln -sfn "$gocode/gotest.tools" "$B/gopath/src/gotest.tools/v3"

[ -z "$(gofmt -l "$B/gopath/src/$moby/pkg/archive/archive.go" \
	"$B/gopath/src/$moby/pkg/archive/changes.go" \
	"$B/gopath/src/$moby/pkg/archive/changes_linux.go" \
	"$B/gopath/src/$storage/pkg/archive/archive.go" \
	"$B/gopath/src/$storage/pkg/archive/changes_linux.go" \
	"$here/test/engine-archive")" ] || die "gofmt: files above are not formatted"

log "go vet (packages and their tests)"
"${go[@]}" vet "$moby/pkg/archive" "$storage/pkg/archive"
(cd "$here/test/engine-archive" && "${go[@]}" vet .)

log "building $B/bin"
(cd "$here/test/engine-archive" && "${go[@]}" build -o "$B/bin/engine-archive" .)
"${go[@]}" test -c -o "$B/bin/moby-archive.test" "$moby/pkg/archive"
"${go[@]}" test -c -o "$B/bin/storage-archive.test" "$storage/pkg/archive"
for f in engine-archive moby-archive.test storage-archive.test; do
	! readelf -l "$B/bin/$f" | grep -q INTERP || die "$f is not static"
done
ls -l "$B/bin"

if [ "${1:-}" = check ]; then
	log "host-safe checks: TestCapabilityV2 (no xattr)"
	"$B/bin/moby-archive.test" -test.run '^TestCapabilityV2$' -test.v
	"$B/bin/storage-archive.test" -test.run '^TestCapabilityV2$' -test.v
	if [ "$(id -u)" = 0 ]; then
		log "host-safe checks: engine-archive -negative-only (writes no xattr)"
		d=$(mktemp -d)
		trap 'rm -rf "$d"' EXIT
		"$B/bin/engine-archive" -dir "$d" -negative-only
	fi
fi
