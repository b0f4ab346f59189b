// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc-probe key set|del|list: the domain's MAC keys (wire version 2).
 * A key goes to every place on this machine that uses it: the switch
 * instance's hpcc_mac_keys map (a router tags what it stamps), each host
 * instance's (a receiver seals the responses it sends) and tcp_hpcc.ko's
 * write-only parameter mac_key (a sender verifies). A host attached later
 * copies the keys from the switch or another host (keys_inherit()).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "probe.h"
#include "hpcc_wire.h"
#include "hpcc_maps.h"

#define PIN_MAC_KEYS	"hpcc_mac_keys"
#define MOD_MAC_KEY	"/sys/module/tcp_hpcc/parameters/mac_key"

static const char key_usage[] =
	"Usage: " PROG " key set ID HEX32   set MAC key ID (0..1)\n"
	"       " PROG " key del ID         delete it\n"
	"       " PROG " key list           which ids are set (never the keys)\n";

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int parse_key(const char *s, __u8 *k)
{
	int i;

	if (strlen(s) != 2 * HPCC_MAC_KEY_LEN)
		return -1;
	for (i = 0; i < HPCC_MAC_KEY_LEN; i++) {
		int hi = hexval(s[2 * i]);
		int lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		k[i] = (__u8)(hi << 4 | lo);
	}
	return 0;
}

static int module_write(const char *val)
{
	FILE *f = fopen(MOD_MAC_KEY, "w");
	int err = 0;

	if (!f)
		return -errno;
	if (fputs(val, f) < 0)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* Call @fn on the hpcc_mac_keys map of every hpcc_host instance of this
 * namespace, then of the switch instance: the number of maps found.
 */
static int keys_each(int (*fn)(int fd, void *arg), void *arg)
{
	char ns[PATH_MAX], dir[PATH_MAX], sub[PATH_MAX + 256];
	struct dirent *e;
	int fd, n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/host", ns_pin_dir(ns, sizeof(ns)));
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		fd = pinned_fd(sub, PIN_MAC_KEYS);
		if (fd < 0)
			continue;
		n++;
		fn(fd, arg);
		close(fd);
	}
	if (d)
		closedir(d);
	fd = pinned_fd(switch_dir(dir, sizeof(dir)), PIN_MAC_KEYS);
	if (fd >= 0) {
		n++;
		fn(fd, arg);
		close(fd);
	}
	return n;
}

struct key_write {
	__u32 id;
	const struct hpcc_mac_key *v;
};

static int key_write_one(int fd, void *arg)
{
	const struct key_write *w = arg;

	if (bpf_map_update_elem(fd, &w->id, w->v, BPF_ANY))
		die("cannot write a pinned %s: %s", PIN_MAC_KEYS,
		    strerror(errno));
	return 0;
}

/* Copy the keys set in map @fd into map @arg (an int *, the new host's). */
static int key_copy_one(int fd, void *arg)
{
	struct hpcc_mac_key v;
	__u32 id;

	for (id = 0; id < HPCC_MAC_KEYS; id++)
		if (!bpf_map_lookup_elem(fd, &id, &v) &&
		    (v.flags & HPCC_KEY_F_SET))
			bpf_map_update_elem(*(int *)arg, &id, &v, BPF_ANY);
	memset(&v, 0, sizeof(v));
	return 0;
}

void keys_inherit(int map_fd)
{
	keys_each(key_copy_one, &map_fd);
}

int cmd_key(int argc, char **argv)
{
	char dir[PATH_MAX], buf[64];
	struct hpcc_mac_key v = {};
	struct key_write w = { .v = &v };
	int fd, done = 0;
	__u32 id;

	if (argc > 1 && (!strcmp(argv[1], "-h") ||
			 !strcmp(argv[1], "--help"))) {
		fputs(key_usage, stdout);
		return 0;
	}
	if (argc < 2 || (strcmp(argv[1], "list") && argc < 3)) {
		fputs(key_usage, stderr);
		return 2;
	}
	switch_dir(dir, sizeof(dir));
	fd = pinned_fd(dir, PIN_MAC_KEYS);
	if (!strcmp(argv[1], "list")) {
		for (id = 0; id < HPCC_MAC_KEYS; id++) {
			if (fd < 0 || bpf_map_lookup_elem(fd, &id, &v))
				memset(&v, 0, sizeof(v));
			printf("key %u: switch %s\n", id,
			       fd < 0 ? "(no switch instance)" :
			       v.flags & HPCC_KEY_F_SET ? "set" : "unset");
		}
		printf("module: %s (write-only, not listed)\n",
		       access(MOD_MAC_KEY, F_OK) ? "not loaded" : "loaded");
		return 0;
	}
	if (parse_u32(argv[2], &id) || id >= HPCC_MAC_KEYS) {
		errmsg("key id must be 0..%d", HPCC_MAC_KEYS - 1);
		return 2;
	}
	if (!strcmp(argv[1], "set")) {
		if (argc < 4 || parse_key(argv[3], v.key)) {
			errmsg("key must be %d hex digits", 2 * HPCC_MAC_KEY_LEN);
			return 2;
		}
		v.flags = HPCC_KEY_F_SET;
		snprintf(buf, sizeof(buf), "%u %s", id, argv[3]);
	} else if (!strcmp(argv[1], "del")) {
		snprintf(buf, sizeof(buf), "%u", id);
	} else {
		fputs(key_usage, stderr);
		return 2;
	}
	w.id = id;
	done += keys_each(key_write_one, &w);
	if (!access(MOD_MAC_KEY, F_OK)) {
		int err = module_write(buf);

		if (err)
			die("cannot write %s: %s", MOD_MAC_KEY, strerror(-err));
		done++;
	}
	memset(&v, 0, sizeof(v));
	memset(buf, 0, sizeof(buf));
	if (!done) {
		errmsg("no switch or host instance and no tcp_hpcc module here");
		return 1;
	}
	return 0;
}
