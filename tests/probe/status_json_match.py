#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare `hpcc-probe status --json` with `hpcc-probe status`, taken just
before it: every host, switch instance and port of one appears in the
other with the same values (ids, DSCPs, reflection limit, raw IP, rate,
root qdisc, filter states, counters, the module). Counters may only have
grown since the text was taken; queue snapshots' numbers move and are
compared by state only.

    status_json_match.py TEXT-FILE JSON-FILE NETNS...

Only the named namespaces' objects are compared (other runs' pins may sit
beside them); each must have at least one host or switch instance.
Prints one line per difference; exit status 1 if there is one.
"""
import json
import re
import sys

STATE = {'attached': 'attached', 'GONE': 'gone', 'NOT': 'not_attached',
         'unknown': 'unknown'}
HOST = re.compile(r'^host (\S+) \[netns ([^\]]*)\]: prog id (\d+), '
                  r'probe_dscp (\d+), response_dscp (\d+), '
                  r'(?:reflect (?:unlimited|(\d+)/s burst (\d+)), )?'
                  r'(?:per peer (?:unlimited|(\d+)/s burst (\d+)), )?'
                  r'(raw IP, )?tc ingress (\S+)')
SWITCH = re.compile(r'^switch \[netns ([^\]]*)\]: prog id (\d+), '
                    r'qdisc tracing links (\d)/3')
PORT = re.compile(r'^  port (\S+) \(ifindex (\d+)\): switch_id (\d+), '
                  r'port_id (\d+), rate (\d+) Mbit/s, probe_dscp (\d+), '
                  r'response_dscp (\d+), (edge \(tc ingress (\S+).*?\), )?'
                  r'(?:anonymised, )?(raw IP, )?root qdisc (\S+), '
                  r'tc egress (\S+)')
COUNTER = re.compile(r'(\w+) +(\d+)')


def parse_text(text):
    """Hosts by (netns, dev), switches by netns, the module line."""
    hosts, switches, module = {}, {}, None
    cur = None
    for line in text.splitlines():
        m = HOST.match(line)
        if m:
            cur = {'ns': m[2], 'prog_id': int(m[3]),
                   'probe_dscp': int(m[4]), 'response_dscp': int(m[5]),
                   'reflect_rate': int(m[6]) if m[6] else
                   (0 if 'reflect unlimited' in line else None),
                   'peer_rate': int(m[8]) if m[8] else
                   (0 if 'per peer unlimited' in line else None),
                   'raw_ip': bool(m[10]),
                   'tc_ingress': STATE[m[11]], 'counters': {}}
            hosts[(m[2], m[1])] = cur
            continue
        m = SWITCH.match(line)
        if m:
            cur = {'prog_id': int(m[2]), 'links': int(m[3]), 'ports': {},
                   'counters': {}}
            switches[m[1]] = cur
            continue
        m = PORT.match(line)
        if m and cur is not None and 'ports' in cur:
            cur['ports'][int(m[2])] = {
                'dev': m[1], 'switch_id': int(m[3]), 'port_id': int(m[4]),
                'rate_mbps': int(m[5]), 'probe_dscp': int(m[6]),
                'response_dscp': int(m[7]), 'edge': bool(m[8]),
                'tc_ingress': STATE[m[9]] if m[9] else None,
                'raw_ip': bool(m[10]), 'root_qdisc': m[11],
                'tc_egress': STATE[m[12]]}
            continue
        if line.startswith('module tcp_hpcc: '):
            module = line
            cur = None
            continue
        if cur is not None and line.startswith('    ') and \
                'queue snapshot' not in line:
            for name, val in COUNTER.findall(line):
                cur['counters'][name] = int(val)
    return hosts, switches, module


def same(errs, what, key, txt, js):
    if txt != js:
        errs.append(f'{what}: {key}: text {txt!r}, json {js!r}')


def counters(errs, what, txt, js):
    if set(txt) != set(js):
        errs.append(f'{what}: counter names differ: '
                    f'{sorted(set(txt) ^ set(js))}')
    for name, val in txt.items():
        if not isinstance(js.get(name), int) or js[name] < val:
            errs.append(f'{what}: counter {name}: text {val}, '
                        f'json {js.get(name)!r}')


def check_host(errs, th, h):
    what = f"host {h['dev']} [netns {h['netns']['name']}]"
    if th is None:
        errs.append(f'{what}: not in the text output')
        return
    for k in ('prog_id', 'probe_dscp', 'response_dscp', 'raw_ip',
              'tc_ingress', 'reflect_rate', 'peer_rate'):
        same(errs, what, k, th[k], h[k])
    counters(errs, what, th['counters'], h['counters'])


def check_switch(errs, ts, s):
    what = f"switch [netns {s['netns']['name']}]"
    if ts is None:
        errs.append(f'{what}: not in the text output')
        return
    same(errs, what, 'prog_id', ts['prog_id'], s['prog_id'])
    same(errs, what, 'qdisc_tracing_links', ts['links'],
         s['qdisc_tracing_links'])
    same(errs, what, 'ports', sorted(ts['ports']),
         sorted(p['ifindex'] for p in s['ports']))
    for p in s['ports']:
        tp = ts['ports'].get(p['ifindex'])
        if tp is None:
            continue
        for k, v in tp.items():
            same(errs, f"{what} port {p['dev']}", k, v, p[k])
    counters(errs, what, ts['counters'], s['counters'])


def main():
    with open(sys.argv[1]) as f:
        hosts, switches, module = parse_text(f.read())
    with open(sys.argv[2]) as f:
        js = json.load(f)
    want = set(sys.argv[3:])
    hosts = {k: v for k, v in hosts.items() if k[0] in want}
    switches = {k: v for k, v in switches.items() if k in want}
    js['hosts'] = [h for h in js['hosts'] if h['netns']['name'] in want]
    js['switches'] = [s for s in js['switches']
                      if s['netns']['name'] in want]
    errs = []
    seen = {h['netns']['name'] for h in js['hosts']} | \
        {s['netns']['name'] for s in js['switches']}
    errs += [f'netns {n}: nothing in the JSON' for n in want - seen]
    for h in js['hosts']:
        check_host(errs, hosts.pop((h['netns']['name'], h['dev']), None), h)
    for s in js['switches']:
        check_switch(errs, switches.pop(s['netns']['name'], None), s)
    errs += [f'host {k[1]} [netns {k[0]}]: not in the JSON' for k in hosts]
    errs += [f'switch [netns {k}]: not in the JSON' for k in switches]
    mod = js['module']
    same(errs, 'module', 'loaded', module != 'module tcp_hpcc: not loaded',
         mod['loaded'])
    if not (js['hosts'] and js['switches']):
        errs.append('no host or no switch instance: nothing compared')
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
