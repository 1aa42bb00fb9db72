// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_xattr - malformed and random xattr names, sizes and flags from
 * host root and from user namespaces of every shape, on tmpfs, ext4 (loop
 * image) and overlayfs over each; list buffers of every size around the
 * rewritten list's length; names at XATTR_NAME_MAX and values at
 * XATTR_SIZE_MAX; a full ext4 xattr block.
 *
 *   hostile_xattr [-n RANDOM_OPS]      (in the test VM only, as root)
 *
 * TAP on stdout; "# inputs=N ops=N" at the end.  Without the feature
 * (/proc/sys/fs/xattr_user_ns) the stock-applicable parts run and the
 * rest is skipped; on the patched kernel nothing skips.
 */
#include "common.h"

static bool feat;
static bool on_overlay;	/* the filesystem under test is an overlay */
static int nrandom = 1500;
static char topdir[256];

struct fs {
	const char *label;
	char dir[300];		/* where the tests run */
	char prep[300];		/* where files are made before mounting (overlay lower) */
	bool ext4;		/* ext4 itself */
	bool on_ext4;		/* ext4 or an overlay over it: values fit in one block */
};
static struct fs fss[4];
static int nfs;

/* namespace shapes */
struct shape {
	const char *name;
	const char *map;	/* NULL: no mapping at all */
	uid_t uid;		/* uid inside */
	uid_t owner;		/* kuid owning the files (the namespace root) */
	uid_t key;		/* K of the namespace, (uid_t)-1 none, 0 privileged */
	int depth;		/* nested levels (map is the first level's) */
};
static const struct shape shapes[] = {
	{ "map 0 100000 65536", "0 100000 65536", 0, 100000, 100000, 1 },
	{ "growing names", "0 100000 1\n1 100001 1000\n4000000000 1 1", 0, 100000, 100000, 1 },
	{ "no mapping (unshare -U)", NULL, 0, 100000, (uid_t)-1, 1 },
	{ "no root mapping, uid 1", "1 100001 1000", 1, 100001, (uid_t)-1, 1 },
	{ "identity mapping", "0 0 4294967295", 0, 0, 0, 1 },
	{ "nested 32 deep", "0 100000 100000", 0, 131000, 131000, 32 },
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

static const char *malformed[] = {
	CAPS "@", CAPS "@uid=", CAPS "@uid=0", CAPS "@uid=00", CAPS "@uid=01",
	CAPS "@uid=+1", CAPS "@uid=-1", CAPS "@uid= 1", CAPS "@uid=1 ",
	CAPS "@uid=1\n", CAPS "@uid=1a", CAPS "@uid=0x10", CAPS "@uid=4294967295",
	CAPS "@uid=4294967296", CAPS "@uid=4294968296", CAPS "@uid=99999999999",
	CAPS "@uidx", CAPS "@uid==1", CAPS "@UID=1", CAPS "@gid=1", CAPS "@u",
	CAPS "@uid=1@uid=2", "security.selinux@uid=0", "security.selinux@gid",
	"security.selinux@", "security.selinux@uid=01",
};
#define NMAL (sizeof(malformed) / sizeof(malformed[0]))

static bool errno_ok(int e, bool in_ns)
{
	switch (e) {
	case 0: case EINVAL: case ERANGE: case E2BIG: case ENODATA: case EEXIST:
	case EOPNOTSUPP: case EPERM: case ENOSPC: case EACCES:
		return true;
	default:
		(void)in_ns;
		return false;
	}
}

/* ---------------------------------------------------------------- lists */

/* A buffer of s bytes that ends where a PROT_NONE page starts. */
struct gbuf {
	char *map, *buf;
	size_t maplen;
};
static char *gbuf_get(struct gbuf *g, size_t s)
{
	size_t pg = 4096, pages = (s + pg - 1) / pg + 2;

	g->maplen = pages * pg;
	g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(g->map + g->maplen - pg, pg, PROT_NONE);
	memset(g->map, 0xa5, g->maplen - pg);
	g->buf = g->map + g->maplen - pg - s;
	return g->buf;
}
static bool gbuf_canary(struct gbuf *g)
{
	for (char *p = g->map; p < g->buf; p++)
		if ((unsigned char)*p != 0xa5)
			return false;
	return true;
}
static void gbuf_put(struct gbuf *g) { munmap(g->map, g->maplen); }

static bool list_has(const char *l, ssize_t n, const char *name)
{
	for (ssize_t o = 0; o < n; o += strlen(l + o) + 1)
		if (!strcmp(l + o, name))
			return true;
	return false;
}

/*
 * listxattr() at every size from 0 to exact+8: ERANGE below, the exact list
 * at and above, never a byte outside the buffer (guard page: EFAULT;
 * canary before it), well-formed entries.  Returns the list (malloc'd).
 */
static char *list_sweep(const char *path, bool ns_view, ssize_t *lenp)
{
	ssize_t n, r, m;
	char *ref;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	count_op();
	n = llistxattr(path, NULL, 0);
	check(n >= 0, "%s: size query: %s", path, strerror(errno));
	if (n < 0) {
		close(fd);
		*lenp = 0;
		return calloc(1, 1);
	}
	ref = calloc(1, n + 1);
	count_op();
	r = llistxattr(path, ref, n);
	/*
	 * overlayfs answers the size query with the upper layer's length and
	 * then hides its private trusted.overlay.* names (stock behaviour):
	 * there the query is an upper bound for callers that see raw names.
	 */
	check(r == n || (on_overlay && !ns_view && r >= 0 && r < n),
	      "%s: exact list: %zd, size query %zd", path, r, n);
	m = r < 0 ? n : r;
	for (size_t s = 0; s <= (size_t)n + 8; s++) {
		struct gbuf g;
		char *b = gbuf_get(&g, s);

		count_input();
		count_op();
		/* alternate the path and fd entry points */
		r = (s & 1) && fd >= 0 ? flistxattr(fd, s ? b : NULL, s)
				       : llistxattr(path, s ? b : NULL, s);
		if (s == 0)
			check(r == n, "%s: size query %zd then %zd", path, n, r);
		else if (s < (size_t)n)
			check(r == -1 && errno == ERANGE, "%s: size %zu of %zd: %zd (%s)",
			      path, s, n, r, r < 0 ? strerror(errno) : "no ERANGE");
		else
			check(r == m && !memcmp(b, ref, m), "%s: size %zu of %zd: %zd %s",
			      path, s, n, r, r < 0 ? strerror(errno) : "");
		check(gbuf_canary(&g), "%s: size %zu: write before the buffer", path, s);
		if (s > (size_t)m)
			for (size_t i = m; i < s; i++)
				if (!check((unsigned char)b[i] == 0xa5,
					   "%s: size %zu: byte %zu written past the list", path, s, i))
					break;
		gbuf_put(&g);
	}
	/* entries */
	n = m;
	for (ssize_t o = 0; o < n;) {
		size_t k = strnlen(ref + o, n - o);

		check(k > 0 && o + (ssize_t)k < n, "%s: empty or unterminated entry", path);
		check(!list_has(ref, o, ref + o), "%s: \"%s\" listed twice", path, ref + o);
		if (feat && ns_view && !strncmp(ref + o, CAPS "@uid=", 24)) {
			const char *d = ref + o + 24;
			check(*d >= '1' && *d <= '9' && strspn(d, "0123456789") == strlen(d),
			      "%s: malformed \"%s\" listed", path, ref + o);
		}
		o += k + 1;
	}
	close(fd);
	*lenp = n;
	return ref;
}

/* --------------------------------------------------------- random input */

static const char *prefixes[] = {
	"user.", "security.", CAPS, CAPS "@uid", CAPS "@uid=", "security.selinux",
	"security.selinux@uid=", "trusted.", "system.", "system.posix_acl_access",
	"os2.", "", "security.ima", "user.a@uid=",
};
static const char alphabet[] = "0123456789@=+- uidxX.\n\t\xff\x80";

static void random_name(char *n, size_t cap)
{
	size_t len = 0, want;

	if (rnd() % 8 == 0) { /* random bytes */
		want = 1 + rnd() % 300;
		for (len = 0; len < want && len < cap - 1; len++)
			n[len] = 1 + rnd() % 255;
		n[len] = 0;
		return;
	}
	len = snprintf(n, cap, "%s", prefixes[rnd() % (sizeof(prefixes) / sizeof(*prefixes))]);
	switch (rnd() % 4) {
	case 0: { /* a key */
		static const uint32_t keys[] = { 0, 1, 1000, 100000, 100001, 131000, 4000000000u,
						 4294967294u, 4294967295u };
		len += snprintf(n + len, cap - len, "%u", keys[rnd() % 9]);
		break;
	}
	case 1: /* long tail */
		want = rnd() % 300;
		while (len < want && len < cap - 1)
			n[len++] = 'a' + rnd() % 26;
		n[len] = 0;
		break;
	default:
		want = rnd() % 12;
		for (size_t i = 0; i < want && len < cap - 1; i++)
			n[len++] = alphabet[rnd() % (sizeof(alphabet) - 1)];
		n[len] = 0;
	}
}

/* Random set/get/remove/list; host root checks read-after-write. */
static void random_ops(const char *path, int count, bool host)
{
	static char val[65540], rd[65540];
	char name[400];

	for (int i = 0; i < count; i++) {
		size_t sizes[] = { 0, 1, 19, 20, 24, 255, 4096, 65536, 65537, rnd() % 70000 };
		size_t s = sizes[rnd() % 10];
		int flags = rnd() % 6 == 0 ? (int)(rnd() % 16) : (int)(rnd() % 3);
		int op = rnd() % 5, e, e2;
		ssize_t len;

		random_name(name, sizeof(name));
		count_input();
		for (size_t j = 0; j < s && j < sizeof(val); j++)
			val[j] = rnd();
		if (rnd() % 3 == 0 && s >= 20)
			cap_v2((unsigned char *)val, rnd() % 41);
		switch (op) {
		case 0:
		case 1:
			e = sx(path, name, val, s, flags);
			check(errno_ok(e, !host), "set \"%.40s\"[%zu] flags %d: %s", name,
			      strlen(name), flags, strerror(e));
			if (flags & ~3)
				check(e == EINVAL, "set flags %d: %s", flags, strerror(e));
			if (strlen(name) > 255 || !name[0])
				check(e == ERANGE || e == EINVAL, "set name of %zu: %s",
				      strlen(name), strerror(e));
			if (s > 65536)
				check(e == E2BIG || e == ERANGE || e == EINVAL, "set value of %zu: %s", s, strerror(e));
			/* system.* (ACLs: empty means remove) and security.* may convert values */
			if (e == 0 && host && (!strncmp(name, "user.", 5) ||
					       !strncmp(name, "trusted.", 8))) {
				e2 = gx(path, name, rd, sizeof(rd), &len);
				check(e2 == 0 && len == (ssize_t)s && !memcmp(rd, val, s),
				      "read after write of \"%.40s\": %s, %zd of %zu", name,
				      strerror(e2), len, s);
			}
			break;
		case 2:
			e = gx(path, name, rd, rnd() % 2 ? sizeof(rd) : rnd() % 64, &len);
			check(errno_ok(e, !host), "get \"%.40s\": %s", name, strerror(e));
			break;
		case 3:
			e = rx(path, name);
			check(errno_ok(e, !host), "remove \"%.40s\": %s", name, strerror(e));
			if (e == 0 && host) {
				e2 = gx(path, name, NULL, 0, NULL);
				check(e2 == ENODATA, "\"%.40s\" still there after remove: %s", name,
				      strerror(e2));
			}
			break;
		default: {
			char lb[256];
			ssize_t r;

			count_op();
			r = llistxattr(path, lb, rnd() % sizeof(lb));
			check(r >= 0 || errno == ERANGE, "list: %s", strerror(errno));
		}
		}
	}
}

/* ------------------------------------------------------------- phases */

static void mkfile(const char *dir, const char *name, uid_t owner, char *out, size_t outlen)
{
	int fd;

	snprintf(out, outlen, "%s/%s", dir, name);
	fd = open(out, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0755);
	if (fd >= 0) {
		if (write(fd, "#!/bin/true\n", 12) != 12) { }
		close(fd);
	}
	if (chown(out, owner, owner)) { }
	chmod(out, 0755);
}

/* Host values seeded on every shape's file: plain caps, raw keys, labels. */
static void seed(const char *path)
{
	unsigned char v[20];

	cap_v2(v, 0); /* CAP_CHOWN: the host's value */
	sx(path, CAPS, v, 20, 0);
	cap_v2(v, 1);
	sx(path, CAPS "@uid=1", v, 20, 0);		/* seen as @uid=4000000000 by "growing" */
	sx(path, CAPS "@uid=100001", v, 20, 0);		/* seen as @uid=1 */
	sx(path, CAPS "@uid=5", v, 20, 0);		/* unmapped everywhere */
	sx(path, CAPS "@uid=4294967294", v, 20, 0);	/* longest name */
	sx(path, "security.selinux", "host_t", 7, 0);
	sx(path, "security.selinux@uid=100000", "ns_t", 5, 0);
	sx(path, "user.keep", "keep", 4, 0);
}

static void phase_malformed(const char *path, const char *who)
{
	unsigned char v[20];
	char rd[64];

	cap_v2(v, 2);
	phase_begin();
	for (size_t i = 0; i < NMAL; i++) {
		int e[6];

		count_input();
		e[0] = sx(path, malformed[i], v, 20, 0);
		e[1] = sx(path, malformed[i], v, 20, XATTR_CREATE);
		e[2] = sx(path, malformed[i], v, 20, XATTR_REPLACE);
		e[3] = sx(path, malformed[i], "", 0, 0);
		e[4] = gx(path, malformed[i], rd, sizeof(rd), NULL);
		e[5] = rx(path, malformed[i]);
		for (int k = 0; k < 6; k++) {
			if (feat)
				check(e[k] == EINVAL, "%s op %d \"%s\": %s, want EINVAL", who, k,
				      malformed[i], strerror(e[k]));
			else
				check(errno_ok(e[k], true), "%s op %d \"%s\": %s", who, k,
				      malformed[i], strerror(e[k]));
		}
		if (!feat)
			rx(path, malformed[i]);
	}
	phase_end(feat ? NULL : "SKIP feature absent: malformed names are ordinary names on stock",
		  "%s: %zu malformed names x 6 operations", who, NMAL);
}

static void phase_limits(struct fs *f)
{
	char path[400], name[300], big[65537], rd[65537];
	ssize_t len;
	int e;

	mkfile(f->dir, "limits", 0, path, sizeof(path));
	phase_begin();
	/* names at XATTR_NAME_MAX */
	snprintf(name, sizeof(name), "user.");
	memset(name + 5, 'n', 250);
	name[255] = 0;
	count_input();
	e = sx(path, name, "max", 3, 0);
	check(e == 0, "name of 255: %s", strerror(e));
	check(gx(path, name, rd, sizeof(rd), &len) == 0 && len == 3, "read name of 255");
	name[255] = 'n';
	name[256] = 0;
	count_input();
	check(sx(path, name, "x", 1, 0) == ERANGE, "set name of 256: not ERANGE");
	check(gx(path, name, rd, sizeof(rd), NULL) == ERANGE, "get name of 256: not ERANGE");
	check(rx(path, name) == ERANGE, "remove name of 256: not ERANGE");
	/* namespaced name at its longest, and one past the largest key */
	{
		unsigned char v[20];

		cap_v2(v, 3);
		count_input();
		e = sx(path, CAPS "@uid=4294967294", v, 20, 0);
		check(e == 0, "set " CAPS "@uid=4294967294: %s", strerror(e));
		e = sx(path, CAPS "@uid=4294967295", v, 20, 0);
		check(!feat || e == EINVAL, "set @uid=4294967295: %s", strerror(e));
	}
	/* values at XATTR_SIZE_MAX: tmpfs keeps them, ext4 (no ea_inode) cannot */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = i * 7;
	count_input();
	e = sx(path, "user.big", big, 65536, 0);
	if (f->on_ext4)
		check(e == 0 || e == ENOSPC || e == E2BIG, "value of 65536 on ext4: %s", strerror(e));
	else
		check(e == 0, "value of 65536: %s", strerror(e));
	if (e == 0) {
		check(gx(path, "user.big", rd, 65536, &len) == 0 && len == 65536 &&
		      !memcmp(rd, big, 65536), "value of 65536 reads back");
		check(gx(path, "user.big", rd, 65535, NULL) == ERANGE, "65535-byte read: not ERANGE");
		check(gx(path, "user.big", NULL, 0, &len) == 0 && len == 65536, "size query of 65536");
	}
	count_input();
	check(sx(path, "user.big2", big, 65537, 0) == E2BIG, "value of 65537: not E2BIG");
	/* flags */
	count_input();
	check(sx(path, "user.keep", "a", 1, XATTR_REPLACE) == ENODATA, "REPLACE of absent: not ENODATA");
	check(sx(path, "user.keep", "a", 1, XATTR_CREATE) == 0, "CREATE");
	check(sx(path, "user.keep", "b", 1, XATTR_CREATE) == EEXIST, "CREATE of present: not EEXIST");
	check(sx(path, "user.keep", "b", 1, XATTR_REPLACE) == 0, "REPLACE");
	check(sx(path, "user.keep", "b", 1, 4) == EINVAL, "flags 4: not EINVAL");
	phase_end(NULL, "%s: XATTR_NAME_MAX names, XATTR_SIZE_MAX values, flags", f->label);
	{
		ssize_t n;
		phase_begin();
		free(list_sweep(path, false, &n));
		phase_end(NULL, "%s: host list at every size 0..%zd+8", f->label, n);
	}
}

/* ------------------------------------------------------ in a namespace */

struct nsarg {
	const struct shape *sh;
	struct fs *f;
	char path[400];
	char exe[400];
	int level;
};

static int ns_body(void *p)
{
	struct nsarg *a = p;
	const struct shape *sh = a->sh;
	bool keyed = sh->key != (uid_t)-1 && sh->key != 0;
	unsigned char host[20], mine[20];
	char rd[256], *l;
	ssize_t len, n;
	int e;

	cap_v2(host, 0);
	cap_v2(mine, 13);

	/* malformed names: EINVAL for namespaces too */
	phase_malformed(a->path, sh->name);

	phase_begin();
	/* a plain read never fails with EINVAL (port-map §4.5) */
	e = gx(a->path, CAPS, rd, sizeof(rd), &len);
	check(e == 0 || e == ENODATA, "plain read: %s", strerror(e));
	if (feat && sh->key != 0) {
		/* before any own value: the host's, unchanged */
		check(e == 0 && len == 20 && !memcmp(rd, host, 20),
		      "plain read before own value: %s, %zd bytes", strerror(e), len);
		check(sx(a->path, CAPS "@uid", mine, 20, 0) == EPERM, "wildcard write: not EPERM");
		check(rx(a->path, CAPS "@uid") == EPERM, "wildcard remove: not EPERM");
	}
	if (feat && keyed) {
		check(sx(a->path, CAPS "@uid=4294967294", mine, 20, 0) == EINVAL,
		      "write to unmapped @uid=N: not EINVAL");
		check(gx(a->path, CAPS "@uid=4294967294", rd, sizeof(rd), NULL) == ENODATA,
		      "read of unmapped @uid=N: not ENODATA");
		check(rx(a->path, CAPS) == ENODATA, "remove without own value: not ENODATA");
		e = sx(a->path, CAPS, mine, 20, XATTR_REPLACE);
		check(e == ENODATA, "REPLACE without own value: %s", strerror(e));
		e = sx(a->path, CAPS, mine, 20, XATTR_CREATE);
		check(e == 0, "CREATE own value: %s", strerror(e));
		e = sx(a->path, CAPS, mine, 20, XATTR_CREATE);
		check(e == EEXIST, "CREATE own value twice: %s", strerror(e));
		e = gx(a->path, CAPS, rd, sizeof(rd), &len);
		check(e == 0 && len == 20 && !memcmp(rd, mine, 20), "own value reads back: %s %zd",
		      strerror(e), len);
		e = gx(a->path, CAPS "@uid=0", rd, sizeof(rd), &len);
		check(e == EINVAL, "@uid=0 (alias of the host's value): %s", strerror(e));
	}
	if (feat && sh->key == (uid_t)-1) {
		e = sx(a->path, CAPS, mine, 20, 0);
		check(e == EINVAL || e == EPERM, "write without a key: %s", strerror(e));
		e = rx(a->path, CAPS);
		check(e == ENODATA || e == EPERM, "remove without a key: %s", strerror(e));
	}
	/* exec still works in every shape (the seed's error path broke it) */
	{
		pid_t pid;
		int st;

		count_op();
		pid = fork();
		if (pid == 0) {
			execl(a->exe, "true", (char *)NULL);
			_exit(126);
		}
		waitpid(pid, &st, 0);
		check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exec of a file with capabilities: status %d", st);
	}
	phase_end(feat ? NULL : "SKIP feature absent: stock semantics",
		  "%s on %s: per-namespace values, errors, exec", sh->name, a->f->label);

	/* the list the namespace sees, at every size */
	phase_begin();
	l = list_sweep(a->path, sh->key != 0, &n);
	if (feat && sh->key != 0) {
		check(list_has(l, n, CAPS), "\"" CAPS "\" not listed");
		check(list_has(l, n, "user.keep"), "user.keep not listed");
		check(!list_has(l, n, CAPS "@uid=5"), "unmapped key listed");
		check(!list_has(l, n, CAPS "@uid=100000") || sh->key != 100000,
		      "own raw name listed");
		if (!strcmp(sh->name, "growing names")) {
			check(list_has(l, n, CAPS "@uid=4000000000"), "@uid=1 not listed as @uid=4000000000");
			check(list_has(l, n, CAPS "@uid=1"), "@uid=100001 not listed as @uid=1");
		}
	}
	free(l);
	phase_end(NULL, "%s on %s: list at every size 0..%zd+8", sh->name, a->f->label, n);

	/* random hostile input from inside */
	phase_begin();
	random_ops(a->path, nrandom / 3, false);
	phase_end(NULL, "%s on %s: %d random operations", sh->name, a->f->label, nrandom / 3);

	if (feat && keyed) {
		phase_begin();
		/* the random operations above may have changed it: set it again */
		e = sx(a->path, CAPS, mine, 20, 0);
		check(e == 0, "set own value: %s", strerror(e));
		e = rx(a->path, CAPS);
		check(e == 0, "remove own value: %s", strerror(e));
		e = gx(a->path, CAPS, rd, sizeof(rd), &len);
		check(e == 0 && len == 20 && !memcmp(rd, host, 20),
		      "after removing own value the host's shows again: %s", strerror(e));
		check(rx(a->path, CAPS) == ENODATA, "second remove: not ENODATA");
		/* leave a value for the host to check */
		check(sx(a->path, CAPS, mine, 20, 0) == 0, "write own value again");
		phase_end(NULL, "%s on %s: remove touches only the own value", sh->name, a->f->label);
	}
	return 0;
}

/* nested: each level maps 0 -> 1000 of its parent */
static int nest(void *p)
{
	struct nsarg *a = p;
	char map[64];

	if (a->level >= a->sh->depth)
		return ns_body(a);
	a->level++;
	snprintf(map, sizeof(map), "0 1000 %d", 100000 - 1000 * (a->level - 1));
	return in_userns(map, 0, nest, a);
}

/* Nest until the kernel refuses: at least 32 levels, then ENOSPC (EUSERS before 4.9). */
static int probe_unshare(void *p)
{
	(void)p;
	return unshare(CLONE_NEWUSER) ? (errno & 0x7f) : 0;
}

static int nest_deeper(void *p)
{
	struct nsarg *a = p;
	char map[64];
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0)
		_exit(probe_unshare(NULL));
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) || a->level >= 40) {
		printf("# nesting refused below level %d: %s\n", a->level,
		       WIFEXITED(st) ? strerror(WEXITSTATUS(st)) : "signal");
		return a->level >= 32 && WIFEXITED(st) &&
		       (WEXITSTATUS(st) == ENOSPC || WEXITSTATUS(st) == EUSERS) ? 0 : 1;
	}
	a->level++;
	snprintf(map, sizeof(map), "0 1000 %d", 100000 - 1000 * (a->level - 1));
	return in_userns(map, 0, nest_deeper, a);
}

static void phase_shape(struct fs *f, const struct shape *sh, int idx)
{
	struct nsarg a = { .sh = sh, .f = f, .level = 1 };
	unsigned char host[20], mine[20], rd[64];
	ssize_t len;
	int st, e;
	char fname[32];

	cap_v2(host, 0);
	cap_v2(mine, 13);
	snprintf(fname, sizeof(fname), "shape%d", idx);
	snprintf(a.path, sizeof(a.path), "%s/%s", f->dir, fname);
	snprintf(a.exe, sizeof(a.exe), "%s/exe", f->dir);
	if (sh->depth > 1)
		st = in_userns(sh->map, sh->uid, nest, &a);
	else
		st = in_userns(sh->map, sh->uid, ns_body, &a);
	tap(st == 0, NULL, "%s on %s: namespace ran (status %d)", sh->name, f->label, st);

	/* the host's view afterwards */
	phase_begin();
	e = gx(a.path, CAPS, rd, sizeof(rd), &len);
	if (feat && sh->key != 0)
		check(e == 0 && len == 20 && !memcmp(rd, host, 20), "host value changed: %s %zd",
		      strerror(e), len);
	if (feat && sh->key != (uid_t)-1 && sh->key != 0) {
		char raw[64];

		snprintf(raw, sizeof(raw), CAPS "@uid=%u", sh->key);
		e = gx(a.path, raw, rd, sizeof(rd), &len);
		check(e == 0, "host does not see %s: %s", raw, strerror(e));
	}
	{
		ssize_t n;
		free(list_sweep(a.path, false, &n));
	}
	phase_end(feat ? NULL : "SKIP feature absent", "%s on %s: host view afterwards", sh->name, f->label);
}

/* Full ext4 xattr block: clean ENOSPC, earlier values intact. */
static int enospc_ns(void *p)
{
	unsigned char v[20];
	int e;

	cap_v2(v, 13);
	e = sx(p, CAPS, v, 20, 0);
	return e == ENOSPC ? 0 : e == 0 ? 2 : 1;
}

static void phase_enospc(struct fs *f)
{
	char path[400], name[64], val[128], rd[128];
	int i, e = 0, nset = 0;
	ssize_t len;

	mkfile(f->dir, "full", 100000, path, sizeof(path));
	phase_begin();
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "user.fill%04d", i);
		memset(val, 'a' + i % 26, sizeof(val));
		count_input();
		e = sx(path, name, val, 100, 0);
		if (e)
			break;
		nset++;
	}
	check(e == ENOSPC, "filling stopped with %s after %d values", strerror(e), nset);
	check(nset > 10, "only %d values fit", nset);
	/* fill the last bytes with small entries, until not even 1 byte fits */
	{
		int nsmall = 0;

		for (int sz = 32; sz >= 1; sz /= 2) {
			for (;;) {
				snprintf(name, sizeof(name), "user.s%04d", nsmall);
				count_input();
				e = sx(path, name, "ssssssssssssssssssssssssssssssss", sz, 0);
				if (e)
					break;
				nsmall++;
			}
			check(e == ENOSPC, "small fill (%d bytes): %s", sz, strerror(e));
		}
	}
	for (i = 0; i < nset; i++) {
		snprintf(name, sizeof(name), "user.fill%04d", i);
		memset(val, 'a' + i % 26, sizeof(val));
		e = gx(path, name, rd, sizeof(rd), &len);
		if (!check(e == 0 && len == 100 && !memcmp(rd, val, 100), "%s lost after ENOSPC", name))
			__atomic_add_fetch(&S->lost, 1, __ATOMIC_RELAXED);
	}
	snprintf(name, sizeof(name), "user.fill%04d", nset);
	check(gx(path, name, rd, sizeof(rd), NULL) == ENODATA, "failed value is visible");
	if (feat) {
		/* a namespaced write into the full block: ENOSPC, nothing else */
		int st = in_userns("0 100000 65536", 0, enospc_ns, path);
		check(st == 0, "namespaced write into a full block: status %d (0 = ENOSPC)", st);
		check(gx(path, CAPS "@uid=100000", rd, sizeof(rd), NULL) == ENODATA,
		      "failed namespaced value visible");
		/* room again: the namespaced write fits */
		snprintf(name, sizeof(name), "user.fill%04d", nset - 1);
		rx(path, name);
		st = in_userns("0 100000 65536", 0, enospc_ns, path);
		check(st == 2, "namespaced write after freeing room: status %d (2 = ok)", st);
		for (i = 0; i < nset - 1; i++) {
			snprintf(name, sizeof(name), "user.fill%04d", i);
			memset(val, 'a' + i % 26, sizeof(val));
			e = gx(path, name, rd, sizeof(rd), &len);
			if (!check(e == 0 && len == 100 && !memcmp(rd, val, 100), "%s lost", name))
				__atomic_add_fetch(&S->lost, 1, __ATOMIC_RELAXED);
		}
	}
	{
		ssize_t n;
		free(list_sweep(path, false, &n));
	}
	phase_end(NULL, "%s: full xattr block gives ENOSPC, %d earlier values intact", f->label, nset);
}

/* sysctl off: stock names; malformed raw names on disk stay unreadable and unlisted */
static int sysctl_ns(void *p)
{
	ssize_t n;
	char *l;

	phase_begin();
	l = list_sweep(p, true, &n);
	check(!list_has(l, n, CAPS "@uid=01") && !list_has(l, n, CAPS "@uid=0"),
	      "malformed raw names listed to a namespace");
	free(l);
	phase_end(NULL, "namespace list with malformed raw names on disk");
	return 0;
}

static void phase_sysctl(struct fs *f)
{
	char path[400];
	unsigned char v[20];

	if (!feat) {
		tap(true, "SKIP feature absent", "%s: sysctl fs.xattr_user_ns", f->label);
		return;
	}
	cap_v2(v, 5);
	mkfile(f->dir, "sysctl", 100000, path, sizeof(path));
	phase_begin();
	check(set_sysctl(0) == 0, "sysctl off");
	check(sx(path, CAPS "@uid=01", v, 20, 0) == 0, "sysctl off: malformed name is ordinary");
	check(sx(path, CAPS "@uid=0", v, 20, 0) == 0, "sysctl off: @uid=0 is ordinary");
	check(set_sysctl(1) == 0, "sysctl on");
	/*
	 * The host reads raw names unparsed: the value stored while off, except
	 * through overlayfs, which translates every name for its layers.
	 */
	check(gx(path, CAPS "@uid=01", NULL, 0, NULL) == (on_overlay ? EINVAL : 0),
	      "malformed on disk: host read neither the raw value nor EINVAL on overlayfs");
	check(rx(path, CAPS "@uid=01") == EINVAL, "malformed on disk: host remove not EINVAL");
	phase_end(NULL, "%s: sysctl off gives stock names", f->label);
	in_userns("0 100000 65536", 0, sysctl_ns, path);
	set_sysctl(0);
	rx(path, CAPS "@uid=01");
	rx(path, CAPS "@uid=0");
	set_sysctl(1);
}

/* ----------------------------------------------------------------- main */

static void prep_files(const char *dir)
{
	char path[400];

	mkdir(dir, 0755);
	for (size_t i = 0; i < NSHAPES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "shape%zu", i);
		mkfile(dir, name, shapes[i].owner, path, sizeof(path));
		seed(path);
	}
	/* an executable with file capabilities (busybox runs "true" by argv[0]) */
	snprintf(path, sizeof(path), "%s/exe", dir);
	{
		char cmd[512];
		unsigned char v[20];

		snprintf(cmd, sizeof(cmd), "cp /bin/busybox %s", path);
		if (system(cmd)) { }
		chmod(path, 0755);
		cap_v2(v, 0);
		sx(path, CAPS, v, 20, 0);
		sx(path, CAPS "@uid", v, 20, 0);
	}
}

int main(int argc, char **argv)
{
	char base[300], m[300];
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1)
		if (opt == 'n')
			nrandom = atoi(optarg);
	shared_init();
	feat = feature();
	printf("# hostile_xattr: feature %s\n", feat ? "present (patched kernel)" : "absent (stock kernel)");
	snprintf(topdir, sizeof(topdir), "%s/hx", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	mkdir(topdir, 0755);

	/* tmpfs */
	snprintf(base, sizeof(base), "%s/tmpfs", topdir);
	mkdir(base, 0755);
	tap(mount("tmpfs", base, "tmpfs", 0, "mode=0755") == 0, NULL, "mount tmpfs");
	fss[nfs] = (struct fs){ .label = "tmpfs" };
	snprintf(fss[nfs].dir, 300, "%s/d", base);
	prep_files(fss[nfs].dir);
	nfs++;
	snprintf(fss[nfs].prep, 300, "%s/lower", base);
	prep_files(fss[nfs].prep);
	/* ext4 */
	{
		char img[300], dir[300];

		snprintf(img, sizeof(img), "%s/ext4.img", base);
		snprintf(dir, sizeof(dir), "%s/ext4", topdir);
		tap(mount_ext4(img, dir, 48) == 0, NULL, "mkfs.ext4 + loop (LOOP_CTL_GET_FREE, LOOP_CONFIGURE) + mount");
		fss[2] = (struct fs){ .label = "ext4", .ext4 = true, .on_ext4 = true };
		fss[3].on_ext4 = true;
		snprintf(fss[2].dir, 300, "%s/d", dir);
		prep_files(fss[2].dir);
		snprintf(fss[3].prep, 300, "%s/lower", dir);
		prep_files(fss[3].prep);
		/* overlay over ext4 */
		tap(mount_overlay(dir, m, sizeof(m)) == 0, NULL, "mount overlayfs over ext4");
		fss[3].label = "overlayfs/ext4";
		snprintf(fss[3].dir, 300, "%s", m);
	}
	/* overlay over tmpfs */
	tap(mount_overlay(base, m, sizeof(m)) == 0, NULL, "mount overlayfs over tmpfs");
	fss[1].label = "overlayfs/tmpfs";
	snprintf(fss[1].dir, 300, "%s", m);
	nfs = 4;

	for (int i = 0; i < nfs; i++) {
		struct fs *f = &fss[i];
		char path[400];

		printf("# ---- %s (%s)\n", f->label, f->dir);
		on_overlay = !strncmp(f->label, "overlayfs", 9);
		mkfile(f->dir, "host", 0, path, sizeof(path));
		phase_malformed(path, "host root");
		phase_begin();
		random_ops(path, nrandom, true);
		phase_end(NULL, "%s: host root, %d random names/sizes/flags", f->label, nrandom);
		phase_limits(f);
		for (size_t s = 0; s < NSHAPES; s++)
			phase_shape(f, &shapes[s], s);
		phase_sysctl(f);
		if (f->ext4)
			phase_enospc(f);
	}
	{
		struct nsarg a = { .level = 1 };

		tap(in_userns("0 100000 100000", 0, nest_deeper, &a) == 0, NULL,
		    "nesting beyond the limit (32+ levels) is refused cleanly");
	}
	printf("# inputs=%ld ops=%ld\n", S->inputs, S->ops);
	printf("# lost=%ld stale=%ld\n", S->lost, S->stale);
	printf("1..%ld\n", S->tests);
	return S->fails ? 1 : 0;
}
