#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Receiver-measured N against the fixed expected_flows, in the model.

  sim/flows_n.py [--profile long] [--seeds 3] [--flows "2 8 32"] [--sim PATH]
  sim/flows_n.py --log RUN.log   (one run's numbers, for test_sim.sh)

For each flow count K, hpcc-sim's "join" scenario (K - 1 long flows on the
100 Mbit/s dumbbell, one more joining halfway) runs with W_ai's N fixed at
expected_flows' default 16, fixed at the true K (what a perfect count
would give), and measured by the receiver (receiver_flows=1), once per
seed. Per run: the time from the join until the new flow's rate, over the
last 50 ms, first reaches 90% of its fair share (the mean rate of all K
flows over the run's last quarter), Jain's index of the K flows' rates
over that quarter, and the bottleneck queue's p50 and p99 after the
join. Prints the median and range of each over the seeds.
"""
import argparse
import collections
import statistics
import subprocess
import sys

WINDOW = 0.05       # s: the new flow's rate over the last 50 ms
SHARE = 0.9         # of its fair share


def parse(lines):
    """(samples {tag: [(t, bytes_acked)]}, r2d1 backlog [(t, bytes)], join t)."""
    samples = collections.defaultdict(list)
    queue, join = [], None
    for line in lines:
        if not line.startswith('@@csv '):
            continue
        name, row = line[6:].split('@@ ', 1)
        r = row.strip().split(',')
        if name.endswith('/samples.csv') and r[0] != 'tag':
            samples[r[0]].append((float(r[2]), int(r[3])))
        elif name.endswith('/queue.csv') and r[0] != 't' and r[1] == 'r2d1':
            queue.append((float(r[0]), float(r[2])))
        elif name.endswith('/events.csv') and r[0] != 't' and r[2] == 'j':
            join = float(r[0])
    return samples, queue, join


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, max(0, int(-(-p * len(v) // 100)) - 1))]


def metrics(lines):
    """{'conv_s', 'q_p50_kb', 'q_p99_kb'} of one join run."""
    samples, queue, join = parse(lines)
    if join is None or 'j' not in samples:
        return None
    tend = max(t for v in samples.values() for t, _ in v)
    rates = []
    for v in samples.values():
        v.sort()
        a = [x for x in v if x[0] >= tend - (tend - join) / 2]
        if len(a) >= 2:
            rates.append((a[-1][1] - a[0][1]) * 8 / (a[-1][0] - a[0][0]))
    fair = sum(rates) / len(samples)
    conv = None
    j = sorted(samples['j'])
    for i, (t, b) in enumerate(j):
        back = [x for x in j[:i] if x[0] <= t - WINDOW]
        if not back:
            continue
        t0, b0 = back[-1]
        if (b - b0) * 8 / (t - t0) >= SHARE * fair:
            conv = t - join
            break
    q = [b for t, b in queue if t >= join]
    jain = sum(rates) ** 2 / (len(rates) * sum(r * r for r in rates)) \
        if rates else None
    return {'conv_s': conv, 'q_p50_kb': pct(q, 50) / 1000 if q else None,
            'q_p99_kb': pct(q, 99) / 1000 if q else None, 'jain': jain}


def fmt(vals, f='{:.2f}'):
    v = [x for x in vals if x is not None]
    miss = len(vals) - len(v)
    if not v:
        return 'never'
    s = f.format(statistics.median(v)) + ' [' + f.format(min(v)) + '-' + \
        f.format(max(v)) + ']'
    return s + (' (%d never)' % miss if miss else '')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--profile', default='long')
    ap.add_argument('--seeds', type=int, default=3)
    ap.add_argument('--flows', default='2 8 32')
    ap.add_argument('--sim', default='sim/hpcc-sim')
    ap.add_argument('--log')
    a = ap.parse_args()
    if a.log:
        m = metrics(open(a.log))
        print('conv_s %s q_p50_kb %.1f q_p99_kb %.1f jain %.3f' % (
            'none' if m['conv_s'] is None else '%.3f' % m['conv_s'],
            m['q_p50_kb'], m['q_p99_kb'], m['jain']))
        return 0
    print('| flows | N | time to 90% of fair share (s) | Jain, last quarter | '
          'queue p50 (KB) | queue p99 (KB) |')
    print('|---|---|---|---|---|---|')
    for k in a.flows.split():
        for label, hp in (('fixed 16', 'receiver_flows=0'),
                          ('fixed %s' % k, 'expected_flows=' + k),
                          ('receiver', 'receiver_flows=1')):
            runs = []
            for seed in range(1, a.seeds + 1):
                out = subprocess.run(
                    [a.sim, '--scenario=join', '--join=' + k, '--cc=hpcc',
                     '--profile=' + a.profile, '--seed=%d' % seed,
                     '--hpcc=' + hp],
                    check=True, capture_output=True, text=True).stdout
                runs.append(metrics(out.splitlines()))
            print('| %s | %s | %s | %s | %s | %s |' % (
                k, label,
                fmt([r['conv_s'] for r in runs], '{:.3f}'),
                fmt([r['jain'] for r in runs], '{:.3f}'),
                fmt([r['q_p50_kb'] for r in runs], '{:.1f}'),
                fmt([r['q_p99_kb'] for r in runs], '{:.1f}')))
            sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
