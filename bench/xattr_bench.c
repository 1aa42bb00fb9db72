// SPDX-License-Identifier: GPL-2.0
/*
 * xattr_bench: the guest side of `make bench` (bench/run.sh).
 *
 * Runs as root in the test guest.  Mounts a private tmpfs (s_user_ns = init,
 * so every user namespace below is non-fs-privileged), writes the raw names
 * it needs as host root, then times each operation of issue 6, from the host
 * and from nested user namespaces it creates itself.
 *
 *   xattr_bench [--rounds R] [--scale F] [--alloc] [--exe PATH] [--true PATH] [--fuse PATH]
 *               [--only OP]
 *
 * Output, one fact a line (bench/report.py reads them back):
 *   kernel=<release> version=<uname -v>
 *   feature=<read|write|list|exec|sysctl> present=<0|1>
 *   op=<name> needs=<feature|-> n=<iterations> outcome=<what one call did>
 *   op=<name> round=<i> ns_per_op=<x>           (timing mode)
 *   op=<name> slab_per_op=<x> pages_per_op=<y>  (--alloc mode)
 *
 * Namespaces: depth d is a chain of d user namespaces; level k maps its uids
 * and gids 0..C_k-1 to its parent's 1000..1000+C_k-1 (C_k = 100000-1000(k-1)),
 * written by a helper process left in the parent level.  So the root of level
 * k is host uid 1000*k (its key K), every level has a distinct root, and host
 * uids 16000..100999 are mapped at every depth (the files belong to 20000).
 *
 * FUSE: the nscaps_fuse helper of the kernel's selftests (--fuse, a static
 * binary: a FUSE server without any xattr operation, hence without SB_NOSEC,
 * so that every write() asks killpriv whether the file has capabilities)
 * serves fuse/ below the tmpfs; write_fuse_host writes one byte to its file.
 * write_fusex_host does the same on fusex/, the same server with --xattrs
 * (it answers getxattr and listxattr, storing no name), for what killpriv
 * costs on a server that has xattrs.
 *
 * Timing: CLOCK_MONOTONIC around a loop of n calls.  Run the guest with
 * qemu -icount shift=0 and the clock counts guest instructions (1 ns each).
 * Allocation: with a SLUB_STATS kernel, the sum of alloc_fastpath and
 * alloc_slowpath over /sys/kernel/slab/<cache>/ and of pgalloc_* in
 * /proc/vmstat, read before and after a loop (minus a read with no loop in
 * between), divided by n; the least of three trials.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#define CAPS "security.capability"
#define KEY(d) (1000u * (d))
#define OWNER 20000
#define LISTBUF 65536

static int rounds = 7;
static double scale = 1.0;
static int alloc_mode;
static const char *exe = "/usr/local/bin/capexit";
static const char *true_exe = "/usr/local/bin/true-gnu";
static const char *fuse_server = "/usr/local/bin/nscaps_fuse";
static pid_t fuse_pids[2] = { -1, -1 };
static const char *only;
static char listbuf[LISTBUF];

/* ---------------------------------------------------------------- setup */

static int setup_errors;

static void capval(struct vfs_cap_data *v, int bit)
{
	memset(v, 0, sizeof(*v));
	v->magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE;
	v->data[bit / 32].permitted = 1u << (bit % 32);
}

/* The capability each value grants, to tell which value a read returned. */
#define BIT_PLAIN CAP_CHOWN
#define BIT_WILD CAP_KILL
static int bit_for_key(int d)
{
	switch (d) {
	case 1: return CAP_NET_RAW;
	case 4: return CAP_NET_ADMIN;
	case 16: return CAP_NET_BIND_SERVICE;
	default: return CAP_SYS_NICE;
	}
}

static void set_cap(const char *f, const char *name, int bit)
{
	struct vfs_cap_data v;

	capval(&v, bit);
	if (setxattr(f, name, &v, XATTR_CAPS_SZ_2, 0)) {
		printf("setup-error file=%s name=%s errno=%d (%s)\n", f, name,
		       errno, strerror(errno));
		setup_errors++;
	}
}

static void set_key(const char *f, int d, int bit)
{
	char name[64];

	snprintf(name, sizeof(name), CAPS "@uid=%u", KEY(d));
	set_cap(f, name, bit);
}

static void set_users(const char *f, int n)
{
	char name[64];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "user.bench.name.%04d", i);
		if (setxattr(f, name, "value-12", 8, 0)) {
			printf("setup-error file=%s name=%s errno=%d (%s)\n", f,
			       name, errno, strerror(errno));
			setup_errors++;
			return;
		}
	}
}

static void mkfile(const char *f, mode_t mode)
{
	int fd = open(f, O_CREAT | O_WRONLY | O_TRUNC, mode);

	if (fd < 0 || fchown(fd, OWNER, OWNER) || fchmod(fd, mode)) {
		printf("setup-error file=%s errno=%d (%s)\n", f, errno, strerror(errno));
		exit(1);
	}
	close(fd);
}

static void copyfrom(const char *f, const char *src)
{
	char buf[65536];
	int in = open(src, O_RDONLY), out;
	ssize_t n;

	mkfile(f, 0755);
	out = open(f, O_WRONLY);
	if (in < 0 || out < 0) {
		printf("setup-error file=%s exe=%s errno=%d (%s)\n", f, src, errno,
		       strerror(errno));
		exit(1);
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			exit(1);
	close(in);
	close(out);
}

static void copyexe(const char *f)
{
	copyfrom(f, exe);
}

/* run_argv: fork + execv + wait; the exit status, or -1 */
static int run_argv(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void rm_rf(const char *dir)
{
	char *argv[] = { "/bin/rm", "-rf", (char *)dir, NULL };

	run_argv(argv);
}

#define TREE_DIRS 40
#define TREE_FILES 50
#define TREE_CAP_EVERY 100

/*
 * The macro rows' tree: 2,000 small files in 40 directories, one in a
 * hundred with a plain capability, as an image layer carries them, and
 * tree.tar, GNU tar's archive of it with its xattrs.  x1/ belongs to the
 * root of depth 1, which extracts the archive there and mounts
 * fuse-overlayfs over x1/lower.
 */
static void mktree(void)
{
	char *tar[] = { "/usr/bin/tar", "--xattrs", "--xattrs-include=*", "-cf",
			"tree.tar", "-C", "tree", ".", NULL };
	static const char content[64] = "a file of the macro rows' tree";
	char path[64];
	int d, f, fd, i = 0;

	if (mkdir("tree", 0755)) {
		printf("setup-error mkdir tree errno=%d\n", errno);
		setup_errors++;
		return;
	}
	for (d = 0; d < TREE_DIRS; d++) {
		snprintf(path, sizeof(path), "tree/d%02d", d);
		mkdir(path, 0755);
		for (f = 0; f < TREE_FILES; f++, i++) {
			snprintf(path, sizeof(path), "tree/d%02d/f%03d", d, f);
			fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0755);
			if (fd < 0 || write(fd, content, sizeof(content)) != sizeof(content)) {
				printf("setup-error file=%s errno=%d\n", path, errno);
				setup_errors++;
				return;
			}
			close(fd);
			if (i % TREE_CAP_EVERY == 0)
				set_cap(path, CAPS, CAP_NET_RAW);
		}
	}
	if (run_argv(tar)) {
		printf("setup-error tar -c of tree failed\n");
		setup_errors++;
	}
	if (mkdir("x1", 0755) || chown("x1", KEY(1), KEY(1)) ||
	    mkdir("x1/lower", 0755) || chown("x1/lower", KEY(1), KEY(1))) {
		printf("setup-error x1 errno=%d\n", errno);
		setup_errors++;
		return;
	}
	fd = open("x1/lower/file", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 4096) || fchown(fd, KEY(1), KEY(1))) {
		printf("setup-error x1/lower/file errno=%d\n", errno);
		setup_errors++;
	}
	if (fd >= 0)
		close(fd);
}

/*
 * fovl_mount: in the caller's namespace (depth 1), a mount namespace of its
 * own and Debian's fuse-overlayfs on x1/merged, as rootless Podman mounts a
 * container's root (it daemonizes once mounted).
 */
static int fovl_mount(void)
{
	char cwd[256], opts[1024];
	char *argv[] = { "/usr/bin/fuse-overlayfs", "-o", opts, "x1/merged", NULL };

	if (!getcwd(cwd, sizeof(cwd)) || unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	rm_rf("x1/upper");
	rm_rf("x1/work");
	rm_rf("x1/merged");
	if (mkdir("x1/upper", 0755) || mkdir("x1/work", 0755) ||
	    mkdir("x1/merged", 0755))
		return -1;
	snprintf(opts, sizeof(opts), "lowerdir=%s/x1/lower,upperdir=%s/x1/upper,workdir=%s/x1/work",
		 cwd, cwd, cwd);
	return run_argv(argv) ? -1 : 0;
}

static const char *const fuse_dirs[2] = { "fuse", "fusex" };

/* Mounts FUSE server i on fuse_dirs[i] (its file: <dir>/file). */
static void start_fuse(int i)
{
	const char *dir = fuse_dirs[i];
	int ready[2];
	char buf[8];
	ssize_t n;
	pid_t pid;

	if (mkdir(dir, 0755) || pipe(ready)) {
		printf("setup-error %s mkdir/pipe errno=%d (%s)\n", dir, errno,
		       strerror(errno));
		setup_errors++;
		return;
	}
	pid = fork();
	if (pid == 0) {
		char *argv[4] = { (char *)fuse_server };
		int a = 1;

		if (i)
			argv[a++] = "--xattrs";
		argv[a] = (char *)dir;
		close(ready[0]);
		dup2(ready[1], STDOUT_FILENO);
		execv(fuse_server, argv);
		_exit(127);
	}
	close(ready[1]);
	n = read(ready[0], buf, sizeof(buf));
	close(ready[0]);
	if (pid < 0 || n != 6 || memcmp(buf, "ready\n", 6)) {
		printf("setup-error %s server=%s did not start\n", dir, fuse_server);
		setup_errors++;
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return;
	}
	fuse_pids[i] = pid;
}

static void stop_fuse(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (fuse_pids[i] < 0)
			continue;
		umount2(fuse_dirs[i], MNT_DETACH);
		kill(fuse_pids[i], SIGTERM);
		waitpid(fuse_pids[i], NULL, 0);
	}
}

static void setup(void)
{
	int d;

	if (mkdir("m", 0755) && errno != EEXIST) {
		perror("mkdir m");
		exit(1);
	}
	if (mount("benchfs", "m", "tmpfs", 0, "mode=0755,size=64m")) {
		perror("mount tmpfs");
		exit(1);
	}
	if (chdir("m")) {
		perror("chdir m");
		exit(1);
	}
	/* user.* names only */
	mkfile("u", 0666);
	set_users("u", 10);
	/* the host's plain value only: host get, and the namespaces' fallback */
	mkfile("p", 0666);
	set_cap("p", CAPS, BIT_PLAIN);
	/* a miss: no security.capability under any name */
	mkfile("n", 0666);
	set_users("n", 10);
	/* own value at depth d, beside the plain value and the wildcard */
	for (d = 1; d <= 16; d *= 4) {
		char f[8];

		snprintf(f, sizeof(f), "o%d", d);
		mkfile(f, 0666);
		set_cap(f, CAPS, BIT_PLAIN);
		set_cap(f, CAPS "@uid", BIT_WILD);
		set_key(f, d, bit_for_key(d));
	}
	/* listxattr: N user.* names, the plain value, two keys, the wildcard */
	for (d = 10; d <= 1000; d *= 10) {
		char f[8];

		snprintf(f, sizeof(f), "l%d", d);
		mkfile(f, 0666);
		set_users(f, d);
		set_cap(f, CAPS, BIT_PLAIN);
		set_cap(f, CAPS "@uid", BIT_WILD);
		set_key(f, 1, bit_for_key(1));
		set_key(f, 2, bit_for_key(2));
	}
	/* setxattr/removexattr target */
	mkfile("s", 0666);
	/* exec: host value only; host value and depth 1's own value */
	copyexe("eh");
	set_cap("eh", CAPS, CAP_NET_RAW);
	copyexe("en");
	set_cap("en", CAPS, CAP_NET_RAW);
	set_key("en", 1, CAP_NET_RAW);
	/* the same on a dynamically linked program (GNU true): ld.so's work */
	copyfrom("et", true_exe);
	set_cap("et", CAPS, CAP_NET_RAW);
	set_key("et", 1, CAP_NET_RAW);
	/* deeper: the host value and the own value of depth 4 (16) */
	copyexe("e4");
	set_cap("e4", CAPS, CAP_NET_RAW);
	set_key("e4", 4, CAP_NET_RAW);
	copyexe("e16");
	set_cap("e16", CAPS, CAP_NET_RAW);
	set_key("e16", 16, CAP_NET_RAW);
	/* feature probes (see probe()) */
	mkfile("pr", 0666);
	set_cap("pr", CAPS, BIT_PLAIN);
	set_key("pr", 1, bit_for_key(1));
	mkfile("pw", 0666);
	mkfile("pl", 0666);
	set_key("pl", 1, bit_for_key(1));
	copyexe("pe");
	set_key("pe", 1, CAP_NET_RAW);
	mktree();
	/*
	 * /dev/fuse as Debian's udev leaves it (0666), which rootless
	 * fuse-overlayfs opens; devtmpfs makes it 0600.
	 */
	chmod("/dev/fuse", 0666);
	/* write(): a file without capabilities on a FUSE filesystem */
	start_fuse(0);
	start_fuse(1);
}

/* ----------------------------------------------------------- namespaces */

static void xwrite(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
		fprintf(stderr, "write %s: %s\n", path, strerror(errno));
		_exit(1);
	}
	close(fd);
}

/* enter_depth: become root of a chain of d new user namespaces. */
static void enter_depth(int d)
{
	int k;

	for (k = 1; k <= d; k++) {
		int go[2], done[2];
		pid_t me = getpid(), h;
		char c = 0;

		if (pipe(go) || pipe(done)) {
			perror("pipe");
			exit(1);
		}
		h = fork();
		if (h < 0) {
			perror("fork");
			exit(1);
		}
		if (h == 0) {
			char path[64], map[64];

			close(go[1]);
			close(done[0]);
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			snprintf(map, sizeof(map), "0 1000 %d\n", 100000 - 1000 * (k - 1));
			snprintf(path, sizeof(path), "/proc/%d/uid_map", me);
			xwrite(path, map);
			snprintf(path, sizeof(path), "/proc/%d/gid_map", me);
			xwrite(path, map);
			if (write(done[1], &c, 1) != 1)
				_exit(1);
			_exit(0);
		}
		close(go[0]);
		close(done[1]);
		if (unshare(CLONE_NEWUSER)) {
			perror("unshare(CLONE_NEWUSER)");
			exit(1);
		}
		if (write(go[1], &c, 1) != 1 || read(done[0], &c, 1) != 1) {
			fprintf(stderr, "uid_map helper failed at level %d\n", k);
			exit(1);
		}
		waitpid(h, NULL, 0);
		close(go[1]);
		close(done[0]);
		if (setresgid(0, 0, 0) || setresuid(0, 0, 0)) {
			perror("setresuid in new namespace");
			exit(1);
		}
		setgroups(0, NULL);
		/*
		 * The uid change made us non-dumpable, which makes /proc/self
		 * belong to host root: the next level's helper could not
		 * write our uid_map.
		 */
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	}
}

/* ---------------------------------------------------------------- probes */

static int probe_child(const char *what)
{
	char buf[256];
	ssize_t n;

	enter_depth(1);
	if (!strcmp(what, "read")) {
		struct vfs_cap_data *v = (void *)buf;

		n = getxattr("pr", CAPS, buf, sizeof(buf));
		return n >= 8 && v->data[0].permitted == 1u << bit_for_key(1);
	}
	if (!strcmp(what, "list")) {
		int plain = 0, raw = 0;
		char *p;

		n = listxattr("pl", listbuf, sizeof(listbuf));
		for (p = listbuf; n > 0 && p < listbuf + n; p += strlen(p) + 1) {
			plain |= !strcmp(p, CAPS);
			raw |= !strncmp(p, CAPS "@", strlen(CAPS) + 1);
		}
		return plain && !raw;
	}
	if (!strcmp(what, "exec")) {
		int st;
		pid_t pid;

		/* a non-root user of the namespace, so file caps show */
		if (setresuid(1, 1, 1))
			return 0;
		pid = fork();
		if (pid == 0) {
			char *argv[] = { "pe", NULL }, *envp[] = { NULL };

			execve("pe", argv, envp);
			_exit(127);
		}
		waitpid(pid, &st, 0);
		return WIFEXITED(st) && WEXITSTATUS(st) == 42;
	}
	return 0;
}

static int run_probe(const char *what)
{
	pid_t pid;
	int st, present;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!strcmp(what, "write")) {
			struct vfs_cap_data v;

			enter_depth(1);
			capval(&v, bit_for_key(1));
			_exit(setxattr("pw", CAPS, &v, XATTR_CAPS_SZ_2, 0) ? 0 : 1);
		}
		_exit(probe_child(what));
	}
	waitpid(pid, &st, 0);
	present = WIFEXITED(st) && WEXITSTATUS(st) == 1;
	if (!strcmp(what, "write")) {
		char buf[64];

		/* the namespace's value went to its own key, the plain one is untouched */
		present = present &&
			  getxattr("pw", CAPS "@uid=1000", buf, sizeof(buf)) > 0 &&
			  getxattr("pw", CAPS, buf, sizeof(buf)) < 0;
	}
	printf("feature=%s present=%d\n", what, present);
	return present;
}

/* ------------------------------------------------------------- counters */

static int slab_fds[4096], nslab, vmstat_fd = -1;

static void open_counters(void)
{
	DIR *dir = opendir("/sys/kernel/slab");
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir)) && nslab < 4094) {
		char path[512];
		int fd;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;	/* merged caches are symlinks to one dir */
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/alloc_fastpath", e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		slab_fds[nslab++] = fd;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/alloc_slowpath", e->d_name);
		fd = open(path, O_RDONLY);
		if (fd >= 0)
			slab_fds[nslab++] = fd;
	}
	closedir(dir);
	vmstat_fd = open("/proc/vmstat", O_RDONLY);
}

static void read_counters(unsigned long long *slab, unsigned long long *pages)
{
	static char buf[16384];
	ssize_t n;
	char *p;
	int i;

	*slab = *pages = 0;
	for (i = 0; i < nslab; i++) {
		n = pread(slab_fds[i], buf, 64, 0);
		if (n > 0) {
			buf[n] = 0;
			*slab += strtoull(buf, NULL, 10);
		}
	}
	n = vmstat_fd < 0 ? -1 : pread(vmstat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "pgalloc_", 8))
			*pages += strtoull(strchr(p, ' ') + 1, NULL, 10);
}

/* ------------------------------------------------------------------ ops */

/*
 * TAR, CP: one run of GNU tar -x (cp -a) of the 2,000-file tree (see
 * mktree()); FOVL: a 1-byte pwrite() on Debian's fuse-overlayfs mounted by
 * the namespace. The macro rows: what a user's whole command costs.
 */
enum kind { GET, LIST, SET, REMOVE, EXEC, WRITE, TAR, CP, FOVL };

struct op {
	const char *name;
	int depth;
	const char *needs;	/* feature without which the figure means nothing new */
	enum kind kind;
	const char *file, *xname;
	int n;
};

static const struct op ops[] = {
	{ "get_user_host",       0,  NULL,    GET,  "u",   "user.bench.name.0000", 3000 },
	{ "get_cap_host",        0,  NULL,    GET,  "p",   CAPS, 3000 },
	{ "list_host_10",        0,  NULL,    LIST, "l10",   NULL, 2000 },
	{ "list_host_100",       0,  NULL,    LIST, "l100",  NULL, 600 },
	{ "list_host_1000",      0,  NULL,    LIST, "l1000", NULL, 80 },
	{ "exec_host",           0,  NULL,    EXEC, "eh",  NULL, 40 },
	{ "write_fuse_host",     0,  NULL,    WRITE, "fuse/file", NULL, 1500 },
	{ "write_fusex_host",    0,  NULL,    WRITE, "fusex/file", NULL, 1500 },
	{ "cp_a_tree_host",      0,  NULL,    CP,   "cpdst", NULL, 6 },
	{ "get_user_ns_d1",      1,  NULL,    GET,  "u",   "user.bench.name.0000", 3000 },
	{ "get_ns_own_d1",       1,  "read",  GET,  "o1",  CAPS, 3000 },
	{ "get_ns_fallback_d1",  1,  "read",  GET,  "p",   CAPS, 3000 },
	{ "get_ns_miss_d1",      1,  "read",  GET,  "n",   CAPS, 3000 },
	{ "set_ns_d1",           1,  "write", SET,  "s",   CAPS, 1500 },
	{ "remove_ns_d1",        1,  "write", REMOVE, "s", CAPS, 1500 },
	{ "list_ns_10_d1",       1,  "list",  LIST, "l10",   NULL, 2000 },
	{ "list_ns_100_d1",      1,  "list",  LIST, "l100",  NULL, 600 },
	{ "list_ns_1000_d1",     1,  "list",  LIST, "l1000", NULL, 80 },
	{ "exec_ns_d1",          1,  "exec",  EXEC, "en",  NULL, 40 },
	{ "exec_true_ns_d1",     1,  "exec",  EXEC, "et",  NULL, 1000 },
	{ "tar_x_tree_ns_d1",    1,  "write", TAR,  "x1/t", NULL, 6 },
	{ "write_fuseovl_ns_d1", 1,  NULL,    FOVL, "x1/merged/file", NULL, 600 },
	{ "get_ns_own_d4",       4,  "read",  GET,  "o4",  CAPS, 3000 },
	{ "exec_ns_d4",          4,  "exec",  EXEC, "e4",  NULL, 40 },
	{ "get_ns_fallback_d4",  4,  "read",  GET,  "p",   CAPS, 3000 },
	{ "get_ns_miss_d4",      4,  "read",  GET,  "n",   CAPS, 3000 },
	{ "get_ns_own_d16",      16, "read",  GET,  "o16", CAPS, 3000 },
	{ "exec_ns_d16",         16, "exec",  EXEC, "e16", NULL, 40 },
	{ "get_ns_fallback_d16", 16, "read",  GET,  "p",   CAPS, 3000 },
	{ "get_ns_miss_d16",     16, "read",  GET,  "n",   CAPS, 3000 },
	{ NULL }
};

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static struct vfs_cap_data setval;
static double t_start;

static double loop(const struct op *o, int n);

/* what one call does, to print beside the figures */
static void outcome(const struct op *o, char *out, size_t len)
{
	char buf[256];
	ssize_t r;
	int st;
	pid_t pid;

	switch (o->kind) {
	case GET:
		r = getxattr(o->file, o->xname, buf, sizeof(buf));
		if (r < 0) {
			snprintf(out, len, r < 0 && errno == ENODATA ? "miss" : "err:%d", errno);
		} else if (strncmp(o->xname, "security.", 9)) {
			snprintf(out, len, "value:%zd", r);
		} else {
			uint32_t perm = ((struct vfs_cap_data *)buf)->data[0].permitted;
			uint32_t magic = ((struct vfs_cap_data *)buf)->magic_etc & VFS_CAP_REVISION_MASK;

			snprintf(out, len, "%s,v%d",
				 perm == 1u << BIT_PLAIN ? "plain" :
				 perm == 1u << BIT_WILD ? "wildcard" :
				 perm == 1u << bit_for_key(o->depth) ? "own" : "other",
				 magic == VFS_CAP_REVISION_3 ? 3 : 2);
		}
		break;
	case LIST:
		r = listxattr(o->file, listbuf, sizeof(listbuf));
		if (r < 0) {
			snprintf(out, len, "err:%d", errno);
		} else {
			int names = 0, raw = 0, caps = 0;
			char *p;

			for (p = listbuf; p < listbuf + r; p += strlen(p) + 1) {
				names++;
				caps += !strcmp(p, CAPS);
				raw += !strncmp(p, CAPS "@", strlen(CAPS) + 1);
			}
			snprintf(out, len, "names:%d,caps:%d,raw:%d,bytes:%zd",
				 names, caps, raw, r);
		}
		break;
	case SET:
	case REMOVE:
		if (setxattr(o->file, o->xname, &setval, XATTR_CAPS_SZ_2, 0))
			snprintf(out, len, "set-err:%d", errno);
		else if (removexattr(o->file, o->xname))
			snprintf(out, len, "remove-err:%d", errno);
		else
			snprintf(out, len, "ok");
		break;
	case EXEC:
		pid = fork();
		if (pid == 0) {
			char *argv[] = { (char *)o->file, NULL }, *envp[] = { NULL };

			execve(o->file, argv, envp);
			_exit(127);
		}
		waitpid(pid, &st, 0);
		/* capexit exits 42 when CAP_NET_RAW is in its effective set */
		snprintf(out, len, !WIFEXITED(st) || WEXITSTATUS(st) == 127 ?
			 "exec-failed" : WEXITSTATUS(st) == 42 ? "ok,net_raw" :
			 "ok,no-cap");
		break;
	case TAR:
	case CP: {
		char capped[64];
		struct vfs_cap_data v;

		loop(o, 1);
		/* the first file of the tree has a capability (mktree()) */
		snprintf(capped, sizeof(capped), "%s/d00/f000", o->file);
		r = getxattr(capped, CAPS, &v, sizeof(v));
		if (access(o->file, F_OK) || access(capped, F_OK))
			snprintf(out, len, "not-extracted");
		else if (r < 0)
			snprintf(out, len, "ok,cap-err:%d", errno);
		else
			snprintf(out, len, "ok,cap:v%d",
				 (v.magic_etc & VFS_CAP_REVISION_MASK) == VFS_CAP_REVISION_3 ? 3 : 2);
		break;
	}
	case FOVL:
	case WRITE:
		r = open(o->file, O_WRONLY);
		if (r < 0) {
			snprintf(out, len, "open-err:%d", errno);
			break;
		}
		if (pwrite(r, "x", 1, 0) == 1)
			snprintf(out, len, "ok");
		else
			snprintf(out, len, "err:%d", errno);
		close(r);
		break;
	}
}

/* loop: n calls of op o; returns ns per call (minus the clock's own cost) */
static double clock_cost;

static double loop(const struct op *o, int n)
{
	double t0, t1, sum = 0;
	int i, st;

	switch (o->kind) {
	case GET:
		t0 = now_ns();
		for (i = 0; i < n; i++)
			getxattr(o->file, o->xname, listbuf, 256);
		return (now_ns() - t0) / n;
	case LIST:
		t0 = now_ns();
		for (i = 0; i < n; i++)
			listxattr(o->file, listbuf, sizeof(listbuf));
		return (now_ns() - t0) / n;
	case SET:
	case REMOVE:
		/* both calls of each pair timed alone, the clock's cost taken off */
		for (i = 0; i < n; i++) {
			t0 = now_ns();
			setxattr(o->file, o->xname, &setval, XATTR_CAPS_SZ_2, 0);
			t1 = now_ns();
			if (o->kind == SET)
				sum += t1 - t0;
			removexattr(o->file, o->xname);
			if (o->kind == REMOVE)
				sum += now_ns() - t1;
		}
		return sum / n - clock_cost;
	case EXEC:
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			pid_t pid = fork();

			if (pid == 0) {
				char *argv[] = { (char *)o->file, NULL }, *envp[] = { NULL };

				execve(o->file, argv, envp);
				_exit(127);
			}
			waitpid(pid, &st, 0);
		}
		return (now_ns() - t0) / n;
	case TAR:
	case CP: {
		char *tar[] = { "/usr/bin/tar", "--xattrs", "--xattrs-include=*",
				"-xf", "tree.tar", "-C", (char *)o->file, NULL };
		char *cp[] = { "/usr/bin/cp", "-a", "tree", (char *)o->file, NULL };

		/* each run into an empty directory; the removal is not timed */
		for (i = 0; i < n; i++) {
			rm_rf(o->file);
			if (o->kind == TAR)
				mkdir(o->file, 0755);
			t0 = now_ns();
			run_argv(o->kind == TAR ? tar : cp);
			sum += now_ns() - t0;
		}
		return sum / n;
	}
	case FOVL:
	case WRITE:
		/* one byte rewritten in place: the page stays cached */
		st = open(o->file, O_WRONLY);
		t0 = now_ns();
		for (i = 0; i < n; i++)
			pwrite(st, "x", 1, 0);
		t1 = now_ns();
		close(st);
		return (t1 - t0) / n;
	}
	return 0;
}

static void alloc_loop(const struct op *o, int n)
{
	unsigned long long s0, p0, s1, p1, s2, p2;
	double best_s = 1e18, best_p = 1e18;
	int t;

	for (t = 0; t < 3; t++) {
		read_counters(&s0, &p0);
		read_counters(&s1, &p1);
		loop(o, n);
		read_counters(&s2, &p2);
		/* s1-s0: what reading the counters costs by itself */
		double ds = ((double)(s2 - s1) - (double)(s1 - s0)) / n;
		double dp = ((double)(p2 - p1) - (double)(p1 - p0)) / n;

		if (ds < best_s)
			best_s = ds;
		if (dp < best_p)
			best_p = dp;
	}
	printf("op=%s slab_per_op=%.3f pages_per_op=%.3f%s\n", o->name, best_s,
	       best_p, o->kind == SET || o->kind == REMOVE ? " pair=set+remove" : "");
}

static void run_group(int depth)
{
	const struct op *o;
	int i, r;

	enter_depth(depth);
	for (o = ops; o->name; o++) {
		char out[128];
		int n;

		if (o->depth != depth || (only && strcmp(only, o->name)))
			continue;
		/* the alloc runs count slabs of the syscalls, not of whole programs */
		if (alloc_mode && (o->kind == TAR || o->kind == CP || o->kind == FOVL))
			continue;
		if (o->kind == FOVL && fovl_mount()) {
			printf("op=%s setup-error fuse-overlayfs mount errno=%d\n",
			       o->name, errno);
			continue;
		}
		n = o->n * scale;
		if (n < 3)
			n = 3;
		outcome(o, out, sizeof(out));
		printf("op=%s needs=%s depth=%d n=%d outcome=%s\n", o->name,
		       o->needs ? o->needs : "-", depth, n, out);
		fflush(stdout);
		loop(o, n / 4 + 1);	/* warm-up */
		if (alloc_mode) {
			alloc_loop(o, n);
		} else {
			for (r = 0; r < rounds; r++)
				printf("op=%s round=%d ns_per_op=%.1f\n", o->name, r,
				       loop(o, n));
		}
		fflush(stdout);
	}
	(void)i;
}

/*
 * The kernel switches to the TSC clocksource about a second (of guest time)
 * after boot; until then clock_gettime() is a slow system call.  Under
 * -icount a sleep costs no host time, so wait for it.
 */
static void wait_tsc(void)
{
	char cs[64] = "";
	int i, fd;

	for (i = 0; i < 300; i++) {
		fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY);
		if (fd >= 0) {
			ssize_t n = read(fd, cs, sizeof(cs) - 1);

			cs[n > 0 ? n : 0] = 0;
			close(fd);
			cs[strcspn(cs, "\n")] = 0;
		}
		if (!strcmp(cs, "tsc"))
			break;
		usleep(100000);
	}
	printf("clocksource=%s waited_ms=%d\n", cs, i * 100);
}

int main(int argc, char **argv)
{
	struct utsname u;
	int i, depths[] = { 0, 1, 4, 16 };

	/*
	 * Without address space randomization: fork() copies the page tables
	 * of this process, and how many a random layout needs moves the page
	 * count of an exec by one page from run to run, on either kernel.
	 */
	if (!(personality(0xffffffff) & ADDR_NO_RANDOMIZE) &&
	    personality(ADDR_NO_RANDOMIZE) != -1) {
		execv("/proc/self/exe", argv);
		perror("re-exec without ASLR");
		return 1;
	}

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
			scale = atof(argv[++i]);
		else if (!strcmp(argv[i], "--exe") && i + 1 < argc)
			exe = argv[++i];
		else if (!strcmp(argv[i], "--true") && i + 1 < argc)
			true_exe = argv[++i];
		else if (!strcmp(argv[i], "--fuse") && i + 1 < argc)
			fuse_server = argv[++i];
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--alloc"))
			alloc_mode = 1;
		else {
			fprintf(stderr, "usage: %s [--rounds R] [--scale F] [--alloc] [--exe PATH] [--true PATH] [--fuse PATH] [--only OP]\n", argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	t_start = now_ns();
	uname(&u);
	printf("kernel=%s version=%s mode=%s\n", u.release, u.version,
	       alloc_mode ? "alloc" : "time");
	if (!alloc_mode)
		wait_tsc();	/* the alloc runs time nothing */
	setup();
	printf("setup errors=%d\n", setup_errors);
	printf("feature=sysctl present=%d\n", access("/proc/sys/fs/xattr_user_ns", F_OK) == 0);
	run_probe("read");
	run_probe("write");
	run_probe("list");
	run_probe("exec");
	capval(&setval, bit_for_key(1));

	/* the clock's own cost, for the bracketed set/remove timings */
	{
		double t0, sum = 0;
		int k;

		for (k = 0; k < 1000; k++) {
			t0 = now_ns();
			sum += now_ns() - t0;
		}
		clock_cost = sum / 1000;
		printf("clock_cost_ns=%.1f\n", clock_cost);
	}
	if (alloc_mode) {
		open_counters();
		printf("alloc counters=%d vmstat=%d\n", nslab, vmstat_fd >= 0);
		if (!nslab) {
			printf("alloc unavailable (no /sys/kernel/slab/*/alloc_fastpath: needs CONFIG_SLUB_STATS)\n");
			return 0;
		}
	}
	for (i = 0; i < 4; i++) {
		pid_t pid;
		int st;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			run_group(depths[i]);
			fflush(stdout);
			_exit(0);
		}
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			printf("group depth=%d failed status=0x%x\n", depths[i], st);
	}
	stop_fuse();
	if (chdir("..") == 0)
		umount2("m", MNT_DETACH);
	printf("guest_ms=%.0f\n", (now_ns() - t_start) / 1e6);
	printf("done\n");
	return 0;
}
