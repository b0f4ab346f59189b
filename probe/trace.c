// SPDX-License-Identifier: GPL-2.0
/*
 * `hpcc-probe trace DEST[:PORT]`: an INT traceroute.
 *
 * One probe, exactly as tcp_hpcc.ko sends them (a TCP segment without
 * control flags, the probe DSCP, struct hpcc_probe as payload, valid TCP
 * checksum), leaves through a raw socket, so every hpcc_switch egress on
 * the way stamps it and the receiver's hpcc_host turns it around. The
 * receiver answers only the probes of its connections, so the probe
 * belongs to one: a TCP connection to DEST:PORT, opened first and reset
 * when the response is in.
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
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "probe.h"

#define DEFAULT_PORT	80

static const char *trace_usage =
	"Usage: " PROG " [-n NETNS] trace DEST[:PORT] [--timeout SEC] [--sport N] [--dev DEV]\n"
	"                  [--probe-dscp N] [--response-dscp N] [--json]\n"
	"\n"
	"Send one HPCC probe to DEST (an IPv4 or IPv6 literal; [v6]:PORT with a\n"
	"port) and print the hops its response reports. The probe belongs to a\n"
	"TCP connection to DEST:PORT (default 80) from our address:SPORT\n"
	"(default: the kernel's choice), opened for it: it follows the ECMP\n"
	"path of that 5-tuple, and DEST needs a listener on PORT, as hpcc_host\n"
	"answers only the probes of a connection. DEST needs hpcc_host on its\n"
	"ingress; no module is needed anywhere.\n"
	"  --timeout SEC   wait this long for the connection, and as long for\n"
	"                  the response (default 1)\n"
	"  --sport N       source port (default: an ephemeral port)\n"
	"  --dev DEV       send and listen on DEV only\n"
	"  --json          one JSON object instead of the table\n";

/* What `trace` was told and the probe it sends. */
struct trace {
	struct probe_tuple t;
	const char *dest;	/* as given */
	const char *dev;	/* --dev, or NULL */
	int ifindex;		/* its index, or 0 */
	int probe, resp;	/* DSCPs */
	double timeout;		/* seconds */
	bool json;
	__u32 nonce;
	__u64 sent_ns;
};

/* DEST[:PORT] (or [v6]:PORT) into @t's destination and port. */
static void parse_dest(const char *arg, struct probe_tuple *t)
{
	char buf[128], *host = buf, *ps = NULL, *p;
	unsigned long port;
	char *end;

	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	p = strchr(buf, ':');
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
	} else if (p && !strchr(p + 1, ':')) {
		*p = 0;		/* exactly one colon: IPv4:PORT */
		ps = p + 1;
	}
	if (inet_pton(AF_INET, host, &t->dst.v4) == 1)
		t->family = AF_INET;
	else if (inet_pton(AF_INET6, host, &t->dst.v6) == 1)
		t->family = AF_INET6;
	else
		goto bad;
	if (ps) {
		if (!*ps || *ps == '-' || *ps == '+')
			goto bad;
		port = strtoul(ps, &end, 10);
		if (*end || !port || port > 65535)
			goto bad;
		t->dport = port;
	}
	return;
bad:
	usage_err("trace ", "bad destination '%s': expected an IPv4 or IPv6 literal with an optional port (10.0.0.2, 10.0.0.2:5201, fd00::2, [fd00::2]:5201)",
		  arg);
}

static double parse_timeout(const char *s)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (*end || !(v > 0) || v > 3600)
		usage_err("trace ", "bad timeout '%s': expected seconds, 0 < SEC <= 3600",
			  s);
	return v;
}

static __u16 parse_sport(const char *s)
{
	unsigned long v;
	char *end;

	v = strtoul(s, &end, 10);
	if (*end || !*s || *s == '-' || !v || v > 65535)
		usage_err("trace ", "bad source port '%s': expected 1..65535", s);
	return v;
}

/* Parse trace's options into @tr: 1 when the help was printed. */
static int trace_args(int argc, char **argv, struct trace *tr)
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
	int c;

	memset(tr, 0, sizeof(*tr));
	tr->t.dport = DEFAULT_PORT;
	tr->probe = -1;
	tr->resp = -1;
	tr->timeout = 1.;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			tr->timeout = parse_timeout(optarg);
			break;
		case 's':
			tr->t.sport = parse_sport(optarg);
			break;
		case 'd':
			tr->dev = optarg;
			check_ifname("trace ", tr->dev);
			break;
		case 'p':
			tr->probe = parse_dscp("--probe-dscp", optarg);
			break;
		case 'r':
			tr->resp = parse_dscp("--response-dscp", optarg);
			break;
		case 'j':
			tr->json = true;
			break;
		case 'h':
			fputs(trace_usage, stdout);
			return 1;
		default:
			usage_err("trace ", "bad option");
		}
	}
	if (optind + 1 != argc)
		usage_err("trace ", "trace takes one destination");
	tr->dest = argv[optind];
	parse_dest(tr->dest, &tr->t);
	return 0;
}

/* DEST:@port as a socket address in @ss: its length. */
static socklen_t trace_sockaddr(const struct trace *tr, __u16 port,
				struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *a6 = (void *)ss;
	struct sockaddr_in *a4 = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	if (tr->t.family == AF_INET6) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		a6->sin6_addr = tr->t.dst.v6;
		return sizeof(*a6);
	}
	a4->sin_family = AF_INET;
	a4->sin_port = htons(port);
	a4->sin_addr = tr->t.dst.v4;
	return sizeof(*a4);
}

/* A socket of @type bound to --dev, if given. */
static int trace_socket(const struct trace *tr, int family, int type,
			int proto)
{
	int fd = socket(family, type | SOCK_CLOEXEC, proto);

	if (fd < 0)
		return fd;
	if (tr->dev && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, tr->dev,
				  strlen(tr->dev) + 1))
		die("cannot bind to %s: %s", tr->dev, strerror(errno));
	return fd;
}

/* DEST:PORT as the connection sees it ([v6]:port), into @buf. */
static const char *trace_dest(const struct trace *tr, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	bool v6 = tr->t.family == AF_INET6;

	inet_ntop(tr->t.family, &tr->t.dst, a, sizeof(a));
	snprintf(buf, len, "%s%s%s:%u", v6 ? "[" : "", a, v6 ? "]" : "",
		 tr->t.dport);
	return buf;
}

/* The connection the probe belongs to: connected to DEST:PORT within the
 * timeout, from --sport if given; our address and port go to tr->t. Its
 * socket, which the caller resets (SO_LINGER 0) when done: no TIME_WAIT
 * is left on either side.
 */
static int trace_connect(struct trace *tr)
{
	struct sockaddr_storage ss, me;
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	struct pollfd pfd = { .events = POLLOUT };
	char dest[INET6_ADDRSTRLEN + 8];
	socklen_t len;
	int fd, err = 0;

	fd = trace_socket(tr, tr->t.family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	if (tr->t.sport) {
		memset(&me, 0, sizeof(me));
		me.ss_family = tr->t.family;
		if (tr->t.family == AF_INET)
			((struct sockaddr_in *)&me)->sin_port =
				htons(tr->t.sport);
		else
			((struct sockaddr_in6 *)&me)->sin6_port =
				htons(tr->t.sport);
		if (bind(fd, (void *)&me, tr->t.family == AF_INET ?
			 sizeof(struct sockaddr_in) :
			 sizeof(struct sockaddr_in6)))
			die("cannot use source port %u: %s", tr->t.sport,
			    strerror(errno));
	}
	len = trace_sockaddr(tr, tr->t.dport, &ss);
	pfd.fd = fd;
	if (connect(fd, (void *)&ss, len) && errno != EINPROGRESS) {
		err = errno;
	} else {
		int n = poll(&pfd, 1, (int)(tr->timeout * 1000));

		len = sizeof(err);
		if (n <= 0)
			err = n ? errno : ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
			err = errno;
	}
	trace_dest(tr, dest, sizeof(dest));
	if (err == ECONNREFUSED)
		die("%s refused the connection: hpcc_host answers only the probes of a connection, so trace needs a port with a listener (DEST:PORT)",
		    dest);
	if (err == ETIMEDOUT)
		die("no connection to %s within %g s (is the address in use, its port open, a firewall in the way?)",
		    dest, tr->timeout);
	if (err)
		die("cannot connect to %s: %s", dest, strerror(err));
	len = sizeof(me);
	if (getsockname(fd, (void *)&me, &len))
		die("getsockname: %s", strerror(errno));
	if (tr->t.family == AF_INET) {
		tr->t.src.v4 = ((struct sockaddr_in *)&me)->sin_addr;
		tr->t.sport = ntohs(((struct sockaddr_in *)&me)->sin_port);
	} else {
		tr->t.src.v6 = ((struct sockaddr_in6 *)&me)->sin6_addr;
		tr->t.sport = ntohs(((struct sockaddr_in6 *)&me)->sin6_port);
	}
	return fd;
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
		prog.len = ARRAY_SIZE(f4);
		prog.filter = f4;
	} else {
		prog.len = ARRAY_SIZE(f6);
		prog.filter = f6;
	}
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
			  sizeof(prog));
}

/* The listener, before the probe leaves: protocol 0 receives nothing
 * until bind, by which time the filter is in place.
 */
static int trace_listen(const struct trace *tr)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = tr->ifindex,
	};
	int fd, one = 1;

	fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("packet socket: %s", strerror(errno));
	if (attach_filter(fd, tr->t.family, tr->t.dport, tr->t.sport))
		die("cannot attach the socket filter: %s", strerror(errno));
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	if (bind(fd, (void *)&sll, sizeof(sll)))
		die("cannot bind the packet socket: %s", strerror(errno));
	return fd;
}

/* Send the probe through a raw socket; its send time in tr->sent_ns the
 * first time (the others carry theirs in the payload).
 */
static void trace_send(struct trace *tr)
{
	_Alignas(8) __u8 pkt[PROBE_PKT_MAX] = {};
	struct sockaddr_storage ss;
	__u64 now = now_ns();
	socklen_t sl;
	size_t len;
	int fd;

	fd = trace_socket(tr, tr->t.family, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0)
		die("raw socket: %s", strerror(errno));
	if (!tr->sent_ns)
		tr->sent_ns = now;
	len = probe_build(pkt, &tr->t, tr->probe, tr->nonce, now);
	/* Raw IPv6 sockets take the port as the protocol number. */
	sl = trace_sockaddr(tr, 0, &ss);
	if (sendto(fd, pkt, len, 0, (void *)&ss, sl) < 0)
		die("cannot send the probe to %s: %s", tr->dest,
		    strerror(errno));
	close(fd);
}

/* One packet from @fd: the response (then in @r), the receiver's RST (we
 * die), or something else (false).
 */
static bool trace_recv(const struct trace *tr, int fd, struct probe_resp *r)
{
	struct sockaddr_ll sll;
	socklen_t sl = sizeof(sll);
	__u8 buf[2048];
	ssize_t n;
	int m;

	n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (void *)&sll, &sl);
	if (n <= 0 || sll.sll_pkttype == PACKET_OUTGOING)
		return false;
	m = probe_match(buf, n, ntohs(sll.sll_protocol), &tr->t, tr->nonce, r);
	if (m == PROBE_RST)
		die("%s reset the connection before the probe's response came",
		    tr->dest);
	if (m != PROBE_RESPONSE)
		return false;
	/* The copy that was answered says when it left (our clock). */
	r->rtt_ns = now_ns() - be64toh(r->p.hdr.send_ns);
	r->ifindex = sll.sll_ifindex;
	return true;
}

/* Wait on @fd for the response to the probe, into @r. The probe goes
 * again after 50 ms, 100 ms, 200 ms... within the timeout: it may have
 * been lost, or have overtaken the last ACK of its connection's handshake
 * on a path of several CPUs, and found at the receiver only the listener
 * (which hpcc_host does not answer for).
 */
static void trace_wait(struct trace *tr, int fd, struct probe_resp *r)
{
	__u64 deadline = tr->sent_ns + (__u64)(tr->timeout * 1e9);
	__u64 gap = 50000000, resend = tr->sent_ns + gap;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		__u64 now = now_ns(), until = resend < deadline ? resend :
								deadline;

		if (now >= deadline)
			die("no response from %s within %g s (is hpcc_host attached on the receiver's ingress, with probe DSCP %d? its reflection limit? a firewall? is the return path through a device we can see?)",
			    tr->dest, tr->timeout, tr->probe);
		if (now >= resend) {
			trace_send(tr);
			gap *= 2;
			resend = now + gap;
			continue;
		}
		if (poll(&pfd, 1, (until - now + 999999) / 1000000) <= 0)
			continue;
		if (trace_recv(tr, fd, r))
			return;
	}
}

static void print_json(const struct trace *tr, const struct probe_resp *r,
		       const char *src, const char *dst, const char *dev)
{
	const struct hpcc_hdr *h = &r->p.hdr;
	unsigned int i;

	printf("{\"dest\":\"%s\",\"port\":%u,\"source\":\"%s\",\"sport\":%u,\"probe_dscp\":%d,\"response_dscp\":%d,\"nonce\":%u,\"rtt_ns\":%llu,\"dev\":\"%s\",\"nhops\":%u,\"overflow\":%s,\"checksum_ok\":%s,\"hops\":[",
	       dst, tr->t.dport, src, tr->t.sport, tr->probe, r->dscp,
	       tr->nonce, (unsigned long long)r->rtt_ns, dev, h->nhops,
	       h->flags & HPCC_F_OVERFLOW ? "true" : "false",
	       r->csum_ok ? "true" : "false");
	for (i = 0; i < h->nhops; i++) {
		const struct hpcc_hop *o = &r->p.hop[i];

		printf("%s{\"hop\":%u,\"switch_id\":%u,\"port_id\":%u,\"rate_mbps\":%u,\"qlen\":%u,\"tx_bytes\":%llu,\"ts_ns\":%llu,\"delta_ns\":",
		       i ? "," : "", i + 1, ntohl(o->switch_id),
		       ntohl(o->port_id), ntohl(o->rate_mbps), ntohl(o->qlen),
		       (unsigned long long)be64toh(o->tx_bytes),
		       (unsigned long long)be64toh(o->ts_ns));
		if (i)
			printf("%lld}", (long long)(be64toh(o->ts_ns) -
						    be64toh(o[-1].ts_ns)));
		else
			printf("null}");
	}
	printf("]}\n");
}

/* The hops, a line each; scripts split the table on blanks. */
static void print_hops(const struct probe_resp *r)
{
	char rate[32], delta[32];
	unsigned int i;

	printf("%-4s %12s %10s %12s %12s %20s %12s\n", "hop", "switch_id",
	       "port", "capacity", "queue_bytes", "tx_bytes", "delta");
	for (i = 0; i < r->p.hdr.nhops; i++) {
		const struct hpcc_hop *o = &r->p.hop[i];

		/* Two words either way. */
		if (o->rate_mbps)
			fmt_rate_bps(ntohl(o->rate_mbps) * 1e6, rate,
				     sizeof(rate));
		else
			snprintf(rate, sizeof(rate), "0 (unknown)");
		if (i)
			fmt_ns((long long)(be64toh(o->ts_ns) -
					    be64toh(o[-1].ts_ns)), delta,
			       sizeof(delta));
		else
			snprintf(delta, sizeof(delta), "-");
		printf("%-4u %12u %10u %12s %12u %20llu %12s\n", i + 1,
		       ntohl(o->switch_id), ntohl(o->port_id), rate,
		       ntohl(o->qlen), (unsigned long long)be64toh(o->tx_bytes),
		       delta);
	}
}

static void print_table(const struct trace *tr, const struct probe_resp *r,
			const char *src, const char *dst, const char *dev)
{
	const char *l = tr->t.family == AF_INET6 ? "[" : "";
	const char *rb = tr->t.family == AF_INET6 ? "]" : "";
	unsigned int n = r->p.hdr.nhops;
	char rtt[32];

	printf("trace %s%s%s:%u from %s%s%s:%u, probe_dscp %d, nonce 0x%08x\n",
	       l, dst, rb, tr->t.dport, l, src, rb, tr->t.sport, tr->probe,
	       tr->nonce);
	printf("response on %s after %s: %u hop%s, overflow %s, response_dscp %d, tcp checksum %s\n",
	       dev, fmt_ns(r->rtt_ns, rtt, sizeof(rtt)), n, n == 1 ? "" : "s",
	       r->p.hdr.flags & HPCC_F_OVERFLOW ? "YES (more hops than room)" :
						  "no",
	       r->dscp, r->csum_ok ? "ok" : "BAD");
	if (r->dscp != tr->resp)
		warnmsg("the response carries DSCP %d, expected %d: the receiver's hpcc_host uses other DSCPs",
			r->dscp, tr->resp);
	if (!r->csum_ok)
		warnmsg("the response's TCP checksum is wrong: a rewrite on the path did not fix it up");
	if (!n) {
		printf("no hop stamped (no hpcc_switch on the path, none configured for the egress ports taken, or other DSCPs)\n");
		return;
	}
	print_hops(r);
}

static void print_result(const struct trace *tr, const struct probe_resp *r)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	char dev[IF_NAMESIZE] = "?";

	inet_ntop(tr->t.family, &tr->t.src, src, sizeof(src));
	inet_ntop(tr->t.family, &tr->t.dst, dst, sizeof(dst));
	if_indextoname(r->ifindex, dev);
	if (tr->json)
		print_json(tr, r, src, dst, dev);
	else
		print_table(tr, r, src, dst, dev);
}

int cmd_trace(int argc, char **argv)
{
	struct probe_resp r = {};
	struct trace tr;
	int fd, conn;

	if (trace_args(argc, argv, &tr))
		return 0;
	need_raw_caps();
	if (tr.dev) {
		tr.ifindex = if_nametoindex(tr.dev);
		if (!tr.ifindex)
			die("unknown device '%s'", tr.dev);
	}
	dscp_defaults(&tr.probe, &tr.resp, "trace");
	check_dscps(tr.probe, tr.resp, "trace ");
	tr.nonce = rnd32();
	if (!tr.nonce)
		tr.nonce = 1;

	conn = trace_connect(&tr);
	fd = trace_listen(&tr);
	trace_send(&tr);
	trace_wait(&tr, fd, &r);
	close(fd);
	close(conn);
	print_result(&tr, &r);
	return 0;
}
