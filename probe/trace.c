// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - `hpcc-probe trace DEST[:PORT]`: an INT traceroute.
 *
 * One probe, exactly as tcp_hpcc.ko sends them (a TCP segment without
 * control flags, the probe DSCP, struct hpcc_probe as payload, valid TCP
 * checksum), leaves through a raw socket, so every hpcc_switch egress on
 * the way stamps it and the receiver's hpcc_host turns it around.
 *
 * The response is read from an AF_PACKET socket: packet taps (ptype_all)
 * see a frame in __netif_receive_skb_core before tc ingress, so we get
 * it even when our own hpcc_host drops it after handing it to the module.
 * That only holds for ETH_P_ALL sockets: a socket bound to ETH_P_IP sits
 * in ptype_base, which is served after tc ingress.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>

#include "hpcc_wire.h"
#include "probe.h"

#define DEFAULT_PORT	80
#define TTL		64

union addr {
	struct in_addr v4;
	struct in6_addr v6;
};

/* The probe: IP header, TCP header, struct hpcc_probe. */
#define PKT_MAX	(sizeof(struct ipv6hdr) + sizeof(struct tcphdr) + \
		 sizeof(struct hpcc_probe))

static const char *trace_usage =
	"Usage: " PROG " [-n NETNS] trace DEST[:PORT] [--timeout SEC] "
	"[--sport N] [--dev DEV]\n"
	"                  [--probe-dscp N] [--response-dscp N] [--json]\n"
	"\n"
	"Send one HPCC probe to DEST (an IPv4 or IPv6 literal; [v6]:PORT with a\n"
	"port) and print the hops its response reports. The probe is a TCP\n"
	"segment DEST:PORT (default 80) <- our address:SPORT (default random),\n"
	"so it follows the ECMP path of that 5-tuple. DEST needs hpcc_host on\n"
	"its ingress; no module is needed anywhere.\n"
	"  --timeout SEC   wait this long for the response (default 1)\n"
	"  --sport N       source port (default: random 32768..60999)\n"
	"  --dev DEV       send and listen on DEV only\n"
	"  --json          one JSON object instead of the table\n";

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static __u32 rnd32(void)
{
	__u32 v;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (__u32)now_ns() ^ ((__u32)getpid() << 16);
	return v;
}

/* One's complement sum, big-endian words. */
static __u32 csum_add(__u32 sum, const void *data, size_t len)
{
	const __u8 *p = data;

	while (len > 1) {
		sum += (p[0] << 8) | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		sum += p[0] << 8;
	return sum;
}

static __u16 csum_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* TCP checksum (host order) over pseudo-header + @seg; with the
 * checksum field filled in, a valid segment gives 0.
 */
static __u16 tcp_csum(int family, const union addr *src,
		      const union addr *dst, const void *seg, __u32 len)
{
	__u32 sum = 0;
	__u8 ph[4];

	if (family == AF_INET) {
		sum = csum_add(sum, &src->v4, 4);
		sum = csum_add(sum, &dst->v4, 4);
		ph[0] = 0;
		ph[1] = IPPROTO_TCP;
		ph[2] = len >> 8;
		ph[3] = len;
		sum = csum_add(sum, ph, 4);
	} else {
		__u32 l = htonl(len);

		sum = csum_add(sum, &src->v6, 16);
		sum = csum_add(sum, &dst->v6, 16);
		sum = csum_add(sum, &l, 4);
		ph[0] = ph[1] = ph[2] = 0;
		ph[3] = IPPROTO_TCP;
		sum = csum_add(sum, ph, 4);
	}
	sum = csum_add(sum, seg, len);
	return csum_fold(sum);
}

static void parse_dest(const char *arg, int *family, union addr *a,
		       __u16 *port)
{
	char buf[128], *host = buf, *ps = NULL, *p;
	__u32 v;

	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	if (buf[0] == '[') {
		p = strchr(buf, ']');
		if (!p)
			goto bad;
		*p++ = 0;
		host = buf + 1;
		if (*p == ':')
			ps = p + 1;
		else if (*p)
			goto bad;
	} else if ((p = strchr(buf, ':')) && !strchr(p + 1, ':')) {
		*p = 0;		/* exactly one colon: IPv4:PORT */
		ps = p + 1;
	}
	if (inet_pton(AF_INET, host, &a->v4) == 1)
		*family = AF_INET;
	else if (inet_pton(AF_INET6, host, &a->v6) == 1)
		*family = AF_INET6;
	else
		goto bad;
	if (ps) {
		unsigned long l;
		char *end;

		if (!*ps || *ps == '-' || *ps == '+')
			goto bad;
		l = strtoul(ps, &end, 10);
		if (*end || !l || l > 65535)
			goto bad;
		v = l;
		*port = v;
	}
	return;
bad:
	usage_err("trace ", "bad destination '%s': expected an IPv4 or IPv6 "
		  "literal with an optional port (10.0.0.2, 10.0.0.2:5201, "
		  "fd00::2, [fd00::2]:5201)", arg);
}

/* Classic BPF: only TCP from DEST's @dport to our @sport reaches us. The
 * socket is SOCK_DGRAM, so offsets start at the network header.
 */
static int attach_filter(int fd, int family, __u16 dport, __u16 sport)
{
	struct sock_filter f4[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, SKF_AD_OFF + SKF_AD_PROTOCOL),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 10),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 8),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 6, 0),
		BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, dport, 0, 3),
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sport, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter f6[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, SKF_AD_OFF + SKF_AD_PROTOCOL),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 0, 7),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 5),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 40),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, dport, 0, 3),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 42),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sport, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog;

	if (family == AF_INET) {
		prog.len = sizeof(f4) / sizeof(f4[0]);
		prog.filter = f4;
	} else {
		prog.len = sizeof(f6) / sizeof(f6[0]);
		prog.filter = f6;
	}
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
			  sizeof(prog));
}

struct result {
	struct hpcc_probe p;
	__u64 rtt_ns;
	int ifindex;
	int dscp;
	bool csum_ok;
};

/* Is @pkt (from the network header, @n bytes) the answer to our probe?
 * 1: the response, 2: a TCP RST from the receiver, 0: something else.
 */
static int match(const __u8 *pkt, size_t n, __u16 proto, int family,
		 const union addr *src, const union addr *dst, __u16 dport,
		 __u16 sport, __u32 nonce, struct result *r)
{
	const struct tcphdr *th;
	const __u8 *seg;
	__u32 l3len, hl, seglen, thl;
	union addr s, d;

	if (family == AF_INET) {
		const struct iphdr *ip = (const void *)pkt;

		if (proto != ETH_P_IP || n < sizeof(*ip) || ip->version != 4 ||
		    ip->protocol != IPPROTO_TCP)
			return 0;
		hl = ip->ihl * 4;
		l3len = ntohs(ip->tot_len);
		if (hl < sizeof(*ip) || l3len < hl || l3len > n)
			return 0;
		memcpy(&s.v4, &ip->saddr, 4);
		memcpy(&d.v4, &ip->daddr, 4);
		if (memcmp(&s.v4, &dst->v4, 4) || memcmp(&d.v4, &src->v4, 4))
			return 0;
		r->dscp = ip->tos >> 2;
	} else {
		const struct ipv6hdr *ip = (const void *)pkt;

		if (proto != ETH_P_IPV6 || n < sizeof(*ip) || ip->version != 6 ||
		    ip->nexthdr != IPPROTO_TCP)
			return 0;
		hl = sizeof(*ip);
		l3len = hl + ntohs(ip->payload_len);
		if (l3len > n)
			return 0;
		memcpy(&s.v6, &ip->saddr, 16);
		memcpy(&d.v6, &ip->daddr, 16);
		if (memcmp(&s.v6, &dst->v6, 16) || memcmp(&d.v6, &src->v6, 16))
			return 0;
		r->dscp = (ip->priority << 4 | ip->flow_lbl[0] >> 4) >> 2;
	}
	seg = pkt + hl;
	seglen = l3len - hl;
	th = (const void *)seg;
	if (seglen < sizeof(*th) || ntohs(th->source) != dport ||
	    ntohs(th->dest) != sport)
		return 0;
	if (th->rst)
		return 2;
	thl = th->doff * 4;
	/* flags: everything in the 14th byte */
	if (thl < sizeof(*th) || thl > seglen || seg[13] ||
	    seglen - thl != HPCC_PROBE_LEN)
		return 0;
	memcpy(&r->p, seg + thl, sizeof(r->p));
	if (hpcc_wire_check(&r->p.hdr, seglen - thl) ||
	    !(r->p.hdr.flags & HPCC_F_RESPONSE) ||
	    ntohl(r->p.hdr.nonce) != nonce)
		return 0;
	r->csum_ok = tcp_csum(family, &s, &d, seg, seglen) == 0;
	return 1;
}

static void print_result(const struct result *r, int family,
			 const union addr *src, const union addr *dst,
			 __u16 dport, __u16 sport, int probe_dscp,
			 int resp_dscp, __u32 nonce, bool json)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], dev[IF_NAMESIZE] = "?";
	char b1[32], b2[32];
	const struct hpcc_hdr *h = &r->p.hdr;
	unsigned int i, n = h->nhops;
	long long delta;

	inet_ntop(family, src, s, sizeof(s));
	inet_ntop(family, dst, d, sizeof(d));
	if_indextoname(r->ifindex, dev);
	if (json) {
		printf("{\"dest\":\"%s\",\"port\":%u,\"source\":\"%s\","
		       "\"sport\":%u,\"probe_dscp\":%d,\"response_dscp\":%d,"
		       "\"nonce\":%u,\"rtt_ns\":%llu,\"dev\":\"%s\","
		       "\"nhops\":%u,\"overflow\":%s,\"checksum_ok\":%s,"
		       "\"hops\":[", d, dport, s, sport, probe_dscp, r->dscp,
		       nonce, (unsigned long long)r->rtt_ns, dev, n,
		       h->flags & HPCC_F_OVERFLOW ? "true" : "false",
		       r->csum_ok ? "true" : "false");
		for (i = 0; i < n; i++) {
			const struct hpcc_hop *o = &r->p.hop[i];

			printf("%s{\"hop\":%u,\"switch_id\":%u,\"port_id\":%u,"
			       "\"rate_mbps\":%u,\"qlen\":%u,\"tx_bytes\":%llu,"
			       "\"ts_ns\":%llu,\"delta_ns\":", i ? "," : "",
			       i + 1, ntohl(o->switch_id), ntohl(o->port_id),
			       ntohl(o->rate_mbps), ntohl(o->qlen),
			       (unsigned long long)be64toh(o->tx_bytes),
			       (unsigned long long)be64toh(o->ts_ns));
			if (i)
				printf("%lld}", (long long)(be64toh(o->ts_ns) -
					be64toh(r->p.hop[i - 1].ts_ns)));
			else
				printf("null}");
		}
		printf("]}\n");
		return;
	}
	printf("trace %s%s%s:%u from %s%s%s:%u, probe_dscp %d, nonce 0x%08x\n",
	       family == AF_INET6 ? "[" : "", d, family == AF_INET6 ? "]" : "",
	       dport, family == AF_INET6 ? "[" : "", s,
	       family == AF_INET6 ? "]" : "", sport, probe_dscp, nonce);
	printf("response on %s after %s: %u hop%s, overflow %s, "
	       "response_dscp %d, tcp checksum %s\n", dev,
	       fmt_ns(r->rtt_ns, b1, sizeof(b1)), n, n == 1 ? "" : "s",
	       h->flags & HPCC_F_OVERFLOW ? "YES (more hops than room)" : "no",
	       r->dscp, r->csum_ok ? "ok" : "BAD");
	if (r->dscp != resp_dscp)
		warnmsg("the response carries DSCP %d, expected %d: the "
			"receiver's hpcc_host uses other DSCPs", r->dscp,
			resp_dscp);
	if (!r->csum_ok)
		warnmsg("the response's TCP checksum is wrong: a rewrite on "
			"the path did not fix it up");
	if (!n) {
		printf("no hop stamped (no hpcc_switch on the path, none "
		       "configured for the egress ports taken, or other "
		       "DSCPs)\n");
		return;
	}
	printf("%-4s %12s %10s %12s %12s %20s %12s\n", "hop", "switch_id",
	       "port", "capacity", "queue_bytes", "tx_bytes", "delta");
	for (i = 0; i < n; i++) {
		const struct hpcc_hop *o = &r->p.hop[i];
		__u32 rate = ntohl(o->rate_mbps);

		/* Two words either way: scripts split the table on blanks. */
		if (rate)
			fmt_rate_bps(rate * 1e6, b1, sizeof(b1));
		else
			snprintf(b1, sizeof(b1), "0 (unknown)");
		if (i) {
			delta = be64toh(o->ts_ns) -
				be64toh(r->p.hop[i - 1].ts_ns);
			fmt_ns(delta, b2, sizeof(b2));
		} else {
			snprintf(b2, sizeof(b2), "-");
		}
		printf("%-4u %12u %10u %12s %12u %20llu %12s\n", i + 1,
		       ntohl(o->switch_id), ntohl(o->port_id), b1,
		       ntohl(o->qlen), (unsigned long long)be64toh(o->tx_bytes),
		       b2);
	}
}

int cmd_trace(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "sport", required_argument, NULL, 's' },
		{ "dev", required_argument, NULL, 'd' },
		{ "probe-dscp", required_argument, NULL, 'p' },
		{ "response-dscp", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int family = 0, c, probe = -1, resp = -1, ifindex = 0, us, ps, raw;
	struct sockaddr_storage ss = {};
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	socklen_t sl = sizeof(ss);
	const char *dev = NULL;
	double timeout = 1.;
	bool json = false;
	union addr src = {}, dst = {};
	__u16 dport = DEFAULT_PORT, sport = 0;
	__u8 pkt[PKT_MAX] __attribute__((aligned(8))) = {};
	struct hpcc_probe p = {};
	struct tcphdr *th;
	size_t hl;
	struct result r = {};
	__u32 nonce, one = 1;
	__u64 t0, deadline;
	size_t len;
	char *end;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			timeout = strtod(optarg, &end);
			if (*end || !(timeout > 0) || timeout > 3600)
				usage_err("trace ", "bad timeout '%s': expected "
					  "seconds, 0 < SEC <= 3600", optarg);
			break;
		case 's': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !*optarg || *optarg == '-' || !v ||
			    v > 65535)
				usage_err("trace ", "bad source port '%s': "
					  "expected 1..65535", optarg);
			sport = v;
			break;
		}
		case 'd':
			dev = optarg;
			check_ifname("trace ", dev);
			break;
		case 'p': probe = parse_dscp("--probe-dscp", optarg); break;
		case 'r': resp = parse_dscp("--response-dscp", optarg); break;
		case 'j': json = true; break;
		case 'h': fputs(trace_usage, stdout); return 0;
		default: usage_err("trace ", "bad option");
		}
	}
	if (optind + 1 != argc)
		usage_err("trace ", "trace takes one destination");
	parse_dest(argv[optind], &family, &dst, &dport);
	need_raw_caps();
	if (dev) {
		ifindex = if_nametoindex(dev);
		if (!ifindex)
			die("unknown device '%s'", dev);
	}
	dscp_defaults(&probe, &resp, "trace");
	check_dscps(probe, resp, "trace ");
	if (!sport)
		sport = 32768 + rnd32() % (61000 - 32768);
	nonce = rnd32();
	if (!nonce)
		nonce = 1;

	/* Our address towards DEST: what a connected UDP socket picks. */
	us = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (us < 0)
		die("socket: %s", strerror(errno));
	if (dev && setsockopt(us, SOL_SOCKET, SO_BINDTODEVICE, dev,
			      strlen(dev) + 1))
		die("cannot bind to %s: %s", dev, strerror(errno));
	if (family == AF_INET) {
		struct sockaddr_in *a = (void *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(dport);
		a->sin_addr = dst.v4;
	} else {
		struct sockaddr_in6 *a = (void *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(dport);
		a->sin6_addr = dst.v6;
	}
	if (connect(us, (void *)&ss, family == AF_INET ?
		    sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)))
		die("no route to %s: %s", argv[optind], strerror(errno));
	{
		struct sockaddr_storage me;

		sl = sizeof(me);
		if (getsockname(us, (void *)&me, &sl))
			die("getsockname: %s", strerror(errno));
		if (family == AF_INET)
			src.v4 = ((struct sockaddr_in *)&me)->sin_addr;
		else
			src.v6 = ((struct sockaddr_in6 *)&me)->sin6_addr;
	}
	close(us);

	/* The listener first: protocol 0 receives nothing until bind, by
	 * which time the filter is in place.
	 */
	ps = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ps < 0)
		die("packet socket: %s", strerror(errno));
	if (attach_filter(ps, family, dport, sport))
		die("cannot attach the socket filter: %s", strerror(errno));
	setsockopt(ps, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = ifindex;
	if (bind(ps, (void *)&sll, sizeof(sll)))
		die("cannot bind the packet socket: %s", strerror(errno));

	/* The probe. */
	raw = socket(family, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (raw < 0)
		die("raw socket: %s", strerror(errno));
	if (dev && setsockopt(raw, SOL_SOCKET, SO_BINDTODEVICE, dev,
			      strlen(dev) + 1))
		die("cannot bind to %s: %s", dev, strerror(errno));
	hl = family == AF_INET ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	len = hl + sizeof(*th) + sizeof(p);
	if (family == AF_INET) {
		struct iphdr *ip = (void *)pkt;

		ip->version = 4;
		ip->ihl = 5;
		ip->tos = probe << 2;
		ip->tot_len = htons(len);
		ip->id = htons(rnd32());
		ip->frag_off = htons(0x4000);	/* DF */
		ip->ttl = TTL;
		ip->protocol = IPPROTO_TCP;
		ip->saddr = src.v4.s_addr;
		ip->daddr = dst.v4.s_addr;
		ip->check = htons(csum_fold(csum_add(0, ip, sizeof(*ip))));
	} else {
		struct ipv6hdr *ip = (void *)pkt;
		__u32 vtc = htonl(6U << 28 | (__u32)(probe << 2) << 20);

		memcpy(ip, &vtc, sizeof(vtc));
		ip->payload_len = htons(len - sizeof(*ip));
		ip->nexthdr = IPPROTO_TCP;
		ip->hop_limit = TTL;
		ip->saddr = src.v6;
		ip->daddr = dst.v6;
	}
	th = (void *)(pkt + hl);
	th->source = htons(sport);
	th->dest = htons(dport);
	th->seq = htonl(rnd32());
	th->doff = sizeof(*th) / 4;	/* and no flag at all */
	p.hdr.version = HPCC_WIRE_VERSION;
	p.hdr.room = HPCC_MAX_HOPS;
	p.hdr.nonce = htonl(nonce);
	t0 = now_ns();
	p.hdr.send_ns = htobe64(t0);
	memcpy(pkt + hl + sizeof(*th), &p, sizeof(p));
	th->check = htons(tcp_csum(family, &src, &dst, th,
				   sizeof(*th) + sizeof(p)));
	/* Raw IPv6 sockets take the port as the protocol number. */
	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	if (sendto(raw, pkt, len, 0, (void *)&ss, family == AF_INET ?
		   sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)) < 0)
		die("cannot send the probe to %s: %s", argv[optind],
		    strerror(errno));
	close(raw);

	deadline = t0 + (__u64)(timeout * 1e9);
	for (;;) {
		__u8 buf[2048];
		struct pollfd pfd = { .fd = ps, .events = POLLIN };
		__u64 now = now_ns();
		ssize_t n;
		int m;

		if (now >= deadline)
			die("no response from %s within %g s (is hpcc_host "
			    "attached on the receiver's ingress? a firewall? "
			    "is the return path through a device we can "
			    "see?)", argv[optind], timeout);
		us = (deadline - now + 999999) / 1000000;
		if (poll(&pfd, 1, us) <= 0)
			continue;
		sl = sizeof(sll);
		n = recvfrom(ps, buf, sizeof(buf), MSG_DONTWAIT, (void *)&sll,
			     &sl);
		if (n <= 0 || sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		m = match(buf, n, ntohs(sll.sll_protocol), family, &src, &dst,
			  dport, sport, nonce, &r);
		if (m == 2)
			die("%s answered the probe with a TCP RST: it reached "
			    "the receiver's TCP stack, so no hpcc_host with "
			    "probe DSCP %d runs on the receiver's ingress",
			    argv[optind], probe);
		if (m == 1) {
			r.rtt_ns = now_ns() - t0;
			r.ifindex = sll.sll_ifindex;
			break;
		}
	}
	close(ps);
	print_result(&r, family, &src, &dst, dport, sport, probe, resp, nonce,
		     json);
	return 0;
}
