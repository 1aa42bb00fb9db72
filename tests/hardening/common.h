/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the hardening guest programs: TAP output with counters that
 * survive fork() (shared memory), xattr syscall wrappers returning errno,
 * user namespaces made as runtimes make them (vm/tools/nsrun.c: the parent
 * writes uid_map/gid_map), loop devices and mounts.
 */
#ifndef NSCAPS_HARDENING_COMMON_H
#define NSCAPS_HARDENING_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <sys/prctl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* paths are short (TMPDIR of the guest): truncation cannot happen */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define CAPS "security.capability"

struct shared {
	long tests, fails, inputs, ops;
	long lost, stale;
	long phase_fails, phase_ops;
	int diag;
};
static struct shared *S;

static void shared_init(void)
{
	S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (S == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	memset(S, 0, sizeof(*S));
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static void tap(bool ok, const char *directive, const char *fmt, ...)
{
	va_list ap;
	long n = __atomic_add_fetch(&S->tests, 1, __ATOMIC_SEQ_CST);

	if (!ok)
		__atomic_add_fetch(&S->fails, 1, __ATOMIC_SEQ_CST);
	printf("%sok %ld - ", ok ? "" : "not ", n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (directive)
		printf(" # %s", directive);
	printf("\n");
	fflush(stdout);
}

/* A phase: many checks, one TAP line; the first failures as diagnostics. */
static void phase_begin(void)
{
	S->phase_fails = S->phase_ops = 0;
	S->diag = 0;
}

static bool check(bool cond, const char *fmt, ...)
{
	va_list ap;

	__atomic_add_fetch(&S->phase_ops, 1, __ATOMIC_SEQ_CST);
	if (cond)
		return true;
	__atomic_add_fetch(&S->phase_fails, 1, __ATOMIC_SEQ_CST);
	if (__atomic_fetch_add(&S->diag, 1, __ATOMIC_SEQ_CST) < 8) {
		printf("# ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		fflush(stdout);
	}
	return false;
}

static void phase_end(const char *skip, const char *fmt, ...)
{
	char desc[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	if (skip && !S->phase_fails)
		tap(true, skip, "%s", desc);
	else
		tap(!S->phase_fails, NULL, "%s (%ld checks, %ld failed)", desc,
		    S->phase_ops, S->phase_fails);
}

static void count_op(void) { __atomic_add_fetch(&S->ops, 1, __ATOMIC_RELAXED); }
static __attribute__((unused)) void count_input(void) { __atomic_add_fetch(&S->inputs, 1, __ATOMIC_RELAXED); }

/* syscall wrappers: 0 or errno (size for reads in *len) */
static int sx(const char *p, const char *n, const void *v, size_t s, int f)
{
	count_op();
	return lsetxattr(p, n, v, s, f) ? errno : 0;
}
static int gx(const char *p, const char *n, void *v, size_t s, ssize_t *len)
{
	ssize_t r;

	count_op();
	r = lgetxattr(p, n, v, s);
	if (len)
		*len = r;
	return r < 0 ? errno : 0;
}
static int rx(const char *p, const char *n)
{
	count_op();
	return lremovexattr(p, n) ? errno : 0;
}

/* Feature present and on: the patched kernel. */
static bool feature(void)
{
	char c = 0;
	int fd = open("/proc/sys/fs/xattr_user_ns", O_RDONLY);

	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '1';
}

static __attribute__((unused)) int set_sysctl(int on)
{
	int fd = open("/proc/sys/fs/xattr_user_ns", O_WRONLY);
	int r;

	if (fd < 0)
		return -1;
	r = write(fd, on ? "1\n" : "0\n", 2) == 2 ? 0 : -1;
	close(fd);
	return r;
}

static void write_file(pid_t pid, const char *file, const char *text)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		fprintf(stderr, "# write %s: %s\n", path, strerror(errno));
		_exit(125);
	}
	close(fd);
}

/*
 * Run fn() in a child in a new user namespace whose uid_map/gid_map the
 * parent writes (map NULL: none, as unshare -U), as uid inside.
 * Returns the child's exit status (fn's return value), 125 on setup errors.
 */
static int in_userns(const char *map, uid_t uid, int (*fn)(void *), void *arg)
{
	int p[2], st;
	pid_t pid;
	char c;

	fflush(stdout);
	if (pipe2(p, O_CLOEXEC))
		return 125;
	pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		close(p[1]);
		if (unshare(CLONE_NEWUSER))
			_exit(124);
		/*
		 * A set*id() before (nested levels) cleared dumpable, which
		 * makes /proc/PID/uid_map belong to the global root and the
		 * parent could not open it; runtimes do the same.
		 */
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		/* EOF when the parent has written the maps */
		if (read(p[0], &c, 1) < 0)
			_exit(125);
		if (map && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
			_exit(123);
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		fflush(stdout);
		_exit(fn(arg));
	}
	close(p[0]);
	/* wait until the child has its own user namespace */
	for (int i = 0; i < 10000; i++) {
		char a[64], b[64], x[64], y[64];
		ssize_t la, lb;

		snprintf(a, sizeof(a), "/proc/%d/ns/user", getpid());
		snprintf(b, sizeof(b), "/proc/%d/ns/user", pid);
		la = readlink(a, x, sizeof(x) - 1);
		lb = readlink(b, y, sizeof(y) - 1);
		if (la < 0 || lb < 0)
			break;
		x[la] = y[lb] = 0;
		if (strcmp(x, y))
			break;
		usleep(500);
	}
	if (map) {
		write_file(pid, "uid_map", map);
		write_file(pid, "setgroups", "deny");
		write_file(pid, "gid_map", map);
	}
	close(p[1]);
	if (waitpid(pid, &st, 0) < 0)
		return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A v2 capability value with one permitted capability (and effective). */
static void cap_v2(unsigned char v[20], int cap)
{
	uint32_t w[5] = { 0x02000001, 0, 0, 0, 0 };

	w[1 + 2 * (cap / 32)] = 1u << (cap % 32);
	memcpy(v, w, 20);
}

/* Attach a file to a free loop device (LOOP_CTL_GET_FREE, LOOP_CONFIGURE). */
static int loop_attach(const char *img, char *dev, size_t devlen)
{
	struct loop_config cfg;
	int ctl, nr, fd, lfd;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -1;
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (nr < 0)
		return -1;
	snprintf(dev, devlen, "/dev/loop%d", nr);
	if (access(dev, F_OK))
		mknod(dev, S_IFBLK | 0600, makedev(7, nr));
	fd = open(img, O_RDWR | O_CLOEXEC);
	lfd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0 || lfd < 0)
		return -1;
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = fd;
	cfg.block_size = 0;
	if (ioctl(lfd, LOOP_CONFIGURE, &cfg))
		return -1;
	close(fd);
	close(lfd);
	return 0;
}

/* mkfs.ext4 an image of mb MiB at img and mount it at dir. */
static int mount_ext4(const char *img, const char *dir, int mb)
{
	char cmd[512], dev[64];
	int fd = open(img, O_CREAT | O_RDWR | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, (off_t)mb << 20))
		return -1;
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "mkfs.ext4 -q -F -b 4096 -I 256 -E lazy_itable_init=1 %s >/dev/null 2>&1", img);
	if (system(cmd))
		return -1;
	if (loop_attach(img, dev, sizeof(dev)))
		return -1;
	mkdir(dir, 0755);
	return mount(dev, dir, "ext4", 0, NULL);
}

static __attribute__((unused)) int mount_overlay(const char *base, char *merged, size_t mlen)
{
	char l[300], u[300], w[300], opts[1024];

	snprintf(l, sizeof(l), "%s/lower", base);
	snprintf(u, sizeof(u), "%s/upper", base);
	snprintf(w, sizeof(w), "%s/work", base);
	snprintf(merged, mlen, "%s/merged", base);
	mkdir(l, 0755);
	mkdir(u, 0755);
	mkdir(w, 0755);
	mkdir(merged, 0755);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", l, u, w);
	return mount("overlay", merged, "overlay", 0, opts);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static __attribute__((unused)) uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static __attribute__((unused)) double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* NSCAPS_HARDENING_COMMON_H */
