#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Issue 11's targets on the ns-3 model's dumbbell runs (standard library).

    sim/dynamics.py [--md PATH] [--base LABEL] LABEL=DIR [LABEL=DIR ...]

Each DIR holds hpcc-sim logs (*.log, one run each: sim/run.sh --dynamics
writes them to OUT/runs). LABEL names a variant (e.g. "draft" for the
module's parameters with every mechanism off, "on" for the defaults);
runs of the peers (dctcp, cubic, bbr) are taken from whichever DIR has
them. Prints, per variant, the metrics of every scenario (median over
repetitions with [min-max]) and the targets met or missed, hpcc against the
same scenario's peers.

Metrics (demo/analyze.py's definitions where it has them):
  long, long-jit   queue p99 (r2d1, from 1 s), goodput / link
  websearch(-jit)  FCT slowdown p99 of flows < 100 KB
  incast           short-flow FCT p99, peak queue, drops; the floor: the
                   burst's bytes with headers at the link rate + 2 base RTTs
                   (the handshake, and the last byte's answer)
  many             32 long flows: queue p99 (the run, its second half),
                   Jain (mean over 1-s bins of the second half), goodput /
                   link
  rtt              Jain of the two flows (base RTTs 1:5), f2 / f1 rate
  parking          f1 (two bottlenecks) / mean of f2, f3 (one each)
  vscubic/vsdctcp  f1's (the CC under test) share of the link, second half
  every scenario   probe + response bytes on the wire / link capacity x
                   duration (hpcc)
"""
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'demo'))
import analyze  # noqa: E402

RATE = 100e6
RUNS_HDR = 'scenario,cc,rep,seed,duration,telemetry,probes_sent,reports_used,flows,flows_ok,elapsed_s'
CCS = ['hpcc', 'dctcp', 'cubic', 'bbr']


def read_log(path):
    files, _ = analyze.extract_csv(open(path, errors='replace'))
    runs = [r for r in analyze.parse_rows([RUNS_HDR] + files.get('runs.csv', []))]
    if not runs:
        return None
    r = runs[0]
    d = '%s/%s/r%s/' % (r['scenario'], r['cc'], r['rep'])
    cost = files.get('cost.csv', [''])[0].split(',')
    get = lambda n: analyze.parse_rows(files.get(d + n, []))
    return {'scen': r['scenario'], 'cc': r['cc'], 'rep': int(r['rep']),
            'duration': float(r['duration']),
            'base_rtt': float(cost[-1]) / 1e3 if len(cost) > 1 else 0.00457,
            'queue': get('queue.csv'), 'flows': get('flows.csv'),
            'samples': get('samples.csv'), 'events': get('events.csv'),
            'probe': get('probe.csv')}


def bins_jain(series, tags, lo, hi):
    """Mean over 1-s bins in [lo, hi] of Jain's index of the flows' goodput."""
    js, t = [], lo
    while t + 1 <= hi + 1e-9:
        j = analyze.jain(analyze.goodput_bps(series.get(f, []), t, t + 1) for f in tags)
        if j is not None:
            js.append(j)
        t += 1
    return statistics.fmean(js) if js else None


def metrics(run):
    scen, dur = run['scen'], run['duration']
    base = scen.replace('-jit', '')
    env = analyze.Env({'rate_mbit': 100, 'base_rtt_ms': run['base_rtt'] * 1e3,
                       'ws_dur': dur - 8 if base == 'websearch' else dur})
    m = {}
    if base in ('long', 'incast', 'websearch'):
        am = analyze.run_metrics(base, run, env)
        if base == 'long':
            m = {'q_p99_kb': am['q_p99_kb'], 'goodput': am['goodput']}
        elif base == 'incast':
            # the bursts from events.csv: with --spread no two flows of
            # a burst share a start time
            m = {'fct_p99_ms': am['fct_p99_ms'], 'q_peak_kb': am['q_peak_kb'],
                 'drops': am['drops'], 'floor_ms': am['fct_floor_ms'],
                 'fct_floor': am['fct_p99_floor']}
        else:
            m = {'sd_small_p99': am['sd_small_p99'], 'unfinished': am['unfinished']}
    series = analyze.flow_series(run['samples'])
    half = (dur / 2, dur)
    tags = sorted(series)
    gp = {f: analyze.goodput_bps(series[f], *half) for f in tags}
    if base == 'many':
        qs = analyze.queue_stats(run['queue'], 'r2d1', 0, dur, RATE) or {}
        qh = analyze.queue_stats(run['queue'], 'r2d1', *half, RATE) or {}
        m = {'q_p99_kb': analyze.kb(qs.get('q_p99')),
             'q_p99_half_kb': analyze.kb(qh.get('q_p99')), 'jain': bins_jain(series, tags, *half),
             'goodput': sum(gp.values()) / RATE, 'drops': qs.get('drops')}
    elif base == 'rtt':
        m = {'jain': bins_jain(series, tags, *half),
             'f2_f1': gp['f2'] / gp['f1'] if gp.get('f1') else None}
    elif base == 'parking':
        one = (gp.get('f2', 0) + gp.get('f3', 0)) / 2
        m = {'f1_rel': gp.get('f1', 0) / one if one else None,
             'f1_mbit': gp.get('f1', 0) / 1e6, 'one_mbit': one / 1e6}
    elif base in ('vscubic', 'vsdctcp'):
        m = {'share': gp.get('f1', 0) / RATE, 'f2_share': gp.get('f2', 0) / RATE}
    if run['probe'] and run['cc'] == 'hpcc':
        p = run['probe'][0]
        b = (float(p['probes_sent']) + float(p['responses'])) * float(p['wire_bytes_each'])
        m['probe_pct'] = 100 * b * 8 / (RATE * dur)
    return m


def med(vals):
    v = [x for x in vals if x is not None]
    if not v:
        return None
    return statistics.median(v), min(v), max(v), len(v)


def fmt(s, f='{:.3g}'):
    if s is None:
        return '-'
    m, lo, hi, n = s
    if n == 1 or lo == hi:
        return f.format(m)
    return (f + ' [' + f + '-' + f + ']').format(m, lo, hi)


# (scenario, metric, description, comparison(hpcc, peers) -> bool or None)
def ratio_le(metric, peer, k):
    return lambda h, P: None if h is None or P.get(peer) is None else h <= k * P[peer]


TARGETS = [
    ('incast', 'fct_p99_ms', '1. incast FCT p99 <= 0.8x dctcp', ratio_le('fct_p99_ms', 'dctcp', 0.8)),
    ('incast', 'q_peak_kb', '1. incast peak queue <= dctcp', ratio_le('q_peak_kb', 'dctcp', 1.0)),
    ('incast', 'drops', '1. incast no drops', lambda h, P: None if h is None else h == 0),
    ('incast', 'fct_floor', '1. incast FCT p99 <= 1.3x floor', lambda h, P: None if h is None else h <= 1.3),
    ('many', 'q_p99_kb', '2. 32 flows queue p99 <= dctcp', ratio_le('q_p99_kb', 'dctcp', 1.0)),
    ('many', 'jain', '2. 32 flows Jain >= 0.95', lambda h, P: None if h is None else h >= 0.95),
    ('many', 'goodput', '2. 32 flows goodput >= 0.9x cubic',
     lambda h, P: None if h is None or P.get('cubic') is None else h >= 0.9 * P['cubic']),
    ('*', 'probe_pct', '2. probe+response <= 3% of link (max over scenarios)',
     lambda h, P: None if h is None else h <= 3.0),
    ('rtt', 'jain', '3. RTTs 1:5 Jain >= 0.95', lambda h, P: None if h is None else h >= 0.95),
    ('parking', 'f1_rel', '4. parking lot f1 >= 0.5x one-hop flows',
     lambda h, P: None if h is None else h >= 0.5),
    ('vscubic', 'share', '5. share vs cubic (drop-tail) >= 1/3',
     lambda h, P: None if h is None else h >= 1 / 3),
    ('vsdctcp', 'share', '5. share vs dctcp (RED-ECN) >= 1/3',
     lambda h, P: None if h is None else h >= 1 / 3),
    ('long', 'q_p99_kb', '5./6. long queue p99 <= 0.2x dctcp', ratio_le('q_p99_kb', 'dctcp', 0.2)),
    ('long', 'goodput', '6. long goodput >= 0.9x cubic',
     lambda h, P: None if h is None or P.get('cubic') is None else h >= 0.9 * P['cubic']),
    ('websearch', 'sd_small_p99', '6. websearch p99 <100KB < dctcp and cubic',
     lambda h, P: None if h is None or P.get('dctcp') is None or P.get('cubic') is None
     else h < P['dctcp'] and h < P['cubic']),
    ('long-jit', 'q_p99_kb', '7. jitter: long queue p99 <= 0.2x dctcp', ratio_le('q_p99_kb', 'dctcp', 0.2)),
    ('long-jit', 'goodput', '7. jitter: long goodput >= 0.9x cubic',
     lambda h, P: None if h is None or P.get('cubic') is None else h >= 0.9 * P['cubic']),
    ('websearch-jit', 'sd_small_p99', '7. jitter: websearch p99 <100KB < dctcp and cubic',
     lambda h, P: None if h is None or P.get('dctcp') is None or P.get('cubic') is None
     else h < P['dctcp'] and h < P['cubic']),
]

SHOW = {
    'incast': ['fct_p99_ms', 'floor_ms', 'q_peak_kb', 'drops', 'probe_pct'],
    'many': ['q_p99_kb', 'q_p99_half_kb', 'jain', 'goodput', 'drops', 'probe_pct'],
    'rtt': ['jain', 'f2_f1', 'probe_pct'],
    'parking': ['f1_rel', 'f1_mbit', 'one_mbit', 'probe_pct'],
    'vscubic': ['share', 'f2_share'],
    'vsdctcp': ['share', 'f2_share'],
    'long': ['q_p99_kb', 'goodput', 'probe_pct'],
    'long-jit': ['q_p99_kb', 'goodput'],
    'websearch': ['sd_small_p99', 'unfinished', 'probe_pct'],
    'websearch-jit': ['sd_small_p99'],
}


def main(argv):
    md, base, variants = None, None, []
    while argv:
        a = argv.pop(0)
        if a == '--md':
            md = argv.pop(0)
        elif a == '--base':
            base = argv.pop(0)
        else:
            lab, d = a.split('=', 1)
            variants.append((lab, d))
    # {(variant or peer cc, scen): {metric: [values]}}
    agg = {}
    for lab, d in variants:
        for p in sorted(glob.glob(os.path.join(d, '*.log'))):
            run = read_log(p)
            if not run:
                continue
            key = lab if run['cc'] == 'hpcc' else run['cc']
            for k, v in metrics(run).items():
                agg.setdefault((key, run['scen']), {}).setdefault(k, []).append(v)
    hl = [lab for lab, _ in variants]
    hl = [h for h in dict.fromkeys(hl) if any(k[0] == h for k in agg)]
    cols = hl + [c for c in CCS[1:]]
    out = []
    scens = [s for s in SHOW if any((c, s) in agg for c in cols)]
    out.append('| scenario | metric | ' + ' | '.join(cols) + ' |')
    out.append('|---|---|' + '---|' * len(cols))
    for s in scens:
        for mname in SHOW[s]:
            cells = [fmt(med(agg.get((c, s), {}).get(mname, []))) for c in cols]
            if all(c == '-' for c in cells):
                continue
            out.append('| %s | %s | %s |' % (s, mname, ' | '.join(cells)))
    out.append('')
    # targets: each hpcc variant (and each peer in hpcc's place) against the peers
    who = hl + ['dctcp', 'cubic', 'bbr']
    out.append('| target | ' + ' | '.join(who) + ' |')
    out.append('|---|' + '---|' * len(who))
    for scen, metric, desc, ok in TARGETS:
        cells = []
        for w in who:
            if scen == '*':
                vals = [x for (c, s), mm in agg.items() if c == w for x in mm.get(metric, [])]
                h = max(vals) if vals else None
                peers = {}
            else:
                m = med(agg.get((w, scen), {}).get(metric, []))
                h = m[0] if m else None
                peers = {}
                for c in CCS[1:]:
                    pm = med(agg.get((c, scen), {}).get(metric, []))
                    peers[c] = pm[0] if pm else None
            r = ok(h, peers)
            cells.append('-' if r is None else ('met' if r else 'missed') +
                         (' (%.3g)' % h if h is not None else ''))
        out.append('| %s | %s |' % (desc, ' | '.join(cells)))
    text = '\n'.join(out) + '\n'
    print(text)
    if md:
        with open(md, 'w') as f:
            f.write(text)


if __name__ == '__main__':
    main(sys.argv[1:])
