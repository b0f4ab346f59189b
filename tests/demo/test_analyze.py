#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of demo/analyze.py's pure functions, with hand-computed cases.

    python3 tests/demo/test_analyze.py

Prints TAP: one "ok N - name" / "not ok N - name" line per test, then the
plan "1..N"; exit status 1 if any test failed.
"""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'demo'))
import analyze as A  # noqa: E402


class Percentile(unittest.TestCase):
    def test_nearest_rank_textbook(self):
        # 5 values: p30 -> rank ceil(1.5) = 2; p40 -> rank 2; p50 -> rank 3
        v = [35, 20, 15, 50, 40]
        self.assertEqual(A.percentile(v, 30), 20)
        self.assertEqual(A.percentile(v, 40), 20)
        self.assertEqual(A.percentile(v, 50), 35)
        self.assertEqual(A.percentile(v, 100), 50)
        self.assertEqual(A.percentile(v, 0), 15)

    def test_p99(self):
        self.assertEqual(A.percentile(range(1, 101), 99), 99)   # rank 99
        self.assertEqual(A.percentile(range(1, 11), 99), 10)    # rank ceil(9.9)
        self.assertEqual(A.percentile(range(1, 11), 50), 5)     # rank 5

    def test_edges(self):
        self.assertIsNone(A.percentile([], 50))
        self.assertEqual(A.percentile([7], 99), 7)
        self.assertEqual(A.percentile([2.5, 1.5], 50), 1.5)     # rank 1


class Jain(unittest.TestCase):
    def test_values(self):
        self.assertAlmostEqual(A.jain([1, 1, 1, 1]), 1.0)
        self.assertAlmostEqual(A.jain([1, 0, 0, 0]), 0.25)
        self.assertAlmostEqual(A.jain([1, 2, 3]), 36 / 42)      # 6^2 / (3 * 14)
        self.assertAlmostEqual(A.jain(iter([5e6, 5e6])), 1.0)

    def test_degenerate(self):
        self.assertIsNone(A.jain([]))
        self.assertIsNone(A.jain([0, 0]))


class Slowdown(unittest.TestCase):
    def test_wire_bytes(self):
        self.assertEqual(A.wire_bytes(0), 8 + 66)            # header only, 1 segment
        self.assertEqual(A.wire_bytes(1440), 1448 + 66)      # exactly one MSS
        self.assertEqual(A.wire_bytes(1441), 1449 + 2 * 66)  # two segments

    def test_ideal_and_slowdown(self):
        # 2 * 5 ms + 1514 B * 8 / 100 Mbit/s = 10.12112 ms
        self.assertAlmostEqual(A.ideal_fct(1440, 100e6, 0.005), 0.01012112)
        self.assertAlmostEqual(A.slowdown(0.02024224, 1440, 100e6, 0.005), 2.0)
        # a 1 MB flow at 10 Mbit/s, 1 ms RTT: 1000008 B + 691 segments * 66 B
        ideal = 0.002 + (1000008 + 691 * 66) * 8 / 10e6
        self.assertAlmostEqual(A.ideal_fct(1e6, 10e6, 0.001), ideal)

    def test_buckets(self):
        self.assertEqual(A.bucket_of(0), '<10K')
        self.assertEqual(A.bucket_of(9999), '<10K')
        self.assertEqual(A.bucket_of(10000), '10K-100K')
        self.assertEqual(A.bucket_of(999999), '100K-1M')
        self.assertEqual(A.bucket_of(1e6), '1M-10M')
        self.assertEqual(A.bucket_of(3e7), '>=10M')

    def test_run_slowdowns_skips_unfinished(self):
        env = A.Env({'rate_mbit': '100', 'base_rtt_ms': '5'})
        flows = [{'size': '1440', 'fct': '0.02024224', 'status': 'ok'},
                 {'size': '5000', 'fct': '-1', 'status': 'unfinished'}]
        out = A.run_slowdowns(flows, env)
        self.assertEqual(len(out), 1)
        self.assertEqual(out[0][0], '<10K')
        self.assertAlmostEqual(out[0][1], 2.0)

    def test_slowdown_table(self):
        pooled = {'x': [('<10K', 1.0), ('<10K', 3.0), ('10K-100K', 2.0), ('>=10M', 9.0)]}
        rows = {r[1]: r for r in A.slowdown_table(pooled, ['x'])}
        self.assertEqual(rows['<10K'][2:], (2, 1.0, 3.0, 3.0))
        self.assertEqual(rows['<100K'][2:], (3, 2.0, 3.0, 3.0))   # 1,2,3
        self.assertEqual(rows['1M-10M'][2:], (0, None, None, None))


class Extract(unittest.TestCase):
    def test_extract(self):
        lines = [
            '# demo: progress\n',
            '@@csv a/b.csv@@ t,x\r\n',
            '@@csv a/b.csv@@ 1,2\n',
            '[  12.3] kernel message\n',
            '@@csv env.csv@@ key,value\n',
            '@@csv a/b.csv@@ 3,4',
            '@@csv broken 5,6\n',                 # no closing @@
            '@@csv ../etc/passwd@@ x\n',          # escapes the folder
            '@@csv /abs@@ x\n',                   # absolute
            'text @@csv a/b.csv@@ 7,8\n',         # not at line start
            '@@csv sweep/hpcc.w_ai=800/r1/q.csv@@ t\n',   # sweep labels
        ]
        files, bad = A.extract_csv(lines)
        self.assertEqual(files, {'a/b.csv': ['t,x', '1,2', '3,4'],
                                 'env.csv': ['key,value'],
                                 'sweep/hpcc.w_ai=800/r1/q.csv': ['t']})
        self.assertEqual(bad, 3)

    def test_parse_rows_drops_cut_lines(self):
        rows = A.parse_rows(['t,dev,backlog', '0.1,r2d1,100', '0.2,r2d', '0.3,r2d1,300'])
        self.assertEqual([r['backlog'] for r in rows], ['100', '300'])
        self.assertEqual(A.parse_rows([]), [])


class Series(unittest.TestCase):
    def q(self, t, b, byts, drops=0, marks=0, dev='r2d1'):
        return {'t': str(t), 'dev': dev, 'backlog': str(b), 'bytes': str(byts),
                'drops': str(drops), 'marks': str(marks)}

    def test_queue_stats(self):
        # 1 s at 8 Mbit/s = 1e6 bytes: utilisation 1 over [0, 1]
        rows = [self.q(i / 10, b, i * 1e5, drops=i // 5) for i, b in
                enumerate([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100])]
        rows.append(self.q(0.5, 999999, 0, dev='other'))
        s = A.queue_stats(rows, 'r2d1', 0, 1, 8e6)
        self.assertEqual(s['q_p50'], 50)       # rank ceil(5.5) = 6 of 0..100
        self.assertEqual(s['q_p99'], 100)      # rank ceil(10.89) = 11
        self.assertEqual(s['q_max'], 100)
        self.assertAlmostEqual(s['util'], 1.0)
        self.assertEqual(s['drops'], 2)
        self.assertIsNone(A.queue_stats(rows, 'r2d1', 5, 6, 8e6))

    def test_goodput(self):
        s = [(0.0, 0.0), (1.0, 1e6), (2.0, 2e6)]
        self.assertAlmostEqual(A.goodput_bps(s, 0.5, 1.5), 8e6)
        # the flow's samples end at 2 s: nothing after that
        self.assertAlmostEqual(A.goodput_bps(s, 1.0, 3.0), 1e6 * 8 / 2)
        self.assertEqual(A.goodput_bps([], 0, 1), 0.0)

    def test_throughput_series(self):
        out = A.throughput_series([(0.0, 0.0), (0.5, 625000.0), (1.0, 625000.0)])
        self.assertEqual(out, [(0.25, 10.0), (0.75, 0.0)])

    def test_recovery(self):
        # idle until t = 1.0, then the full 8 Mbit/s (10 KB per 10 ms sample)
        rows = [self.q(i / 100, 0, max(0, i - 100) * 1e4) for i in range(0, 301)]
        # window 4 RTTs = 40 ms: first full window starts at 1.0 -> 50 RTTs
        r = A.recovery_rtts(rows, 'r2d1', 0.5, 8e6, 0.01, 3.0)
        self.assertAlmostEqual(r, 50.0)
        # never recovers before the end of the run
        self.assertIsNone(A.recovery_rtts(rows, 'r2d1', 0.5, 8e6, 0.01, 0.9))

    def test_stalls(self):
        rows = [self.q(t, 0, 0) for t in (0, 0.01, 0.2, 0.21, 0.25)]
        self.assertAlmostEqual(A.stall_seconds(rows, 'r2d1', 0, 1), 0.19)

    def test_value_at(self):
        s = [(0.0, 0.0), (2.0, 4.0)]
        self.assertEqual(A.value_at(s, 1.0), 2.0)
        self.assertEqual(A.value_at(s, -1), 0.0)
        self.assertEqual(A.value_at(s, 3), 4.0)


class Aggregate(unittest.TestCase):
    def test_spread(self):
        s = A.spread([1, None, 2, 3])
        self.assertEqual((s['mean'], s['min'], s['max'], s['n']), (2, 1, 3, 3))
        self.assertAlmostEqual(s['sd'], 1.0)
        self.assertEqual(A.spread([4])['sd'], 0.0)
        self.assertIsNone(A.spread([None]))

    def test_targets(self):
        def m(v):
            return {'mean': v, 'min': v, 'max': v, 'sd': 0, 'n': 1}
        agg = {('long', 'hpcc', 'q_p99_kb'): m(10), ('long', 'dctcp', 'q_p99_kb'): m(40),
               ('long', 'cubic', 'q_p99_kb'): m(400), ('long', 'hpcc', 'goodput'): m(0.85),
               ('long', 'cubic', 'goodput'): m(0.9)}
        t = {name: (v, met) for name, v, _, met in A.targets(agg, 'hpcc')}
        self.assertEqual(t['queue p99 hpcc/dctcp (long flows)'], (0.25, False))
        self.assertEqual(t['queue p99 hpcc/cubic (long flows)'], (0.025, True))
        v, met = t['goodput hpcc/cubic (long flows)']
        self.assertAlmostEqual(v, 0.85 / 0.9)
        self.assertTrue(met)
        self.assertEqual(t['short-flow (64 KB incast) FCT p99 hpcc/dctcp'], (None, None))

    @staticmethod
    def m(v):
        return {'mean': v, 'min': v, 'max': v, 'sd': 0, 'n': 1}

    def test_evidence_only_for_misses_with_this_runs_numbers(self):
        m = self.m
        agg = {('long', 'hpcc', 'q_p99_kb'): m(30), ('long', 'dctcp', 'q_p99_kb'): m(60),
               ('long', 'cubic', 'q_p99_kb'): m(480), ('long', 'hpcc', 'q_p50_kb'): m(0.5),
               ('long', 'hpcc', 'goodput'): m(0.88), ('long', 'cubic', 'goodput'): m(0.89),
               ('incast', 'hpcc', 'fct_p99_ms'): m(100), ('incast', 'dctcp', 'fct_p99_ms'): m(180),
               ('incast', 'hpcc', 'fct_floor_ms'): m(73.3)}
        env = A.Env({'base_rtt_ms': '5'})
        tgts = A.targets(agg, 'hpcc')
        evidence = dict(A.miss_evidence(tgts, agg, 'hpcc', [], env))
        # missed: queue vs dctcp (0.5) and vs cubic (0.0625), incast (0.556);
        # met: goodput; not measured: the rest
        self.assertEqual(sorted(evidence), ['queue p99 hpcc/cubic (long flows)',
                                          'queue p99 hpcc/dctcp (long flows)',
                                          'short-flow (64 KB incast) FCT p99 hpcc/dctcp'])
        ev = evidence['short-flow (64 KB incast) FCT p99 hpcc/dctcp']
        # target 90 ms, floor 73.3 ms: 16.7 ms of room
        self.assertIn('p99 100.0 ms', ev)
        self.assertIn('target 90.0 ms leaves 16.7 ms above the floor', ev)
        self.assertIn('p50 0.5 KB, p99 30.0 KB', evidence['queue p99 hpcc/dctcp (long flows)'])

    def test_incast_target_below_the_floor_is_called_unreachable(self):
        m = self.m
        agg = {('incast', 'hpcc', 'fct_p99_ms'): m(200), ('incast', 'dctcp', 'fct_p99_ms'): m(176),
               ('incast', 'hpcc', 'fct_floor_ms'): m(97)}
        tgts = A.targets(agg, 'hpcc')
        (name, ev), = A.miss_evidence(tgts, agg, 'hpcc', [], A.Env({'base_rtt_ms': '5'}))
        self.assertTrue(name.startswith('short-flow'))
        # target 88 ms is 9 ms below the 97 ms floor
        self.assertIn('target 88.0 ms lies 9.0 ms below the floor: no CC can meet it', ev)
        (_, _, _, met), = [t for t in tgts if t[0].startswith('short-flow')]
        self.assertEqual(met, A.BELOW_FLOOR)
        text = A.targets_text(tgts, [(name, ev)], 'hpcc')
        self.assertIn('<= 0.50 below the floor', text)
        self.assertIn('BELOW THE FLOOR short-flow', text)
        self.assertNotIn('MISSED', text)

    def test_incast_target_above_the_floor_is_missed(self):
        m = self.m
        # dctcp 240 ms: the target 120 ms lies above the 97 ms floor
        agg = {('incast', 'hpcc', 'fct_p99_ms'): m(200), ('incast', 'dctcp', 'fct_p99_ms'): m(240),
               ('incast', 'hpcc', 'fct_floor_ms'): m(97)}
        (_, _, _, met), = [t for t in A.targets(agg, 'hpcc') if t[0].startswith('short-flow')]
        self.assertIs(met, False)

    def test_goodput_evidence_names_the_best_sweep_setting(self):
        m = self.m
        agg = {('long', 'hpcc', 'goodput'): m(0.70), ('long', 'cubic', 'goodput'): m(0.89),
               ('sweep', 'hpcc.default', 'goodput'): m(0.72),
               ('sweep', 'hpcc.max_stage=5', 'goodput'): m(0.65),
               ('sweep', 'hpcc.w_ai=800', 'goodput'): m(0.81),
               ('sweep', 'hpcc.w_ai=800', 'q_p99_kb'): m(40)}
        tgts = [t for t in A.targets(agg, 'hpcc') if t[0].startswith('goodput')]
        (name, ev), = A.miss_evidence(tgts, agg, 'hpcc',
                                      ['hpcc.default', 'hpcc.max_stage=5',
                                            'hpcc.w_ai=800'], A.Env({}))
        self.assertIn('hpcc 0.700 of the link, cubic 0.890', ev)
        self.assertIn('Best setting of the sweep: w_ai=800, 0.810 of the link with '
                      'queue p99 40.0 KB', ev)

    def test_sweep_table(self):
        m = self.m
        agg = {('sweep', 'hpcc.default', 'goodput'): m(0.9),
               ('sweep', 'hpcc.max_stage=5', 'goodput'):
                   {'mean': 0.8, 'min': 0.75, 'max': 0.85, 'sd': 0.05, 'n': 3},
               ('sweep', 'hpcc.max_stage=5', 'q_p99_kb'): m(12.34)}
        lines = A.format_sweep(agg, ['hpcc.default', 'hpcc.max_stage=5']).split('\n')
        self.assertEqual(lines[0].split()[:3], ['setting', 'goodput/link', 'queue'])
        self.assertEqual(lines[1].split()[:3], ['default', '0.900', '-'])
        self.assertEqual(lines[2].split()[:5],
                         ['max_stage=5', '0.800', '[0.750-0.850]', '-', '12.3'])

    def test_incast_floor(self):
        # 2 bursts of 3 x 10000-byte flows; 100 Mbit/s, base RTT 1 ms
        flows = [{'tag': 'inc1', 'size': '10000', 'fct': '0.01', 'status': 'ok'}] * 6
        run = {'duration': 6.0, 'queue': [], 'flows': flows, 'samples': [],
               'events': [{'t': '2', 'kind': 'burst', 'flow': 'inc'},
                          {'t': '3', 'kind': 'burst', 'flow': 'inc'}]}
        env = A.Env({'rate_mbit': '100', 'base_rtt_ms': '1'})
        got = A.run_metrics('incast', run, env)['fct_floor_ms']
        burst = 3 * A.wire_bytes(10000)
        self.assertAlmostEqual(got, 2.0 + burst * 8 / 100e6 * 1e3)


def lin(rate_Bps, t0=0.0, t1=10.0, step=0.5, start=0.0):
    """A flow's [(t, bytes_acked)] sending RATE_BPS bytes/s from T0 to T1."""
    out, t = [], t0
    while t <= t1 + 1e-9:
        out.append((t, start + rate_Bps * (t - t0)))
        t += step
    return out


class Issue11(unittest.TestCase):
    """The computations of issue 11's targets, on synthetic data."""

    def test_binned_jain_equal_and_unequal(self):
        a, b = lin(1e6), lin(1e6)
        self.assertEqual(A.binned_jain([a, b], 5, 10), [1.0] * 5)
        # b sends 3x a's rate: Jain (1 + 3)^2 / (2 * 10) = 0.8 in every bin
        js = A.binned_jain([lin(1e6), lin(3e6)], 5, 10)
        self.assertEqual(len(js), 5)
        for j in js:
            self.assertAlmostEqual(j, 0.8)

    def test_binned_jain_per_bin_not_pooled(self):
        # a sends in [5,7], b in [7,9], both at the same rate: pooled over
        # [5,9] they are equal (Jain 1), but each 1 s bin has one sender (0.5)
        a = [(0, 0), (5, 0), (7, 2e6), (10, 2e6)]
        b = [(0, 0), (7, 0), (9, 2e6), (10, 2e6)]
        self.assertAlmostEqual(A.jain([A.goodput_bps(a, 5, 9), A.goodput_bps(b, 5, 9)]), 1.0)
        self.assertEqual(A.binned_jain([a, b], 5, 9), [0.5] * 4)
        # the bin [9, 10] carries nothing: left out
        self.assertEqual(A.binned_jain([a, b], 5, 10), [0.5] * 4)

    def test_half_jain_uses_second_half(self):
        # unfair first half (a alone), fair second half: 1.0
        a = lin(1e6, 0, 10)
        b = [(0, 0), (5, 0)] + lin(1e6, 5.5, 10, start=0.5e6)
        self.assertAlmostEqual(A.half_jain([a, b], 10.0), 1.0)
        # a short last bin (< 0.5 s) is dropped, a longer one kept
        self.assertEqual(len(A.binned_jain([a, a], 5, 7.4)), 2)
        self.assertEqual(len(A.binned_jain([a, a], 5, 7.6)), 3)
        self.assertIsNone(A.half_jain([a], 10.0))

    def test_incast_floor(self):
        # 16 x 64 KB at 100 Mbit/s plus two 4.5 ms RTTs: the handshake's,
        # and the last byte's with the answer that ends the FCT
        burst = 16 * A.wire_bytes(65536)
        self.assertEqual(A.wire_bytes(65536), 65544 + 46 * 66)
        self.assertAlmostEqual(A.incast_floor_s(burst, 100e6, 0.0045),
                               0.009 + 16 * (65544 + 46 * 66) * 8 / 100e6)
        flows = [{'tag': 'inc1', 'size': '65536', 'fct': '0.2', 'status': 'ok'}] * 16
        run = {'duration': 6.0, 'queue': [], 'flows': flows, 'samples': [],
               'events': [{'t': '2', 'kind': 'burst', 'flow': 'inc'}]}
        m = A.run_metrics('incast', run, A.Env({'rate_mbit': '100', 'base_rtt_ms': '4.5'}))
        floor = A.incast_floor_s(burst, 100e6, 0.0045)
        self.assertAlmostEqual(m['fct_floor_ms'], floor * 1e3)
        self.assertAlmostEqual(m['fct_p99_floor'], 0.2 / floor)
        # issue 11's wording, one RTT: the same FCT over a lower floor
        self.assertAlmostEqual(m['fct_p99_floor_1rtt'], 0.2 / (floor - 0.0045))

    def test_fair_share_fcts(self):
        # 1 MB/s; A alone for 0.5 s, then half each: A done at 1.5 s, B
        # (0.5e6 left) alone until 2.0 s
        fcts = A.fair_share_fcts([0.0, 0.5], [1e6, 1e6], 8e6, 0.0)
        self.assertAlmostEqual(fcts[0], 1.5)
        self.assertAlmostEqual(fcts[1], 1.5)
        # together, behind one handshake RTT, beside a long flow: a third
        # each, and the answer's RTT after the last byte
        fcts = A.fair_share_fcts([1.0, 1.0], [1e6, 1e6], 8e6, 0.1, others=1)
        self.assertAlmostEqual(fcts[0], 0.1 + 3.0 + 0.1)
        self.assertAlmostEqual(fcts[1], 0.1 + 3.0 + 0.1)
        # a flow that starts after the others ended waits for nobody
        fcts = A.fair_share_fcts([0.0, 5.0], [1e6, 2e6], 8e6, 0.0)
        self.assertEqual([round(x, 9) for x in fcts], [1.0, 2.0])

    def test_incast_fair_share_floor(self):
        """Bursts' flows share the link ideally from their own starts; the
        long flow (in the samples) takes its share."""
        size = 65536
        flows = [{'tag': 'inc1', 'size': str(size), 'fct': '0.2', 'status': 'ok',
                  'start': str(2.0 + 0.001 * i), 'end': '2.2'} for i in range(16)]
        flows += [dict(f, start=str(float(f['start']) + 1)) for f in flows]
        events = [{'t': '2', 'kind': 'burst', 'flow': 'inc'},
                  {'t': '3', 'kind': 'burst', 'flow': 'inc'}]
        env = A.Env({'rate_mbit': '100', 'base_rtt_ms': '4.5'})
        run = {'duration': 6.0, 'queue': [], 'flows': flows, 'samples': [],
               'events': events}
        m = A.run_metrics('incast', run, env)
        one = A.fair_share_fcts([0.001 * i for i in range(16)],
                                [A.wire_bytes(size)] * 16, 100e6, 0.0045)
        self.assertAlmostEqual(m['fct_fair_p99_ms'], max(one) * 1e3)
        self.assertAlmostEqual(m['fct_fair_floor'], m['fct_fair_p99_ms'] / m['fct_floor_ms'])
        # the last flow ends with the burst's bytes: at most the floor
        self.assertLessEqual(m['fct_fair_floor'], 1.0)
        run['samples'] = [{'tag': 'long', 'id': '0', 't': str(t), 'bytes_acked': str(t * 1e6),
                           'rtt_us': '5000', 'cwnd': '10', 'retrans': '0'}
                          for t in range(7)]
        beside = A.run_metrics('incast', run, env)['fct_fair_p99_ms']
        self.assertGreater(beside, m['fct_fair_p99_ms'] * 1.05)

    def test_probe_pct(self):
        # 1000 probes + 1000 responses of 326 B over 10 s of 100 Mbit/s
        self.assertAlmostEqual(A.probe_pct(1000, 1000, 326, 1, 100e6, 10), 0.5216)
        self.assertAlmostEqual(A.probe_pct(1000, 1000, 326, 2, 100e6, 10), 0.2608)
        self.assertIsNone(A.probe_pct(1, 1, 326, 1, 100e6, 0))
        # Rx-HPCC: v2 probes (398 B), windows back (110 B)
        self.assertAlmostEqual(A.probe_pct(1000, 1000, 398, 1, 100e6, 10, 110),
                               0.4064)

    def test_label_wire(self):
        env = A.Env({'hpcc_params': 'wire_version=1'})
        self.assertEqual(A.label_wire('hpcc', env), (326, 326))
        self.assertEqual(A.label_wire('hpcc.wire_version=2', env), (398, 398))
        self.assertEqual(A.label_wire('hpcc.wire_version=2+rx_window=1', env),
                         (398, 110))
        # a v1 sender cannot ask for a window
        self.assertEqual(A.label_wire('hpcc.rx_window=1', env), (326, 326))
        env = A.Env({'hpcc_params': 'eta=950 wire_version=2 w_ai=0'})
        self.assertEqual(env.probe_wire, 326 + 8 + 64)
        self.assertEqual(A.Env({}).probe_wire, 326)

    def test_probe_pct_of_a_run(self):
        run = {'duration': 10.0, 'queue': [], 'flows': [], 'samples': [], 'events': [],
               'row': {'cc': 'hpcc', 'probes_sent': '1000', 'reports_accepted': '1000'}}
        env = A.Env({'rate_mbit': '100'})
        self.assertAlmostEqual(A.run_metrics('many', run, env)['probe_pct'], 0.5216)
        self.assertAlmostEqual(A.run_metrics('parking', run, env)['probe_pct'], 0.2608)
        run['row'] = {'cc': 'cubic', 'probes_sent': '0'}
        self.assertNotIn('probe_pct', A.run_metrics('many', run, env))

    def test_median_spread(self):
        self.assertEqual(A.median_spread([3, None, 1, 2, 10, 0.5]),
                         {'med': 2, 'min': 0.5, 'max': 10, 'n': 5})
        self.assertEqual(A.median_spread([1, 2])['med'], 1.5)
        self.assertIsNone(A.median_spread([None]))

    def test_new_scenario_metrics(self):
        env = A.Env({'rate_mbit': '100', 'base_rtt_ms': '5'})

        def samples(flows):
            return [{'tag': tag, 't': str(t), 'bytes_acked': str(b), 'rtt_us': '5000'}
                    for tag, s in flows.items() for t, b in s]
        run = {'duration': 10.0, 'queue': [], 'flows': [], 'events': []}
        # parking: 2-hop 2 MB/s, 1-hop flows 4 and 8 MB/s -> 2 / 6
        run['samples'] = samples({'two': lin(2e6), 'one1': lin(4e6), 'one2': lin(8e6)})
        m = A.run_metrics('parking', run, env)
        self.assertAlmostEqual(m['park_ratio'], 1 / 3)
        self.assertAlmostEqual(m['two_mbit'], 16.0)
        # vscubic: tested 1 MB/s, other 3 MB/s -> share 0.25, link 8%
        run['samples'] = samples({'t': lin(1e6), 'o': lin(3e6)})
        m = A.run_metrics('vscubic', run, env)
        self.assertAlmostEqual(m['share'], 0.25)
        self.assertAlmostEqual(m['link_share'], 0.08)
        # rttfair: long-RTT flow 3x the short one's rate
        run['samples'] = samples({'short': lin(1e6), 'long': lin(3e6)})
        m = A.run_metrics('rttfair', run, env)
        self.assertAlmostEqual(m['long_short'], 3.0)
        self.assertAlmostEqual(m['jain_half'], 0.8)
        # jlong is analysed as long
        run['samples'] = samples({'f1': lin(1e6), 'f2': lin(1e6)})
        self.assertAlmostEqual(A.run_metrics('jlong', run, env)['jain_half'], 1.0)

    def test_path_jitter_only_while_the_bottleneck_is_empty(self):
        env = A.Env({'rate_mbit': '100', 'base_rtt_ms': '5'})
        # queue sampled every 5 ms; 30 KB from 4 s to 5 s, empty otherwise
        queue = [{'t': str(i * 0.005), 'dev': 'r2d1', 'backlog': '30000' if 800 <= i < 1000
                  else '0', 'drops': '0', 'bytes': str(i * 62500), 'marks': '0'}
                 for i in range(2001)]
        # RTT samples every 50 ms: 5.0 .. 5.9 ms in turn; 40 ms while queued
        samples = [{'tag': 'f1', 't': str(k * 0.05), 'bytes_acked': str(k * 1000),
                    'rtt_us': str(40000 if 80 <= k < 100 else 5000 + 100 * (k % 10))}
                   for k in range(201)]
        idle = A.idle_path_rtts(samples, queue, 'r2d1', 1.0, 10.0, 0.02)
        self.assertNotIn(40.0, idle)
        # 1 s .. 10 s: 181 samples; 4.0 .. 4.95 s queued, and 5.0 s (5.0 ms)
        # had the queue within its 20 ms: 160 left, 16 of each 5.0 .. 5.9
        self.assertEqual(len(idle), 160)
        run = {'duration': 10.0, 'queue': queue, 'flows': [], 'events': [],
               'samples': samples}
        m = A.run_metrics('jlong', run, env)
        self.assertAlmostEqual(m['path_rtt_p50_ms'], 5.4)
        # p10 5.0, p90 5.8 ms: 0.8 ms of a 5 ms base RTT
        self.assertAlmostEqual(m['path_jitter_pct'], 16.0)
        pm = {('jlong', 'hpcc', r): {'path_jitter_pct': v, 'q_p99_kb': 1}
              for r, v in ((1, 40), (2, 52), (3, 60))}
        spec = [(7, 'jq', 'jlong', 'q_p99_kb', 'value', None, '<=', 5)]
        self.assertEqual(A.issue_targets(pm, 'hpcc', spec)[0]['note'], 'jitter delivered 52%')
        # the paced reference's queue and utilisation join the queue check
        for r, (q, u) in enumerate(((3.0, 0.78), (4.5, 0.80), (3.0, 0.70)), 1):
            pm[('jlong', 'paced', r)] = {'q_p99_kb': q, 'util': u}
        self.assertEqual(A.issue_targets(pm, 'hpcc', spec)[0]['note'],
                         'jitter delivered 52%; paced at 0.78 of the link: 3 KB')
        # and its goodput, as cubic's share and as hpcc's peer, the goodput
        # check's (medians of per-repetition ratios; rep 3 lacks cubic)
        for r, (h, p, c) in enumerate(((0.84, 0.80, 0.95), (0.86, 0.82, 0.96),
                                       (0.90, 0.81, None)), 1):
            pm[('jlong', 'hpcc', r)]['goodput'] = h
            pm[('jlong', 'paced', r)]['goodput'] = p
            if c:
                pm[('jlong', 'cubic', r)] = {'goodput': c}
        spec = [(7, 'jg', 'jlong', 'goodput', 'ratio', 'cubic', '>=', 0.9)]
        # paced / cubic: 0.842, 0.854 -> 0.848; hpcc / paced: 1.05, 1.049, 1.11
        self.assertEqual(A.issue_targets(pm, 'hpcc', spec)[0]['note'],
                         'jitter delivered 52%; the paced reference 0.85 of cubic, '
                         'hpcc 1.05 of it')

    def pm(self):
        """Per-run metrics: 5 repetitions of incast and parking."""
        pm = {}
        hp = [100, 120, 90, 300, 110]          # hpcc fct p99
        dc = [150, 150, 150, 150, 100]         # dctcp's, same repetitions
        for rep in range(1, 6):
            pm[('incast', 'hpcc', rep)] = {'fct_p99_ms': hp[rep - 1], 'drops': [0, 0, 3, 0, 1][rep - 1],
                                           'fct_p99_floor': 1.2, 'probe_pct': 1.0}
            pm[('incast', 'dctcp', rep)] = {'fct_p99_ms': dc[rep - 1], 'drops': 0}
            pm[('parking', 'hpcc', rep)] = {'park_ratio': [0.4, 0.6, 0.45, 0.7, 0.3][rep - 1],
                                            'probe_pct': 4.0}
            pm[('parking', 'cubic', rep)] = {'park_ratio': 0.5}
        return pm

    def test_burst_link(self):
        """The link while each burst lasts and over its second half."""
        # 100 Mbit/s: 62,500 B per 5 ms when full; full from 2.0 to 2.05 s,
        # idle to 2.1 s; burst 2: full from 3.0 to 3.1 s
        q, b = [], 0
        for i in range(801):
            t = i * 0.005
            if 2.0 < t <= 2.05 + 1e-9 or 3.0 < t <= 3.1 + 1e-9:
                b += 62500
            q.append({'t': '%.3f' % t, 'dev': 'r2d1', 'backlog': '0', 'drops': '0',
                      'bytes': str(b), 'marks': '0'})
        flows = [{'start': '2.0', 'end': '2.1', 'status': 'ok'},
                 {'start': '2.01', 'end': '2.05', 'status': 'ok'},
                 {'start': '2.02', 'end': '9', 'status': 'timeout'},
                 {'start': '3.0', 'end': '3.1', 'status': 'ok'}]
        whole, tail = A.burst_link(q, 'r2d1', flows, [2.0, 3.0], 1e8)
        self.assertAlmostEqual(whole, (0.5 + 1.0) / 2)
        self.assertAlmostEqual(tail, (0.0 + 1.0) / 2)
        self.assertEqual(A.burst_link(q, 'r2d1', [], [2.0], 1e8), (None, None))

    def test_burst_alone_reference(self):
        """The incast's burst-alone runs: a ratio check against them, and
        their share of the floor beside the floor check."""
        pm = self.pm()
        for rep, fct in enumerate((110, 100, 120, 100, 90), 1):
            pm[('incast', 'alone', rep)] = {'fct_p99_ms': fct, 'fct_p99_floor': fct / 90}
            pm[('incast', 'hpcc', rep)]['fct_floor_ms'] = 90.0
        spec = [(1, 'alone', 'incast', 'fct_p99_ms', 'ratio', 'alone', '<=', 1.3),
                (1, 'floor', 'incast', 'fct_p99_floor', 'value', None, '<=', 1.3)]
        rows = A.issue_targets(pm, 'hpcc', spec)
        # hpcc 100 120 90 300 110 over 110 100 120 100 90: median 1.2
        self.assertAlmostEqual(rows[0]['value']['med'], 1.2)
        self.assertTrue(rows[0]['met'])
        self.assertEqual(rows[0]['note'], 'the burst alone (cubic) 100 ms')
        self.assertEqual(rows[1]['note'], 'floor 90.0 ms; the burst alone 1.11 of it')
        # the reference is no peer column
        self.assertNotIn('alone', rows[0]['peers'])

    def test_fairshare_reference(self):
        """The incast's fair-share runs (demo/fairshare.bpf.c): a ratio check
        against them, their share of the floor with its spread beside the
        floor check, and no check without them."""
        pm = self.pm()
        for rep, fct in enumerate((125, 120, 130, 115, 140), 1):
            pm[('incast', 'fairshare', rep)] = {'fct_p99_ms': fct, 'fct_p99_floor': fct / 100}
            pm[('incast', 'hpcc', rep)]['fct_floor_ms'] = 100.0
        spec = [s for s in A.ISSUE_TARGETS if s[5] == 'fairshare'] + \
            [(1, 'floor', 'incast', 'fct_p99_floor', 'value', None, '<=', 1.3)]
        self.assertEqual(len(spec), 2)
        rows = A.issue_targets(pm, 'hpcc', spec)
        # hpcc 100 120 90 300 110 over 125 120 130 115 140: median 0.8
        self.assertAlmostEqual(rows[0]['value']['med'], 0.8)
        self.assertTrue(rows[0]['met'])
        self.assertEqual(rows[0]['note'], 'the fair-share reference 125 ms')
        self.assertEqual(rows[1]['note'],
                         'floor 100.0 ms; the fair-share reference 1.25 [1.15-1.40] of it')
        self.assertNotIn('fairshare', rows[0]['peers'])
        # a bench without the reference: not measured, not met
        pm = {k: v for k, v in pm.items() if k[1] != 'fairshare'}
        rows = A.issue_targets(pm, 'hpcc', spec)
        self.assertIsNone(rows[0]['met'])
        self.assertEqual(rows[0]['note'], '')

    def test_paired_ratios(self):
        pm = self.pm()
        r = A.paired_ratios(pm, 'incast', 'fct_p99_ms', 'hpcc', 'dctcp')
        self.assertEqual(len(r), 5)
        self.assertAlmostEqual(r[4], 1.1)      # 110 / 100, the same repetition
        del pm[('incast', 'dctcp', 2)]
        self.assertEqual(len(A.paired_ratios(pm, 'incast', 'fct_p99_ms', 'hpcc', 'dctcp')), 4)

    def test_targets_met_missed_on_median(self):
        spec = [(1, 'fct', 'incast', 'fct_p99_ms', 'ratio', 'dctcp', '<=', 0.8),
                (1, 'drops', 'incast', 'drops', 'value', None, '==', 0),
                (1, 'floor', 'incast', 'fct_p99_floor', 'value', None, '<=', 1.3),
                (2, 'probe', None, 'probe_pct', 'probe', None, '<=', 3.0),
                (4, 'park', 'parking', 'park_ratio', 'value', None, '>=', 0.5),
                (3, 'absent', 'rttfair', 'jain_half', 'value', None, '>=', 0.95)]
        rows = A.issue_targets(self.pm(), 'hpcc', spec)
        by = {r['label']: r for r in rows}
        # ratios 0.667 0.8 0.6 2.0 1.1: median 0.8 -> met (one outlier run at 2.0)
        self.assertAlmostEqual(by['fct']['value']['med'], 0.8)
        self.assertAlmostEqual(by['fct']['value']['max'], 2.0)
        self.assertIs(by['fct']['met'], True)
        self.assertEqual(by['fct']['peers']['dctcp']['med'], 150)
        # drops 0 0 3 0 1: median 0 -> met, spread shows the 3
        self.assertIs(by['drops']['met'], True)
        self.assertEqual(by['drops']['value']['max'], 3)
        self.assertIs(by['floor']['met'], True)
        self.assertEqual(by['floor']['note'], '')          # no fct_floor_ms here
        pm = self.pm()
        pm[('incast', 'hpcc', 1)]['fct_floor_ms'] = 92.04
        self.assertEqual(A.issue_targets(pm, 'hpcc', spec[2:3])[0]['note'], 'floor 92.0 ms')
        self.assertIn('floor (floor 92.0 ms)', '\n'.join(
            A.issue_targets_md(A.issue_targets(pm, 'hpcc', spec[2:3]))))
        # issue 11's one-RTT wording of the floor: hpcc's ratio to it too
        pm[('incast', 'hpcc', 1)]['fct_p99_floor_1rtt'] = 1.5
        self.assertEqual(A.issue_targets(pm, 'hpcc', spec[2:3])[0]['note'],
                         'floor 92.0 ms; hpcc 1.50 of the floor without the answer\'s RTT')
        # the probe check takes the worst scenario's median
        self.assertEqual(by['probe']['scen'], 'parking')
        self.assertEqual(by['probe']['note'], 'parking')
        self.assertIs(by['probe']['met'], False)
        # park 0.3 0.4 0.45 0.6 0.7: median 0.45 -> missed; cubic's column 0.5
        self.assertAlmostEqual(by['park']['value']['med'], 0.45)
        self.assertIs(by['park']['met'], False)
        self.assertEqual(by['park']['peers']['cubic']['med'], 0.5)
        self.assertIsNone(by['absent']['met'])
        v = A.target_verdicts(rows)
        self.assertEqual(v, {1: True, 2: False, 3: None, 4: False})
        md = '\n'.join(A.issue_targets_md(rows))
        self.assertIn('| 4 | park |', md)
        self.assertIn('**missed**', md)
        self.assertIn('0.45 [0.3-0.7] (5)', md)

    def test_table_columns_only_for_ccs_that_ran(self):
        per_run = {('long', 'hpcc'): [{'goodput': 0.9}], ('incast', 'hpcc'): [{'drops': 0}],
                   ('incast', 'alone'): [{'drops': 0}]}
        nreps = {'long': {'hpcc': 1}, 'incast': {'hpcc': 1, 'alone': 1}}
        out = A.format_table(A.aggregate(per_run), ['hpcc', 'alone'], ['long', 'incast'], nreps)
        self.assertIn('== long (repetitions: hpcc 1)', out)
        self.assertIn('== incast (repetitions: hpcc 1, alone 1)', out)

    def test_fmt_ms(self):
        self.assertEqual(A.fmt_ms({'med': 937.4, 'min': 869, 'max': 1004.6, 'n': 2}),
                         '937 [869-1005] (2)')
        self.assertEqual(A.fmt_ms({'med': 0.7531, 'min': 0.7531, 'max': 0.7531, 'n': 1}),
                         '0.753 (1)')
        self.assertEqual(A.fmt_ms(None), '-')

    def test_verdict_ops(self):
        self.assertIs(A.verdict(1.0, '<', 1.0), False)
        self.assertIs(A.verdict(1.0, '<=', 1.0), True)
        self.assertIs(A.verdict(0, '==', 0), True)
        self.assertIsNone(A.verdict(None, '>=', 0.5))
        # a missed check makes its target missed even after an unmeasured one
        rows = [{'target': 1, 'met': None}, {'target': 1, 'met': False},
                {'target': 2, 'met': True}, {'target': 2, 'met': None}]
        self.assertEqual(A.target_verdicts(rows), {1: False, 2: None})


class HpccColumn(unittest.TestCase):
    ENV = {'rate_mbit': '100', 'telemetry_why': 'no BTF'}

    def test_settings_default_column_is_hpcc(self):
        runs = [{'cc': 'hpcc.default', 'scenario': 'rttfair', 'rep': '1',
                 'reports_used': '5'}]
        head, hpcc = A.table_head(self.ENV, ['dctcp', 'hpcc.default', 'hpcc.w_ai=50'], runs)
        self.assertEqual(hpcc, 'hpcc.default')
        md = A.bench_markdown(A.Env(self.ENV), {}, '', [], [], hpcc, runs, 'o', {}, [])
        self.assertNotIn('WITHOUT telemetry', md)

    def test_fallback_column_says_so(self):
        head, hpcc = A.table_head(self.ENV, ['dctcp', 'hpcc-notel'], [])
        self.assertEqual(hpcc, 'hpcc-notel')
        md = A.bench_markdown(A.Env(self.ENV), {}, '', [], [], hpcc, [], 'o', {}, [])
        self.assertIn('WITHOUT telemetry** (no BTF)', md)

    def test_no_hpcc_no_claim(self):
        head, hpcc = A.table_head(self.ENV, ['dctcp', 'cubic'], [])
        self.assertIsNone(hpcc)
        md = A.bench_markdown(A.Env(self.ENV), {}, '', [], [], hpcc, [], 'o', {}, [])
        self.assertNotIn('WITHOUT telemetry', md)

    def test_not_as_asked_is_listed_in_order(self):
        env = dict(self.ENV, **{'not_as_asked.2': 'vscubic bbr r1: bbr not available',
                                'not_as_asked.10': 'unknown scenario x',
                                'not_as_asked.1': 'parking hpcc r1: jitter setup failed'})
        head, _ = A.table_head(env, ['dctcp'], [])
        got = [h for h in head if h.startswith('NOT AS ASKED')]
        self.assertEqual(got, ['NOT AS ASKED: parking hpcc r1: jitter setup failed',
                               'NOT AS ASKED: vscubic bbr r1: bbr not available',
                               'NOT AS ASKED: unknown scenario x'])
        md = A.bench_markdown(A.Env(env), {}, '', [], [], None, [], 'o', {}, [])
        self.assertIn('**Not run as asked**', md)
        self.assertIn('- unknown scenario x', md)
        self.assertNotIn('Not run as asked', A.bench_markdown(
            A.Env(self.ENV), {}, '', [], [], None, [], 'o', {}, []))


class TapResult(unittest.TextTestResult):
    """unittest result that prints one TAP line per test."""
    n = 0

    def _line(self, ok, test, extra=''):
        TapResult.n += 1
        print('%s %d - %s%s' % ('ok' if ok else 'not ok', TapResult.n, test.id(), extra),
              flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(True, test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(False, test)
        print('# ' + self._exc_info_to_string(err, test).replace('\n', '\n# '))

    def addError(self, test, err):
        super().addError(test, err)
        self._line(False, test, ' # error')
        print('# ' + self._exc_info_to_string(err, test).replace('\n', '\n# '))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(True, test, ' # SKIP ' + reason)


if __name__ == '__main__':
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    runner = unittest.TextTestRunner(stream=open(os.devnull, 'w'), resultclass=TapResult,
                                     verbosity=0)
    res = runner.run(suite)
    print('1..%d' % TapResult.n)
    sys.exit(0 if res.wasSuccessful() else 1)
