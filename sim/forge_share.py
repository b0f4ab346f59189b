#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# sim/forge_share.py RUN.log: each long flow's goodput over the second
# half of a dumbbell run (samples.csv's bytes_acked), and as a share of
# the fair one (the mean); "f1 SHARE" last, for test_sim.sh.
import sys, collections
# per flow: bytes_acked over the second half of the run
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if '/samples.csv@@' not in line: continue
    r = line.split('@@ ',1)[1].strip().split(',')
    if r[0] == 'tag': continue
    rows[r[0]].append((float(r[2]), int(r[3])))
tend = max(t for v in rows.values() for t, _ in v)
rate = {}
for k, v in rows.items():
    v.sort()
    a = [x for x in v if x[0] >= tend / 2]
    if len(a) < 2: continue
    rate[k] = (a[-1][1] - a[0][1]) * 8 / (a[-1][0] - a[0][0]) / 1e6
fair = sum(rate.values()) / len(rate)
print('# ' + ' '.join('%s %.1f Mbit/s (%.2f of fair)' % (k, r, r / fair) for k, r in sorted(rate.items())), 'total %.1f' % sum(rate.values()), 'over t >= %.1f s' % (tend / 2))
print('f1 %.3f' % (rate['f1'] / fair))
