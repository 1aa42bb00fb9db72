#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel in QEMU with a staged test directory and keep the console log.
#   run.sh BZIMAGE STAGE OUTDIR [--timeout SEC] [--mem MB] [--smp N] [--icount] [--append ARGS]
# The guest runs STAGE/tests/list (see vm/guest-init.sh) and reboots; the
# whole run is killed after --timeout seconds (default 1800). OUTDIR gets
# console.log; vm/results.py turns it into results.
. "$(dirname "$0")/../scripts/lib.sh"

kernel=$1 stage=$2 outdir=$3
shift 3
timeout=1800 mem=1024 smp=1 icount= append= test_timeout=900
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout=$2; shift 2 ;;
	--test-timeout) test_timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--icount) icount="-icount shift=0"; shift ;;
	--append) append=$2; shift 2 ;;
	*) die "unknown option $1" ;;
	esac
done
mkdir -p "$outdir"
bash "$NSCAPS_ROOT/vm/initramfs.sh" "$stage" "$outdir/initramfs.cpio.gz"

# One socket per vCPU: SeaBIOS's MP table (the tiny kernels have no ACPI)
# lists sockets, so "-smp 2" alone boots one CPU.
# KVM hangs on these machines (machine-notes.md): software emulation unless
# NSCAPS_KVM=1 says a probe showed it works.
# NSCAPS_QEMU_EXTRA: more qemu arguments, split at spaces (bench/profile/
# profile.sh loads its TCG plugin with it).
accel=tcg
[ "${NSCAPS_KVM:-0}" = 1 ] && accel=kvm
log "booting $(basename "$(dirname "$(dirname "$(dirname "$(dirname "$kernel")")")")") under $accel (timeout ${timeout}s)"
rc=0
timeout --foreground -k 10 "$timeout" qemu-system-x86_64 \
	-accel "$accel" $icount -m "$mem" -smp "$smp,sockets=$smp,cores=1" -nodefaults -no-reboot \
	-display none -monitor none -serial "file:$outdir/console.log" \
	-kernel "$kernel" -initrd "$outdir/initramfs.cpio.gz" \
	-append "console=ttyS0 tsc=reliable panic=-1 rdinit=/init nscaps.timeout=$test_timeout $append" \
	${NSCAPS_QEMU_EXTRA:-} \
	</dev/null || rc=$?
[ $rc = 124 ] && echo "NSCAPS-HOST-TIMEOUT after ${timeout}s" >>"$outdir/console.log"
exit 0
