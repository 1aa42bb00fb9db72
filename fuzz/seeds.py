#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpora corpus/<target>/ (run once; the files are kept in git).

Namespace configurations are encoded as common.h decode_conf() reads them:
depth, then per level a map mode (0 none, 1 root only + uid selector, 2 range,
3 identity, 4 no root, 5 extents), fs level byte, idmap byte, sysctl byte.
"""
import os

here = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


names = [
    b"security.capability", b"security.selinux", b"security.capability@uid",
    b"security.capability@uid=1", b"security.capability@uid=1000",
    b"security.capability@uid=4294967294", b"security.selinux@uid=2000",
    b"user.a", b"user.a@uid=1", b"security.ima@uid=1", b"security.capabilityX",
    b"security.capability@", b"security.capability@uid=", b"security.capability@uid=0",
    b"security.capability@uid=01", b"security.capability@uid=+1",
    b"security.capability@uid= 1", b"security.capability@uid=1 ",
    b"security.capability@uid=4294967295", b"security.capability@uid=4294968296",
    b"security.capability@uid=99999999999", b"security.capability@uidx",
    b"security.capability@gid=1", b"security.capability@uid=1@uid=2",
    b"security.capability" + b"X" * 236,
]
for i, n in enumerate(names):
    put("fuzz_name_parse", "seed-%02d" % i, n)

# (label, config bytes)
confs = [
    # host root on the host filesystem
    ("host", bytes([0, 0, 0, 1])),
    # one namespace, root -> 100000 (byte 2: 100000 + 65536*0), fs in init
    ("ns1", bytes([1, 2, 2, 0, 0, 0, 1])),
    # one namespace, root only -> 1000
    ("ns1root", bytes([1, 1, 1, 1, 0, 0, 1])),
    # one namespace without any mapping
    ("nomap", bytes([1, 0, 0, 0, 1])),
    # identity namespace
    ("ident", bytes([1, 3, 0, 0, 1])),
    # two levels: 100000 range, then root -> 1000 inside
    ("ns2", bytes([2, 2, 2, 0, 1, 1, 1, 0, 0, 1])),
    # 32 levels of identity-ish ranges
    ("deep", bytes([32] + [2, 0] * 32 + [0, 0, 1])),
    # namespace with an idmapped mount (idmap range 0 -> 200000)
    ("idmap", bytes([1, 2, 2, 0, 0, 2, 2, 2, 1, 1])),
    # filesystem mounted inside the namespace (fs level 1)
    ("fsns", bytes([2, 2, 2, 0, 2, 2, 1, 1, 0, 1])),
]
stores = [
    b"user.a\0security.capability\0",
    b"security.capability\0security.capability@uid=100000\0user.b\0",
    b"security.capability@uid\0security.selinux\0security.selinux@uid=101000\0",
    b"security.capability@uid=1000\0security.capability@uid=100000\0"
    b"security.capability@uid=4294967294\0system.posix_acl_access\0",
    b"security.capability@uid=01\0security.capability@uid=0\0user.x@uid=1\0",
    b"security.capability@uid=100000",  # no final NUL
    b"\0\0security.selinux\0\0",
]
ops = [0, 1, 2]
k = 0
for label, conf in confs:
    for op in ops:
        for n in (b"security.capability", b"security.capability@uid=0",
                  b"security.capability@uid=1000", b"security.capability@uid",
                  b"security.selinux", b"security.capability@uid=01", b"user.a"):
            put("fuzz_name_map", "seed-%s-%d-%03d" % (label, op, k),
                conf + bytes([op]) + n + b"\0" + stores[k % len(stores)])
            k += 1
    for i, s in enumerate(stores):
        put("fuzz_list_rewrite", "seed-%s-%d" % (label, i), conf + bytes([7]) + s)

raw_stores = [
    b"user.a\0security.capability\0security.capability@uid=100000\0",
    b"security.capability@uid\0security.selinux@uid=5\0security.capability@uid=01\0",
    b"security.capability@uid=100000",
    b"\0\0security.capability@\0",
]
for i, s in enumerate(raw_stores):
    for b in (0, 1):
        put("fuzz_raw_names", "seed-%d-%d" % (i, b), bytes([1, 2, 2, 0, 0, 0, 1, b]) + s)
