#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tbreport: the table of bench/profile/profile.sh.

  tbreport.py --op OP --rounds R [--min X] [--latest latest.md]
              --kernel KIND KALLSYMS TB.txt CONSOLE.log [--kernel ...]

TB.txt is tbcount's output (phase 1: the warm-up loop() of n/4+1 calls,
phases 2..R+1: the R timed rounds of n calls); CONSOLE.log gives n and the
run's own ns_per_op.  Each block's instructions go to the kernel symbol at
or below its start address.  Per call: the rounds' sum over R*n; for write_*
ops (whose loop() also opens and closes the file) the rounds minus R times
the warm-up, over R*(n - n/4 - 1).
"""
import argparse
import bisect
import re
import sys
from collections import defaultdict

SPLIT_BUCKET = {"set_ns_d1": 1, "remove_ns_d1": 2}


def load_syms(path):
    syms = []
    for line in open(path, errors="replace"):
        m = re.match(r"^([0-9a-f]{16}) ([A-Za-z]) (\S+)", line)
        if m and m.group(2) in "tTwW":
            syms.append((int(m.group(1), 16), m.group(3)))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def load_tb(path, bucket):
    """{phase: (user insns, {vaddr: insns})} for one bucket (None: all)"""
    ph = defaultdict(lambda: [0, defaultdict(int)])
    for line in open(path):
        f = line.split()
        if f[0] != "phase":
            continue
        p, b = int(f[1]), int(f[3])
        if bucket is not None and b != bucket:
            continue
        if f[4] == "user":
            ph[p][0] += int(f[5])
        else:
            ph[p][1][int(f[4], 16)] += int(f[5]) * int(f[6])
    return ph


def console_facts(path, op):
    n, rounds, kernel = None, [], None
    for line in open(path, errors="replace"):
        line = line.strip()
        m = re.match(r"op=%s needs=\S+ depth=\d+ n=(\d+)" % re.escape(op), line)
        if m:
            n = int(m.group(1))
        m = re.match(r"op=%s round=\d+ ns_per_op=([\d.]+)" % re.escape(op), line)
        if m:
            rounds.append(float(m.group(1)))
        m = re.match(r"kernel=(\S+) version=(.*) mode=", line)
        if m:
            kernel = m.group(1) + " " + m.group(2)
    return n, rounds, kernel


def latest_ns(path, op):
    try:
        for line in open(path):
            f = [c.strip() for c in line.split("|")]
            if len(f) > 3 and f[1] == op:
                return float(f[2].split()[0]), float(f[3].split()[0])
    except OSError:
        pass
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--op", required=True)
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--min", type=float, default=0.5)
    ap.add_argument("--latest")
    ap.add_argument("--kernel", nargs=4, action="append", required=True,
                    metavar=("KIND", "KALLSYMS", "TB", "CONSOLE"))
    a = ap.parse_args()
    bucket = SPLIT_BUCKET.get(a.op)
    kinds, per, tot, user, info = [], {}, {}, {}, {}
    for kind, ks, tb, con in a.kernel:
        addrs, names = load_syms(ks)
        n, rounds, kver = console_facts(con, a.op)
        if n is None:
            sys.exit("no n= line for %s in %s" % (a.op, con))
        ph = load_tb(tb, bucket)
        R = a.rounds
        if any(p not in ph for p in range(1, R + 2)):
            sys.exit("%s: phases 1..%d missing (markers not seen?)" % (tb, R + 1))
        warm = n // 4 + 1
        # (phase, weight): what to add up, and how many calls that is
        if a.op.startswith("write_"):
            terms = [(p, 1) for p in range(2, R + 2)] + [(1, -R)]
            calls = R * (n - warm)
        else:
            terms = [(p, 1) for p in range(2, R + 2)]
            calls = R * n
        fn = defaultdict(float)
        for p, w in terms:
            for va, ins in ph[p][1].items():
                i = bisect.bisect_right(addrs, va) - 1
                fn[names[i] if i >= 0 else "?%x" % va] += w * ins
        # each round by itself (kernel + user, per call), beside the bench's
        per_round = [(sum(ph[p][1].values()) + ph[p][0]) / n for p in range(2, R + 2)]
        per[kind] = {k: v / calls for k, v in fn.items()}
        tot[kind] = sum(fn.values()) / calls
        user[kind] = sum(w * ph[p][0] for p, w in terms) / calls
        info[kind] = (n, calls, rounds, kver, per_round)
        kinds.append(kind)

    out = []
    out.append("Instruction profile of %s: kernel instructions per call, by function "
               "(QEMU TCG, -icount shift=0, tbcount plugin; the %d timed rounds of xattr_bench's "
               "loop%s)" % (a.op, a.rounds,
                            ", minus as many warm-up loops (cancels open+close)"
                            if a.op.startswith("write_") else ""))
    if bucket:
        out.append("Bucket: from __x64_sys_%s to the next call's entry (the set/remove "
                   "loop split per system call).  The bench times this call alone and takes "
                   "the clock's cost off: compare its ns/op with TOTAL kernel (the bucket's "
                   "user part is the loop's code and clock reads)" % ("setxattr" if bucket == 1 else "removexattr"))
    for k in kinds:
        n, calls, rounds, kver, per_round = info[k]
        out.append("%s: %s; n=%d per round, %d calls profiled" % (k, kver, n, calls))
        out.append("  per round, bench ns_per_op vs profiled kernel+user/n (whole loop()): " +
                   ", ".join("%.1f/%.1f" % (b, c) for b, c in zip(rounds, per_round)))
    out.append("")
    rows = set()
    for k in kinds:
        rows |= {f for f, v in per[k].items() if abs(v) >= a.min}
    two = len(kinds) == 2
    hdr = "%-44s" % "function" + "".join("%12s" % k for k in kinds) + ("%12s" % "diff" if two else "")
    out.append(hdr)

    def val(k, f):
        return per[k].get(f, 0.0)

    if two:
        order = sorted(rows, key=lambda f: (-abs(val(kinds[1], f) - val(kinds[0], f)),
                                            -val(kinds[1], f), f))
    else:
        order = sorted(rows, key=lambda f: (-val(kinds[0], f), f))
    for f in order:
        line = "%-44s" % f[:44] + "".join("%12.1f" % val(k, f) for k in kinds)
        if two:
            line += "%+12.1f" % (val(kinds[1], f) - val(kinds[0], f))
        out.append(line)
    shown = {k: sum(val(k, f) for f in rows) for k in kinds}
    out.append("%-44s" % "(rows below --min)" + "".join("%12.1f" % (tot[k] - shown[k]) for k in kinds)
               + ("%+12.1f" % ((tot[kinds[1]] - shown[kinds[1]]) - (tot[kinds[0]] - shown[kinds[0]])) if two else ""))

    def total_line(label, d):
        s = "%-44s" % label + "".join("%12.1f" % d[k] for k in kinds)
        if two:
            s += "%+12.1f" % (d[kinds[1]] - d[kinds[0]])
        return s
    out.append(total_line("TOTAL kernel", tot))
    out.append(total_line("user mode (all processes)", user))
    out.append(total_line("kernel + user", {k: tot[k] + user[k] for k in kinds}))
    own = {}
    for k in kinds:
        r = sorted(info[k][2])
        own[k] = r[len(r) // 2] if r else float("nan")
    out.append(total_line("bench ns/op, this boot (median of rounds)", own))
    lat = latest_ns(a.latest, a.op) if a.latest else None
    if lat and two and kinds == ["stock", "patched"]:
        out.append(total_line("bench ns/op, bench/results/latest.md",
                              {"stock": lat[0], "patched": lat[1]}))
    print("\n".join(out))


if __name__ == "__main__":
    main()
