#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the xattr_bench lines of the four guest runs into the bench table.

Reads RUNS/{stock,patched}-time.txt and, if present, RUNS/{stock,patched}-alloc.txt
(the console lines between the NSCAPS-BEGIN/END markers), prints a markdown
table and writes OUT/latest.md and OUT/latest.csv.
"""
import argparse
import datetime
import os
import re
import statistics
import sys

# operation -> (target text, limit, denominator op on stock or None for same op)
# Issue 26's targets, each patched/stock of the same operation (they replace
# issue 6's looser ones); write_fuse_host is issue 12's.
HOST = ('host-root / non-namespaced', 1.02, None)
NSGET = ('a namespace\'s get', 1.05, None)
TARGETS = {
    'get_user_host': HOST, 'get_cap_host': HOST, 'get_user_ns_d1': HOST,
    'list_host_10': HOST, 'list_host_100': HOST, 'list_host_1000': HOST,
    'exec_host': HOST, 'exec_ns_d1': HOST,
    'set_ns_d1': ('a namespace\'s set', 1.15, None),
    'remove_ns_d1': ('a namespace\'s remove', 1.15, None),
    'list_ns_10_d1': ('listxattr from a namespace, 10 names', 1.30, None),
    'list_ns_100_d1': ('listxattr from a namespace, 100 names', 1.20, None),
    'list_ns_1000_d1': ('listxattr from a namespace, 1000 names', 1.15, None),
    'exec_ns_d4': ('exec from a depth-4 namespace', 1.02, None),
    'exec_ns_d16': ('exec from a depth-16 namespace', 1.02, None),
    # issue 12, finding 13: killpriv at every write on a filesystem without
    # SB_NOSEC (the FUSE server of the selftests, without xattr support)
    'write_fuse_host': ('1-byte write on FUSE (no SB_NOSEC)', 1.02, None),
    'write_fusex_host': ('1-byte write on FUSE with xattrs', 1.02, None),
    # macro rows: a user's whole command
    'exec_true_ns_d1': ('1,000 execs of GNU true with a capability, depth 1', 1.01, None),
    'tar_x_tree_ns_d1': ('tar -x of 2,000 files by a depth-1 root', 1.01, None),
    'cp_a_tree_host': ('cp -a of 2,000 files as host root', 1.01, None),
    'write_fuseovl_ns_d1': ('writes on fuse-overlayfs in a user namespace', 1.01, None),
}
for d in (1, 4, 16):
    for k in ('own', 'fallback', 'miss'):
        TARGETS['get_ns_%s_d%d' % (k, d)] = NSGET
MACRO = ('tar_x_tree_ns_d1', 'cp_a_tree_host', 'write_fuseovl_ns_d1')
ORDER = ['get_user_host', 'get_cap_host', 'get_user_ns_d1',
         'get_ns_own_d1', 'get_ns_fallback_d1', 'get_ns_miss_d1',
         'get_ns_own_d4', 'get_ns_fallback_d4', 'get_ns_miss_d4',
         'get_ns_own_d16', 'get_ns_fallback_d16', 'get_ns_miss_d16',
         'set_ns_d1', 'remove_ns_d1',
         'list_host_10', 'list_host_100', 'list_host_1000',
         'list_ns_10_d1', 'list_ns_100_d1', 'list_ns_1000_d1',
         'exec_host', 'exec_ns_d1', 'exec_ns_d4', 'exec_ns_d16',
         'write_fuse_host', 'write_fusex_host',
         'exec_true_ns_d1', 'tar_x_tree_ns_d1', 'cp_a_tree_host', 'write_fuseovl_ns_d1']


def parse(path):
    run = {'rounds': {}, 'meta': {}, 'features': {}, 'alloc': {}, 'lines': [],
           'done': False, 'problems': []}
    if not os.path.exists(path):
        return None
    for line in open(path, errors='replace'):
        line = line.strip()
        if line == 'done':
            run['done'] = True
        kv = dict(re.findall(r'(\w+)=(\S+)', line))
        if line.startswith('kernel='):
            run['kernel'] = line
        elif line.startswith('feature='):
            run['features'][kv['feature']] = kv.get('present') == '1'
        elif line.startswith('op=') and 'ns_per_op' in kv:
            run['rounds'].setdefault(kv['op'], []).append(float(kv['ns_per_op']))
        elif line.startswith('op=') and 'slab_per_op' in kv:
            run['alloc'][kv['op']] = (float(kv['slab_per_op']), float(kv['pages_per_op']))
        elif line.startswith('op=') and 'outcome' in kv:
            run['meta'][kv['op']] = kv
        elif line.startswith(('setup-error', 'group ', 'write ', 'alloc unavailable', 'traps:')) \
                or 'failed' in line or 'Permission denied' in line:
            run['problems'].append(line)
    return run


def fmt(x):
    return '%.0f' % x if x >= 100 else '%.1f' % x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--runs', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--commit', default='unknown')
    ap.add_argument('--series', default='')
    ap.add_argument('--series-file', default='kernel/series')
    ap.add_argument('--rounds', default='?')
    ap.add_argument('--scale', default='1.0')
    ap.add_argument('--seconds', default='?')
    ap.add_argument('--exec-boots', default='1')
    a = ap.parse_args()
    st = parse(os.path.join(a.runs, 'stock-time.txt'))
    pa = parse(os.path.join(a.runs, 'patched-time.txt'))
    if not st or not pa:
        sys.exit('error: missing stock-time.txt or patched-time.txt in %s' % a.runs)
    sa = parse(os.path.join(a.runs, 'stock-alloc.txt'))
    pal = parse(os.path.join(a.runs, 'patched-alloc.txt'))

    today = datetime.date.today().isoformat()
    series = [p for p in a.series.split() if p.endswith('.patch')]
    md = []
    md.append('Measured %s on commit %s; series: %d patch(es)%s%s.' % (
        today, a.commit, len(series), (' (' + ', '.join(p[:4] for p in series) + ')') if series else '',
        '' if a.series_file == 'kernel/series' else ', from %s, not kernel/series' % a.series_file))
    md.append('Kernels: stock = Debian linux-source-6.12; patched = same + kernel/series; '
              'both `test` config. QEMU TCG with `-icount shift=0`: 1 ns = 1 guest '
              'instruction, so the figures are instruction counts per call (no cache or '
              'memory effects). %s rounds per op, median [min-max] (exec: the rounds of '
              '%s boots of each kernel pooled, since its count moves between boots); ratio '
              'spread is min(patched)/max(stock) to max(patched)/min(stock). Whole run: %ss.'
              % (a.rounds, a.exec_boots, a.seconds))
    feats = ', '.join('%s %s' % (k, 'yes' if v else 'no') for k, v in sorted(pa['features'].items()))
    md.append('Features detected in the patched kernel: %s.' % feats)
    md.append('')
    md.append('| operation | stock ns/op | patched ns/op | patched/stock | target | holds | what one call did (stock / patched) |')
    md.append('|---|---|---|---|---|---|---|')
    csv = ['op,needs,feature_present,stock_median,stock_min,stock_max,patched_median,'
           'patched_min,patched_max,ratio_median,ratio_min,ratio_max,target,target_ratio,holds,'
           'stock_slab_per_op,patched_slab_per_op,stock_pages_per_op,patched_pages_per_op']
    holds_summary = []
    # every row of the table, so that a row whose setup failed shows as missing
    ops = [o for o in ORDER if o in st['rounds'] or o in pa['rounds'] or o in TARGETS]
    ops += sorted(set(st['rounds']) - set(ops))
    for op in ops:
        s = st['rounds'].get(op, [])
        p = pa['rounds'].get(op, [])
        needs = (pa['meta'].get(op) or st['meta'].get(op) or {}).get('needs', '-')
        present = needs == '-' or pa['features'].get(needs, False)
        tgt = TARGETS.get(op)
        so = st['meta'].get(op, {}).get('outcome', '?')
        po = pa['meta'].get(op, {}).get('outcome', '?')
        row = {'op': op, 'needs': needs, 'present': present}
        if not s or not p:
            cell = 'n/a (no figure: run incomplete)'
            md.append('| %s | %s | %s | %s | %s | ✗ | %s / %s |' % (
                op, fmt(statistics.median(s)) if s else '—', fmt(statistics.median(p)) if p else '—',
                cell, tgt[0] if tgt else '—', so, po))
            holds_summary.append((op, 'missing'))
            csv.append('%s,%s,%d,,,,,,,,,,%s,,missing,,,,' % (op, needs, present, tgt[1] if tgt else ''))
            continue
        sm, pm = statistics.median(s), statistics.median(p)
        scell = '%s [%s-%s]' % (fmt(sm), fmt(min(s)), fmt(max(s)))
        if not present:
            pcell = 'n/a (feature missing: %s)' % needs
            rcell, tcell, hcell = 'n/a (feature missing)', (tgt[0] + ' ≤ %.2f' % tgt[1]) if tgt else '—', 'n/a'
            holds_summary.append((op, 'n/a'))
            csv.append('%s,%s,0,%.1f,%.1f,%.1f,,,,,,,%s,,n/a' % (op, needs, sm, min(s), max(s), tgt[1] if tgt else ''))
        else:
            r, rlo, rhi = pm / sm, min(p) / max(s), max(p) / min(s)
            pcell = '%s [%s-%s]' % (fmt(pm), fmt(min(p)), fmt(max(p)))
            rcell = '%.3f [%.3f-%.3f]' % (r, rlo, rhi)
            tr = None
            if tgt:
                den = tgt[2]
                if den and st['rounds'].get(den):
                    tr = pm / statistics.median(st['rounds'][den])
                    tcell = '≤ %.2f × stock %s: %.3f' % (tgt[1], den, tr)
                else:
                    tr = r
                    tcell = '≤ %.2f' % tgt[1]
                ok = tr <= tgt[1]
                # a figure of calls that fail where stock's succeed holds nothing
                if 'err' in po and 'err' not in so:
                    ok = False
                hcell = '✓' if ok else '✗'
                holds_summary.append((op, 'holds' if ok else 'misses'))
            else:
                tcell, hcell = '—', '—'
            csv.append('%s,%s,1,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.4f,%.4f,%.4f,%s,%s,%s' % (
                op, needs, sm, min(s), max(s), pm, min(p), max(p), r, rlo, rhi,
                tgt[1] if tgt else '', '%.4f' % tr if tr is not None else '', hcell))
        md.append('| %s | %s | %s | %s | %s | %s | %s / %s |' % (op, scell, pcell, rcell, tcell, hcell, so, po))
        al_s = sa['alloc'].get(op) if sa else None
        al_p = pal['alloc'].get(op) if pal else None
        csv[-1] += ',%s,%s,%s,%s' % (
            '%.3f' % al_s[0] if al_s else '', '%.3f' % al_p[0] if al_p else '',
            '%.3f' % al_s[1] if al_s else '', '%.3f' % al_p[1] if al_p else '')

    # allocation table
    md.append('')
    if sa and pal and sa['alloc'] and pal['alloc']:
        md.append('Allocations per call (alloc-twin kernels: same config plus SLUB_STATS, '
                  'SLUB_TINY off; sum of alloc_fastpath+alloc_slowpath over all slab caches, '
                  'and pgalloc_* pages, read before and after a loop, minus the reads\' own '
                  'cost, least of 3 trials). set/remove are counted as one set+remove pair. '
                  '"none extra" allows 0.05 slab and 0.25 pages per call of noise.')
        md.append('')
        md.append('| operation | stock slab allocs/call | patched slab allocs/call | stock pages/call | patched pages/call | extra in patched | none extra |')
        md.append('|---|---|---|---|---|---|---|')
        for op in ops:
            x, y = sa['alloc'].get(op), pal['alloc'].get(op)
            if not x and not y and op in MACRO:
                md.append('| %s | | | | | not counted (whole programs) | — |' % op)
                continue
            if not x or not y:
                md.append('| %s | %s | %s | | | n/a | ✗ |' % (op, x and '%.2f' % x[0], y and '%.2f' % y[0]))
                continue
            needs = (pa['meta'].get(op) or {}).get('needs', '-')
            present = needs == '-' or pal['features'].get(needs, False)
            extra = (y[0] - x[0], y[1] - x[1])
            # exec's page count moves by ~0.1-0.2 between loops (page
            # tables, per-cpu page lists): pages need a whole 0.25 to count
            ok = extra[0] < 0.05 and extra[1] < 0.25
            md.append('| %s | %.2f | %.2f | %.2f | %.2f | %+.2f slab, %+.2f pages | %s |' % (
                op, x[0], y[0], x[1], y[1], extra[0], extra[1],
                ('✓' if ok else '✗') + ('' if present else ' (feature missing: %s)' % needs)))
    else:
        md.append('Allocations: not measured (alloc runs missing or without counters).')
    problems = []
    for name, run in (('stock-time', st), ('patched-time', pa), ('stock-alloc', sa), ('patched-alloc', pal)):
        if run is None:
            continue
        if not run['done']:
            problems.append('%s: run did not finish' % name)
        problems += ['%s: %s' % (name, x) for x in run['problems']]
    if problems:
        md.append('')
        md.append('Problems seen in the runs:')
        md += ['- ' + x for x in problems]
    md.append('')
    counts = {}
    for op, h in holds_summary:
        counts.setdefault(h, []).append(op)
    md.append('Targets: ' + '; '.join('%s: %d (%s)' % (k, len(v), ', '.join(v))
                                      for k, v in sorted(counts.items())))
    text = '\n'.join(md) + '\n'
    os.makedirs(a.out, exist_ok=True)
    open(os.path.join(a.out, 'latest.md'), 'w').write(text)
    open(os.path.join(a.out, 'latest.csv'), 'w').write('\n'.join(csv) + '\n')
    print(text)
    print('written: %s, %s' % (os.path.join(a.out, 'latest.md'), os.path.join(a.out, 'latest.csv')))


if __name__ == '__main__':
    main()
