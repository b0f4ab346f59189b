// SPDX-License-Identifier: GPL-2.0
/*
 * Reads a connection's congestion control state while another thread
 * switches its congestion control, the way any unprivileged user can:
 *
 *   hpcc_cc_race SECONDS CC...
 *
 * One thread cycles TCP_CONGESTION through CC... on both ends of a loopback
 * connection that carries data; one reads TCP_CC_INFO (tcp_getsockopt calls
 * ->get_info without the socket lock) and one dumps the sockets over
 * sock_diag with INET_DIAG_INFO (->get_info under RCU only, as `ss -ti`
 * does). A module whose get_info follows a pointer out of icsk_ca_priv
 * crashes here: the switch rewrites that memory under the readers.
 * Prints the counts; exit 0 if every call behaved.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hpcc_diag.h"

static atomic_int stop;
static atomic_int errors;
static int fds[2];
static unsigned long n_switch, n_info, n_diag, n_bytes;

static void fail(const char *what)
{
	fprintf(stderr, "hpcc_cc_race: %s: %s\n", what, strerror(errno));
	atomic_fetch_add(&errors, 1);
	atomic_store(&stop, 1);
}

static void *switcher(void *arg)
{
	char **cc = arg;
	unsigned int i = 0;

	while (!atomic_load(&stop)) {
		const char *name = cc[i++];

		if (!cc[i])
			i = 0;
		for (int s = 0; s < 2; s++)
			if (setsockopt(fds[s], IPPROTO_TCP, TCP_CONGESTION,
				       name, strlen(name))) {
				fail(name);
				return NULL;
			}
		n_switch++;
	}
	return NULL;
}

static void *info_reader(void *arg)
{
	uint64_t info[8];	/* room for any struct tcp_cc_info */

	(void)arg;
	while (!atomic_load(&stop)) {
		socklen_t len = sizeof(info);

		if (getsockopt(fds[n_info & 1], IPPROTO_TCP, TCP_CC_INFO,
			       &info, &len)) {
			fail("getsockopt(TCP_CC_INFO)");
			return NULL;
		}
		n_info++;
	}
	return NULL;
}

/* A message of the dump: an error ends it like its end */
static int diag_msg(const struct nlmsghdr *h, void *arg)
{
	(void)arg;
	return h->nlmsg_type == NLMSG_ERROR;
}

static void *diag_reader(void *arg)
{
	static char buf[1 << 15];
	struct hpcc_diag_req req;
	const char *what;
	int nl;

	(void)arg;
	nl = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG);
	if (nl < 0) {
		fail("socket(NETLINK_SOCK_DIAG)");
		return NULL;
	}
	hpcc_diag_req_init(&req, AF_INET);
	while (!atomic_load(&stop)) {
		if (hpcc_diag_dump(nl, &req, buf, sizeof(buf), diag_msg, NULL,
				   &what) < 0) {
			fail(what);
			break;
		}
		n_diag++;
	}
	close(nl);
	return NULL;
}

/* Keeps data and ACKs flowing, so the ACK path runs beside the switches. */
static void *pump(void *arg)
{
	static char buf[1 << 14];

	(void)arg;
	while (!atomic_load(&stop)) {
		ssize_t w = send(fds[0], buf, sizeof(buf), MSG_DONTWAIT);
		ssize_t r = recv(fds[1], buf, sizeof(buf), MSG_DONTWAIT);

		if ((w < 0 && errno != EAGAIN) || (r < 0 && errno != EAGAIN)) {
			fail("data");
			break;
		}
		if (r > 0)
			n_bytes += r;
	}
	return NULL;
}

static int connect_pair(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int lfd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (void *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (void *)&a, &alen))
		return -1;
	fds[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (fds[0] < 0 || connect(fds[0], (void *)&a, sizeof(a)))
		return -1;
	fds[1] = accept(lfd, NULL, NULL);
	close(lfd);
	return fds[1] < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	void *(*fn[])(void *) = { switcher, info_reader, diag_reader, pump };
	pthread_t t[4];
	int secs;

	secs = argc < 3 ? 0 : atoi(argv[1]);
	if (secs <= 0) {
		fprintf(stderr, "usage: %s SECONDS CC...\n", argv[0]);
		return 2;
	}
	if (connect_pair()) {
		perror("hpcc_cc_race: loopback connection");
		return 1;
	}
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, fn[i], i ? NULL : argv + 2)) {
			perror("hpcc_cc_race: pthread_create");
			return 1;
		}
	for (int s = 0; s < secs * 10 && !atomic_load(&stop); s++)
		usleep(100000);
	atomic_store(&stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("switches %lu cc_info %lu diag_dumps %lu bytes %lu errors %d\n",
	       n_switch, n_info, n_diag, n_bytes, atomic_load(&errors));
	return atomic_load(&errors) ? 1 : 0;
}
