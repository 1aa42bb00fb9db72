#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a guest console log into one result line per test.

Reads KUnit KTAP printed by the kernel during boot, the TAP (or exit code) of
each program framed by NSCAPS-BEGIN/NSCAPS-END markers, and scans the whole
log for kernel reports: any oops, BUG, WARN, KASAN/UBSAN/lockdep report or
panic is a failure even if every test passed.

Output lines: "PASS name", "FAIL name: why", "SKIP name: why".
Usage: results.py console.log [--prefix P] [--expect-kunit SUITE ...]
       results.py --tap FILE NAME
"""
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(\s*)(not ok|ok)\s+(\d+)\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$')
PLAN = re.compile(r'^\s*1\.\.(\d+)')
REPORTS = [
    (re.compile(r'\bBUG:'), 'BUG'),
    (re.compile(r'^WARNING:|\bWARNING: CPU:'), 'WARN'),
    (re.compile(r'\bOops\b|general protection fault'), 'oops'),
    (re.compile(r'Kernel panic'), 'panic'),
    (re.compile(r'KASAN:'), 'KASAN'),
    (re.compile(r'UBSAN:'), 'UBSAN'),
    (re.compile(r'possible circular locking|possible recursive locking|'
                r'INFO: lockdep|inconsistent lock state|'
                r'suspicious RCU usage|sleeping function called from invalid context'),
     'lockdep'),
    (re.compile(r'\bkmemleak\b.*leak'), 'kmemleak'),
]


def parse_tap(lines, prefix, out, nested):
    """Append leaf results of a TAP or KTAP stream to out.

    In nested KTAP a "# Subtest: X" line at indent d names the results at
    indent d; X's own result line follows them at indent d - 4. A result line
    preceded by a more indented one is such a summary and is not counted.
    Returns (top-level plan, number of top-level results)."""
    subtests = {}  # indent -> open subtest name
    fails_at = {}  # indent -> failures counted when that subtest opened
    prev_indent = None
    plan = None
    top = 0
    for line in lines:
        m = re.match(r'^(\s*)# Subtest: (.*)$', line)
        if m and nested:
            d = len(m.group(1))
            subtests = {k: v for k, v in subtests.items() if k < d}
            subtests[d] = m.group(2).strip()
            fails_at[d] = len([r for r in out if r.startswith('FAIL')])
            continue
        p = PLAN.match(line)
        if p and plan is None and not line[:1].isspace():
            plan = int(p.group(1))
        m = RESULT.match(line)
        if not m:
            continue
        d = len(m.group(1))
        status, name, directive = m.group(2), m.group(4).strip(), (m.group(5) or '')
        if d == 0:
            top += 1
        summary = nested and prev_indent is not None and prev_indent > d
        prev_indent = d
        if summary:
            subtests = {k: v for k, v in subtests.items() if k <= d}
            failed_inside = len([r for r in out if r.startswith('FAIL')]) > fails_at.get(d + 4, 0)
            if status == 'ok' or failed_inside:
                continue
            # A failed suite with no failed case (e.g. its init failed) still counts.
        path = ''.join(v + '.' for k, v in sorted(subtests.items()) if k <= d) if nested else ''
        full = prefix + path + name
        if summary:
            out.append(f'FAIL {full}: suite reported failure')
        elif directive.upper().startswith('SKIP'):
            out.append(f'SKIP {full}: {directive[4:].strip() or "skipped"}')
        elif status == 'ok':
            out.append(f'PASS {full}')
        else:
            out.append(f'FAIL {full}')
    return plan, top


def main():
    args = sys.argv[1:]
    if args[:1] == ['--tap']:
        # A host program's TAP output: results.py --tap FILE NAME
        with open(args[1], errors='replace') as f:
            lines = [l.rstrip('\n') for l in f]
        res = []
        plan, count = parse_tap(lines, args[2] + ':', res, False)
        if plan is not None and count < plan:
            res.append(f'FAIL {args[2]}: {count} of {plan} planned results')
        if not res:
            res.append(f'FAIL {args[2]}: no TAP results')
        print('\n'.join(res))
        return
    path = args.pop(0)
    prefix = ''
    if args[:1] == ['--prefix']:
        prefix = args[1] + ':'
        args = args[2:]
    expect_kunit = args[1:] if args[:1] == ['--expect-kunit'] else []
    with open(path, errors='replace') as f:
        raw = [TS.sub('', l.rstrip('\n').replace('\r', '')) for l in f]

    out = []
    # Kernel reports anywhere in the log.
    for i, line in enumerate(raw):
        for rx, kind in REPORTS:
            if rx.search(line):
                out.append(f'FAIL {prefix}kernel-console: {kind} report at line {i + 1}: {line.strip()[:160]}')
                break

    # KUnit: everything before the guest's first marker.
    try:
        start = next(i for i, l in enumerate(raw) if l.startswith('NSCAPS-GUEST-START'))
    except StopIteration:
        start = len(raw)
        out.append(f'FAIL {prefix}guest: never reached userspace')
    kunit = []
    parse_tap([l for l in raw[:start] if 'KTAP version' not in l], prefix + 'kunit:', kunit, True)
    out += kunit
    for suite in expect_kunit:
        if not any(l.split(' ', 1)[1].startswith(f'{prefix}kunit:{suite}.') for l in kunit):
            out.append(f'FAIL {prefix}kunit:{suite}: suite did not run')

    # Programs framed by markers.
    i = start
    while i < len(raw):
        m = re.match(r'^NSCAPS-BEGIN (\S+) (\S+)', raw[i])
        if not m:
            i += 1
            continue
        name, kind = m.group(1), m.group(2)
        body = []
        i += 1
        rc = None
        while i < len(raw):
            e = re.match(r'^NSCAPS-END (\S+) rc=(\d+)', raw[i])
            if e and e.group(1) == name:
                rc = int(e.group(2))
                break
            body.append(raw[i])
            i += 1
        if kind == 'tap':
            res = []
            plan, count = parse_tap(body, f'{prefix}{name}:', res, False)
            out += res
            if rc is None:
                out.append(f'FAIL {prefix}{name}: did not finish (crash or timeout)')
            elif plan is not None and count < plan:
                out.append(f'FAIL {prefix}{name}: {count} of {plan} planned results')
            elif rc != 0 and not any(r.startswith('FAIL') for r in res):
                out.append(f'FAIL {prefix}{name}: exit status {rc}')
            elif not res:
                out.append(f'FAIL {prefix}{name}: no TAP results (exit {rc})')
        else:
            if rc == 0:
                out.append(f'PASS {prefix}{name}')
            else:
                why = 'did not finish' if rc is None else f'exit status {rc}'
                out.append(f'FAIL {prefix}{name}: {why}')
        i += 1

    if not any(l.startswith('NSCAPS-GUEST-DONE') for l in raw):
        why = 'host timeout' if any('NSCAPS-HOST-TIMEOUT' in l for l in raw) else 'crash or panic'
        out.append(f'FAIL {prefix}guest: did not finish ({why})')
    print('\n'.join(out))


if __name__ == '__main__':
    main()
