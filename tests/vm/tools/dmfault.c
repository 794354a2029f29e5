// SPDX-License-Identifier: GPL-2.0
/*
 * dmfault: dm-crypt table loads with allocation failures, for the test VM (built static by
 * scripts/tools.sh; it speaks the device-mapper ioctls itself so that the failures it
 * injects land in the kernel's table load, not in a tool's start-up).
 *
 *   dmfault DEV CIPHER KEYHEX [MAXN]
 *	Creates one mapping over DEV. For N = 1, 2, ... (up to MAXN if given; the crypto
 *	transform and its key come first in dm-crypt's constructor, its memory pools and
 *	workqueues after them) loads its dm-crypt table ("crypt CIPHER KEYHEX 0 DEV 0", e.g.
 *	CIPHER capi:xts(sm4)-plain64) with the N-th allocation of this task failing
 *	(/proc/thread-self/fail-nth): the load must either succeed or fail with an error, and
 *	after a failure the same table loads without a fault. The table loaded then replaces
 *	the previous one (which dm-crypt's destructor frees) and the mapping must work (64 KiB
 *	written with O_DIRECT, read back the same, and not on DEV in clear). Ends when a load
 *	made fewer than N allocations, so that each one has failed once. Prints "dmfault <N>
 *	allocations, <K> failed cleanly"; exits 1 on a wrong result. (One mapping, not one per
 *	N: creating and removing a device costs about 2.5 times a table load under KASAN, and
 *	its allocations are the block layer's, not dm-crypt's.)
 *
 * A failed step prints "dmfault: <step>: <strerror>" and exits with 100 + errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "failnth.h"

#define NAME "sm4rs-dmfault"
#define IOLEN 65536

static union {
	struct dm_ioctl io;
	char buf[16384];
} dm;

static int fail(const char *step, int err)
{
	fprintf(stderr, "dmfault: %s: %s\n", step, strerror(err));
	return 100 + err;
}

/* One device-mapper ioctl on the mapping NAME; returns 0 or an errno. */
static int dm_cmd(int ctl, unsigned long cmd, const char *table, unsigned long long sectors)
{
	memset(&dm, 0, sizeof(dm));
	dm.io.version[0] = DM_VERSION_MAJOR;
	dm.io.version[1] = 0;
	dm.io.version[2] = 0;
	dm.io.data_size = sizeof(dm);
	dm.io.data_start = sizeof(struct dm_ioctl);
	strcpy(dm.io.name, NAME);
	if (table) {
		struct dm_target_spec *t = (void *)(dm.buf + sizeof(struct dm_ioctl));

		dm.io.target_count = 1;
		t->sector_start = 0;
		t->length = sectors;
		strcpy(t->target_type, "crypt");
		strcpy((char *)(t + 1), table);
		t->next = 0;
	}
	return ioctl(ctl, cmd, &dm) ? errno : 0;
}


/* Writes a pattern through the mapping and reads it back; 0 if it round-trips. */
static int check_mapping(unsigned int minor, const char *dev, unsigned int round)
{
	static unsigned char pat[IOLEN] __attribute__((aligned(4096)));
	static unsigned char back[IOLEN] __attribute__((aligned(4096)));
	char path[64];
	int fd, raw, ok;
	size_t i;

	for (i = 0; i < IOLEN; i++)
		pat[i] = (unsigned char)(i * 7 + round);
	snprintf(path, sizeof(path), "/dev/dm-%u", minor);
	fd = open(path, O_RDWR | O_DIRECT);
	if (fd < 0)
		return fail(path, errno);
	ok = pwrite(fd, pat, IOLEN, 4096) == IOLEN && fsync(fd) == 0 &&
	     pread(fd, back, IOLEN, 4096) == IOLEN && !memcmp(pat, back, IOLEN);
	close(fd);
	raw = open(dev, O_RDONLY | O_DIRECT);
	if (raw < 0)
		return fail(dev, errno);
	/* The data is on the disk encrypted, not in clear. */
	ok = ok && pread(raw, back, IOLEN, 4096) == IOLEN && memcmp(pat, back, IOLEN);
	close(raw);
	return ok ? 0 : 1;
}

/* Removes the mapping NAME; returns rc, or 100 + errno if the removal fails. */
static int remove_mapping(int ctl, int rc)
{
	int err = dm_cmd(ctl, DM_DEV_REMOVE, NULL, 0);

	return err ? fail("DM_DEV_REMOVE", err) : rc;
}

int main(int argc, char **argv)
{
	unsigned long long bytes, sectors;
	unsigned int nth, failed = 0, maxn, minor;
	static char table[1024];
	int ctl, fd, err, left;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: dmfault DEV CIPHER KEYHEX [MAXN]\n");
		return 2;
	}
	maxn = argc == 5 ? strtoul(argv[4], NULL, 0) : 0;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes))
		return fail(argv[1], errno);
	close(fd);
	sectors = bytes / 512;
	snprintf(table, sizeof(table), "%s %s 0 %s 0", argv[2], argv[3], argv[1]);
	ctl = open("/dev/mapper/control", O_RDWR);
	if (ctl < 0)
		return fail("/dev/mapper/control", errno);
	err = dm_cmd(ctl, DM_DEV_CREATE, NULL, 0);
	if (err)
		return fail("DM_DEV_CREATE", err);
	minor = minor(dm.io.dev);
	for (nth = 1; nth < 100000; nth++) {
		if (set_fail_nth(nth))
			return fail("fail-nth", errno);
		err = dm_cmd(ctl, DM_TABLE_LOAD, table, sectors);
		left = get_fail_nth();
		set_fail_nth(0);
		if (err && left > 0) {
			fprintf(stderr, "dmfault: the load failed with no fault injected: %s\n",
				strerror(err));
			return remove_mapping(ctl, 1);
		}
		if (err) {
			failed++;
			/* The failure is clean: the same load without a fault works. */
			err = dm_cmd(ctl, DM_TABLE_LOAD, table, sectors);
			if (err) {
				fprintf(stderr, "dmfault: the load after allocation %u failed: %s\n",
					nth, strerror(err));
				return remove_mapping(ctl, 1);
			}
		}
		/* No flags: resume, which swaps the table loaded in. */
		err = dm_cmd(ctl, DM_DEV_SUSPEND, NULL, 0);
		if (err)
			return remove_mapping(ctl, fail("DM_DEV_SUSPEND (resume)", err));
		if (check_mapping(minor, argv[1], nth)) {
			fprintf(stderr, "dmfault: wrong data through the mapping after allocation %u\n",
				nth);
			return remove_mapping(ctl, 1);
		}
		if (left > 0)	/* fewer than nth allocations: every one has failed once */
			break;
		if (maxn && nth == maxn) {
			printf("dmfault first %u allocations, %u failed cleanly\n", nth, failed);
			return remove_mapping(ctl, !failed);
		}
	}
	printf("dmfault %u allocations, %u failed cleanly\n", nth - 1, failed);
	/* No allocation made to fail: nothing was tested. */
	return remove_mapping(ctl, !failed);
}
