# SPDX-License-Identifier: GPL-2.0
# Helpers and values the LSM guest's tests share, beside the guest's TAP
# helpers (/tests/tap.sh).
. /tests/tap.sh
# label FILE: FILE's security.selinux as host root reads it (the in-core
# label: SELinux answers this read), without the trailing NUL
label() { getfattr --absolute-names --only-values -h -n security.selinux "$1" 2>/dev/null | tr -d '\000'; }
# names FILE: every xattr name=value (text) of FILE as host root lists them
names() { getfattr --absolute-names -h -d -m - "$1" 2>/dev/null | sed -e '/^# file: /d' -e '/^$/d' | sort; }

# v3 values as the host reads them: rootid 100000 (a0860100)
V3_NET_ADMIN_100000=0x0100000300100000000000000000000000000000a0860100
A="0 100000 65536" B="0 200000 65536"
