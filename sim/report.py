#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ns-3 model's report (python3 standard library only).

    sim/report.py OUTDIR [--md PATH]

OUTDIR is sim/run.sh's: dumbbell/table.txt (demo/analyze.py on the model's
runs), fabric.log and runs/*.log. Writes OUTDIR/report.md (printed) and,
with --md, the same to PATH:
  - cross-check: the model's dumbbell numbers beside the VM bench's
    (Documentation/bench-results.md, mean over repetitions), every
    difference over 20% flagged, and the target: hpcc/dctcp ratios of
    long-flow queue p99 and goodput within 25% of the VM's (or hpcc's queue
    p99 within 5 KB of the VM's);
  - fabric: FCT slowdown by flow size (p50/p95/p99; demo/analyze.py's
    definitions and buckets), queue percentiles per port class, delivered
    load, Jain index of the large flows' rates; gnuplot plots; the target
    hpcc p99 slowdown of flows < 100 KB <= 0.5 x dctcp's at 50% WebSearch;
  - cost: events, wall time and events/s per run.
"""
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'demo'))
import analyze  # noqa: E402  (one definition of percentiles, slowdown, buckets)

CCS = ['hpcc', 'dctcp', 'cubic', 'bbr']


def parse_table(text):
    """analyze.py's table -> {scenario: {label: {cc: mean}}}."""
    out, scen, ccs = {}, None, []
    for line in text.splitlines():
        m = re.match(r'^== (\w+) \(repetitions', line)
        if m:
            scen, ccs = m.group(1), []
            out[scen] = {}
            continue
        if line.startswith('=='):
            scen = None
            continue
        if scen is None or not line.strip():
            continue
        if not ccs:
            ccs = line.split()
            continue
        # label, then one cell per CC: "mean [min-max]" or "mean"
        cells = re.findall(r'(-?[0-9.]+|-)(?: \[[^]]*\])?', line[34:])
        label = line[:34].strip()
        if len(cells) >= len(ccs):
            out[scen][label] = {cc: (None if v == '-' else float(v)) for cc, v in zip(ccs, cells)}
    return out


def vm_summary(md):
    m = re.search(r'## Summary.*?```\n(.*?)```', md, re.S)
    return parse_table(m.group(1)) if m else {}


def pct_diff(a, b):
    if a is None or b is None or a == 0:
        return None
    return (b - a) / abs(a) * 100


def crosscheck(vm, sim):
    rows = ['| scenario | metric | cc | VM bench | ns-3 model | diff |', '|---|---|---|---|---|---|']
    flagged = []
    for scen in ('long', 'incast', 'stagger', 'websearch'):
        for label, cells in vm.get(scen, {}).items():
            for cc in CCS:
                a = cells.get(cc)
                b = sim.get(scen, {}).get(label, {}).get(cc)
                if a is None and b is None:
                    continue
                d = pct_diff(a, b)
                flag = d is not None and abs(d) > 20 and abs(b - a) > 1e-9
                rows.append('| %s | %s | %s | %s | %s | %s%s |' % (
                    scen, label, cc, '-' if a is None else '%g' % a, '-' if b is None else '%g' % b,
                    '-' if d is None else '%+.0f%%' % d, ' **>20%**' if flag else ''))
                if flag:
                    flagged.append((scen, label, cc, a, b, d))
    return rows, flagged


def ratio_target(vm, sim):
    out = []
    for label, what in (('queue p99 (KB)', 'queue p99'), ('goodput / link rate', 'goodput')):
        v = vm.get('long', {}).get(label, {})
        s = sim.get('long', {}).get(label, {})
        try:
            rv, rs = v['hpcc'] / v['dctcp'], s['hpcc'] / s['dctcp']
        except (KeyError, TypeError, ZeroDivisionError):
            out.append((what, None, None, None, 'not measured'))
            continue
        rel = abs(rs - rv) / rv * 100 if rv else math.inf
        ok = rel <= 25
        if what == 'queue p99' and not ok:
            ok = abs(s['hpcc'] - v['hpcc']) <= 5     # "or 5 KB of queue"
        out.append((what, rv, rs, rel, 'met' if ok else 'MISSED'))
    return out


def read_runs(outdir):
    files = {}
    for name in sorted(os.listdir(os.path.join(outdir, 'runs'))):
        with open(os.path.join(outdir, 'runs', name), errors='replace') as f:
            got, _ = analyze.extract_csv(f)
        for k, rows in got.items():
            files.setdefault(k, []).extend(rows)
    return files


def rows_of(rows, header):
    return [dict(zip(header, r.split(','))) for r in rows]


COST_H = ['scenario', 'cc', 'rep', 'events', 'wall_s', 'cpu_s', 'events_per_s', 'base_rtt_ms']
RUNS_H = ['scenario', 'cc', 'rep', 'seed', 'duration', 'telemetry', 'probes_sent',
          'reports_used', 'flows', 'flows_ok', 'elapsed_s']


def fabric(files, outdir):
    cost = {(r['scenario'], r['cc']): r for r in rows_of(files.get('cost.csv', []), COST_H)}
    labels = sorted({k.split('/')[0] for k in files if k.startswith('fabric-')})
    res = {}
    os.makedirs(os.path.join(outdir, 'fabric'), exist_ok=True)
    for lab in labels:
        for cc in CCS:
            key = '%s/%s/r1/' % (lab, cc)
            if key + 'flows.csv' not in files:
                continue
            flows = analyze.parse_rows(files[key + 'flows.csv'])
            c = cost.get((lab, cc), {})
            # one base RTT for all: the cross-leaf one (7/8 of the flows)
            env = analyze.Env({'rate_mbit': 10000, 'base_rtt_ms': c.get('base_rtt_ms', '0.008')})
            sd = analyze.run_slowdowns(flows, env)
            by = {}
            for b, s in sd:
                by.setdefault(b, []).append(s)
            small = by.get('<10K', []) + by.get('10K-100K', [])
            qp = analyze.parse_rows(files.get(key + 'qpct.csv', []))
            rto = analyze.parse_rows(files.get(key + 'rto.csv', []))
            drops = analyze.parse_rows(files.get(key + 'drops.csv', []))
            ut = analyze.parse_rows(files.get(key + 'util.csv', []))
            util = None
            if ut:
                u = ut[0]
                util = float(u['host_rx_bytes']) * 8 / (float(u['rate_bps']) * int(u['hosts']) *
                                                         float(u['seconds']))
            rates = [float(f['size']) / float(f['fct']) for f in flows
                     if f['status'] == 'ok' and float(f['size']) >= 1e6 and float(f['fct']) > 0]
            res[(lab, cc)] = {
                'n': len(flows), 'ok': sum(f['status'] == 'ok' for f in flows),
                'buckets': {name: (len(by.get(name, [])),) + tuple(
                    analyze.percentile(by.get(name, []), p) for p in (50, 95, 99))
                    for _, _, name in analyze.BUCKETS},
                'small': (len(small),) + tuple(analyze.percentile(small, p) for p in (50, 95, 99)),
                'queue': {r['class']: r for r in qp}, 'util': util,
                'jain': analyze.jain(rates) if rates else None,
                'cost': c,
                'rto': rto[0] if rto else None,
                'drops': {d['class']: d for d in drops} if drops else {},
                'ndrops': sum(int(d['packets']) for d in drops),
            }
    return labels, res


def f1(x):
    return '-' if x is None else ('%.1f' % x if x < 100 else '%.0f' % x)


def fabric_md(labels, res, outdir):
    md = []
    for lab in labels:
        md += ['', '### %s' % lab, '',
               '| cc | flows ok | <100K p50/p95/p99 | ' +
               ' | '.join('%s p50/p95/p99' % n for _, _, n in analyze.BUCKETS) +
               ' | ToR-down queue p50/p99/max KB | spine/up p99 KB | delivered load | Jain (>=1MB) |'
               ' RTOs (flows hit) | drops |',
               '|' + '---|' * (9 + len(analyze.BUCKETS))]
        for cc in CCS:
            r = res.get((lab, cc))
            if not r:
                continue
            q = r['queue']
            td = q.get('tor-down', {})
            up = max(float(q.get('tor-up', {}).get('p99', 0)), float(q.get('spine-down', {}).get('p99', 0)))
            rt = r['rto']
            md.append('| %s | %d/%d | %s | %s | %s/%s/%s | %.1f | %s | %s | %s | %s |' % (
                cc, r['ok'], r['n'], '/'.join(f1(x) for x in r['small'][1:]),
                ' | '.join('/'.join(f1(x) for x in r['buckets'][n][1:]) + ' (n=%d)' % r['buckets'][n][0]
                           for _, _, n in analyze.BUCKETS),
                f1(float(td.get('p50', 0)) / 1e3), f1(float(td.get('p99', 0)) / 1e3),
                f1(float(td.get('max', 0)) / 1e3), up / 1e3,
                '-' if r['util'] is None else '%.3f' % r['util'],
                '-' if r['jain'] is None else '%.3f' % r['jain'],
                '-' if rt is None else '%s (%s)' % (int(rt['rto_sender']) + int(rt['rto_receiver']),
                                                    rt['flows_with_rto']),
                r['ndrops']))
        plot_fabric(lab, res, outdir)
        md.append('')
        md.append('Plot: `fabric/%s.png` (p99 slowdown by flow size).' % lab)
    return md


def plot_fabric(lab, res, outdir):
    d = os.path.join(outdir, 'fabric')
    names = [n for _, _, n in analyze.BUCKETS]
    with open(os.path.join(d, lab + '.dat'), 'w') as f:
        f.write('# bucket ' + ' '.join(CCS) + '\n')
        for i, n in enumerate(names):
            f.write('%d "%s" %s\n' % (i, n, ' '.join(
                '%g' % (res.get((lab, cc), {}).get('buckets', {}).get(n, (0, None, None, None))[3] or 0)
                for cc in CCS)))
    gp = os.path.join(d, lab + '.gp')
    with open(gp, 'w') as f:
        f.write('set terminal png size 800,500\nset output "%s.png"\n' % lab)
        f.write('set title "%s: FCT slowdown p99 by flow size"\nset logscale y\n' % lab)
        f.write('set ylabel "slowdown p99"\nset xtics rotate by -30\nset key top left\n')
        f.write('plot ' + ', '.join('"%s.dat" using 1:%d:xtic(2) with linespoints title "%s"' % (
            lab, i + 3, cc) for i, cc in enumerate(CCS)) + '\n')
    try:
        subprocess.run(['gnuplot', lab + '.gp'], cwd=d, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except FileNotFoundError:
        pass


def target_md(vm, sim):
    """The target: hpcc/dctcp ratios of the long flows within 25% of the VM's."""
    md = ['', '### Target: hpcc/dctcp ratios (long flows) within 25% of the VM\'s', '',
          '| ratio | VM | model | difference | verdict |', '|---|---|---|---|---|']
    for what, rv, rs, rel, verdict in ratio_target(vm, sim):
        md.append('| hpcc/dctcp %s | %s | %s | %s | %s |' % (
            what, '-' if rv is None else '%.3f' % rv, '-' if rs is None else '%.3f' % rs,
            '-' if rel is None else '%.0f%%' % rel, verdict))
    return md


def fabric_section_md(labels, res, outdir):
    """The fabric's tables and the target on its small flows' slowdown."""
    md = ['', '## Fabric: leaf-spine, 32 hosts at 10 Gbit/s', '',
          'FCT slowdown = FCT / (2 x base RTT + wire bytes / 10 Gbit/s) (demo/analyze.py\'s '
          'definition; the FCT includes the handshake and the 1-byte answer), base RTT the '
          'cross-leaf one. Queues: every 100 us, per port class.']
    md += fabric_md(labels, res, outdir)
    md += ['', '### Target: hpcc p99 slowdown of flows < 100 KB <= 0.5 x dctcp\'s (50% WebSearch)', '']
    for lab in labels:
        if not lab.startswith('fabric-websearch-50'):
            continue
        h, d = res.get((lab, 'hpcc')), res.get((lab, 'dctcp'))
        if h and d and h['small'][3] and d['small'][3]:
            r = h['small'][3] / d['small'][3]
            md.append('- %s: hpcc %.2f, dctcp %.2f: ratio %.2f, %s' % (
                lab, h['small'][3], d['small'][3], r, 'met' if r <= 0.5 else 'MISSED'))
    return md


def cost_md(files, labels, res):
    """Events, CPU and wall seconds per scenario and CC."""
    cost = rows_of(files.get('cost.csv', []), COST_H)
    md = ['', '## Cost', '',
          'Per scenario and CC, mean over repetitions. CPU seconds are the run\'s own '
          '(the per-run budget is 5 CPU-minutes); wall seconds depend on what else the '
          'machine ran at the time.', '',
          '| scenario | cc | runs | events | CPU s | wall s | events per CPU-s |',
          '|---|---|---|---|---|---|---|']
    groups = {}
    for c in cost:
        groups.setdefault((c['scenario'], c['cc']), []).append(c)
    tot_cpu = tot_wall = 0.0
    for (scen, cc), cs in sorted(groups.items()):
        ev = sum(float(c['events']) for c in cs) / len(cs)
        cpu = sum(float(c['cpu_s']) for c in cs) / len(cs)
        wall = sum(float(c['wall_s']) for c in cs) / len(cs)
        tot_cpu += cpu * len(cs)
        tot_wall += wall * len(cs)
        md.append('| %s | %s | %d | %.0f | %.1f | %.1f | %.0f |' % (
            scen, cc, len(cs), ev, cpu, wall, ev / cpu if cpu else 0))
    fl = [(c, r) for (lab, cc), r in res.items() for c in [r['cost']] if c.get('cpu_s')] if labels else []
    md += ['', 'All runs: %.0f CPU-s, %.0f run-seconds of wall time (runs go 2 at a time).' % (
        tot_cpu, tot_wall)]
    if fl:
        md.append('Fabric CPU per flow: ' + ', '.join(
            '%s %s %.3f s' % (c['scenario'], c['cc'], float(c['cpu_s']) / r['n']) for c, r in fl) + '.')
    return md


def write_md(text, md_path, outdir, labels):
    """The report at MD_PATH, the fabric plots beside it (sim-plots/), its
    links to them; returns the text as written."""
    pd = os.path.join(os.path.dirname(os.path.abspath(md_path)), 'sim-plots')
    for lab in labels:
        png = os.path.join(outdir, 'fabric', lab + '.png')
        if os.path.exists(png):
            os.makedirs(pd, exist_ok=True)
            shutil.copy(png, pd)
            text = text.replace('Plot: `fabric/%s.png`' % lab,
                                'Plot: [sim-plots/%s.png](sim-plots/%s.png)' % (lab, lab))
    with open(md_path, 'w') as f:
        f.write(text)
    return text


def main(argv):
    args = [a for a in argv[1:] if not a.startswith('--')]
    md_path = argv[argv.index('--md') + 1] if '--md' in argv else None
    if md_path:
        args.remove(md_path)
    outdir = args[0]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    with open(os.path.join(root, 'Documentation', 'bench-results.md')) as f:
        vm = vm_summary(f.read())
    with open(os.path.join(outdir, 'dumbbell', 'table.txt')) as f:
        sim = parse_table(f.read())
    files = read_runs(outdir)

    md = ['# ns-3 model results', '',
          'Written by `sim/run.sh` (`make sim` / `make sim-bench`) from `%s`. The model runs '
          'the module\'s own controller (hpcc_ctl.h, hpcc_law.h) and stamps probes with '
          'hpcc_stamp.h; metrics are demo/analyze.py\'s, as for the VM.' % outdir, '',
          '## Cross-check against the VM bench (100 Mbit/s dumbbell)', '',
          'VM: Documentation/bench-results.md, mean over its repetitions; model: mean over '
          'its repetitions. Differences over 20% are flagged and explained in the text.', '']
    rows, flagged = crosscheck(vm, sim)
    md += rows
    md += target_md(vm, sim)
    labels, res = fabric(files, outdir)
    if labels:
        md += fabric_section_md(labels, res, outdir)
    md += cost_md(files, labels, res)
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'results-notes.md')
    if md_path and os.path.exists(notes):
        with open(notes) as f:
            md += ['', f.read().rstrip()]
    text = '\n'.join(md) + '\n'
    with open(os.path.join(outdir, 'report.md'), 'w') as f:
        f.write(text)
    if md_path:
        text = write_md(text, md_path, outdir, labels)
    print(text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
