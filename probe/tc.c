// SPDX-License-Identifier: GPL-2.0
/*
 * Our tc filters (handle TC_HANDLE, priority TC_PRIO): which
 * program runs there, detaching it, removing an empty clsact qdisc.
 */
#include <errno.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <bpf/libbpf.h>

#include "probe.h"

#ifndef TC_H_CLSACT
#define TC_H_CLSACT		TC_H_INGRESS
#define TC_H_MIN_INGRESS	0xFFF2U
#define TC_H_MIN_EGRESS		0xFFF3U
#endif

/* ------------------------------------------------------------------ tc */

/* Program id of the filter at our handle/priority, 0 if none. */
__u32 tc_prog_id(int ifindex, enum bpf_tc_attach_point ap)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = ap);
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = TC_HANDLE, .priority = TC_PRIO);

	if (bpf_tc_query(&hook, &o))
		return 0;
	return o.prog_id;
}

static const char *ap_name(enum bpf_tc_attach_point ap)
{
	return ap == BPF_TC_INGRESS ? "ingress" : "egress";
}

/* Attach program @prog_fd as our filter at @ap of @ifindex, creating the
 * clsact qdisc if there is none: 0 or -errno.
 */
int tc_attach(int ifindex, enum bpf_tc_attach_point ap, int prog_fd)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = ap);
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = TC_HANDLE, .priority = TC_PRIO,
		    .prog_fd = prog_fd);
	int err;

	err = bpf_tc_hook_create(&hook);
	if (!err || err == -EEXIST)
		err = bpf_tc_attach(&hook, &o);
	return err;
}

/* Somebody else's filter at our handle and priority of @dev's @ap? Said
 * so: 1; else 0.
 */
int tc_slot_taken(const char *dev, int ifindex, enum bpf_tc_attach_point ap)
{
	if (!tc_prog_id(ifindex, ap))
		return 0;
	errmsg("%s %s already has a filter at handle 0x%x priority %d",
	       dev, ap_name(ap), TC_HANDLE, TC_PRIO);
	return 1;
}

/* tc_attach() of the program called @name to @dev, a failure said. */
int tc_attach_named(const char *dev, int ifindex, enum bpf_tc_attach_point ap,
		    int prog_fd, const char *name)
{
	int err = tc_attach(ifindex, ap, prog_fd);

	if (err)
		errmsg("cannot attach %s to %s %s: %s", name, dev, ap_name(ap),
		       strerror(-err));
	return err;
}

/* Remove the clsact qdisc if no filter is left on either side of it. */
void tc_clsact_gc(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

	if (nl_filter_count(ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS)) ||
	    nl_filter_count(ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS)))
		return;
	bpf_tc_hook_destroy(&hook);
}

/* Detach our filter if it runs program @id. 1 if it did, 0 if absent. */
int tc_detach(const char *dev, int ifindex, enum bpf_tc_attach_point ap,
	      __u32 id)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = ap);
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = TC_HANDLE, .priority = TC_PRIO);
	__u32 cur = tc_prog_id(ifindex, ap);
	int err;

	if (!cur || cur != id)
		return 0;
	err = bpf_tc_detach(&hook, &o);
	if (err)
		die("cannot detach from %s %s: %s", dev, ap_name(ap),
		    strerror(-err));
	tc_clsact_gc(ifindex);
	return 1;
}

