#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# integrations/dockerd.sh - rebuild Debian 12's dockerd (docker.io
# 20.10.24+dfsg1-1+deb12u1) with integrations/moby-20.10 applied, the way
# debian/rules builds it (hack/make.sh dynbinary), for the engine guest's
# end-to-end run (tests/guest/engines, NSCAPS_DOCKERD_PATCHED).
#
#   integrations/dockerd.sh        prints the path of the rebuilt dockerd
#
# Fetches from Debian's mirror, with a private sources list (no change to
# /etc/apt): the docker.io source package, and installs the 14 Go -dev
# packages its daemon needs beyond golang-github-docker-docker-dev's
# dependencies. About 10 minutes cold on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
B=${NSCAPS_BUILD:-$top/build}/integrations
A=$B/apt V=20.10.24+dfsg1 DV=20.10.24+dfsg1-1+deb12u1
log() { echo "== $*" >&2; }

mkdir -p "$A/src" "$A/lists/partial"
k=/usr/share/keyrings/debian-archive-keyring.gpg
for s in "debian bookworm" "debian bookworm-updates" "debian-security bookworm-security"; do
	set -- $s
	echo "deb-src [signed-by=$k] http://deb.debian.org/$1 $2 main"
done >"$A/sources.list"
AO=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/nonexistent
	-o "Dir::State::Lists=$A/lists")
S=$A/src/docker.io-$V
if [ ! -d "$S/engine" ]; then
	log "fetching the docker.io $DV source package"
	apt-get "${AO[@]}" update -q >&2
	(cd "$A/src" && apt-get "${AO[@]}" source -q --download-only "docker.io=$DV" >&2 &&
		dpkg-source --no-check -x "docker.io_$DV.dsc" >&2)
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -q golang-go golang-github-docker-docker-dev \
	golang-github-containers-storage-dev golang-google-cloud-dev golang-github-graylog2-go-gelf-dev \
	golang-github-racksec-srslog-dev golang-github-bsphere-le-go-dev \
	golang-github-cloudflare-cfssl-dev golang-github-fernet-fernet-go-dev \
	golang-github-fluent-fluent-logger-golang-dev golang-github-gofrs-flock-dev \
	golang-github-google-shlex-dev golang-github-grpc-ecosystem-grpc-opentracing-dev \
	golang-github-hashicorp-go-memdb-dev golang-github-mitchellh-hashstructure-dev \
	golang-github-opentracing-contrib-go-stdlib-dev golang-github-tonistiigi-units-dev >&2

G=$B/dockerd/gopath
rm -rf "$G"
mkdir -p "$G/src/github.com/docker"
cp -a "$S/engine" "$G/src/github.com/docker/docker"
cp -a "$S/libnetwork" "$G/src/github.com/docker/libnetwork"
cp -a "$S/swarmkit" "$G/src/github.com/docker/swarmkit"
patch -s -p1 -d "$G/src/github.com/docker/docker" <"$here"/moby-20.10/0001-*.patch
log "building dockerd $V with integrations/moby-20.10"
# debian/rules override_dh_auto_build, for the daemon only.
(cd "$G/src/github.com/docker/docker" &&
	GO111MODULE=off GOPROXY=off GOPATH="$G:/usr/share/gocode" GOCACHE="$B/cache" \
	KEEPBUNDLE=1 VERSION=$V DOCKER_BUILDTAGS='apparmor seccomp' DOCKER_GITCOMMIT=5d6db84 \
	PRODUCT=docker nice -n 19 ./hack/make.sh dynbinary >&2)
bin=$G/src/github.com/docker/docker/bundles/dynbinary-daemon/dockerd-$V
[ -x "$bin" ] || { echo "error: no $bin" >&2; exit 1; }
echo "$bin"
