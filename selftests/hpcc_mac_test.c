// SPDX-License-Identifier: GPL-2.0
/*
 * Wire version 2's MAC chain through bpf_hpcc_report(), from a real tc
 * program on a real hpcc flow over lo (progs/mac_test.bpf.c answers the
 * module's probes as two routers holding the domain key would, and as an
 * on-path box without it would tamper with their records). One mode per
 * run, the module set up by hpcc_mac.sh:
 *
 *   nomac     wire_version=2, no key: untagged v2 reports are accepted,
 *             also when an on-path box flips one bit of hop 2's qlen in
 *             every response (the law takes the smaller queue of two
 *             reports, so one tampered report alone would not show): the
 *             attack works, W shows by how much.
 *   mac KEY   wire_version=2, key 0 = KEY set with hpcc-probe key set:
 *             the probe asks for tags; a valid chain is accepted, a bit
 *             flipped in qlen or rate_mbps, a chain under another key,
 *             or the sealed response with its last record cut (nhops
 *             lowered by a box without the key) is -EKEYREJECTED; the tampered report changes nothing (W as
 *             without the attack); a v1 response is accepted.
 *   required KEY  as mac, with mac_required=1: an untagged v2 report and
 *             a v1 report are -ENOKEY, a valid chain is accepted.
 *
 * Prints "W_genuine N" / "W_after N" for the shell to record. Needs
 * base_rtt=1000, max_stage=5, ewma_rtts=1, telemetry_timeout=1000.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "hpcc_wire.h"
#include "tap.h"
#include "mac_test.skel.h"

enum { C_END, C_VALID, C_QLEN, C_RATE, C_WRONG_KEY, C_UNTAGGED, C_V1,
	C_CUT };

static const char *const case_name[] = {
	"end", "valid chain", "qlen bit flipped", "rate bit flipped",
	"chain under another key", "untagged v2", "v1 report",
	"last record cut from the sealed response",
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

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int parse_key(const char *s, uint8_t *k)
{
	int i;

	if (strlen(s) != 32)
		return -1;
	for (i = 0; i < 16; i++) {
		if (hexval(s[2 * i]) < 0 || hexval(s[2 * i + 1]) < 0)
			return -1;
		k[i] = hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]);
	}
	return 0;
}

static long flow_w(int port)
{
	char line[512], local[64], want[16];
	FILE *f = fopen("/proc/net/tcp_hpcc", "r");
	long w = -1;

	snprintf(want, sizeof(want), ":%d", port);
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %*s %*s %ld", local, &w) == 2 &&
		    !strcmp(local + strlen(local) - strlen(want), want))
			break;
		w = -1;
	}
	if (f)
		fclose(f);
	return w;
}

int main(int argc, char **argv)
{
	static const int expect[3][3][6] = {
		/* nomac */
		{ { 0 }, { 0 }, { 0 } },
		/* mac */
		{ { -EKEYREJECTED, -EKEYREJECTED, -EKEYREJECTED,
		    -EKEYREJECTED, 0, -ESTALE },
		  { -EKEYREJECTED, 0 }, { 0 } },
		/* required */
		{ { -ENOKEY, -ENOKEY, 0 }, { 0 }, { 0 } },
	};
	static const uint8_t plan[3][3][6] = {
		{ { C_QLEN }, { C_QLEN }, { C_V1 } },
		{ { C_QLEN, C_RATE, C_WRONG_KEY, C_CUT, C_VALID, C_VALID },
		  { C_QLEN, C_VALID }, { C_V1 } },
		{ { C_UNTAGGED, C_V1, C_VALID }, { C_VALID }, { C_VALID } },
	};
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);
	struct sockaddr_in a = { .sin_family = AF_INET };
	static char chunk[65536];
	struct tcp_bbr_info info = {};
	struct mac_test_bpf *skel;
	struct sockaddr_in local;
	socklen_t len;
	int lfd, cfd, sfd, i, j, k, m, err;
	uint8_t raw[16];
	long w = -1;
	pid_t reader;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return tap_bail("usage: hpcc_mac_test nomac|mac KEY|required KEY");
	m = !strcmp(argv[1], "nomac") ? 0 : !strcmp(argv[1], "mac") ? 1 :
	    !strcmp(argv[1], "required") ? 2 : -1;
	if (m < 0 || (m && (argc < 3 || parse_key(argv[2], raw))))
		return tap_bail("bad arguments");
	skel = mac_test_bpf__open_and_load();
	if (!skel)
		return tap_bail("loading the tc program failed");
	tap_ok(1, "[%s] tc program computing MAC chains loads", argv[1]);
	if (m)
		hpcc_sipkey_of(&skel->bss->key, raw);
	skel->bss->bench = m == 1;
	memcpy(skel->bss->cases, plan[m], sizeof(plan[m]));

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	len = sizeof(a);
	if (lfd < 0 || bind(lfd, (void *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (void *)&a, &len))
		return tap_bail("listen: %s", strerror(errno));
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	len = sizeof(local);
	if (cfd < 0 ||
	    setsockopt(cfd, IPPROTO_TCP, TCP_CONGESTION, "hpcc", 4) ||
	    connect(cfd, (void *)&a, sizeof(a)) ||
	    getsockname(cfd, (void *)&local, &len))
		return tap_bail("hpcc connection over lo: %s", strerror(errno));
	sfd = accept(lfd, NULL, NULL);

	/* As hpcc_kfunc_test: B = 1000 Mbit/s on hop 2, T = 1 ms. Report 1
	 * starts the law at W = B T = 125000; report 2, T later, half rate
	 * and a 12500-byte queue: U = 0.5, W = Wc + W_ai = 125390. Flipping
	 * bit 20 of that qlen makes it 1061076 bytes: U = 8.99, a
	 * multiplicative decrease (if report 1's was flipped too: the law's
	 * queue term is the smaller of the two). Report 3 only has to be
	 * accepted.
	 */
	skel->bss->client_port = ntohs(local.sin_port);
	skel->bss->hops[0][0] = hop(1, 5000, 1000, 0, 10000);
	skel->bss->hops[0][1] = hop(2, 9000, 7000, 0, 1000);
	skel->bss->hops[1][0] = hop(1, 1005000, 1000 + 125000, 0, 10000);
	skel->bss->hops[1][1] = hop(2, 1009000, 7000 + 62500, 12500, 1000);
	skel->bss->hops[2][0] = hop(1, 2005000, 1000 + 250000, 0, 10000);
	skel->bss->hops[2][1] = hop(2, 2009000, 7000 + 125000, 12500, 1000);

	hook.ifindex = if_nametoindex("lo");
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return tap_bail("clsact on lo: %d", err);
	opts.prog_fd = bpf_program__fd(skel->progs.mac_test);
	if (bpf_tc_attach(&hook, &opts))
		return tap_bail("attaching to lo egress failed");

	reader = fork();
	if (!reader) {
		close(cfd);
		while (read(sfd, chunk, sizeof(chunk)) > 0)
			;
		_exit(0);
	}
	close(sfd);
	/* data in flight until an ACK has consumed report 2, then W */
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
	w = flow_w(ntohs(local.sin_port));
	/* and on until probe 3 was answered */
	for (i = 0; i < 200000 && skel->bss->probes_seen < 3; i++)
		if (send(cfd, chunk, 4096, MSG_DONTWAIT) < 0)
			usleep(100);
	opts.flags = opts.prog_fd = opts.prog_id = 0;
	bpf_tc_detach(&hook, &opts);
	hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	bpf_tc_hook_destroy(&hook);
	close(cfd);
	waitpid(reader, NULL, 0);

	printf("# probes seen %d, failed lookups %d; probe 1: version %u flags 0x%x key_id %u\n", skel->bss->probes_seen,
	       skel->bss->lookups_failed, skel->bss->probe_version[0],
	       skel->bss->probe_flags[0], skel->bss->probe_key_id[0]);
	tap_ok(skel->bss->probes_seen >= 3, "[%s] three probes answered",
	       argv[1]);
	tap_ok(skel->bss->probe_version[0] == HPCC_WIRE_V2 &&
	       !!(skel->bss->probe_flags[0] & HPCC_F_MAC) == !!m,
	       "[%s] the module sent v2 probes, %s", argv[1],
	       m ? "asking for MAC" : "without MAC (no key)");
	for (k = 0; k < 3; k++)
		for (j = 0; j < 6 && plan[m][k][j] != C_END; j++)
			tap_ok(skel->bss->res[k][j] == expect[m][k][j],
			       "[%s] probe %d: %s -> %d (want %d)", argv[1],
			       k + 1, case_name[plan[m][k][j]],
			       skel->bss->res[k][j], expect[m][k][j]);
	if (m == 1) {
		static const char *const what[] = {
			"2 records, no MAC", "2 records, MAC verified",
			"8 records, no MAC", "8 records, MAC verified",
		};
		bool ok = true;

		for (k = 0; k < 4; k++) {
			printf("# kfunc cost, %-26s %6.1f ns/report (%d)\n",
			       what[k], skel->bss->bench_ns[k] / 1024.0,
			       skel->bss->bench_ret[k]);
			ok &= skel->bss->bench_ret[k] == -ESTALE;
		}
		tap_ok(ok, "[mac] kfunc timed: every chain verified, each report refused only at the nonce (-ESTALE)");
	}
	printf("W_after %ld\n", w);
	if (m == 0)
		tap_ok(w > 0 && w < 125390 / 2,
		       "[nomac] the tampered qlen reached the law: W %ld (genuine 125390)",
		       w);
	else
		tap_ok(w == 125390,
		       "[%s] W as without any attack: %ld (want 125390)",
		       argv[1], w);
	mac_test_bpf__destroy(skel);
	return tap_done();
}
