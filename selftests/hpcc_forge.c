// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_forge DEV idle|queue SERVER_PORT [CLIENT_PORT]: a lying receiver
 * for the selftests (threat model, "receiver"). Attaches progs/forge.bpf.c
 * to DEV's tc egress, so that the responses hpcc_host turns around for
 * that connection leave with forged records, prints "attached", and on
 * SIGTERM or SIGINT detaches and prints "forged N passed M". Run it in
 * the receiver's network namespace.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "hpcc_wire.h"
#include "forge.skel.h"

int main(int argc, char **argv)
{
	struct forge_bpf *skel;
	int ifindex, err, sig, rc = 1;
	unsigned int mode;
	sigset_t set;

	if (argc < 4 || argc > 5 ||
	    (strcmp(argv[2], "idle") && strcmp(argv[2], "queue"))) {
		fprintf(stderr, "usage: %s DEV idle|queue SERVER_PORT [CLIENT_PORT]\n",
			argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "hpcc_forge: no device %s\n", argv[1]);
		return 1;
	}
	mode = strcmp(argv[2], "idle") ? 2 : 1;
	skel = forge_bpf__open();
	if (!skel)
		return 1;
	skel->rodata->mode = mode;
	skel->rodata->server_port = (__u16)atoi(argv[3]);
	skel->rodata->client_port = argc > 4 ? (__u16)atoi(argv[4]) : 0;
	skel->rodata->resp_dscp = HPCC_DSCP_RESPONSE_DEFAULT;
	if (forge_bpf__load(skel)) {
		fprintf(stderr, "hpcc_forge: load failed\n");
		goto out;
	}
	{
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_EGRESS);
		LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1,
			    .prog_fd = bpf_program__fd(skel->progs.forge));

		err = bpf_tc_hook_create(&hook);
		if (err && err != -EEXIST) {
			fprintf(stderr, "hpcc_forge: clsact on %s: %s\n",
				argv[1], strerror(-err));
			goto out;
		}
		err = bpf_tc_attach(&hook, &opts);
		if (err) {
			fprintf(stderr, "hpcc_forge: attach to %s egress: %s\n",
				argv[1], strerror(-err));
			goto out;
		}
		/* blocked before "attached": a kill right after it waits */
		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGINT);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("attached\n");
		fflush(stdout);
		sigwait(&set, &sig);
		opts.prog_fd = 0;
		opts.prog_id = 0;
		opts.flags = 0;
		bpf_tc_detach(&hook, &opts);
	}
	printf("forged %llu passed %llu\n",
	       (unsigned long long)skel->bss->forged,
	       (unsigned long long)skel->bss->passed);
	rc = 0;
out:
	forge_bpf__destroy(skel);
	return rc;
}
