// SPDX-License-Identifier: GPL-2.0
/*
 * The rtnetlink questions libbpf cannot answer: which qdisc is a
 * device's root, does a clsact hook still hold filters (so that detaching
 * our filter may also remove the clsact qdisc without taking anybody
 * else's filters with it), and what link layer a device has.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/pkt_sched.h>

#include "probe.h"

typedef int (*nl_cb)(const struct nlmsghdr *nh, void *arg);

/* Where the kernel's answers land, aligned for struct nlmsghdr. One at a
 * time: nothing here runs concurrently.
 */
static union {
	struct nlmsghdr nh;
	char b[65536];
} nl_buf;

/* Dump @type (RTM_GETQDISC, RTM_GETTFILTER) for @ifindex/@parent and call
 * @cb for each answer. Returns 0 or -errno.
 */
static int nl_dump(int type, int ifindex, __u32 parent, nl_cb cb, void *arg)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = {
		.nh = {
			.nlmsg_len = NLMSG_LENGTH(sizeof(req.tc)),
			.nlmsg_type = type,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = 1,
		},
		.tc = {
			.tcm_family = AF_UNSPEC,
			.tcm_ifindex = ifindex,
			.tcm_parent = parent,
		},
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, ret = 0;
	bool done = false;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (void *)&sa,
		   sizeof(sa)) < 0) {
		ret = -errno;
		goto out;
	}
	while (!done) {
		struct nlmsghdr *nh;
		ssize_t n = recv(fd, nl_buf.b, sizeof(nl_buf.b), 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (n == 0)
			break;
		for (nh = &nl_buf.nh; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				ret = e->error;
				goto out;
			}
			if (!ret)
				ret = cb(nh, arg);
		}
	}
out:
	close(fd);
	return ret;
}

struct root_qdisc {
	int ifindex;
	char *kind;
	size_t len;
	bool found;
};

static int root_qdisc_cb(const struct nlmsghdr *nh, void *arg)
{
	struct root_qdisc *r = arg;
	const struct tcmsg *tc = NLMSG_DATA(nh);
	const struct rtattr *a;
	int alen;

	if (nh->nlmsg_type != RTM_NEWQDISC || tc->tcm_ifindex != r->ifindex ||
	    tc->tcm_parent != TC_H_ROOT)
		return 0;
	alen = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tc));
	for (a = (const void *)((const char *)tc + NLMSG_ALIGN(sizeof(*tc)));
	     RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
		if (a->rta_type == TCA_KIND) {
			size_t l = RTA_PAYLOAD(a);

			if (l >= r->len)
				l = r->len - 1;
			memcpy(r->kind, RTA_DATA(a), l);
			r->kind[l] = 0;
			r->kind[strnlen(r->kind, l)] = 0;
			r->found = true;
		}
	}
	return 0;
}

/* Kind of @ifindex's root qdisc ("noqueue", "fq_codel", "mq"...).
 * 0, -ENOENT when there is none to report, or another -errno.
 */
int nl_root_qdisc(int ifindex, char *kind, size_t len)
{
	struct root_qdisc r = { .ifindex = ifindex, .kind = kind, .len = len };
	int err;

	kind[0] = 0;
	err = nl_dump(RTM_GETQDISC, ifindex, 0, root_qdisc_cb, &r);
	if (err)
		return err;
	return r.found ? 0 : -ENOENT;
}

struct filter_count {
	int ifindex;
	int n;
};

static int filter_count_cb(const struct nlmsghdr *nh, void *arg)
{
	struct filter_count *c = arg;
	const struct tcmsg *tc = NLMSG_DATA(nh);

	if (nh->nlmsg_type == RTM_NEWTFILTER && tc->tcm_ifindex == c->ifindex)
		c->n++;
	return 0;
}

/* Filters (any kind, any priority) attached at @parent of @ifindex, e.g.
 * TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS). -errno on failure (-EINVAL
 * when the device has no such qdisc).
 */
int nl_filter_count(int ifindex, __u32 parent)
{
	struct filter_count c = { .ifindex = ifindex };
	int err;

	err = nl_dump(RTM_GETTFILTER, ifindex, parent, filter_count_cb, &c);
	return err ? err : c.n;
}

/* Link type (ARPHRD_*) of @ifindex in the current network namespace, or
 * -errno. Asked by index: /sys/class/net shows the namespace that mounted
 * sysfs, which after -n is not ours.
 */
int nl_link_type(int ifindex)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = {
		.nh = {
			.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi)),
			.nlmsg_type = RTM_GETLINK,
			.nlmsg_flags = NLM_F_REQUEST,
			.nlmsg_seq = 1,
		},
		.ifi = {
			.ifi_family = AF_UNSPEC,
			.ifi_index = ifindex,
		},
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nlmsghdr *nh;
	int fd, ret = -ENOENT;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (void *)&sa,
		   sizeof(sa)) < 0) {
		ret = -errno;
		goto out;
	}
	do {
		n = recv(fd, nl_buf.b, sizeof(nl_buf.b), 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		ret = -errno;
		goto out;
	}
	for (nh = &nl_buf.nh; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
		if (nh->nlmsg_type == NLMSG_ERROR) {
			ret = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			break;
		}
		if (nh->nlmsg_type == RTM_NEWLINK &&
		    nh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifinfomsg))) {
			const struct ifinfomsg *ifi = NLMSG_DATA(nh);

			if (ifi->ifi_index == ifindex) {
				ret = ifi->ifi_type;
				break;
			}
		}
	}
out:
	close(fd);
	return ret;
}
