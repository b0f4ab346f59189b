// SPDX-License-Identifier: GPL-2.0
/*
 * bpffs: finding or mounting it, the lock, pin paths and
 * directories, pinning and unpinning.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probe.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC		0xcafe4a11
#endif

/* ----------------------------------------------------------- bpffs pins */

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

/* Is there a bpffs at /sys/fs/bpf for us? Under `ip netns exec` we sit in
 * a private mount namespace whose fresh /sys has none: join init's mount
 * namespace (the network namespace stays ours), whose bpffs outlives us.
 * With @create, mount one when init has none either, as bpftool does.
 */
/* Join init's mount namespace (the network namespace stays ours). If it
 * cannot be done, false, errno telling why.
 */
static bool join_init_mntns(void)
{
	char path[64];
	int fd;

	if (!init_ns_path("mnt", path, sizeof(path)))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (setns(fd, CLONE_NEWNS)) {
		int err = errno;

		close(fd);
		errno = err;
		return false;
	}
	close(fd);
	return true;
}

bool find_bpffs(bool create)
{
	if (is_bpffs(BPFFS))
		return true;
	if (!in_init_ns("mnt")) {
		if (!join_init_mntns()) {
			if (create)
				die("no bpffs at " BPFFS " in this mount namespace and cannot join init's (%s): pins would not outlive the command; use '" PROG " -n NETNS ...' rather than 'ip netns exec'",
				    strerror(errno));
			return false;
		}
		if (is_bpffs(BPFFS))
			return true;
	}
	if (!create)
		return false;
	mkdir(BPFFS, 0755);
	if (mount("bpf", BPFFS, "bpf", 0, "mode=0700"))
		die("no bpffs at " BPFFS " and cannot mount one: %s",
		    strerror(errno));
	return true;
}

void ensure_bpffs(void)
{
	find_bpffs(true);
}

/* Serialise attach/detach runs: an exclusive flock on PIN_ROOT, which is
 * never removed, held until exit.
 */
void lock_pins(void)
{
	int fd;

	if (mkdir(PIN_ROOT, 0700) && errno != EEXIST)
		die("cannot create " PIN_ROOT ": %s", strerror(errno));
	fd = open(PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX))
		die("cannot lock " PIN_ROOT ": %s", strerror(errno));
}

int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* @dir/@name in @buf; dies if it does not fit. */
const char *pin_path(const char *dir, const char *name, char *buf,
		     size_t len)
{
	if ((size_t)snprintf(buf, len, "%s/%s", dir, name) >= len)
		die("path too long: %s/%s", dir, name);
	return buf;
}

/* Pin @prog as @prog_name and each of @maps under @dir: 0 or -errno. */
int pin_objects(const char *dir, struct bpf_program *prog,
		const char *prog_name, const struct pin_map *maps, int n)
{
	char path[PATH_MAX];
	int err, i;

	err = bpf_program__pin(prog, pin_path(dir, prog_name, path,
					      sizeof(path)));
	for (i = 0; !err && i < n; i++)
		err = bpf_map__pin(maps[i].map, pin_path(dir, maps[i].name,
							 path, sizeof(path)));
	return err;
}

/* Is @dir a directory below PIN_ROOT, without "." or ".." components
 * that could lead out of it?
 */
static bool pin_dir_inside(const char *dir)
{
	const char *p = dir + strlen(PIN_ROOT);

	if (strncmp(dir, PIN_ROOT "/", strlen(PIN_ROOT) + 1))
		return false;
	while (*p == '/') {
		const char *end = strchrnul(p + 1, '/');
		size_t n = end - p - 1;

		if (!n || (n == 1 && p[1] == '.') ||
		    (n == 2 && p[1] == '.' && p[2] == '.'))
			return false;
		p = end;
	}
	return !*p;
}

/* Unpin everything in @dir, remove it and the parents it leaves empty up
 * to PIN_ROOT (excluded: it carries the lock).
 */
static void unpin_all(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			unlink(pin_path(dir, e->d_name, path, sizeof(path)));
	closedir(d);
}

void rm_pin_dir(const char *dir)
{
	char buf[PATH_MAX];

	if (!pin_dir_inside(dir))
		die("refusing to remove %s: not a directory below " PIN_ROOT,
		    dir);
	unpin_all(dir);
	snprintf(buf, sizeof(buf), "%s", dir);
	while (strlen(buf) > strlen(PIN_ROOT) && !rmdir(buf)) {
		char *slash = strrchr(buf, '/');

		if (!slash)
			break;
		*slash = 0;
	}
}

int pinned_fd(const char *dir, const char *name)
{
	char path[PATH_MAX];

	return bpf_obj_get(pin_path(dir, name, path, sizeof(path)));
}

__u32 prog_id_of(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

__u32 pinned_prog_id(const char *dir, const char *name)
{
	int fd = pinned_fd(dir, name);
	__u32 id = prog_id_of(fd);

	if (fd >= 0)
		close(fd);
	return id;
}

/* The pin directory name of interface @dev, and back. bpffs refuses '.'
 * in names (reserved for its own files), and VLAN devices are usually
 * called eth0.100: ':' stands for '.', and as no interface name contains
 * a ':' (dev_valid_name()) the spelling is one to one. Names without a
 * '.' are their own spelling, as before.
 */
static const char *dev_pin_name(const char *dev, char *buf, size_t len)
{
	char *c;

	snprintf(buf, len, "%s", dev);
	for (c = buf; *c; c++)
		if (*c == '.')
			*c = ':';
	return buf;
}

const char *pin_name_dev(const char *name, char *buf, size_t len)
{
	char *c;

	snprintf(buf, len, "%s", name);
	for (c = buf; *c; c++)
		if (*c == ':')
			*c = '.';
	return buf;
}

/* The device's own name (in @buf) when @dev is one of its alternative
 * names, so that pins are found under one name whatever was typed.
 */
const char *dev_name(const char *dev, int ifindex, char buf[IF_NAMESIZE])
{
	if (ifindex > 0 && if_indextoname(ifindex, buf))
		return buf;
	return dev;
}

/* Pin directory of hpcc_host on @dev, which must be a valid interface
 * name (check_ifname()): then it is one component, inside the namespace's
 * pin directory.
 */
const char *host_dir(const char *dev, char *buf, size_t len)
{
	char ns[PATH_MAX], name[IF_NAMESIZE];

	if (!ifname_valid(dev))
		die("bad device name '%s'", dev);
	snprintf(buf, len, "%s/host/%s", ns_pin_dir(ns, sizeof(ns)),
		 dev_pin_name(dev, name, sizeof(name)));
	return buf;
}

/* Pin directory of the namespace's hpcc_switch instance. */
const char *switch_dir(char *buf, size_t len)
{
	char ns[PATH_MAX];

	snprintf(buf, len, "%s/switch", ns_pin_dir(ns, sizeof(ns)));
	return buf;
}

int sw_open(const char *dir, struct sw *s)
{
	s->prog = pinned_fd(dir, PIN_SW_PROG);
	s->cfg = pinned_fd(dir, PIN_CFG_PORT);
	s->qsnap = pinned_fd(dir, PIN_QSNAP);
	s->prog_id = prog_id_of(s->prog);
	s->edge_prog = pinned_fd(dir, PIN_EDGE_PROG);
	s->edge_prog_id = s->edge_prog >= 0 ? prog_id_of(s->edge_prog) : 0;
	if (s->prog < 0 || s->cfg < 0 || s->qsnap < 0 || !s->prog_id)
		return -1;
	return 0;
}

/* Close what sw_open() opened, whether it succeeded or not. */
void sw_close(struct sw *s)
{
	if (s->prog >= 0)
		close(s->prog);
	if (s->cfg >= 0)
		close(s->cfg);
	if (s->qsnap >= 0)
		close(s->qsnap);
	if (s->edge_prog >= 0)
		close(s->edge_prog);
	*s = (struct sw)SW_CLOSED;
}

