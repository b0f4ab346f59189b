#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Analyse a demo console log (python3 standard library only).

    demo/analyze.py CONSOLE_LOG OUTDIR [--no-plots] [--bench-md PATH]

1. Extracts the ``@@csv FILE@@ ROW`` lines that demo/scenarios.sh prints
   into OUTDIR/raw/FILE (the first row of each file is its header).
2. Computes per run, then per scenario and congestion control (CC), the
   metrics below, and writes OUTDIR/summary.csv (one row per scenario, CC
   and metric: mean, min, max, sample standard deviation and number of
   repetitions), OUTDIR/slowdown.csv (FCT slowdown by flow-size bucket,
   pooled over repetitions) and OUTDIR/table.txt (printed).
3. Writes gnuplot scripts and data under OUTDIR/plots and runs gnuplot, if
   installed, to make the PNGs: bottleneck queue over time, per-flow
   throughput over time, FCT slowdown by flow size.
4. With --bench-md, writes a Markdown report with the environment, the raw
   numbers, the hpcc/dctcp and hpcc/cubic ratios against the targets, for
   each missed target the evidence of this run, and the
   sensitivity sweep (scenario "sweep": hpcc.NAME=VALUE labels).

Definitions
-----------
percentile
    Nearest rank: the p-th percentile of n values is the value of rank
    ceil(p/100 * n) (1-based) in ascending order; p = 0 gives the minimum.
    It is always one of the samples, never an interpolation.
queue
    The bottleneck's root-qdisc backlog in bytes, sampled every few ms by
    demo/qsample (equally spaced samples, so sample percentiles estimate
    time percentiles); utilisation is the qdisc's dequeued bytes (with
    Ethernet/IP/TCP headers) over rate * time.
goodput
    TCP bytes acknowledged (tcpi_bytes_acked, sampled by demo/fctgen) over
    the window, divided by the link rate: payload only, so at most
    1448/1514 = 0.956 of the link with TCP timestamps.
RTT
    tcpi_rtt of the long flows (the kernel's smoothed RTT, as ss -ti shows).
Jain index
    (sum x)^2 / (n * sum x^2) over the flows' goodputs: 1 = equal shares,
    1/n = one flow takes all.
FCT slowdown
    FCT / ideal FCT, with the ideal FCT computed (not measured):
    2 * base RTT + wire bytes * 8 / link rate. The FCT runs from connect()
    to the server's 1-byte answer (handshake plus request/answer: 2 RTTs);
    wire bytes are the flow's bytes plus its 8-byte header plus 66 bytes of
    Ethernet/IP/TCP headers per 1448-byte segment; base RTT is the minimum
    ping RTT on the idle path, measured at the start of the run. This is
    the HPCC paper's "ideal FCT on an idle network" (line rate from the
    first byte), so slow start alone makes it > 1.
emulator stalls
    Seconds lost in gaps > 50 ms between queue samples: the guest did not
    run (TCG, or a busy host). Runs with large values are less reliable.
recovery
    After a flow leaves (scenario stagger): the time until the bottleneck's
    utilisation, averaged over the next 4 base RTTs, is first >= 90% again,
    in base RTTs. None if never within the run.
"""

import bisect
import csv
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

CSV_LINE = re.compile(r'^@@csv ([A-Za-z0-9_.+-][A-Za-z0-9_./+=-]*)@@ (.*)$')

# Flow-size buckets of the FCT slowdown (bytes, [lo, hi)).
BUCKETS = [(0, 10e3, '<10K'), (10e3, 100e3, '10K-100K'),
           (100e3, 1e6, '100K-1M'), (1e6, 10e6, '1M-10M'),
           (10e6, math.inf, '>=10M')]
SMALL = 100e3          # "short flows" of the targets: < 100 KB
MSS = 1448
HDR = 66               # Ethernet 14 + IPv4 20 + TCP 32 (timestamps)
REQ_HDR = 8            # fctgen's size header
CC_ORDER = ['cubic', 'dctcp', 'bbr', 'hpcc', 'hpcc-notel', 'paced', 'alone', 'fairshare']
SCEN_ORDER = ['long', 'incast', 'stagger', 'websearch', 'many', 'rttfair', 'parking',
              'vscubic', 'vsdctcp', 'jlong', 'jwebsearch']
# Scenarios analysed like another one (jitter on every link: issue 11's
# target 7).
LIKE = {'jlong': 'long', 'jwebsearch': 'websearch'}
# Bottleneck links each scenario's probes may cross (probe cost per link).
BOTTLENECKS = {'websearch': 2, 'jwebsearch': 2, 'parking': 2}
# A probe and its response on Ethernet (IPv4): 326 bytes each in wire
# version 1 (Documentation/tcp_hpcc.rst), 8 more per hop record in
# version 2 (24-byte header, 40-byte records).
PROBE_WIRE = {1: 326, 2: 326 + 8 + 8 * 8}
# A receiver's window (Rx-HPCC) in place of the records: 56 bytes of
# payload, the same 54 of headers.
WINDOW_WIRE = 56 + 54
BIN_S = 1.0            # Jain's index: bins of 1 s over each run's second half
# The sensitivity sweep: the long scenario for hpcc once per module parameter
# setting, labelled hpcc.NAME=VALUE (hpcc.default: the parameters at load).
SWEEP = 'sweep'


# ---- pure helpers ----------------------------------------------------------------

def extract_csv(lines):
    """Console lines -> ({file: [rows]}, number of malformed @@csv lines).

    A row is the text after '@@csv FILE@@ ' with trailing CR/LF removed.
    Files must be relative paths without '..'; lines that start with '@@csv'
    but do not parse are counted and skipped.
    """
    files, bad = {}, 0
    for line in lines:
        line = line.rstrip('\r\n').rstrip('\r')
        if not line.startswith('@@csv'):
            continue
        m = CSV_LINE.match(line)
        if not m or '..' in m.group(1).split('/'):
            bad += 1
            continue
        files.setdefault(m.group(1), []).append(m.group(2))
    return files, bad


def parse_rows(rows):
    """CSV text rows (header first) -> list of dicts. Rows whose field count
    differs from the header's are dropped (a console line cut by the kernel
    writing in between)."""
    if not rows:
        return []
    reader = csv.reader(rows)
    header = next(reader)
    return [dict(zip(header, r)) for r in reader if len(r) == len(header)]


def percentile(values, p):
    """Nearest-rank percentile (see the module docstring); None if empty."""
    v = sorted(values)
    if not v:
        return None
    if p <= 0:
        return v[0]
    rank = math.ceil(p / 100.0 * len(v))
    return v[min(max(rank, 1), len(v)) - 1]


def jain(xs):
    """Jain's fairness index; None for no values or all zero."""
    xs = list(xs)
    sq = sum(x * x for x in xs)
    if not xs or sq == 0:
        return None
    return sum(xs) ** 2 / (len(xs) * sq)


def binned_jain(series, t_lo, t_hi, width=BIN_S):
    """Jain's index of the flows' goodputs in each WIDTH-second bin of
    [t_lo, t_hi] (series: one [(t, bytes_acked)] per flow; a flow without
    samples in a bin counts as 0). Bins with no traffic at all are left out;
    a last bin shorter than WIDTH / 2 too."""
    out = []
    t = t_lo
    while t + width / 2 <= t_hi + 1e-9:
        b = min(t + width, t_hi)
        j = jain(goodput_bps(s, t, b) for s in series)
        if j is not None:
            out.append(j)
        t += width
    return out


def half_jain(series, dur, width=BIN_S):
    """The mean of binned_jain over the run's second half [dur/2, dur]:
    issue 11's fairness measure. None with fewer than 2 flows or no bins."""
    if len(series) < 2:
        return None
    js = binned_jain(series, dur / 2.0, dur, width)
    return statistics.fmean(js) if js else None


def incast_floor_s(burst_wire, rate_bps, base_rtt_s):
    """The physical floor of an incast burst's FCTs as fctgen measures them
    (from connect() to the server's 1-byte answer): the handshake's RTT,
    the burst's bytes with headers at the link rate, and one RTT more for
    the last byte's way on to the receiver and the answer's way back.
    Issue 11 words its floor as the bytes plus one handshake RTT, which
    leaves the answer out: one RTT below what any CC can reach here."""
    return 2 * base_rtt_s + burst_wire * 8.0 / rate_bps


def fair_share_fcts(starts, wires, rate_bps, base_rtt_s, others=0):
    """Each flow's FCT in s (in STARTS' order) under an ideal fair share of
    the link, the floor for flows that start apart: fluid processor
    sharing of RATE_BPS, a flow's WIRES bytes from one handshake RTT after
    its start, beside OTHERS flows that always have data (the incast's
    long flow) and take their equal share; the FCT ends one RTT after its
    last byte passed the link, with the answer (incast_floor_s())."""
    left = {i: float(w) for i, w in enumerate(wires)}
    arrive = sorted((s + base_rtt_s, i) for i, s in enumerate(starts))
    done, active, k = {}, set(), 0
    t = arrive[0][0] if arrive else 0.0
    while left:
        while k < len(arrive) and arrive[k][0] <= t:
            active.add(arrive[k][1])
            k += 1
        if not active:
            t = arrive[k][0]
            continue
        share = rate_bps / 8.0 / (len(active) + others)
        step = min(left[i] for i in active) / share
        if k < len(arrive):
            step = min(step, arrive[k][0] - t)
        t += step
        for i in list(active):
            left[i] -= share * step
            if left[i] <= 1e-6:
                done[i] = t
                active.discard(i)
                del left[i]
    return [done[i] + base_rtt_s - s for i, s in enumerate(starts)]


def incast_fair_fcts(short, bursts, rate_bps, base_rtt_s, others):
    """fair_share_fcts() of each burst's flows (burst_groups()), in ms,
    over all bursts."""
    out = []
    for fl in burst_groups(short, bursts):
        out += fair_share_fcts([float(f['start']) for f in fl],
                               [wire_bytes(float(f['size'])) for f in fl],
                               rate_bps, base_rtt_s, others)
    return [x * 1e3 for x in out]


def probe_pct(probes, responses, wire, links, rate_bps, dur, resp_wire=None):
    """Probe and response bytes (WIRE each; RESP_WIRE a response, if
    given) as % of LINKS links of RATE_BPS over DUR s."""
    if dur <= 0 or links <= 0:
        return None
    rw = wire if resp_wire is None else resp_wire
    return 100.0 * (probes * wire + responses * rw) * 8 / (links * rate_bps * dur)


def median_spread(values):
    """{'med', 'min', 'max', 'n'} of the non-None values; None if none."""
    v = [x for x in values if x is not None]
    if not v:
        return None
    return {'med': statistics.median(v), 'min': min(v), 'max': max(v), 'n': len(v)}


def wire_bytes(size):
    """Bytes on the wire for a flow of SIZE bytes (plus fctgen's header)."""
    payload = size + REQ_HDR
    return payload + math.ceil(payload / MSS) * HDR


def ideal_fct(size, rate_bps, base_rtt_s):
    """Ideal FCT in seconds: 2 base RTTs plus the wire bytes at line rate."""
    return 2 * base_rtt_s + wire_bytes(size) * 8.0 / rate_bps


def slowdown(fct_s, size, rate_bps, base_rtt_s):
    return fct_s / ideal_fct(size, rate_bps, base_rtt_s)


def bucket_of(size):
    for lo, hi, name in BUCKETS:
        if lo <= size < hi:
            return name
    return BUCKETS[-1][2]


def spread(values):
    """Mean, min, max, sample stdev (0 for one value) and n of the non-None
    values; None if there are none."""
    v = [x for x in values if x is not None]
    if not v:
        return None
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    return {'mean': statistics.fmean(v), 'min': min(v), 'max': max(v),
            'sd': sd, 'n': len(v)}


def value_at(series, t):
    """Linear interpolation of [(t, v)] (ascending t) at T, clamped."""
    if not series:
        return None
    if t <= series[0][0]:
        return series[0][1]
    for (t0, v0), (t1, v1) in zip(series, series[1:]):
        if t0 <= t <= t1:
            return v0 if t1 == t0 else v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    return series[-1][1]


def queue_stats(qrows, dev, t_lo, t_hi, rate_bps):
    """Backlog percentiles (bytes), utilisation, drops and ECN marks of DEV
    over [t_lo, t_hi]. qrows: dicts with t, dev, backlog, drops, bytes,
    marks (strings or numbers)."""
    rows = [r for r in qrows if r['dev'] == dev and t_lo <= float(r['t']) <= t_hi]
    if len(rows) < 2:
        return None
    b = [float(r['backlog']) for r in rows]
    first, last = rows[0], rows[-1]
    dt = float(last['t']) - float(first['t'])
    return {
        'q_p50': percentile(b, 50), 'q_p99': percentile(b, 99), 'q_max': max(b),
        'util': (float(last['bytes']) - float(first['bytes'])) * 8 / (dt * rate_bps)
        if dt > 0 else None,
        'drops': float(last['drops']) - float(first['drops']),
        'marks': float(last['marks']) - float(first['marks']),
        'n': len(rows),
    }


def stall_seconds(qrows, dev, t_lo, t_hi, gap=0.05):
    """Seconds lost in sampling gaps longer than GAP between consecutive
    samples of DEV in [t_lo, t_hi]: the emulator (or a busy host) did not
    run the guest. Reported so that runs hit by stalls can be recognised."""
    t = sorted(float(r['t']) for r in qrows if r['dev'] == dev and t_lo <= float(r['t']) <= t_hi)
    return sum(b - a for a, b in zip(t, t[1:]) if b - a > gap)


def idle_path_rtts(srows, qrows, dev, t_lo, t_hi, window, quiet=1514):
    """The RTT samples (ms) of SROWS in [t_lo, t_hi] taken while DEV's
    backlog had been at most QUIET bytes in every queue sample of the
    WINDOW seconds before: the path's own RTT without the bottleneck's
    queue, i.e. the base RTT plus what the emulator's links add (delay
    jitter, late netem timers). TCP_INFO's RTT is smoothed over about one
    RTT of ACKs, hence the window."""
    q = sorted((float(r['t']), float(r['backlog'])) for r in qrows if r['dev'] == dev)
    ts = [t for t, _ in q]
    out = []
    for r in srows:
        t, rtt = float(r['t']), float(r['rtt_us'])
        if not (t_lo <= t <= t_hi) or rtt <= 0:
            continue
        i = bisect.bisect_right(ts, t)
        j = bisect.bisect_left(ts, t - window)
        if i > j and all(b <= quiet for _, b in q[j:i]):
            out.append(rtt / 1e3)
    return out


def flow_series(srows):
    """TCP_INFO samples -> {flow tag: [(t, bytes_acked)]} sorted by t."""
    out = {}
    for r in srows:
        out.setdefault(r['tag'], []).append((float(r['t']), float(r['bytes_acked'])))
    for s in out.values():
        s.sort()
    return out


def throughput_series(series):
    """[(t, bytes_acked)] -> [(t_mid, Mbit/s)] between consecutive samples."""
    out = []
    for (t0, b0), (t1, b1) in zip(series, series[1:]):
        if t1 > t0:
            out.append(((t0 + t1) / 2, (b1 - b0) * 8 / (t1 - t0) / 1e6))
    return out


def goodput_bps(series, t_lo, t_hi):
    """Mean goodput (bit/s) of one flow over [t_lo, t_hi], 0 outside its
    samples' span (a flow that has not started or has ended sends 0)."""
    if not series or t_hi <= t_lo:
        return 0.0
    lo, hi = max(t_lo, series[0][0]), min(t_hi, series[-1][0])
    if hi <= lo:
        return 0.0
    return (value_at(series, hi) - value_at(series, lo)) * 8 / (t_hi - t_lo)


def utilisation_series(qrows, dev, rate_bps):
    """[(t_mid, utilisation)] between consecutive queue samples of DEV."""
    rows = [(float(r['t']), float(r['bytes'])) for r in qrows if r['dev'] == dev]
    rows.sort()
    return [((t0 + t1) / 2, (b1 - b0) * 8 / ((t1 - t0) * rate_bps))
            for (t0, b0), (t1, b1) in zip(rows, rows[1:]) if t1 > t0]


def recovery_rtts(qrows, dev, t_event, rate_bps, base_rtt_s, t_end,
                  thresh=0.9, hold_rtts=4):
    """Base RTTs after T_EVENT until the utilisation of DEV averaged over
    the next HOLD_RTTS base RTTs is >= THRESH (None: not before T_END)."""
    rows = sorted((float(r['t']), float(r['bytes'])) for r in qrows
                  if r['dev'] == dev)
    if len(rows) < 2:
        return None
    win = hold_rtts * base_rtt_s
    bytes_at = lambda t: value_at(rows, t)
    for t, _ in rows:
        if t < t_event:
            continue
        if t + win > min(t_end, rows[-1][0]):
            return None
        u = (bytes_at(t + win) - bytes_at(t)) * 8 / (win * rate_bps)
        if u >= thresh:
            return (t - t_event) / base_rtt_s
    return None


# ---- per-run metrics ---------------------------------------------------------------

class Env:
    def __init__(self, env):
        self.raw = env
        self.rate_bps = float(env.get('rate_mbit', 100)) * 1e6
        self.base_rtt = float(env.get('base_rtt_ms') or 5) / 1e3
        self.telemetry = env.get('telemetry') == '1'
        ver = re.search(r'wire_version=(\d+)', env.get('hpcc_params', ''))
        self.probe_wire = PROBE_WIRE.get(int(ver.group(1)) if ver else 1, PROBE_WIRE[1])


def long_metrics(run, env, series):
    """The long scenario's metrics (and the sweep's, and jlong's): from 1 s
    on, after the flows' start."""
    rate, rtt, dur, q = env.rate_bps, env.base_rtt, run['duration'], run['queue']
    lo, hi = 1.0, dur
    qs = queue_stats(q, 'r2d1', lo, hi, rate) or {}
    gps = [goodput_bps(s, lo, hi) for s in series.values()]
    rtts = [float(r['rtt_us']) / 1e3 for r in run['samples']
            if lo <= float(r['t']) <= hi and float(r['rtt_us']) > 0]
    # the jitter the path delivered: RTT p10..p90 with the bottleneck empty
    # for 4 base RTTs, as a share of the base RTT (issue 11's target 7
    # asks for up to 20%, peak to peak)
    idle = idle_path_rtts(run['samples'], q, 'r2d1', lo, hi, 4 * rtt)
    p10, p90 = percentile(idle, 10), percentile(idle, 90)
    return {'goodput': sum(gps) / rate if gps else None,
            'util': qs.get('util'), 'q_p50_kb': kb(qs.get('q_p50')),
            'q_p99_kb': kb(qs.get('q_p99')), 'q_max_kb': kb(qs.get('q_max')),
            'rtt_p50_ms': percentile(rtts, 50), 'rtt_p99_ms': percentile(rtts, 99),
            'path_rtt_p50_ms': percentile(idle, 50),
            'path_jitter_pct': 100 * (p90 - p10) / (rtt * 1e3) if len(idle) >= 20 else None,
            'jain': jain(gps), 'drops': qs.get('drops'), 'marks': qs.get('marks'),
            'jain_half': half_jain(list(series.values()), dur)}


def burst_groups(flows, bursts):
    """Each incast burst's flows, as a list per burst that has any: a flow
    belongs to the last burst event at or before its start (100 ms early
    allowed: the clients' timers and the event log's differ)."""
    groups = []
    for i, b in enumerate(bursts):
        nxt = bursts[i + 1] if i + 1 < len(bursts) else float('inf')
        fl = [f for f in flows if b - 0.1 <= float(f['start']) < nxt - 0.1]
        if fl:
            groups.append(fl)
    return groups


def burst_link(q, dev, flows, bursts, rate_bps):
    """The link DEV's utilisation while each incast burst lasts (from its
    first flow's start to its last flow's end) and over the second half of
    that span, means over the bursts: (whole, tail) or (None, None)."""
    whole, tail = [], []
    done = [f for f in flows
            if f.get('status') == 'ok' and 'start' in f and 'end' in f]
    for fl in burst_groups(done, bursts):
        t0 = min(float(f['start']) for f in fl)
        t1 = max(float(f['end']) for f in fl)
        a = queue_stats(q, dev, t0, t1, rate_bps)
        z = queue_stats(q, dev, (t0 + t1) / 2, t1, rate_bps)
        if a and z and a['util'] is not None and z['util'] is not None:
            whole.append(a['util'])
            tail.append(z['util'])
    if not whole:
        return None, None
    return sum(whole) / len(whole), sum(tail) / len(tail)


def run_metrics(scen, run, env):
    """Metrics of one run: run = {'queue', 'flows', 'samples', 'events'} (row
    dicts), duration in run['duration']. Returns {metric: value}."""
    rate, rtt, dur = env.rate_bps, env.base_rtt, run['duration']
    q, flows, events = run['queue'], run['flows'], run['events']
    series = flow_series(run['samples'])
    m = {}
    base = LIKE.get(scen, scen)
    if base in ('long', SWEEP):
        m.update(long_metrics(run, env, series))
    elif scen == 'incast':
        bursts = sorted(float(e['t']) for e in events if e['kind'] == 'burst')
        lo = bursts[0] if bursts else 2.0
        qs = queue_stats(q, 'r2d1', lo, dur, rate) or {}
        qall = queue_stats(q, 'r2d1', 0, dur + 5, rate) or {}
        short = [f for f in flows if f['tag'].startswith('inc')]
        fcts = [float(f['fct']) * 1e3 for f in short if f['status'] == 'ok']
        p99 = percentile(fcts, 99)
        gp = goodput_bps(series.get('long', []), 1.0, dur)
        nb = len(bursts) or 1
        burst_wire = sum(wire_bytes(float(f['size'])) for f in short) / nb
        floor = incast_floor_s(burst_wire, rate, rtt) * 1e3 if short else None
        bu, bt = burst_link(q, 'r2d1', short, bursts, rate)
        timed = [f for f in short if f.get('start') and f.get('size')]
        fair = percentile(incast_fair_fcts(timed, bursts, rate, rtt,
                                           1 if 'long' in series else 0), 99)
        m.update({'fct_floor_ms': floor,
                  'fct_p99_floor': ratio(p99, floor),
                  # issue 11's wording of the floor, without the answer
                  'fct_p99_floor_1rtt': ratio(p99, floor and floor - rtt * 1e3),
                  # the floor for the run's own start times: a fair share
                  'fct_fair_p99_ms': fair,
                  'fct_fair_floor': ratio(fair, floor),
                  'q_peak_kb': kb(qs.get('q_max')), 'q_p99_kb': kb(qs.get('q_p99')),
                  'drops': qall.get('drops'), 'marks': qall.get('marks'),
                  'fct_p50_ms': percentile(fcts, 50), 'fct_p99_ms': p99,
                  'short_done': len(fcts), 'short_total': len(short),
                  'burst_util': bu, 'burst_tail_util': bt,
                  # the alone reference runs the bursts without the long flow
                  'long_goodput': gp / rate if 'long' in series else None})
    elif scen == 'stagger':
        qs = queue_stats(q, 'r2d1', 0.5, dur, rate) or {}
        ev = sorted((float(e['t']), e['kind'], e['flow']) for e in events)
        # Jain index in each phase with >= 2 flows, skipping 1 s after a change
        times = sorted(set(t for t, _, _ in ev))
        jains = []
        for a, b in zip(times, times[1:]):
            active = {fl for t, k, fl in ev if k == 'join' and t <= a} - \
                     {fl for t, k, fl in ev if k == 'leave' and t <= a}
            if len(active) >= 2 and b - a > 1.5:
                jains.append(jain(goodput_bps(series.get(fl, []), a + 1.0, b)
                                  for fl in sorted(active)))
        rec = [recovery_rtts(q, 'r2d1', t, rate, rtt, dur)
               for t, k, _ in ev if k == 'leave' and t < dur - 0.01]
        m.update({'util': qs.get('util'), 'q_p99_kb': kb(qs.get('q_p99')),
                  'q_max_kb': kb(qs.get('q_max')),
                  'jain_min': min((j for j in jains if j is not None), default=None),
                  'recovery_rtts_max': None if not rec or None in rec else max(rec),
                  'recovered': sum(r is not None for r in rec), 'leaves': len(rec)})
    elif base == 'websearch':
        # the arrivals' span for utilisation; the whole run for the queue
        arr = float(env.raw.get('ws_dur') or dur)
        qs = [queue_stats(q, d, 0, dur, rate) or {} for d in ('r2d1', 'r2d2')]
        us = [(queue_stats(q, d, 0, arr, rate) or {}).get('util') for d in ('r2d1', 'r2d2')]
        us = [u for u in us if u is not None]
        sd = run_slowdowns(flows, env)
        small = [s for b, s in sd if b in ('<10K', '10K-100K')]
        allsd = [s for _, s in sd]
        m.update({'q_p99_kb': kb(max((x.get('q_p99') or 0) for x in qs)),
                  'q_max_kb': kb(max((x.get('q_max') or 0) for x in qs)),
                  'util': statistics.fmean(us) if us else None,
                  'sd_p50': percentile(allsd, 50), 'sd_p99': percentile(allsd, 99),
                  'sd_small_p99': percentile(small, 99),
                  'flows': len(flows), 'unfinished': sum(f['status'] != 'ok' for f in flows)})
    else:
        m.update(new_scenario_metrics(scen, run, env, series))
    m['stall_s'] = stall_seconds(q, 'r2d1', 0, dur)
    m.update(run_probe_pct(scen, run, env))
    return m


def label_wire(label, env):
    """(probe, response) bytes on the wire of an hpcc run labelled LABEL:
    a label hpcc.wire_version=N... names its version, one with
    rx_window=1 gets windows back (Rx-HPCC)."""
    ver = re.search(r'wire_version=(\d+)', label)
    pw = PROBE_WIRE.get(int(ver.group(1)), PROBE_WIRE[1]) if ver else env.probe_wire
    rx = 'rx_window=1' in label and pw == PROBE_WIRE[2]
    return pw, WINDOW_WIRE if rx else pw


def run_probe_pct(scen, run, env):
    """{'probe_pct': an hpcc run's probe and response bytes, % of its
    bottlenecks; 'fb_permille': those bytes per thousand bytes the
    bottleneck r2d1 carried; 'fb_pkts_mb': probes and responses per MB
    of it}; {} for other CCs."""
    row = run.get('row') or {}
    if not row.get('cc', '').startswith('hpcc') or row.get('probes_sent') in (None, '', '-'):
        return {}
    probes = float(row['probes_sent'])
    resps = float(row.get('reports_accepted') or 0)
    pw, rw = label_wire(row['cc'], env)
    m = {'probe_pct': probe_pct(probes, resps, pw, BOTTLENECKS.get(scen, 1),
                                env.rate_bps, run['duration'], rw)}
    qs = queue_stats(run['queue'], 'r2d1', 0, run['duration'], env.rate_bps) or {}
    if qs.get('util'):
        data = qs['util'] * env.rate_bps / 8 * run['duration']
        m['fb_permille'] = 1000.0 * (probes * pw + resps * rw) / data
        m['fb_pkts_mb'] = (probes + resps) / (data / 1e6)
    return m


def new_scenario_metrics(scen, run, env, series):
    """Issue 11's scenarios: many, rttfair, parking, vscubic, vsdctcp."""
    rate, dur, q = env.rate_bps, run['duration'], run['queue']
    half = (dur / 2.0, dur)
    gph = {tag: goodput_bps(s, *half) for tag, s in series.items()}
    m = {}
    if scen == 'many':
        qs = queue_stats(q, 'r2d1', 0, dur, rate) or {}
        qh = queue_stats(q, 'r2d1', *half, rate) or {}
        gps = [goodput_bps(s, 1.0, dur) for s in series.values()]
        m.update({'goodput': sum(gps) / rate if gps else None,
                  'q_p99_kb': kb(qs.get('q_p99')), 'q_max_kb': kb(qs.get('q_max')),
                  'q_p99_half_kb': kb(qh.get('q_p99')),
                  'util': qs.get('util'), 'drops': qs.get('drops'),
                  'jain_half': half_jain(list(series.values()), dur),
                  'flows': len(series)})
    elif scen == 'rttfair':
        qs = queue_stats(q, 'r2d1', 0, dur, rate) or {}
        m.update({'jain_half': half_jain(list(series.values()), dur),
                  'long_short': ratio(gph.get('long'), gph.get('short')),
                  'goodput': sum(gph.values()) / rate if gph else None,
                  'q_p99_kb': kb(qs.get('q_p99'))})
    elif scen == 'parking':
        ones = [gph[t] for t in ('one1', 'one2') if t in gph]
        q1 = queue_stats(q, 'r1r2', 0, dur, rate) or {}
        q2 = queue_stats(q, 'r2d1', 0, dur, rate) or {}
        m.update({'park_ratio': ratio(gph.get('two'), statistics.fmean(ones) if ones else None),
                  'two_mbit': None if 'two' not in gph else gph['two'] / 1e6,
                  'util_r1r2': q1.get('util'), 'util_r2d1': q2.get('util'),
                  'q_p99_kb': kb(max((x.get('q_p99') or 0) for x in (q1, q2)))})
    elif scen in ('vscubic', 'vsdctcp'):
        qs = queue_stats(q, 'r2d1', 0, dur, rate) or {}
        t, o = gph.get('t'), gph.get('o')
        m.update({'share': None if t is None or o is None or t + o == 0 else t / (t + o),
                  'link_share': None if t is None else t / rate,
                  'q_p99_kb': kb(qs.get('q_p99')), 'drops': qs.get('drops')})
    return m


def run_slowdowns(flows, env):
    """[(bucket, slowdown)] of the completed flows."""
    out = []
    for f in flows:
        if f['status'] != 'ok':
            continue
        size = float(f['size'])
        out.append((bucket_of(size), slowdown(float(f['fct']), size, env.rate_bps,
                                                env.base_rtt)))
    return out


def kb(x):
    return None if x is None else x / 1e3


# Metrics shown in the table: (scenario, metric, label, format).
TABLE = [
    ('long', 'goodput', 'goodput / link rate', '{:.3f}'),
    ('long', 'util', 'link utilisation (tc)', '{:.3f}'),
    ('long', 'q_p50_kb', 'queue p50 (KB)', '{:.1f}'),
    ('long', 'q_p99_kb', 'queue p99 (KB)', '{:.1f}'),
    ('long', 'q_max_kb', 'queue max (KB)', '{:.1f}'),
    ('long', 'rtt_p50_ms', 'RTT p50 (ms)', '{:.2f}'),
    ('long', 'rtt_p99_ms', 'RTT p99 (ms)', '{:.2f}'),
    ('long', 'jain', 'Jain index', '{:.3f}'),
    ('long', 'drops', 'drops', '{:.0f}'),
    ('long', 'marks', 'ECN marks', '{:.0f}'),
    ('long', 'path_rtt_p50_ms', 'RTT p50, bottleneck empty (ms)', '{:.2f}'),
    ('long', 'path_jitter_pct', 'RTT p10-p90, bottleneck empty (% of base)', '{:.0f}'),
    ('long', 'stall_s', 'emulator stalls (s)', '{:.2f}'),
    ('incast', 'q_peak_kb', 'peak queue (KB)', '{:.1f}'),
    ('incast', 'drops', 'drops', '{:.0f}'),
    ('incast', 'fct_p50_ms', 'short FCT p50 (ms)', '{:.1f}'),
    ('incast', 'fct_p99_ms', 'short FCT p99 (ms)', '{:.1f}'),
    ('incast', 'short_done', 'short flows done', '{:.0f}'),
    ('incast', 'long_goodput', 'long flow goodput', '{:.3f}'),
    ('incast', 'burst_util', 'link during the bursts', '{:.3f}'),
    ('incast', 'burst_tail_util', "link, bursts' second half", '{:.3f}'),
    ('incast', 'stall_s', 'emulator stalls (s)', '{:.2f}'),
    ('stagger', 'util', 'link utilisation (tc)', '{:.3f}'),
    ('stagger', 'q_p99_kb', 'queue p99 (KB)', '{:.1f}'),
    ('stagger', 'jain_min', 'Jain, worst phase', '{:.3f}'),
    ('stagger', 'recovery_rtts_max', 'util >=90% after leave (RTTs)', '{:.1f}'),
    ('stagger', 'stall_s', 'emulator stalls (s)', '{:.2f}'),
    ('websearch', 'util', 'utilisation while arriving (tc)', '{:.3f}'),
    ('websearch', 'q_p99_kb', 'queue p99 (KB)', '{:.1f}'),
    ('websearch', 'sd_p50', 'slowdown p50, all', '{:.2f}'),
    ('websearch', 'sd_p99', 'slowdown p99, all', '{:.2f}'),
    ('websearch', 'sd_small_p99', 'slowdown p99, <100KB', '{:.2f}'),
    ('websearch', 'flows', 'flows', '{:.0f}'),
    ('websearch', 'unfinished', 'unfinished flows', '{:.0f}'),
    ('websearch', 'stall_s', 'emulator stalls (s)', '{:.2f}'),
    ('many', 'goodput', 'goodput / link rate', '{:.3f}'),
    ('many', 'q_p99_kb', 'queue p99 (KB)', '{:.1f}'),
    ('many', 'q_max_kb', 'queue max (KB)', '{:.1f}'),
    ('many', 'q_p99_half_kb', 'queue p99, 2nd half (KB)', '{:.1f}'),
    ('many', 'jain_half', 'Jain, 1 s bins, 2nd half', '{:.3f}'),
    ('many', 'drops', 'drops', '{:.0f}'),
    ('many', 'probe_pct', 'probe+response % of link', '{:.2f}'),
    ('many', 'stall_s', 'emulator stalls (s)', '{:.2f}'),
    ('rttfair', 'jain_half', 'Jain, 1 s bins, 2nd half', '{:.3f}'),
    ('rttfair', 'long_short', 'long-RTT / short-RTT rate', '{:.2f}'),
    ('rttfair', 'goodput', 'goodput / link rate', '{:.3f}'),
    ('rttfair', 'q_p99_kb', 'queue p99 (KB)', '{:.1f}'),
    ('rttfair', 'stall_s', 'emulator stalls (s)', '{:.2f}'),
    ('parking', 'park_ratio', '2-hop / mean 1-hop rate', '{:.2f}'),
    ('parking', 'two_mbit', '2-hop flow (Mbit/s)', '{:.1f}'),
    ('parking', 'util_r1r2', 'utilisation r1r2', '{:.3f}'),
    ('parking', 'util_r2d1', 'utilisation r2d1', '{:.3f}'),
    ('parking', 'q_p99_kb', 'queue p99, worse hop (KB)', '{:.1f}'),
    ('parking', 'stall_s', 'emulator stalls (s)', '{:.2f}'),
    ('vscubic', 'share', 'share vs cubic (drop-tail)', '{:.3f}'),
    ('vscubic', 'q_p99_kb', 'queue p99 (KB)', '{:.1f}'),
    ('vscubic', 'stall_s', 'emulator stalls (s)', '{:.2f}'),
    ('vsdctcp', 'share', 'share vs dctcp (RED-ECN)', '{:.3f}'),
    ('vsdctcp', 'q_p99_kb', 'queue p99 (KB)', '{:.1f}'),
    ('vsdctcp', 'stall_s', 'emulator stalls (s)', '{:.2f}'),
]
for _sc in ('jlong', 'jwebsearch'):
    TABLE += [(_sc, k, lab, f) for sc, k, lab, f in TABLE if sc == LIKE[_sc]]
TABLE += [(sc, 'probe_pct', 'probe+response % of link', '{:.2f}')
          for sc in SCEN_ORDER if sc != 'many']
TABLE += [(sc, k, lab, '{:.2f}') for sc in ('long', 'incast')
          for k, lab in (('fb_permille', 'feedback bytes per 1000 data bytes'),
                         ('fb_pkts_mb', 'feedback packets per MB of data'))]
TABLE += [('long', 'jain_half', 'Jain, 1 s bins, 2nd half', '{:.3f}'),
          ('incast', 'fct_p99_floor', 'short FCT p99 / floor', '{:.2f}'),
          ('incast', 'fct_fair_p99_ms', 'fair-share ideal FCT p99 (ms)', '{:.1f}')]


def order_ccs(ccs):
    return sorted(ccs, key=lambda c: (CC_ORDER.index(c) if c in CC_ORDER else 99, c))


def aggregate(per_run):
    """per_run: {(scen, cc): [metrics dict per rep]} -> {(scen, cc, metric): spread}"""
    agg = {}
    for (scen, cc), runs in per_run.items():
        keys = sorted({k for r in runs for k in r})
        for k in keys:
            s = spread([r.get(k) for r in runs])
            if s:
                agg[(scen, cc, k)] = s
    return agg


def fmt_cell(s, fmt):
    if not s:
        return '-'
    cell = fmt.format(s['mean'])
    if s['n'] > 1 and s['max'] != s['min']:
        cell += ' [' + fmt.format(s['min']) + '-' + fmt.format(s['max']) + ']'
    return cell


def format_table(agg, ccs, scens, nreps):
    """The side-by-side text table: mean [min-max] over repetitions."""
    lines = []
    w0 = 32
    widths = {}
    for cc in ccs:
        widths[cc] = max(len(cc), *(len(fmt_cell(agg.get((sc, cc, k)), f))
                                    for sc, k, _, f in TABLE)) + 2
    for scen in scens:
        rows = [(k, lab, f) for sc, k, lab, f in TABLE if sc == scen]
        if not any((scen, cc, k) in agg for cc in ccs for k, _, _ in rows):
            continue
        n = nreps.get(scen, {})
        # a reference (paced, alone) runs in some scenarios only
        cols = [cc for cc in ccs if n.get(cc)] or ccs
        reps = ', '.join('%s %d' % (cc, n.get(cc, 0)) for cc in cols)
        lines.append('')
        lines.append('== %s (repetitions: %s)' % (scen, reps))
        lines.append(''.ljust(w0) + ''.join(cc.rjust(widths[cc]) for cc in cols))
        for k, lab, f in rows:
            lines.append(lab.ljust(w0) + ''.join(
                fmt_cell(agg.get((scen, cc, k)), f).rjust(widths[cc]) for cc in cols))
    return '\n'.join(lines)


def slowdown_table(pooled, ccs):
    """pooled: {cc: [(bucket, slowdown)]} -> rows (cc, bucket, n, p50, p95, p99)."""
    rows = []
    for cc in ccs:
        sds = pooled.get(cc, [])
        for _, _, name in BUCKETS + [(0, SMALL, '<100K')]:
            if name == '<100K':
                v = [s for b, s in sds if b in ('<10K', '10K-100K')]
            else:
                v = [s for b, s in sds if b == name]
            rows.append((cc, name, len(v), percentile(v, 50), percentile(v, 95),
                         percentile(v, 99)))
    return rows


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


# Issue 4's incast target lies below the physical floor of this link: its
# verdict says so rather than "missed" (issue 11's target 1 replaced it).
BELOW_FLOOR = 'below the floor'
# Issue 4's incast target: hpcc's FCT p99 at most this share of dctcp's.
ISSUE4_INCAST = 0.5


def verdict_text(met, missed='missed'):
    """A targets() verdict as the reports print it."""
    if met is None:
        return 'not measured'
    if met == BELOW_FLOOR:
        return BELOW_FLOOR
    return 'met' if met else missed


def targets(agg, hpcc):
    """Issue 4's targets, the first bench's: [(name, value, threshold text,
    met: True, False, None (not measured) or BELOW_FLOOR)]."""
    g = lambda sc, cc, k: (agg.get((sc, cc, k)) or {}).get('mean')
    out = []
    r = ratio(g('long', hpcc, 'q_p99_kb'), g('long', 'dctcp', 'q_p99_kb'))
    out.append(('queue p99 hpcc/dctcp (long flows)', r, '<= 0.20',
                None if r is None else r <= 0.2))
    r = ratio(g('long', hpcc, 'q_p99_kb'), g('long', 'cubic', 'q_p99_kb'))
    out.append(('queue p99 hpcc/cubic (long flows)', r, '<= 0.05',
                None if r is None else r <= 0.05))
    r = ratio(g('long', hpcc, 'goodput'), g('long', 'cubic', 'goodput'))
    out.append(('goodput hpcc/cubic (long flows)', r, '>= 0.90',
                None if r is None else r >= 0.9))
    v = g('stagger', hpcc, 'recovery_rtts_max')
    out.append(('utilisation >= 90% again after a flow leaves (base RTTs, worst)',
                v, '<= 5', None if v is None else v <= 5))
    p99_d = g('incast', 'dctcp', 'fct_p99_ms')
    floor = g('incast', hpcc, 'fct_floor_ms')
    r = ratio(g('incast', hpcc, 'fct_p99_ms'), p99_d)
    met = None if r is None else r <= ISSUE4_INCAST
    if met is False and floor is not None and p99_d * ISSUE4_INCAST < floor:
        met = BELOW_FLOOR
    out.append(('short-flow (64 KB incast) FCT p99 hpcc/dctcp', r,
                '<= %.2f' % ISSUE4_INCAST, met))
    for other in ('dctcp', 'cubic'):
        r = ratio(g('websearch', hpcc, 'sd_small_p99'),
                  g('websearch', other, 'sd_small_p99'))
        out.append(('slowdown p99 of flows < 100 KB, hpcc/%s (websearch)' % other,
                    r, '< 1.00', None if r is None else r < 1.0))
    return out


# ---- issue 11's targets: medians over runs, ratios against the same repetition --

PEERS = ['hpcc', 'dctcp', 'cubic', 'bbr']


def per_rep(pm, scen, cc, metric):
    """{rep: value} of one metric (None values left out)."""
    return {rep: m[metric] for (sc, c, rep), m in pm.items()
            if sc == scen and c == cc and m.get(metric) is not None}


def paired_ratios(pm, scen, metric, a, b):
    """A's metric over B's, per repetition present for both (the same run's
    peer: repetitions are interleaved, so each pair ran side by side)."""
    va, vb = per_rep(pm, scen, a, metric), per_rep(pm, scen, b, metric)
    return [va[r] / vb[r] for r in sorted(va) if r in vb and vb[r] != 0]


def verdict(value, op, thr):
    """met (True), missed (False) or not measured (None) for a median."""
    if value is None:
        return None
    return {'<=': value <= thr, '<': value < thr, '>=': value >= thr,
            '==': value == thr}[op]


# (target, label, scenario, metric, kind, peer, op, threshold): kind 'ratio'
# compares hpcc's metric with PEER's of the same repetition; 'value' takes
# hpcc's own metric; 'probe' the worst scenario's median probe cost.
ISSUE_TARGETS = [
    (1, 'incast: short-flow FCT p99 / dctcp', 'incast', 'fct_p99_ms', 'ratio', 'dctcp', '<=', 0.8),
    (1, 'incast: peak queue / dctcp', 'incast', 'q_peak_kb', 'ratio', 'dctcp', '<=', 1.0),
    (1, 'incast: drops', 'incast', 'drops', 'value', None, '==', 0),
    (1, 'incast: FCT p99 / physical floor', 'incast', 'fct_p99_floor', 'value', None, '<=', 1.3),
    # not the issue's: the floor the emulator gives a burst with the link
    # to itself (demo/README.md, the burst-alone reference)
    (1, 'incast: FCT p99 / the burst alone', 'incast', 'fct_p99_ms', 'ratio', 'alone', '<=', 1.3),
    # not the issue's: the floor a perfect fair share reaches on the
    # emulator (demo/fairshare.bpf.c), the physical floor's 1.3 over it
    (1, 'incast: FCT p99 / the fair-share reference', 'incast', 'fct_p99_ms', 'ratio', 'fairshare',
     '<=', 1.3),
    (2, '32 flows: queue p99 / dctcp', 'many', 'q_p99_kb', 'ratio', 'dctcp', '<=', 1.0),
    (2, '32 flows: Jain (1 s bins, 2nd half)', 'many', 'jain_half', 'value', None, '>=', 0.95),
    (2, '32 flows: goodput / cubic', 'many', 'goodput', 'ratio', 'cubic', '>=', 0.9),
    (2, 'probe+response % of link, worst scenario', None, 'probe_pct', 'probe', None, '<=', 3.0),
    (3, 'RTTs 5x apart: Jain (1 s bins, 2nd half)', 'rttfair', 'jain_half', 'value', None, '>=', 0.95),
    (4, 'parking lot: 2-hop / mean 1-hop rate', 'parking', 'park_ratio', 'value', None, '>=', 0.5),
    (5, 'share against cubic, drop-tail', 'vscubic', 'share', 'value', None, '>=', 1 / 3),
    (5, 'share against dctcp, RED-ECN', 'vsdctcp', 'share', 'value', None, '>=', 1 / 3),
    (5, 'alone: long-flow queue p99 / dctcp', 'long', 'q_p99_kb', 'ratio', 'dctcp', '<=', 0.2),
    (6, 'long: queue p99 / dctcp', 'long', 'q_p99_kb', 'ratio', 'dctcp', '<=', 0.2),
    (6, 'long: goodput / cubic', 'long', 'goodput', 'ratio', 'cubic', '>=', 0.9),
    (6, 'websearch: slowdown p99 <100KB / dctcp', 'websearch', 'sd_small_p99', 'ratio', 'dctcp', '<', 1.0),
    (6, 'websearch: slowdown p99 <100KB / cubic', 'websearch', 'sd_small_p99', 'ratio', 'cubic', '<', 1.0),
    (7, 'jitter, long: queue p99 / dctcp', 'jlong', 'q_p99_kb', 'ratio', 'dctcp', '<=', 0.2),
    (7, 'jitter, long: goodput / cubic', 'jlong', 'goodput', 'ratio', 'cubic', '>=', 0.9),
    (7, 'jitter, websearch: slowdown p99 <100KB / dctcp', 'jwebsearch', 'sd_small_p99', 'ratio', 'dctcp', '<', 1.0),
    (7, 'jitter, websearch: slowdown p99 <100KB / cubic', 'jwebsearch', 'sd_small_p99', 'ratio', 'cubic', '<', 1.0),
]


def issue_targets(pm, hpcc='hpcc', spec=ISSUE_TARGETS):
    """Issue 11's targets from the per-run metrics PM {(scen, cc, rep): m}:
    one row per check, {'target', 'label', 'scen', 'metric', 'peers' (each
    CC's median_spread of the metric), 'value' (the median_spread of
    hpcc's per-repetition ratios or values), 'op', 'thr', 'met', 'where'
    (probe: the worst scenario)}. A check is met when the MEDIAN meets it."""
    rows = []
    for tgt, label, scen, metric, kind, peer, op, thr in spec:
        where = scen
        if kind == 'probe':
            worst = None
            for sc in sorted({k[0] for k in pm}):
                st = median_spread(per_rep(pm, sc, hpcc, metric).values())
                if st and (worst is None or st['med'] > worst[1]['med']):
                    worst = (sc, st)
            where, value = worst if worst else (None, None)
            peers = {}
        else:
            peers = {cc: median_spread(per_rep(pm, scen, hpcc if cc == 'hpcc' else cc,
                                               metric).values()) for cc in PEERS}
            if kind == 'ratio':
                value = median_spread(paired_ratios(pm, scen, metric, hpcc, peer))
            else:
                value = peers['hpcc']
        rows.append({'target': tgt, 'label': label, 'scen': where, 'metric': metric,
                     'peers': peers, 'value': value, 'op': op, 'thr': thr,
                     'met': verdict(value and value['med'], op, thr),
                     'note': row_note(pm, hpcc, metric, where, peer)})
    return rows


# the incast's references (not congestion controls), as the notes name them
INCAST_REFERENCES = {'alone': 'the burst alone (cubic)', 'fairshare': 'the fair-share reference'}


def row_note(pm, hpcc, metric, scen, peer=None):
    """What a check's label adds: the probe check's worst scenario, the
    incast floor in ms, the jitter the jitter scenarios' paths delivered
    (medians over hpcc's runs)."""
    if metric == 'probe_pct':
        return scen or ''
    notes = []
    if scen in ('jlong', 'jwebsearch'):
        st = median_spread(per_rep(pm, 'jlong', hpcc, 'path_jitter_pct').values())
        if st:
            notes.append('jitter delivered %.0f%%' % st['med'])
    if scen in ('long', 'jlong') and metric == 'q_p99_kb':
        # the paced reference: the queue a sender below the link's rate
        # meets from the path's timing alone, at its own utilisation
        q = median_spread(per_rep(pm, scen, 'paced', 'q_p99_kb').values())
        u = median_spread(per_rep(pm, scen, 'paced', 'util').values())
        if q and u:
            notes.append('paced at %.2f of the link: %.3g KB' % (u['med'], q['med']))
    elif scen in ('long', 'jlong') and metric == 'goodput':
        # the host's ceiling for a smooth sender: the paced reference has
        # no loop, so its goodput follows the host's timing, not a law
        ref = median_spread(paired_ratios(pm, scen, 'goodput', 'paced', 'cubic'))
        own = median_spread(paired_ratios(pm, scen, 'goodput', hpcc, 'paced'))
        if ref and own:
            notes.append('the paced reference %.2f of cubic, hpcc %.2f of it'
                         % (ref['med'], own['med']))
    if notes:
        return '; '.join(notes)
    if metric == 'fct_p99_floor':
        st = median_spread(per_rep(pm, 'incast', hpcc, 'fct_floor_ms').values())
        alone = median_spread(per_rep(pm, 'incast', 'alone', 'fct_p99_floor').values())
        oracle = median_spread(per_rep(pm, 'incast', 'fairshare', 'fct_p99_floor').values())
        fair = median_spread(per_rep(pm, 'incast', hpcc, 'fct_fair_floor').values())
        issue = median_spread(per_rep(pm, 'incast', hpcc, 'fct_p99_floor_1rtt').values())
        if st:
            notes.append('floor %.1f ms' % st['med'])
        if issue:
            notes.append('hpcc %.2f of the floor without the answer\'s RTT' % issue['med'])
        if fair:
            notes.append('a fair share from the runs\' starts %.2f of it' % fair['med'])
        if alone:
            notes.append('the burst alone %.2f of it' % alone['med'])
        if oracle:
            notes.append('the fair-share reference %.2f [%.2f-%.2f] of it'
                         % (oracle['med'], oracle['min'], oracle['max']))
        return '; '.join(notes)
    if peer in INCAST_REFERENCES:
        st = median_spread(per_rep(pm, 'incast', peer, 'fct_p99_ms').values())
        return '' if not st else '%s %.3g ms' % (INCAST_REFERENCES[peer], st['med'])
    return ''


def target_verdicts(rows):
    """{target: True (every check met) | False (one missed) | None}."""
    out = {}
    for r in rows:
        t = r['target']
        if r['met'] is False:
            out[t] = False
        elif r['met'] is None and out.get(t) is not False:
            out[t] = None
        else:
            out.setdefault(t, True)
    return out


def fmt_ms(st):
    """median [min-max] (n): 3 significant digits, integers from 100."""
    if not st:
        return '-'
    f = lambda x: '%.0f' % x if abs(x) >= 100 else '%.3g' % x
    cell = f(st['med'])
    if st['n'] > 1:
        cell += ' [%s-%s]' % (f(st['min']), f(st['max']))
    return cell + ' (%d)' % st['n']


def issue_targets_md(rows):
    """Issue 11's target table as Markdown lines."""
    v = target_verdicts(rows)
    word = lambda m: 'not measured' if m is None else ('met' if m else '**missed**')
    out = ['| # | check | hpcc | dctcp | cubic | bbr | hpcc value | threshold | verdict |',
           '|---|---|---|---|---|---|---|---|---|']
    for r in rows:
        thr = '%s %s' % (r['op'], ('%.3g' % r['thr']) if r['thr'] != 1 / 3 else '1/3')
        label = r['label'] + (' (%s)' % r['note'] if r.get('note') else '')
        out.append('| %d | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            r['target'], label, *(fmt_ms(r['peers'].get(cc)) for cc in PEERS),
            fmt_ms(r['value']), thr, word(r['met'])))
    out += ['', 'Per target: ' + '; '.join('%d %s' % (t, word(m)) for t, m in sorted(v.items()))]
    return out


def issue_targets_section(rows, env):
    """The report's section on issue 11's targets (Markdown lines)."""
    return ['', '## Issue 11 targets', '',
            'Each check: the median over runs (at least 5 for a verdict that '
            'counts) of hpcc\'s ratio to the peer of the SAME repetition '
            '(repetitions are interleaved), or of hpcc\'s own value, with its '
            'spread [min-max] and the number of runs; the columns hpcc..bbr give '
            'each CC\'s own metric. Jain: mean over 1-second bins of each '
            'run\'s second half. Incast floor: a burst\'s bytes with headers at '
            'the link rate plus two base RTTs, the handshake\'s and the last '
            'byte\'s with the answer that ends an FCT (issue 11 words it with '
            'one RTT, the handshake\'s; the floor check\'s note gives hpcc\'s '
            'ratio to that as well). Probe cost: hpcc\'s '
            'probes and responses (the module\'s ProbesSent and ReportsAccepted, '
            '%d bytes each on Ethernet) over the bottleneck links\' capacity '
            '(2 links for websearch and parking). Reported, never asserted.' %
            env.probe_wire, ''] + issue_targets_md(rows)


def issue_targets_text(rows):
    """The same as plain text for table.txt."""
    text = ('\n\n== issue 11 targets: hpcc; median [min-max] (runs) of the metric per CC, '
            'of hpcc\'s per-repetition ratio or value; reported, not asserted\n')
    for r in rows:
        thr = '%s %.3g' % (r['op'], r['thr'])
        label = r['label'] + (' (%s)' % r['note'] if r.get('note') else '')
        text += '%d %-48s %-30s %-9s %s\n' % (
            r['target'], label, fmt_ms(r['value']), thr,
            'not measured' if r['met'] is None else ('met' if r['met'] else 'MISSED'))
        peers = '  '.join('%s %s' % (cc, fmt_ms(r['peers'].get(cc)))
                          for cc in PEERS if r['peers'].get(cc))
        if peers:
            text += '    %s\n' % peers
    v = target_verdicts(rows)
    text += 'per target: ' + ', '.join('%d %s' % (t, 'not measured' if m is None else
                                                  ('met' if m else 'MISSED'))
                                       for t, m in sorted(v.items())) + '\n'
    return text


# The sweep's columns: (metric, label, format).
SWEEP_COLS = [
    ('goodput', 'goodput/link', '{:.3f}'),
    ('q_p50_kb', 'queue p50 KB', '{:.1f}'),
    ('q_p99_kb', 'queue p99 KB', '{:.1f}'),
    ('rtt_p99_ms', 'RTT p99 ms', '{:.2f}'),
    ('jain', 'Jain', '{:.3f}'),
    ('drops', 'drops', '{:.0f}'),
    ('stall_s', 'stalls s', '{:.2f}'),
]


def format_sweep(agg, labels):
    """The sweep as a text table: one row per setting, mean [min-max]."""
    cells = [[lab[len('hpcc.'):]] + [fmt_cell(agg.get((SWEEP, lab, k)), f)
                                      for k, _, f in SWEEP_COLS] for lab in labels]
    head = ['setting'] + [h for _, h, _ in SWEEP_COLS]
    w = [max(len(r[i]) for r in cells + [head]) + 2 for i in range(len(head))]
    lines = [head[0].ljust(w[0]) + ''.join(h.rjust(x) for h, x in zip(head[1:], w[1:]))]
    for r in cells:
        lines.append(r[0].ljust(w[0]) + ''.join(c.rjust(x) for c, x in zip(r[1:], w[1:])))
    return '\n'.join(lines)


def miss_evidence(tgts, agg, hpcc, sweep_labels, env):
    """[(target, evidence)] for every missed target: the numbers of this run
    that bear on it, and verdicts computed from them (such as a target that
    lies below the physical floor). Why a target is missed is analysis, kept
    in Documentation/experiments.rst, not in the code that reports data."""
    g = lambda sc, cc, k: (agg.get((sc, cc, k)) or {}).get('mean')
    f = lambda x, fmt='{:.1f}': '-' if x is None else fmt.format(x)
    rtt_ms = env.base_rtt * 1e3
    out = []
    for name, v, thr, met in tgts:
        if met is not False and met != BELOW_FLOOR:
            continue
        if name.startswith('queue p99'):
            ev = ('hpcc queue p50 %s KB, p99 %s KB, max %s KB; dctcp p99 %s KB, cubic '
                  'p99 %s KB; emulator stalls in hpcc runs %s s.' % (
                      f(g('long', hpcc, 'q_p50_kb')), f(g('long', hpcc, 'q_p99_kb')),
                      f(g('long', hpcc, 'q_max_kb')), f(g('long', 'dctcp', 'q_p99_kb')),
                      f(g('long', 'cubic', 'q_p99_kb')),
                      f(g('long', hpcc, 'stall_s'), '{:.2f}')))
        elif name.startswith('goodput'):
            best = max(sweep_labels, key=lambda lab: g(SWEEP, lab, 'goodput') or 0,
                       default=None)
            ev = 'hpcc %s of the link, cubic %s.' % (
                f(g('long', hpcc, 'goodput'), '{:.3f}'),
                f(g('long', 'cubic', 'goodput'), '{:.3f}'))
            if best and g(SWEEP, best, 'goodput') is not None:
                ev += ' Best setting of the sweep: %s, %s of the link with queue p99 %s KB.' % (
                    best[len('hpcc.'):], f(g(SWEEP, best, 'goodput'), '{:.3f}'),
                    f(g(SWEEP, best, 'q_p99_kb')))
        elif name.startswith('short-flow'):
            p99_d = g('incast', 'dctcp', 'fct_p99_ms')
            floor = g('incast', hpcc, 'fct_floor_ms')
            room = None if None in (p99_d, floor) else p99_d * ISSUE4_INCAST - floor
            ev = ('hpcc FCT p50 %s ms, p99 %s ms; dctcp p50 %s ms, p99 %s ms; the floor '
                  '(a burst\'s bytes at the link rate plus 2 base RTTs) %s ms, so the '
                  'target %s ms %s; hpcc peak queue %s KB, drops %s.' % (
                      f(g('incast', hpcc, 'fct_p50_ms')), f(g('incast', hpcc, 'fct_p99_ms')),
                      f(g('incast', 'dctcp', 'fct_p50_ms')), f(p99_d), f(floor),
                      f(None if p99_d is None else p99_d * ISSUE4_INCAST),
                      'leaves ? ms above the floor' if room is None else
                      'leaves %.1f ms above the floor' % room if room >= 0 else
                      'lies %.1f ms below the floor: no CC can meet it here' % -room,
                      f(g('incast', hpcc, 'q_peak_kb')), f(g('incast', hpcc, 'drops'), '{:.0f}')))
        elif name.startswith('utilisation'):
            ev = 'worst recovery %s base RTTs (base RTT %.2f ms).' % (
                f(g('stagger', hpcc, 'recovery_rtts_max')), rtt_ms)
        else:
            ev = 'hpcc slowdown p99 < 100 KB %s, dctcp %s, cubic %s.' % (
                f(g('websearch', hpcc, 'sd_small_p99'), '{:.2f}'),
                f(g('websearch', 'dctcp', 'sd_small_p99'), '{:.2f}'),
                f(g('websearch', 'cubic', 'sd_small_p99'), '{:.2f}'))
        out.append((name, ev))
    return out


# ---- loading a run folder ---------------------------------------------------------

def load(files):
    """Extracted files -> (env dict, runs list, {(scen, cc, rep): run})."""
    env = {r['key']: r['value'] for r in parse_rows(files.get('env.csv', []))}
    runs = parse_rows(files.get('runs.csv', []))
    data = {}
    for r in runs:
        d = '%s/%s/r%s/' % (r['scenario'], r['cc'], r['rep'])
        data[(r['scenario'], r['cc'], int(r['rep']))] = {
            'duration': float(r['duration']), 'row': r,
            'queue': parse_rows(files.get(d + 'queue.csv', [])),
            'flows': parse_rows(files.get(d + 'flows.csv', [])),
            'samples': parse_rows(files.get(d + 'samples.csv', [])),
            'events': parse_rows(files.get(d + 'events.csv', [])),
        }
    return env, runs, data


# ---- plots ------------------------------------------------------------------------

def write_dat(path, rows):
    with open(path, 'w') as f:
        for r in rows:
            f.write(' '.join('%.6g' % x if isinstance(x, float) else str(x) for x in r))
            f.write('\n')


def queue_plot(pdir, scen, present, data, env):
    """Queue over time (repetition 1), one panel per CC, shared y range:
    the .dat files and the gnuplot script's lines."""
    ymax = 1.0
    for cc in present:
        q = data[(scen, cc, 1)]['queue']
        write_dat(os.path.join(pdir, 'queue_%s_%s.dat' % (scen, cc)),
                  [(float(r['t']), float(r['backlog']) / 1e3) for r in q
                   if r['dev'] == 'r2d1'])
        ymax = max([ymax] + [float(r['backlog']) / 1e3 for r in q])
    dur = max(data[(scen, cc, 1)]['duration'] for cc in present)
    gp = ['set terminal png size 1000,%d noenhanced' % (170 * len(present) + 80),
          "set output 'queue_%s.png'" % scen,
          'set multiplot layout %d,1 title "%s: bottleneck queue r2d1 '
          '(%g Mbit/s, buffer %s B), repetition 1"' % (
              len(present), scen, env.rate_bps / 1e6, env.raw.get('buffer_bytes', '?')),
          'set xrange [0:%g]' % dur, 'set yrange [0:%g]' % (ymax * 1.05),
          'set ylabel "backlog (KB)"', 'set grid', 'set key outside right top',
          'set lmargin at screen 0.08', 'set rmargin at screen 0.85']
    for i, cc in enumerate(present):
        if i == len(present) - 1:
            gp.append('set xlabel "time (s)"')
        gp.append("plot 'queue_%s_%s.dat' using 1:2 with lines lw 1 title '%s'" % (
            scen, cc, cc))
    gp.append('unset multiplot')
    return gp


def tput_plot(pdir, scen, present, data, env):
    """Per-flow throughput (long, stagger, incast's long flow), one panel
    per CC: the .dat files and the gnuplot script's lines."""
    rate = env.rate_bps
    dur = max(data[(scen, cc, 1)]['duration'] for cc in present)
    gp = ['set terminal png size 1000,%d noenhanced' % (170 * len(present) + 80),
          "set output 'tput_%s.png'" % scen,
          'set multiplot layout %d,1 title "%s: per-flow goodput (TCP_INFO '
          'bytes acked), repetition 1"' % (len(present), scen),
          'set xrange [0:%g]' % dur, 'set yrange [0:%g]' % (rate / 1e6 * 1.1),
          'set ylabel "Mbit/s"', 'set grid', 'set key outside right top',
          'set lmargin at screen 0.08', 'set rmargin at screen 0.85']
    for i, cc in enumerate(present):
        series = flow_series(data[(scen, cc, 1)]['samples'])
        plots = []
        for tag in sorted(series):
            # 4-sample (about 200 ms) averages: TCG makes single
            # 50 ms intervals jumpy
            s = series[tag][::4] + ([series[tag][-1]] if len(series[tag]) % 4 != 1 else [])
            dat = 'tput_%s_%s_%s.dat' % (scen, cc, tag)
            write_dat(os.path.join(pdir, dat), throughput_series(s))
            plots.append("'%s' using 1:2 with lines lw 2 title '%s %s'" % (
                dat, cc, tag))
        if i == len(present) - 1:
            gp.append('set xlabel "time (s)"')
        gp.append('plot ' + ', '.join(plots) if plots else
                  'plot 0 notitle')
    gp.append('unset multiplot')
    return gp


def slowdown_plot(pdir, pooled, env, ccs):
    """FCT slowdown by size bucket (websearch), p50 and p99, log scale:
    the .dat files and the gnuplot script's lines."""
    rows = slowdown_table(pooled, ccs)
    names = [b[2] for b in BUCKETS]
    for cc in ccs:
        r = [x for x in rows if x[0] == cc and x[1] in names]
        write_dat(os.path.join(pdir, 'slowdown_%s.dat' % cc),
                  [(i, x[1], x[2], x[3] or 'NaN', x[4] or 'NaN', x[5] or 'NaN')
                   for i, x in enumerate(r)])
    gp = ['set terminal png size 1000,450 noenhanced', "set output 'slowdown.png'",
          'set multiplot layout 1,2 title "websearch: FCT slowdown by flow size '
          '(load %s, pooled over repetitions)"' % env.raw.get('ws_load', '?'),
          'set datafile missing "NaN"',
          'set logscale y', 'set grid', 'set xrange [-0.5:%g]' % (len(names) - 0.5),
          'set xtics (%s)' % ', '.join('"%s" %d' % (n, i) for i, n in enumerate(names)),
          'set xlabel "flow size"', 'set key top left']
    for col, title in ((4, 'p50'), (6, 'p99')):
        gp.append('set ylabel "%s slowdown (FCT / ideal)"' % title)
        gp.append('set title "%s"' % title)
        gp.append('plot ' + ', '.join(
            "'slowdown_%s.dat' using 1:%d with linespoints lw 2 pt 7 title '%s'" % (
                cc, col, cc) for cc in ccs))
    gp.append('unset multiplot')
    return gp


def run_gnuplot(pdir, scripts):
    """Each (name, lines) script written to PDIR and run by gnuplot if
    present; returns the PNGs made."""
    made = []
    gnuplot = shutil.which('gnuplot')
    for name, lines in scripts:
        path = os.path.join(pdir, name + '.gp')
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        if gnuplot:
            r = subprocess.run([gnuplot, name + '.gp'], cwd=pdir,
                               capture_output=True, text=True)
            if r.returncode == 0 and os.path.exists(os.path.join(pdir, name + '.png')):
                made.append(os.path.join(pdir, name + '.png'))
            else:
                print('analyze: gnuplot %s.gp failed: %s' % (name, r.stderr.strip()[-300:]),
                      file=sys.stderr)
    if not gnuplot:
        print('analyze: gnuplot not installed: scripts in %s, no PNGs' % pdir,
              file=sys.stderr)
    return made


def make_plots(outdir, data, env, ccs, pooled):
    """Write gnuplot data and scripts; run gnuplot if present. Returns the
    list of PNGs made (empty without gnuplot)."""
    pdir = os.path.join(outdir, 'plots')
    os.makedirs(pdir, exist_ok=True)
    scripts = []
    for scen in SCEN_ORDER:
        present = [cc for cc in ccs if (scen, cc, 1) in data]
        if not present:
            continue
        scripts.append(('queue_%s' % scen, queue_plot(pdir, scen, present, data, env)))
        if scen in ('long', 'stagger', 'incast'):
            scripts.append(('tput_%s' % scen, tput_plot(pdir, scen, present, data, env)))
    if pooled:
        scripts.append(('slowdown', slowdown_plot(pdir, pooled, env, ccs)))
    return run_gnuplot(pdir, scripts)


# ---- report -------------------------------------------------------------------------

# The environment the report lists (env.csv's keys).
ENV_KEYS = ('kernel', 'cpus', 'rate_mbit', 'netem_delay_ms', 'base_rtt_ms',
            'buffer_bytes', 'ecn_k_bytes', 'tbf_burst', 'sample_ms', 'tcpinfo_ms', 'reps',
            'long_dur', 'incast_dur', 'incast_bursts', 'incast_flows', 'stagger_dur', 'ws_dur',
            'ws_drain', 'ws_load', 'many_flows', 'many_dur', 'rttf_dur', 'rttf_delay_ms', 'rttf_hpcc',
            'hpcc_net', 'park_dur', 'vs_dur', 'jitter_pct', 'seed', 'telemetry', 'hpcc_params')


def markdown_warnings(e, hpcc):
    """The report's opening warnings: hpcc without telemetry, and what did
    not run as asked."""
    out = []
    if hpcc == 'hpcc-notel':
        out += ['**hpcc ran WITHOUT telemetry** (%s): the hpcc numbers are its '
                'loss-based (Reno) fallback, not HPCC++. The targets below are '
                'reported for that fallback and say nothing about HPCC++.' %
                (e.get('telemetry_why') or 'telemetry unavailable'), '']
    missing = not_as_asked(e)
    if missing:
        out += ['**Not run as asked** (the numbers below lack these):', '']
        out += ['- %s' % w for w in missing] + ['']
    return out


def bench_markdown(env, agg, table, sd_rows, tgts, hpcc, runs_csv, outdir,
                   per_run_metrics, host, sweep_labels=(), evidence=(), itgts=()):
    e = env.raw
    out = ['# Benchmark results', '',
           'Written by `make bench` (`scripts/demo.sh --long`, analysis by '
           '`demo/analyze.py`); raw data and plots in `%s`.' % outdir, '']
    out += markdown_warnings(e, hpcc)
    out += ['## Environment', '',
            '| | |', '|---|---|']
    for k, v in host:
        out.append('| %s | %s |' % (k, v))
    for k in ENV_KEYS:
        out.append('| %s | %s |' % (k, e.get(k, '')))
    out += ['', 'Topology: s1..s3 -> r1 -> r2 -> d1,d2 (network namespaces in a '
            'qemu TCG VM, Debian 6.1 kernel); bottlenecks r2->d1, r2->d2: tbf at '
            'rate_mbit with a drop-tail bfifo of buffer_bytes, or, for dctcp, RED '
            'marking ECN above ecn_k_bytes (tcp_ecn=1 on the hosts); netem on r1 '
            'towards the senders gives the base RTT. Under TCG the emulator adds '
            'ms-scale jitter: compare CCs run side by side, not with hardware.', '',
            '## Issue 4 targets (the first bench)', '',
            'Each target is computed from the means over repetitions; met/missed is '
            'reported, never asserted. The incast\'s 0.5 of dctcp\'s FCT p99 lies '
            'below the physical floor of this link ("below the floor"; the evidence '
            'below); issue 11\'s target 1 replaced it.', '',
            '| target | value | threshold | verdict |', '|---|---|---|---|']
    for name, v, thr, met in tgts:
        out.append('| %s | %s | %s | %s |' % (
            name, '-' if v is None else '%.3f' % v, thr, verdict_text(met)))
    if evidence:
        out += ['', 'What this run measured that bears on each of these targets '
                'not met; the analysis of causes is in '
                'Documentation/experiments.rst.', '']
        for name, ev in evidence:
            out += ['* **%s.** %s' % (name, ev)]
    out += issue_targets_section(itgts, env) if itgts else []
    if sweep_labels:
        n = max(sum(1 for (sc, lab, _) in per_run_metrics if sc == SWEEP and lab == label)
                for label in sweep_labels)
        out += ['', '## Sensitivity sweep', '',
                'hpcc alone in the long scenario (3 flows), once per setting; every '
                'other parameter at its default (`hpcc_params` above). Mean '
                '[min-max] over %d repetitions. How to choose the parameters: '
                'Documentation/tcp_hpcc.rst, "Choosing the parameters".' % n]
        out += ['', '| setting | ' + ' | '.join(h for _, h, _ in SWEEP_COLS) + ' |',
                '|---|' + '---|' * len(SWEEP_COLS)]
        for lab in sweep_labels:
            out.append('| %s | %s |' % (lab[len('hpcc.'):], ' | '.join(
                fmt_cell(agg.get((SWEEP, lab, k)), f) for k, _, f in SWEEP_COLS)))
    out += ['', '## Summary (mean [min-max] over repetitions)', '', '```', table.strip('\n'),
            '```', '', '## FCT slowdown by flow size (websearch, pooled)', '',
            '| cc | bucket | n | p50 | p95 | p99 |', '|---|---|---|---|---|---|']
    for cc, b, n, p50, p95, p99 in sd_rows:
        f = lambda x: '-' if x is None else '%.2f' % x
        out.append('| %s | %s | %d | %s | %s | %s |' % (cc, b, n, f(p50), f(p95), f(p99)))
    out += ['', '## Raw numbers: every run', '',
            'One row per run (repetitions in the order they ran); the summary '
            'above is their mean [min-max]. Also in runs_metrics.csv.', '']
    for scen in SCEN_ORDER + [SWEEP]:
        runs = [(cc, rep, m) for (sc, cc, rep), m in sorted(per_run_metrics.items(),
                key=lambda x: (order_ccs([x[0][1]]), x[0][1], x[0][2])) if sc == scen]
        if not runs:
            continue
        keys = ([k for k, _, _ in SWEEP_COLS] if scen == SWEEP else
                [k for sc, k, _, _ in TABLE if sc == scen])
        out += ['### ' + scen, '', '| cc | rep | ' + ' | '.join(keys) + ' |',
                '|---|---|' + '---|' * len(keys)]
        for cc, rep, m in runs:
            out.append('| %s | %d | %s |' % (cc, rep, ' | '.join(
                '-' if m.get(k) is None else '%.4g' % m[k] for k in keys)))
        out.append('')
    out += ['Runs as the VM logged them (runs.csv):', '', '```',
            ','.join(runs_csv[0].keys()) if runs_csv else '']
    out += [','.join(r.values()) for r in runs_csv]
    out += ['```', '']
    return '\n'.join(out)


def host_info(outdir=None):
    """(key, value) facts about the machine that ran the VM (best effort).
    The revision is the one demo.sh recorded when the run started
    (OUTDIR/host.txt), else the checkout's now."""
    out = []
    run_rev = None
    try:
        with open(os.path.join(outdir, 'host.txt')) as f:
            run_rev = next((l.split(':', 1)[1].strip() for l in f
                            if l.startswith('git:')), None)
    except (OSError, TypeError):
        pass
    try:
        with open('/proc/cpuinfo') as f:
            model = next((l.split(':', 1)[1].strip() for l in f
                          if l.startswith('model name')), '?')
        out.append(('host cpu', '%s, %d cores' % (model, os.cpu_count() or 0)))
    except OSError:
        pass
    try:
        rev = run_rev or subprocess.run(['git', 'describe', '--always', '--dirty'],
                                        capture_output=True, text=True,
                                        timeout=10).stdout.strip()
        if rev:
            out.append(('git', rev))
    except (OSError, subprocess.SubprocessError):
        pass
    out.append(('vm', 'qemu, 2 vCPUs, TCG unless scripts/vm-run.sh found KVM usable'))
    return out


def write_raw(outdir, files):
    """Every extracted CSV as OUTDIR/raw/NAME."""
    for name, rows in files.items():
        path = os.path.join(outdir, 'raw', name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write('\n'.join(rows) + '\n')


def all_metrics(data, env):
    """Each run's metrics, by (scen, cc, rep) and listed by (scen, cc); the
    websearch slowdowns pooled by cc; repetitions by scenario and cc."""
    per_run, pooled, nreps, per_run_metrics = {}, {}, {}, {}
    for (scen, cc, rep), run in sorted(data.items()):
        m = run_metrics(scen, run, env)
        per_run_metrics[(scen, cc, rep)] = m
        per_run.setdefault((scen, cc), []).append(m)
        nreps.setdefault(scen, {})[cc] = nreps.get(scen, {}).get(cc, 0) + 1
        if scen == 'websearch':
            pooled.setdefault(cc, []).extend(run_slowdowns(run['flows'], env))
    return per_run, pooled, nreps, per_run_metrics


def write_csvs(outdir, agg, per_run_metrics, sd_rows):
    """summary.csv, runs_metrics.csv and slowdown.csv."""
    with open(os.path.join(outdir, 'summary.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['scenario', 'cc', 'metric', 'mean', 'min', 'max', 'sd', 'n_runs'])
        for (sc, cc, k), s in sorted(agg.items()):
            w.writerow([sc, cc, k] + ['%.6g' % s[x] for x in ('mean', 'min', 'max', 'sd')]
                       + [s['n']])
    with open(os.path.join(outdir, 'runs_metrics.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['scenario', 'cc', 'rep', 'metric', 'value'])
        for (sc, cc, rep), m in sorted(per_run_metrics.items()):
            for k, v in sorted(m.items()):
                w.writerow([sc, cc, rep, k, '' if v is None else '%.6g' % v])
    with open(os.path.join(outdir, 'slowdown.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['cc', 'bucket', 'n', 'p50', 'p95', 'p99'])
        for r in sd_rows:
            w.writerow(list(r[:3]) + ['' if x is None else '%.4g' % x for x in r[3:]])


def not_as_asked(envd):
    """What demo/scenarios.sh could not run as asked (env.csv's
    not_as_asked.N), in order."""
    keys = [k for k in envd if k.startswith('not_as_asked.')]
    return [envd[k] for k in sorted(keys, key=lambda k: int(k.split('.')[1]))]


def table_head(envd, ccs, runs):
    """The table's first lines, and which column is hpcc's (None if none)."""
    head = ['Demo: %s Mbit/s bottleneck, base RTT %s ms (netem %s ms), buffer %s B, '
            'ECN K %s B (dctcp only); kernel %s' % (
                envd.get('rate_mbit'), envd.get('base_rtt_ms'), envd.get('netem_delay_ms'),
                envd.get('buffer_bytes'), envd.get('ecn_k_bytes'), envd.get('kernel')),
            'Cells: mean [min-max] over repetitions. Percentiles: nearest rank.']
    # with --hpcc-settings the default setting's column stands for hpcc
    hpcc = next((c for c in ('hpcc', 'hpcc.default', 'hpcc-notel') if c in ccs), None)
    if hpcc == 'hpcc-notel':
        head.append('hpcc: telemetry unavailable (%s): the hpcc-notel column is '
                    "hpcc's Reno fallback, not HPCC++." % envd.get('telemetry_why', '?'))
    if hpcc in ('hpcc', 'hpcc.default'):
        blind = [r for r in runs if r['cc'] == hpcc and r.get('reports_used') in ('0', '')]
        if blind:
            head.append('WARNING: %d of %d hpcc runs used no telemetry report (%s): '
                        'those ran as loss-based fallback.' % (
                            len(blind), sum(r['cc'] == hpcc for r in runs),
                            ' '.join('%s/r%s' % (r['scenario'], r['rep']) for r in blind)))
    head += ['NOT AS ASKED: %s' % w for w in not_as_asked(envd)]
    if any(r['cc'] in ('bbr', 'hpcc') for r in runs):
        head.append('Paced CCs (bbr, hpcc) suffer most when the host is busy (TCG): '
                    'check the spread and emulator stalls.')
    return head, hpcc


def slowdown_text(sd_rows, ccs):
    """The table's websearch slowdown section."""
    text = '\n\n== websearch FCT slowdown by flow size (pooled; n p50 p95 p99)\n'
    text += ''.ljust(12) + ''.join(cc.rjust(26) for cc in ccs) + '\n'
    for _, _, name in BUCKETS + [(0, 0, '<100K')]:
        cells = []
        for cc in ccs:
            r = [x for x in sd_rows if x[0] == cc and x[1] == name][0]
            cells.append(('%d %s' % (r[2], ' '.join('-' if x is None else '%.1f' % x
                                                    for x in r[3:]))).rjust(26))
        text += name.ljust(12) + ''.join(cells) + '\n'
    return text


def targets_text(tgts, evidence, hpcc):
    """The table's targets section."""
    text = ('\n\n== issue 4 targets (%s against the others; reported, not asserted)\n'
            % hpcc)
    verdicts = {}
    for name, v, thr, met in tgts:
        verdicts[name] = verdict_text(met, 'MISSED')
        text += '%-66s %8s  %-7s %s\n' % (
            name, '-' if v is None else '%.3f' % v, thr, verdicts[name])
    for name, ev in evidence:
        text += '%s %s: %s\n' % (verdicts.get(name, 'MISSED').upper(), name, ev)
    return text


def main(argv):
    args = [a for a in argv[1:] if not a.startswith('--')]
    plots = '--no-plots' not in argv
    bench_md = None
    if '--bench-md' in argv:
        bench_md = argv[argv.index('--bench-md') + 1]
        args.remove(bench_md)
    if len(args) != 2:
        print(__doc__.split('\n\n')[0] + '\n\nusage: analyze.py CONSOLE_LOG OUTDIR '
              '[--no-plots] [--bench-md PATH]', file=sys.stderr)
        return 2
    log, outdir = args
    with open(log, errors='replace') as f:
        files, bad = extract_csv(f)
    if bad:
        print('analyze: %d malformed @@csv lines skipped' % bad, file=sys.stderr)
    if 'runs.csv' not in files:
        print('analyze: no runs in %s' % log, file=sys.stderr)
        return 1
    write_raw(outdir, files)

    envd, runs, data = load(files)
    env = Env(envd)
    per_run, pooled, nreps, per_run_metrics = all_metrics(data, env)
    agg = aggregate(per_run)
    ccs = order_ccs({cc for (sc, cc) in per_run if sc != SWEEP})
    scens = [s for s in SCEN_ORDER if s in nreps]
    sweep_labels = []		# in the order they ran
    for r in runs:
        if r['scenario'] == SWEEP and r['cc'] not in sweep_labels:
            sweep_labels.append(r['cc'])
    sd_rows = slowdown_table(pooled, ccs) if pooled else []
    write_csvs(outdir, agg, per_run_metrics, sd_rows)

    head, hpcc = table_head(envd, ccs, runs)
    table = '\n'.join(head) + '\n' + format_table(agg, ccs, scens, nreps)
    if sd_rows:
        table += slowdown_text(sd_rows, ccs)
    if sweep_labels:
        table += ('\n\n== sensitivity sweep: hpcc, long scenario, one parameter changed '
                  '(repetitions: %d)\n' % max(nreps[SWEEP].values()))
        table += format_sweep(agg, sweep_labels) + '\n'
    tgts = targets(agg, hpcc) if hpcc else []
    evidence = miss_evidence(tgts, agg, hpcc, sweep_labels, env) if tgts else []
    if tgts:
        table += targets_text(tgts, evidence, hpcc)
    itgts = issue_targets(per_run_metrics, hpcc) if hpcc else []
    if itgts:
        table += issue_targets_text(itgts)
    with open(os.path.join(outdir, 'table.txt'), 'w') as f:
        f.write(table + '\n')
    print(table)

    if plots:
        made = make_plots(outdir, data, env, ccs, pooled)
        if made:
            print('\nplots: ' + ' '.join(os.path.relpath(p, outdir) for p in made))
    if bench_md:
        md = bench_markdown(env, agg, table, sd_rows, tgts, hpcc, runs, outdir,
                            per_run_metrics, host_info(outdir), sweep_labels, evidence,
                            itgts)
        with open(bench_md, 'w') as f:
            f.write(md)
        print('wrote ' + bench_md)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
