// SPDX-License-Identifier: GPL-2.0
/*
 * Byte-exact TCP transfer for the selftests:
 *   hpcc_xfer recv PORT FILE          accept one connection, write it to FILE
 *   hpcc_xfer send ADDR PORT FILE [CC [IDLE_MS]]
 *                                     send FILE, optionally with
 *                                     TCP_CONGESTION=CC; prints the
 *                                     congestion control in use and
 *                                     the hpcc TCP_CC_INFO at the end.
 *                                     With IDLE_MS: FILE, IDLE_MS idle,
 *                                     FILE again, IDLE_MS idle, then the
 *                                     FIN (a connection that idles).
 * ADDR may be IPv4 or IPv6. With HPCC_XFER_GO=PATH in the environment the
 * sender connects, then waits for PATH to exist before its first byte, so
 * that a script can start several connected flows at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 16];

static int copy(int in, int out)
{
	ssize_t n, w, off;

	while ((n = read(in, buf, sizeof(buf))) > 0)
		for (off = 0; off < n; off += w) {
			w = write(out, buf + off, n - off);
			if (w <= 0)
				return -1;
		}
	return n < 0 ? -1 : 0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int do_recv(const char *port, const char *file)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	int one = 1, lfd, fd, out;

	a.sin6_port = htons(atoi(port));
	lfd = socket(AF_INET6, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (void *)&a, sizeof(a)) || listen(lfd, 1)) {
		perror("hpcc_xfer: listen");
		return 1;
	}
	fd = accept(lfd, NULL, NULL);
	out = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || out < 0 || copy(fd, out)) {
		perror("hpcc_xfer: receive");
		return 1;
	}
	close(out);
	return 0;
}

static void idle(long ms)
{
	struct timespec t = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* the start line: PATH from HPCC_XFER_GO exists; polled each millisecond */
static void wait_go(void)
{
	const char *go = getenv("HPCC_XFER_GO");

	while (go && access(go, F_OK))
		idle(1);
}

static int do_send(const char *addr, const char *port, const char *file,
		   const char *cc, long idle_ms)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in a4;
		struct sockaddr_in6 a6;
	} a = {};
	socklen_t salen;
	struct tcp_bbr_info info = {};
	socklen_t len;
	char used[16] = "";
	double t0;
	int fd, in;
	off_t size;

	if (inet_pton(AF_INET6, addr, &a.a6.sin6_addr) == 1) {
		a.a6.sin6_family = AF_INET6;
		a.a6.sin6_port = htons(atoi(port));
		salen = sizeof(a.a6);
	} else if (inet_pton(AF_INET, addr, &a.a4.sin_addr) == 1) {
		a.a4.sin_family = AF_INET;
		a.a4.sin_port = htons(atoi(port));
		salen = sizeof(a.a4);
	} else {
		fprintf(stderr, "hpcc_xfer: bad address %s\n", addr);
		return 1;
	}
	fd = socket(a.sa.sa_family, SOCK_STREAM, 0);
	if (cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc))) {
		perror("hpcc_xfer: TCP_CONGESTION");
		return 1;
	}
	in = open(file, O_RDONLY);
	if (in < 0 || connect(fd, &a.sa, salen)) {
		perror("hpcc_xfer: connect");
		return 1;
	}
	len = sizeof(used);
	getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, used, &len);
	wait_go();
	t0 = now();
	if (copy(in, fd)) {
		perror("hpcc_xfer: send");
		return 1;
	}
	size = lseek(in, 0, SEEK_CUR);
	if (idle_ms > 0) {
		idle(idle_ms);
		if (lseek(in, 0, SEEK_SET) || copy(in, fd)) {
			perror("hpcc_xfer: send after idle");
			return 1;
		}
		size *= 2;
	}
	len = sizeof(info);
	getsockopt(fd, IPPROTO_TCP, TCP_CC_INFO, &info, &len);
	if (idle_ms > 0)
		idle(idle_ms);
	shutdown(fd, SHUT_WR);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	printf("cc=%s bytes=%lld seconds=%.3f mbps=%.1f hpcc_rate_Bps=%llu hpcc_t_us=%u hpcc_u=%.3f\n",
	       used, (long long)size,
	       now() - t0, size * 8 / (now() - t0) / 1e6,
	       ((unsigned long long)info.bbr_bw_hi << 32) | info.bbr_bw_lo,
	       info.bbr_min_rtt, info.bbr_pacing_gain / 256.0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "recv"))
		return do_recv(argv[2], argv[3]);
	if (argc >= 5 && argc <= 7 && !strcmp(argv[1], "send"))
		return do_send(argv[2], argv[3], argv[4],
			       argc >= 6 ? argv[5] : NULL,
			       argc == 7 ? atol(argv[6]) : 0);
	fprintf(stderr, "usage: hpcc_xfer recv PORT FILE | send ADDR PORT FILE [CC [IDLE_MS]]\n");
	return 2;
}
