/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP socket dumps over sock_diag as `ss -ti` asks for them: with
 * INET_DIAG_INFO, INET_DIAG_VEGASINFO and INET_DIAG_CONG, so that the
 * kernel calls each socket's ->get_info under RCU only. For the readers of
 * hpcc_cc_race and hpcc_ccswitch.
 */
#ifndef _HPCC_DIAG_H
#define _HPCC_DIAG_H

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>

struct hpcc_diag_req {
	struct nlmsghdr nlh;
	struct inet_diag_req_v2 r;
};

/* A dump request for the TCP sockets of @family, in every state. */
static inline void hpcc_diag_req_init(struct hpcc_diag_req *req, int family)
{
	*req = (struct hpcc_diag_req) {
		.nlh.nlmsg_len = sizeof(*req),
		.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY,
		.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.r.sdiag_family = family,
		.r.sdiag_protocol = IPPROTO_TCP,
		.r.idiag_states = ~0U,
		.r.idiag_ext = (1 << (INET_DIAG_INFO - 1)) |
			       (1 << (INET_DIAG_VEGASINFO - 1)) |
			       (1 << (INET_DIAG_CONG - 1)),
	};
}

/*
 * One dump of @req over the NETLINK_SOCK_DIAG socket @nl, read into @buf:
 * @msg sees every message before NLMSG_DONE (an NLMSG_ERROR too) and ends
 * the dump by returning non-zero. Returns 0 after NLMSG_DONE, what @msg
 * returned, or -1 with errno set and *@what naming the call that failed.
 */
static inline int hpcc_diag_dump(int nl, const struct hpcc_diag_req *req,
				 char *buf, size_t size,
				 int (*msg)(const struct nlmsghdr *h, void *ctx),
				 void *ctx, const char **what)
{
	if (send(nl, req, sizeof(*req), 0) < 0) {
		*what = "send(sock_diag)";
		return -1;
	}
	for (;;) {
		ssize_t n = recv(nl, buf, size, 0);
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;

		if (n < 0) {
			*what = "recv(sock_diag)";
			return -1;
		}
		for (; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			int ret;

			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			ret = msg(h, ctx);
			if (ret)
				return ret;
		}
	}
}

#endif
