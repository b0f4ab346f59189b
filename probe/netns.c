// SPDX-License-Identifier: GPL-2.0
/*
 * Network namespaces: entering one (-n), telling the initial
 * ones, a namespace's cookie and pin directory, its devices.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "probe.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE		71
#endif

static char netns_name[PATH_MAX];	/* -n, for messages */

int dev_index(const char *dev)
{
	int ifindex = dev ? if_nametoindex(dev) : 0;

	if (!ifindex)
		die("unknown device '%s'%s%s", dev ? dev : "",
		    netns_name[0] ? " in network namespace " : "", netns_name);
	return ifindex;
}

/* -------------------------------------------------- network namespaces */

void enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("cannot open network namespace '%s' (%s): %s", name, path,
		    strerror(errno));
	if (setns(fd, CLONE_NEWNET))
		die("cannot enter network namespace '%s': %s", name,
		    strerror(errno));
	close(fd);
	snprintf(netns_name, sizeof(netns_name), "%s", name);
}

/* The -n argument, or NULL. */
const char *netns_arg(void)
{
	return netns_name[0] ? netns_name : NULL;
}

__u64 netns_cookie(void)
{
	socklen_t l = sizeof(__u64);
	__u64 c = 0;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &l))
		die("cannot read the network namespace cookie: %s",
		    strerror(errno));
	close(fd);
	return c;
}

/* A process in the initial namespaces: init, or kthreadd where init's
 * ns links are out of reach (ptrace rules of some sandboxes). NULL if
 * neither is readable.
 */
const char *init_ns_path(const char *kind, char *buf, size_t len)
{
	char comm[32] = "";
	FILE *f;

	snprintf(buf, len, "/proc/1/ns/%s", kind);
	if (!access(buf, R_OK) && exists(buf)) {
		struct stat st;

		if (!stat(buf, &st))
			return buf;
	}
	f = fopen("/proc/2/comm", "r");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
	}
	snprintf(buf, len, "/proc/2/ns/%s", kind);
	if (!strcmp(comm, "kthreadd\n")) {
		struct stat st;

		if (!stat(buf, &st))
			return buf;
	}
	return NULL;
}

/* Are we in the initial namespace of @kind ("net", "mnt")? If it cannot
 * be told, assume so unless -n took us elsewhere.
 */
bool in_init_ns(const char *kind)
{
	char self[64], buf[64];
	const char *ref = init_ns_path(kind, buf, sizeof(buf));
	struct stat sa, sb;

	snprintf(self, sizeof(self), "/proc/self/ns/%s", kind);
	if (!ref || stat(self, &sa) || stat(ref, &sb))
		return !(netns_name[0] && !strcmp(kind, "net"));
	return sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev;
}

/* Is the current network namespace the initial one (the one whose pins go
 * straight under PIN_ROOT)?
 */
bool in_root_netns(void)
{
	return in_init_ns("net");
}

/* Pin directory of the current network namespace, in @buf. */
const char *ns_pin_dir(char *buf, size_t len)
{
	if (in_root_netns())
		snprintf(buf, len, "%s", PIN_ROOT);
	else
		snprintf(buf, len, "%s/netns/%llu", PIN_ROOT,
			 (unsigned long long)netns_cookie());
	return buf;
}

