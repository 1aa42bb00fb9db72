#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test, first entry of a packaged kernel's run (scripts/deb-boot.sh):
# load each named module with modprobe from the kernel's /lib/modules, as a
# Debian host does, and check that the module signatures verified.
#   modules.sh MODULE...
# A module the config builds in is ok without loading (modprobe knows it
# from modules.builtin).
n=0
fail=0
say() { n=$((n + 1)); echo "$1 $n - $2"; [ "$1" = ok ] || fail=1; }
echo "1..$(($# + 1))"
dir=/lib/modules/$(uname -r)
for m in "$@"; do
	if grep -q "/$m\.ko" "$dir/modules.builtin" 2>/dev/null; then
		# Built in: modprobe must still accept it, as it does on a host.
		if modprobe "$m"; then say ok "$m built in"; else say "not ok" "modprobe $m (built in) failed"; fi
	elif out=$(modprobe "$m" 2>&1) && [ -d "/sys/module/$m" ]; then
		say ok "modprobe $m: $(modinfo -n "$m")"
	else
		echo "$out" | sed 's/^/# /'
		say "not ok" "modprobe $m"
	fi
done
# Taint bit 13 (E): an unsigned module, or one whose signature did not verify
# against the kernel's built-in key, was loaded.
t=$(cat /proc/sys/kernel/tainted)
if [ $((t & 8192)) = 0 ]; then
	say ok "no unsigned-module taint (tainted=$t)"
else
	dmesg | grep -i 'module verification\|signature' | sed 's/^/# /'
	say "not ok" "unsigned-module taint (tainted=$t)"
fi
exit $fail
