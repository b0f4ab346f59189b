// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf_hpcc_report() kfunc from a real tc program, on a real hpcc flow
 * over lo (see progs/kfunc_test.bpf.c): every malformed report, a socket
 * that is not hpcc and a replayed nonce are refused with their own errno,
 * valid reports are accepted, and their telemetry shows in TCP_CC_INFO as
 * the draft's equations say it must. Needs tcp_hpcc loaded and
 * base_rtt=1000 (us), eta=950, max_stage=5, ewma_rtts=1, w_ai=0,
 * expected_flows=16.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "hpcc_wire.h"
#include "tap.h"
#include "kfunc_test.skel.h"

enum {
	R_SIZE, R_VERSION, R_HOPS, R_NOT_RESPONSE, R_NONCE, R_NOT_HPCC,
	R_OVERFLOW, R_VALID1, R_REPLAY, R_VALID2, R_MAX
};

static struct hpcc_hop hop(uint32_t id, uint64_t ts, uint64_t tx, uint32_t q,
			   uint32_t mbps)
{
	struct hpcc_hop h = {
		.switch_id = htonl(id), .port_id = htonl(1),
		.rate_mbps = htonl(mbps), .qlen = htonl(q),
		.ts_ns = htobe64(ts), .tx_bytes = htobe64(tx),
	};
	return h;
}

static int listen_on(int *port, const char *cc)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc,
				 strlen(cc)) ||
	    bind(fd, (void *)&a, sizeof(a)) || listen(fd, 1) ||
	    getsockname(fd, (void *)&a, &len))
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

/* W, Wc and incStage of the flow from /proc/net/tcp_hpcc */
static void read_flow(int port, long *w, long *wc, long *stage)
{
	char line[512], local[64], want[16];
	FILE *f = fopen("/proc/net/tcp_hpcc", "r");

	snprintf(want, sizeof(want), ":%d", port);
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %*s %*s %ld %ld %*s %ld", local, w, wc,
			   stage) == 4 &&
		    !strcmp(local + strlen(local) - strlen(want), want))
			break;
	}
	if (f)
		fclose(f);
}

int main(void)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);
	long flow_w, flow_wc, flow_stage;
	struct sockaddr_in a = { .sin_family = AF_INET };
	static char chunk[65536];
	struct tcp_bbr_info info = {};
	struct kfunc_test_bpf *skel;
	struct sockaddr_in local;
	socklen_t len = sizeof(local);
	int lfd, cfd, sfd, port = 0, i, err;
	char cc[16] = "";
	pid_t reader;

	setvbuf(stdout, NULL, _IOLBF, 0);
	skel = kfunc_test_bpf__open_and_load();
	if (!skel)
		return tap_bail("loading the tc program failed (is tcp_hpcc loaded, with BTF?)");
	tap_ok(1, "tc program calling bpf_hpcc_report() loads");

	lfd = listen_on(&port, "cubic");
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons(port);
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || cfd < 0 ||
	    setsockopt(cfd, IPPROTO_TCP, TCP_CONGESTION, "hpcc", 4) ||
	    connect(cfd, (void *)&a, sizeof(a)) ||
	    getsockname(cfd, (void *)&local, &len))
		return tap_bail("hpcc connection over lo: %s",
				strerror(errno));
	sfd = accept(lfd, NULL, NULL);
	len = sizeof(cc);
	getsockopt(cfd, IPPROTO_TCP, TCP_CONGESTION, cc, &len);
	tap_ok(!strcmp(cc, "hpcc"), "TCP_CONGESTION selects hpcc (%s)", cc);

	/* B = 1000 Mbit/s, T = 1 ms: B T = 125000 bytes. Report 1 records
	 * samples and, with no queue on the path, starts the law at line
	 * rate, W = Wc = B T. Report 2, T later, carries 62500 bytes (half
	 * rate) and a 12500-byte queue: u = 0.5 + min(12500, 0) / (B T) =
	 * 0.5 on hop 2 (the queue term takes the smaller of the two ends).
	 */
	skel->bss->client_port = ntohs(local.sin_port);
	skel->bss->server_port = port;
	skel->bss->nhops = 2;
	skel->bss->hops1[0] = hop(1, 5000, 1000, 0, 10000);
	skel->bss->hops1[1] = hop(2, 9000, 7000, 0, 1000);
	skel->bss->hops2[0] = hop(1, 1005000, 1000 + 125000, 0, 10000);
	skel->bss->hops2[1] = hop(2, 1009000, 7000 + 62500, 12500, 1000);

	hook.ifindex = if_nametoindex("lo");
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return tap_bail("clsact on lo: %d", err);
	opts.prog_fd = bpf_program__fd(skel->progs.kfunc_test);
	if (bpf_tc_attach(&hook, &opts))
		return tap_bail("attaching to lo egress failed");

	reader = fork();
	if (!reader) {
		close(cfd);	/* else the server never sees EOF */
		while (read(sfd, chunk, sizeof(chunk)) > 0)
			;
		_exit(0);
	}
	close(sfd);
	/* Keep data in flight until an ACK has consumed the second report
	 * (U leaves its start value 1.0), then read the flow's state at once.
	 */
	err = -1;
	for (i = 0; i < 200000; i++) {
		if (send(cfd, chunk, 4096, MSG_DONTWAIT) < 0)
			usleep(100);
		if (skel->bss->probes_seen < 2)
			continue;
		len = sizeof(info);
		err = getsockopt(cfd, IPPROTO_TCP, TCP_CC_INFO, &info, &len);
		if (!err && info.bbr_pacing_gain && info.bbr_pacing_gain != 256)
			break;
	}
	flow_w = flow_wc = flow_stage = -1;
	read_flow(ntohs(local.sin_port), &flow_w, &flow_wc, &flow_stage);
	opts.flags = opts.prog_fd = opts.prog_id = 0;
	bpf_tc_detach(&hook, &opts);
	hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	bpf_tc_hook_destroy(&hook);
	close(cfd);
	waitpid(reader, NULL, 0);

	int *r = skel->bss->result;

	printf("# probes seen %d, failed lookups %d, probe 2 sent %.3f ms after probe 1, %u bytes later\n",
	       skel->bss->probes_seen, skel->bss->lookups_failed,
	       (skel->bss->probe_ns[1] - skel->bss->probe_ns[0]) / 1e6,
	       skel->bss->probe_seq[1] - skel->bss->probe_seq[0]);
	tap_ok(skel->bss->probes_seen >= 2,
	       "the module sent a probe, and another after the response");
	tap_ok(r[R_SIZE] == -EMSGSIZE, "short report refused: %d", r[R_SIZE]);
	tap_ok(r[R_VERSION] == -EPROTONOSUPPORT, "bad version refused: %d",
	       r[R_VERSION]);
	tap_ok(r[R_HOPS] == -ERANGE, "9 hops refused: %d", r[R_HOPS]);
	tap_ok(r[R_NOT_RESPONSE] == -EBADMSG,
	       "probe that is not a response refused: %d", r[R_NOT_RESPONSE]);
	tap_ok(r[R_NONCE] == -ESTALE, "wrong nonce refused: %d", r[R_NONCE]);
	tap_ok(r[R_NOT_HPCC] == -EOPNOTSUPP,
	       "report for a cubic socket refused: %d", r[R_NOT_HPCC]);
	tap_ok(r[R_OVERFLOW] == -E2BIG,
	       "report of a path longer than the hop room refused: %d",
	       r[R_OVERFLOW]);
	tap_ok(r[R_VALID1] == 0, "valid report accepted: %d", r[R_VALID1]);
	tap_ok(r[R_REPLAY] == -ESTALE, "replayed report refused: %d",
	       r[R_REPLAY]);
	tap_ok(r[R_VALID2] == 0, "second valid report accepted: %d",
	       r[R_VALID2]);

	printf("# TCP_CC_INFO: bw %llu B/s, T %u us, U*256 %u, stage*256 %u\n",
	       ((unsigned long long)info.bbr_bw_hi << 32) | info.bbr_bw_lo,
	       info.bbr_min_rtt, info.bbr_pacing_gain, info.bbr_cwnd_gain);
	/* U = u = 0.5 (tau = T); U < eta and stage 0 < 5: additive step,
	 * W = Wc + W_ai with W_ai = B T (1 - eta) / 16 = 390 bytes. Wc is
	 * committed (and the stage counted) only if probe 1, which opened the
	 * measured interval, left at or after the law started on report 1:
	 * only if no data left in between. Either way W = 125390, and
	 * R = W / T is capped at B = 125 MB/s.
	 */
	printf("# flow: W %ld Wc %ld stage %ld\n", flow_w, flow_wc, flow_stage);
	tap_ok(!err && info.bbr_min_rtt == 1000 &&
	       info.bbr_pacing_gain == 128,
	       "telemetry visible in the flow: T 1000 us, U = 0.5");
	tap_ok(flow_w == 125390 &&
	       ((flow_stage == 1 && flow_wc == flow_w) ||
		(flow_stage == 0 && flow_wc == 125000)),
	       "line-rate start, additive step W = Wc + W_ai = 125390, Wc committed iff stage 1");
	tap_ok(info.bbr_bw_lo == 125000000 && info.bbr_bw_hi == 0,
	       "pacing R = W / T capped at B = 125 MB/s");
	kfunc_test_bpf__destroy(skel);
	return tap_done();
}
