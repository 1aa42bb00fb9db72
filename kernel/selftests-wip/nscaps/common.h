/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Namespaced security xattrs - shared fixture and helpers
 *
 * The fixture mounts a tmpfs or a loop-mounted ext4 image as host root, in a
 * private mount namespace, and puts one executable file on it (a copy of the
 * nscaps_caps helper, which prints its capability sets).  Operations then run
 * either in the test process (the host) or in a child that entered one of the
 * user namespaces below; the parent writes the child's uid_map and gid_map.
 * Every helper returns 0 or an errno.
 */

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/io_uring.h>
#include <linux/loop.h>

#include "../../kselftest_harness.h"

#ifndef __maybe_unused
#define __maybe_unused __attribute__((__unused__))
#endif

#define SYSCTL_XATTR_USER_NS "/proc/sys/fs/xattr_user_ns"

#define CAPS "security.capability"
#define SELINUX "security.selinux"

/* The raw name of namespace key @k, e.g. CAPS_KEY("1000"). */
#define CAPS_KEY(k) CAPS "@uid=" k
#define CAPS_WILDCARD CAPS "@uid"

#define CAP_BIT(cap) (1ULL << (cap))

/*
 * Owner of the test file, in the host's uids: mapped in every namespace
 * below (NS_A: 1050, NS_B: 50, NS_NESTED: 950, NS_NOROOT: 50), so that
 * their root has CAP_SETFCAP, CAP_FOWNER and CAP_DAC_OVERRIDE over it.
 */
#define FILE_OWNER 2050

/* Uid that execs the helper: never 0, which would have every capability. */
#define HOST_EXEC_UID 5000
#define NS_EXEC_UID 1

/*
 * Each test forks dozens of namespaced children and execs: under QEMU without
 * KVM and with KASAN that can take longer than the harness's default 30 s.
 */
#define NSCAPS_TIMEOUT 300

/* Exit status of a namespace child whose setup failed (not an errno). */
#define SETUP_FAILED 254

/* Where an operation runs. */
enum ns {
	/* The test process: host root, fs-privileged. */
	NS_HOST,
	/* "0 1000 65536": its key is 1000. */
	NS_A,
	/* "0 2000 65536": its key is 2000. */
	NS_B,
	/* Inside NS_A, "0 100 1000": its key is host 1100 (NS_A's uid 100). */
	NS_NESTED,
	/* "1 2001 100": no root mapping, so no key. */
	NS_NOROOT,
};

struct userns_level {
	const char *map;
	bool has_root;
};

static const struct userns_level level_a = { "0 1000 65536\n", true };
static const struct userns_level level_b = { "0 2000 65536\n", true };
static const struct userns_level level_nested = { "0 100 1000\n", true };
static const struct userns_level level_noroot = { "1 2001 100\n", false };

static const struct userns_level *const ns_levels[][3] = {
	[NS_HOST] = { NULL },
	[NS_A] = { &level_a, NULL },
	[NS_B] = { &level_b, NULL },
	[NS_NESTED] = { &level_a, &level_nested, NULL },
	[NS_NOROOT] = { &level_noroot, NULL },
};

/* Capability sets used as distinguishable values. */
#define CAPS_HOST CAP_BIT(CAP_NET_RAW)
#define CAPS_A CAP_BIT(CAP_NET_BIND_SERVICE)
#define CAPS_B CAP_BIT(CAP_CHOWN)
#define CAPS_NESTED CAP_BIT(CAP_SYS_TIME)
#define CAPS_WILD CAP_BIT(CAP_KILL)
#define CAPS_LEGACY CAP_BIT(CAP_NET_ADMIN)

enum fs_type {
	FS_TMPFS,
	FS_EXT4,
};

/* A decoded security.capability value. */
struct cap_value {
	int rev;
	bool effective;
	uint64_t permitted;
	uint64_t inheritable;
	uint32_t rootid;
};

static int __maybe_unused write_file(const char *path, const char *buf)
{
	ssize_t len = strlen(buf);
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, buf, len) != len)
		err = errno ?: EIO;
	if (close(fd) && !err)
		err = errno;
	return err;
}

static bool __maybe_unused kernel_has_nscaps(void)
{
	return access(SYSCTL_XATTR_USER_NS, F_OK) == 0;
}

static int __maybe_unused set_nscaps_sysctl(bool on)
{
	return write_file(SYSCTL_XATTR_USER_NS, on ? "1\n" : "0\n");
}

static int __maybe_unused write_id_maps(pid_t pid, const char *map)
{
	char path[64];
	int err;

	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	err = write_file(path, map);
	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	return write_file(path, map);
}

static int __maybe_unused wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return SETUP_FAILED;
	}
	if (!WIFEXITED(status))
		return SETUP_FAILED;
	return WEXITSTATUS(status);
}

/*
 * Runs @fn in a child that entered the user namespaces of @level, one nested
 * inside the other; each parent writes the maps of its child.  Returns what
 * @fn returned (an errno) or SETUP_FAILED.
 */
static int __maybe_unused run_in_levels(const struct userns_level *const *level,
					int (*fn)(void *), void *arg)
{
	int ready[2], go[2], err = 0;
	pid_t pid;
	char c;

	if (!*level)
		return fn(arg);
	if (pipe2(ready, O_CLOEXEC))
		return SETUP_FAILED;
	if (pipe2(go, O_CLOEXEC)) {
		close(ready[0]);
		close(ready[1]);
		return SETUP_FAILED;
	}
	pid = fork();
	if (pid < 0)
		return SETUP_FAILED;
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		if (unshare(CLONE_NEWUSER)) {
			fprintf(stderr, "unshare(CLONE_NEWUSER): %m\n");
			_exit(SETUP_FAILED);
		}
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(SETUP_FAILED);
		if ((*level)->has_root &&
		    (setresgid(0, 0, 0) || setresuid(0, 0, 0))) {
			fprintf(stderr, "setresuid(0) in user namespace: %m\n");
			_exit(SETUP_FAILED);
		}
		/*
		 * Changing uids made this process non-dumpable, which would
		 * give the /proc/PID/uid_map of a nested child to host root.
		 */
		if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(SETUP_FAILED);
		_exit(run_in_levels(level + 1, fn, arg));
	}
	close(ready[1]);
	close(go[0]);
	if (read(ready[0], &c, 1) != 1)
		err = SETUP_FAILED;
	else
		err = write_id_maps(pid, (*level)->map);
	if (err)
		fprintf(stderr, "writing id maps of %d: %s\n", pid,
			strerror(err));
	else if (write(go[1], "g", 1) != 1)
		err = SETUP_FAILED;
	close(ready[0]);
	close(go[1]);
	if (err) {
		kill(pid, SIGKILL);
		wait_child(pid);
		return SETUP_FAILED;
	}
	return wait_child(pid);
}

static int __maybe_unused run_in(enum ns ns, int (*fn)(void *), void *arg)
{
	return run_in_levels(ns_levels[ns], fn, arg);
}

/* An operation and its result, in memory shared with the namespace child. */
struct op {
	enum {
		OP_GET,
		OP_LGET,
		OP_FGET,
		OP_SET,
		OP_LSET,
		OP_FSET,
		OP_REMOVE,
		OP_LREMOVE,
		OP_FREMOVE,
		OP_LIST,
		OP_LLIST,
		OP_FLIST,
		OP_TRUNCATE,
		OP_EXEC,
		OP_RUN,
		OP_URING_GET,
		OP_URING_FGET,
		OP_URING_SET,
		OP_URING_FSET,
	} kind;
	const char *path;
	char *const *argv;
	const char *name;
	const void *value;
	size_t size;
	uid_t uid;
	off_t length;
	/* Results (OP_RUN: exit status and standard output). */
	ssize_t ret;
	uint64_t permitted, effective;
	char out[4096];
};

static int __maybe_unused open_for(const struct op *op)
{
	return open(op->path, O_RDONLY | O_CLOEXEC);
}

/* Execs op->path as op->uid with no capabilities and reads its sets. */
static int __maybe_unused exec_helper(struct op *op)
{
	unsigned long long prm, eff;
	char buf[128];
	int out[2], err;
	ssize_t len;
	pid_t pid;

	if (pipe2(out, O_CLOEXEC))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		char *const argv[] = { (char *)op->path, NULL };
		char *const envp[] = { NULL };

		if (setgroups(0, NULL) ||
		    setresgid(op->uid, op->uid, op->uid) ||
		    setresuid(op->uid, op->uid, op->uid)) {
			fprintf(stderr, "dropping to uid %u: %m\n", op->uid);
			_exit(SETUP_FAILED);
		}
		if (dup2(out[1], STDOUT_FILENO) < 0)
			_exit(SETUP_FAILED);
		execve(op->path, argv, envp);
		fprintf(stderr, "execve %s: %m\n", op->path);
		_exit(SETUP_FAILED);
	}
	close(out[1]);
	len = read(out[0], buf, sizeof(buf) - 1);
	close(out[0]);
	err = wait_child(pid);
	if (err)
		return err;
	if (len <= 0)
		return EIO;
	buf[len] = '\0';
	if (sscanf(buf, "%llx %llx", &prm, &eff) != 2)
		return EBADMSG;
	op->permitted = prm;
	op->effective = eff;
	return 0;
}

/* Runs op->argv as the namespace's root and keeps its standard output. */
static int __maybe_unused run_program(struct op *op)
{
	int out[2], status;
	ssize_t len, n;
	pid_t pid;

	if (pipe2(out, O_CLOEXEC))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		if (dup2(out[1], STDOUT_FILENO) < 0)
			_exit(SETUP_FAILED);
		setenv("PATH",
		       "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		       1);
		execvp(op->argv[0], op->argv);
		_exit(127);
	}
	close(out[1]);
	for (len = 0; len < (ssize_t)sizeof(op->out) - 1; len += n) {
		n = read(out[0], op->out + len, sizeof(op->out) - 1 - len);
		if (n <= 0)
			break;
	}
	close(out[0]);
	op->out[len] = '\0';
	status = wait_child(pid);
	op->ret = status;
	return 0;
}

/* Submits one xattr request to a new io_uring; returns its result. */
static ssize_t uring_xattr(const struct io_uring_sqe *req)
{
	struct io_uring_params params = {};
	size_t sq_size, cq_size, sqes_size;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	unsigned int *tail, head;
	void *sq, *cq;
	ssize_t ret;
	int fd;

	fd = syscall(__NR_io_uring_setup, 1, &params);
	if (fd < 0)
		return -errno;
	sq_size =
		params.sq_off.array + params.sq_entries * sizeof(unsigned int);
	cq_size = params.cq_off.cqes +
		  params.cq_entries * sizeof(struct io_uring_cqe);
	if (params.features & IORING_FEAT_SINGLE_MMAP) {
		if (cq_size > sq_size)
			sq_size = cq_size;
		cq_size = sq_size;
	}
	sqes_size = params.sq_entries * sizeof(struct io_uring_sqe);
	sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	cq = sq;
	if (sq != MAP_FAILED && !(params.features & IORING_FEAT_SINGLE_MMAP))
		cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, sqes_size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		close(fd);
		return -ENOMEM;
	}

	sqes[0] = *req;
	((unsigned int *)(sq + params.sq_off.array))[0] = 0;
	tail = sq + params.sq_off.tail;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	ret = syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS,
		      NULL, 0);
	if (ret < 0) {
		ret = -errno;
	} else {
		head = __atomic_load_n(
			(unsigned int *)(cq + params.cq_off.head),
			__ATOMIC_ACQUIRE);
		head &= *(unsigned int *)(cq + params.cq_off.ring_mask);
		cqe = (struct io_uring_cqe *)(cq + params.cq_off.cqes) + head;
		ret = cqe->res;
	}
	munmap(sqes, sqes_size);
	if (cq != sq)
		munmap(cq, cq_size);
	munmap(sq, sq_size);
	close(fd);
	return ret;
}

static int __maybe_unused do_op(void *arg)
{
	struct op *op = arg;
	void *out = op->size ? op->out : NULL;
	ssize_t ret;
	int fd = -1;

	switch (op->kind) {
	case OP_FGET:
	case OP_FSET:
	case OP_FREMOVE:
	case OP_FLIST:
	case OP_URING_FGET:
	case OP_URING_FSET:
		fd = open_for(op);
		if (fd < 0)
			return errno;
		break;
	default:
		break;
	}

	switch (op->kind) {
	case OP_GET:
		ret = getxattr(op->path, op->name, out, op->size);
		break;
	case OP_LGET:
		ret = lgetxattr(op->path, op->name, out, op->size);
		break;
	case OP_FGET:
		ret = fgetxattr(fd, op->name, out, op->size);
		break;
	case OP_SET:
		ret = setxattr(op->path, op->name, op->value, op->size, 0);
		break;
	case OP_LSET:
		ret = lsetxattr(op->path, op->name, op->value, op->size, 0);
		break;
	case OP_FSET:
		ret = fsetxattr(fd, op->name, op->value, op->size, 0);
		break;
	case OP_REMOVE:
		ret = removexattr(op->path, op->name);
		break;
	case OP_LREMOVE:
		ret = lremovexattr(op->path, op->name);
		break;
	case OP_FREMOVE:
		ret = fremovexattr(fd, op->name);
		break;
	case OP_LIST:
		ret = listxattr(op->path, out, op->size);
		break;
	case OP_LLIST:
		ret = llistxattr(op->path, out, op->size);
		break;
	case OP_FLIST:
		ret = flistxattr(fd, out, op->size);
		break;
	case OP_TRUNCATE:
		ret = truncate(op->path, op->length);
		break;
	case OP_EXEC:
		return exec_helper(op);
	case OP_RUN:
		return run_program(op);
	case OP_URING_GET:
	case OP_URING_FGET:
	case OP_URING_SET:
	case OP_URING_FSET: {
		static const __u8 opcodes[] = {
			[OP_URING_GET - OP_URING_GET] = IORING_OP_GETXATTR,
			[OP_URING_FGET - OP_URING_GET] = IORING_OP_FGETXATTR,
			[OP_URING_SET - OP_URING_GET] = IORING_OP_SETXATTR,
			[OP_URING_FSET - OP_URING_GET] = IORING_OP_FSETXATTR,
		};
		struct io_uring_sqe req = {
			.opcode = opcodes[op->kind - OP_URING_GET],
			.fd = fd,
			.addr = (uintptr_t)op->name,
			.addr2 =
				(uintptr_t)(op->kind == OP_URING_SET ||
							    op->kind ==
								    OP_URING_FSET ?
						    op->value :
						    out),
			.addr3 = (uintptr_t)op->path,
			.len = op->size,
		};

		ret = uring_xattr(&req);
		if (ret < 0)
			errno = -ret;
		break;
	}
	default:
		return EINVAL;
	}
	if (ret < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret < 0)
		return -ret;
	op->ret = ret;
	return 0;
}

/* Runs @tmpl in @ns; copies the result back into @tmpl. */
static int __maybe_unused run_op(enum ns ns, struct op *tmpl)
{
	struct op *op;
	int err;

	if (tmpl->size > sizeof(op->out))
		return E2BIG;
	op = mmap(NULL, sizeof(*op), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (op == MAP_FAILED)
		return ENOMEM;
	*op = *tmpl;
	op->ret = -1;
	err = run_in(ns, do_op, op);
	*tmpl = *op;
	munmap(op, sizeof(*op));
	return err;
}

static int __maybe_unused ns_getxattr(enum ns ns, const char *path,
				      const char *name, void *value,
				      size_t size, ssize_t *len)
{
	struct op op = {
		.kind = OP_GET, .path = path, .name = name, .size = size
	};
	int err = run_op(ns, &op);

	if (!err) {
		*len = op.ret;
		if (size)
			memcpy(value, op.out, op.ret);
	}
	return err;
}

static int __maybe_unused ns_setxattr(enum ns ns, const char *path,
				      const char *name, const void *value,
				      size_t size)
{
	struct op op = { .kind = OP_SET,
			 .path = path,
			 .name = name,
			 .value = value,
			 .size = size };

	return run_op(ns, &op);
}

static int __maybe_unused ns_removexattr(enum ns ns, const char *path,
					 const char *name)
{
	struct op op = { .kind = OP_REMOVE, .path = path, .name = name };

	return run_op(ns, &op);
}

static int __maybe_unused ns_listxattr(enum ns ns, const char *path, char *list,
				       size_t size, ssize_t *len)
{
	struct op op = { .kind = OP_LIST, .path = path, .size = size };
	int err = run_op(ns, &op);

	if (!err) {
		*len = op.ret;
		if (size)
			memcpy(list, op.out, op.ret);
	}
	return err;
}

/* Reads the value of @name in @ns; -1 if there is none. */
static ssize_t __maybe_unused ns_value_len(enum ns ns, const char *path,
					   const char *name)
{
	ssize_t len;

	if (ns_getxattr(ns, path, name, NULL, 0, &len))
		return -1;
	return len;
}

/* Execs @path as a non-root uid of @ns; returns its capability sets. */
static int __maybe_unused ns_exec(enum ns ns, const char *path,
				  uint64_t *permitted, uint64_t *effective)
{
	struct op op = { .kind = OP_EXEC,
			 .path = path,
			 .uid = ns == NS_HOST ? HOST_EXEC_UID : NS_EXEC_UID };
	int err = run_op(ns, &op);

	if (!err) {
		*permitted = op.permitted;
		*effective = op.effective;
	}
	return err;
}

/*
 * Runs @argv in @ns as its root; returns its exit status in @status and its
 * standard output in @out.
 */
static int __maybe_unused ns_run(enum ns ns, char *const argv[], char *out,
				 size_t size, int *status)
{
	struct op op = { .kind = OP_RUN, .argv = argv };
	int err = run_op(ns, &op);

	if (!err) {
		size_t len = strnlen(op.out, size - 1);

		*status = op.ret;
		memcpy(out, op.out, len);
		out[len] = '\0';
	}
	return err;
}

/* Encodes a security.capability value; returns its size. */
static size_t __maybe_unused cap_encode(void *buf, int rev, uint64_t permitted,
					uint32_t rootid)
{
	struct vfs_ns_cap_data *cap = buf;

	memset(cap, 0, sizeof(*cap));
	cap->magic_etc =
		htole32((rev == 3 ? VFS_CAP_REVISION_3 : VFS_CAP_REVISION_2) |
			VFS_CAP_FLAGS_EFFECTIVE);
	cap->data[0].permitted = htole32((uint32_t)permitted);
	cap->data[1].permitted = htole32(permitted >> 32);
	if (rev != 3)
		return XATTR_CAPS_SZ_2;
	cap->rootid = htole32(rootid);
	return XATTR_CAPS_SZ_3;
}

static int __maybe_unused cap_decode(const void *buf, ssize_t len,
				     struct cap_value *val)
{
	const struct vfs_ns_cap_data *cap = buf;
	uint32_t magic;

	if (len != XATTR_CAPS_SZ_2 && len != XATTR_CAPS_SZ_3)
		return EBADMSG;
	magic = le32toh(cap->magic_etc);
	val->rev = (magic & VFS_CAP_REVISION_MASK) >> VFS_CAP_REVISION_SHIFT;
	if ((val->rev == 2 && len != XATTR_CAPS_SZ_2) ||
	    (val->rev == 3 && len != XATTR_CAPS_SZ_3) ||
	    (val->rev != 2 && val->rev != 3))
		return EBADMSG;
	val->effective = magic & VFS_CAP_FLAGS_EFFECTIVE;
	val->permitted = le32toh(cap->data[0].permitted) |
			 (uint64_t)le32toh(cap->data[1].permitted) << 32;
	val->inheritable = le32toh(cap->data[0].inheritable) |
			   (uint64_t)le32toh(cap->data[1].inheritable) << 32;
	val->rootid = val->rev == 3 ? le32toh(cap->rootid) : 0;
	return 0;
}

/* Writes a capability value with @permitted (and the effective bit). */
static int __maybe_unused ns_set_cap(enum ns ns, const char *path,
				     const char *name, int rev,
				     uint64_t permitted, uint32_t rootid)
{
	struct vfs_ns_cap_data buf;
	size_t size = cap_encode(&buf, rev, permitted, rootid);

	return ns_setxattr(ns, path, name, &buf, size);
}

/* Reads and decodes a capability value (EBADMSG if it is malformed). */
static int __maybe_unused ns_get_cap(enum ns ns, const char *path,
				     const char *name, struct cap_value *val)
{
	char buf[64];
	ssize_t len;
	int err;

	memset(val, 0, sizeof(*val));
	err = ns_getxattr(ns, path, name, buf, sizeof(buf), &len);
	if (err)
		return err;
	return cap_decode(buf, len, val);
}

/* Permitted set of @name read in @ns, or ~0 when the read fails. */
static uint64_t __maybe_unused ns_cap_permitted(enum ns ns, const char *path,
						const char *name)
{
	struct cap_value val;

	if (ns_get_cap(ns, path, name, &val))
		return ~0ULL;
	return val.permitted;
}

/* Permitted set after exec in @ns, or ~0 when the exec fails. */
static uint64_t __maybe_unused ns_exec_permitted(enum ns ns, const char *path)
{
	uint64_t prm, eff;

	if (ns_exec(ns, path, &prm, &eff))
		return ~0ULL;
	if (prm != eff) {
		fprintf(stderr,
			"# exec in ns %d: permitted %llx effective %llx\n", ns,
			(unsigned long long)prm, (unsigned long long)eff);
		return ~0ULL;
	}
	return prm;
}

/*
 * Whether @list (as returned by listxattr) holds exactly the names of the
 * NULL-terminated @expected, in any order.  Prints the list when it does not.
 */
static bool __maybe_unused list_is(const char *list, ssize_t len,
				   const char *const *expected)
{
	size_t n_list = 0, n_expected = 0;
	const char *const *e;
	const char *p;
	bool ok = true;

	for (p = list; p < list + len; p += strlen(p) + 1)
		n_list++;
	for (e = expected; *e; e++) {
		bool found = false;

		n_expected++;
		for (p = list; p < list + len; p += strlen(p) + 1)
			found |= !strcmp(p, *e);
		ok &= found;
	}
	if (len > 0 && list[len - 1] != '\0')
		ok = false;
	if (ok && n_list == n_expected)
		return true;
	fprintf(stderr, "# list:");
	for (p = list; p < list + len; p += strlen(p) + 1)
		fprintf(stderr, " '%s'", p);
	fprintf(stderr, "\n# expected:");
	for (e = expected; *e; e++)
		fprintf(stderr, " '%s'", *e);
	fprintf(stderr, "\n");
	return false;
}

static bool __maybe_unused list_has_prefix(const char *list, ssize_t len,
					   const char *prefix)
{
	const char *p;

	for (p = list; p < list + len; p += strlen(p) + 1) {
		if (!strncmp(p, prefix, strlen(prefix)))
			return true;
	}
	return false;
}

/* Runs a program, output discarded; returns its exit status or an errno. */
static int __maybe_unused run_prog(char *const argv[])
{
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	return wait_child(pid);
}

static int __maybe_unused make_ext4_image(const char *img)
{
	char *const argv[] = { "mke2fs",       "-q",	    "-F",  "-t",
			       "ext4",	       "-I",	    "256", "-O",
			       "^has_journal", (char *)img, "16M", NULL };
	int fd, err;

	fd = open(img, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	close(fd);
	setenv("PATH",
	       "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	       1);
	err = run_prog(argv);
	return err == 127 ? ENOENT : err;
}

/* Attaches @img to a free loop device that goes away with its last user. */
static int __maybe_unused attach_loop(const char *img, char *dev, size_t size,
				      int *loop_fd)
{
	struct loop_config config = {
		.info = { .lo_flags = LO_FLAGS_AUTOCLEAR },
	};
	int ctl, nr, err = 0;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return errno;
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (nr < 0)
		return errno;
	snprintf(dev, size, "/dev/loop%d", nr);
	*loop_fd = open(dev, O_RDWR | O_CLOEXEC);
	if (*loop_fd < 0)
		return errno;
	config.fd = open(img, O_RDWR | O_CLOEXEC);
	if (config.fd < 0) {
		err = errno;
	} else {
		if (ioctl(*loop_fd, LOOP_CONFIGURE, &config))
			err = errno;
		close(config.fd);
	}
	if (err) {
		close(*loop_fd);
		*loop_fd = -1;
	}
	return err;
}

/* Copies the helper that sits next to this test binary to @dst. */
static int __maybe_unused copy_helper(const char *dst)
{
	char self[PATH_MAX], src[PATH_MAX + 32], buf[65536];
	ssize_t len, n;
	int in, out, err = 0;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		return errno;
	self[len] = '\0';
	snprintf(src, sizeof(src), "%s/nscaps_caps", dirname(self));
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0) {
		err = errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n) {
			err = errno ?: EIO;
			break;
		}
	}
	if (n < 0)
		err = errno;
	close(in);
	if (close(out) && !err)
		err = errno;
	return err;
}

/* Creates a user namespace with @map and returns an fd to it, or -errno. */
static int __maybe_unused userns_fd(const char *map)
{
	int ready[2], err, fd = -EBADF;
	char path[64], c;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(ready[0]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		err = EIO;
	} else {
		err = write_id_maps(pid, map);
		if (!err) {
			snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				err = errno;
		}
	}
	close(ready[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return err ? -err : fd;
}

/* Mounts an idmapped copy of @src (idmap @map) on @dst. */
static int __maybe_unused idmapped_mount(const char *src, const char *dst,
					 const char *map)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	int tree, err = 0;

	tree = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return errno;
	attr.userns_fd = userns_fd(map);
	if (attr.userns_fd < 0) {
		close(tree);
		return -attr.userns_fd;
	}
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) ||
	    move_mount(tree, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH))
		err = errno;
	close(attr.userns_fd);
	close(tree);
	return err;
}

FIXTURE(nscaps)
{
	char top[64];
	/* The filesystem under test, its test file, and the idmapped view. */
	char mnt[128];
	char file[160];
	char idmapped[128];
	char idmapped_file[160];
	char image[128];
};

FIXTURE_VARIANT(nscaps)
{
	enum fs_type fs;
};

FIXTURE_VARIANT_ADD(nscaps, tmpfs){
	.fs = FS_TMPFS,
};

FIXTURE_VARIANT_ADD(nscaps, ext4){
	.fs = FS_EXT4,
};

FIXTURE_SETUP(nscaps)
{
	char dev[64];
	int loop_fd = -1;

	if (!kernel_has_nscaps())
		SKIP(return,
			   "kernel without namespaced security xattrs (no %s)",
			   SYSCTL_XATTR_USER_NS);
	ASSERT_EQ(0, set_nscaps_sysctl(true));

	/* Mounts go away with this process. */
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));

	/* Uids of every namespace must reach the file: no TMPDIR (0700). */
	strcpy(self->top, "/tmp/nscaps.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->top));
	ASSERT_EQ(0, chmod(self->top, 0755));
	snprintf(self->mnt, sizeof(self->mnt), "%s/mnt", self->top);
	snprintf(self->file, sizeof(self->file), "%s/file", self->mnt);
	snprintf(self->idmapped, sizeof(self->idmapped), "%s/idmapped",
		 self->top);
	snprintf(self->idmapped_file, sizeof(self->idmapped_file), "%s/file",
		 self->idmapped);
	snprintf(self->image, sizeof(self->image), "%s/ext4.img", self->top);
	ASSERT_EQ(0, mkdir(self->mnt, 0755));
	ASSERT_EQ(0, mkdir(self->idmapped, 0755));

	switch (variant->fs) {
	case FS_TMPFS:
		ASSERT_EQ(0, mount("nscaps", self->mnt, "tmpfs", 0,
				   "mode=0755,size=16m"));
		break;
	case FS_EXT4:
		ASSERT_EQ(0, make_ext4_image(self->image));
		ASSERT_EQ(0,
			  attach_loop(self->image, dev, sizeof(dev), &loop_fd));
		ASSERT_EQ(0, mount(dev, self->mnt, "ext4", 0, NULL));
		/* LO_FLAGS_AUTOCLEAR: detached when unmounted. */
		close(loop_fd);
		ASSERT_EQ(0, chmod(self->mnt, 0755));
		break;
	}
	ASSERT_EQ(0, copy_helper(self->file));
	ASSERT_EQ(0, chown(self->file, FILE_OWNER, FILE_OWNER));
	ASSERT_EQ(0, chmod(self->file, 0755));
}

FIXTURE_TEARDOWN(nscaps)
{
	if (!self->top[0])
		return;
	EXPECT_EQ(0, set_nscaps_sysctl(true));
	umount2(self->idmapped, MNT_DETACH);
	umount2(self->mnt, MNT_DETACH);
	unlink(self->image);
	rmdir(self->idmapped);
	rmdir(self->mnt);
	rmdir(self->top);
}
