// SPDX-License-Identifier: GPL-2.0
/*
 * race - the interleavings a uniprocessor guest never runs, for an SMP
 * guest (two vCPUs) under lockdep (and KASAN with NSCAPS_VARIANT=debug):
 *
 *   mark     a namespace reads security.capability in a loop while the host
 *            adds and removes its key: the inode mark (S_NONSXATTR, set by
 *            a reader that listed no namespaced name) must never hide a key
 *            that a finished setxattr() stored;
 *   copyup   overlayfs copy-up (chmod) races setxattr() through the overlay
 *            on the same files: no write is lost, every value is where the
 *            last writer put it;
 *   list     a namespace lists a file's names while the host sets and
 *            removes the plain value, the wildcard, the namespace's key, a
 *            key it can name, a key it cannot and user names: every list
 *            is well formed, names each value once, in the namespace's
 *            spelling, and never a raw key; a size query is exact for a
 *            list taken right after it unless a write came between
 *            (ERANGE);
 *   sysctl   fs.xattr_user_ns flips while a namespace sets, reads, removes
 *            and lists, and the host truncates: every call ends with an
 *            error the ABI allows, and a truncate with the sysctl on
 *            leaves no security.capability name at all (killpriv).
 *
 *   race [-t SECONDS]      (in the test VM only, as root; patched kernel)
 *
 * TAP on stdout; each race is one phase with its counts.
 */
#include "common.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NS_KEY 300000
#define NS_MAP "0 300000 1\n1 100000 1"
#define NFILES 16

static int secs = 8;

/* Shared with the namespace's process: generation and acknowledgement. */
struct mark_sync {
	long gen, ack;
	int done;
	long reads, bad;
	double until;
	char path[300];
};
static struct mark_sync *M;

/* The capability a generation's key value holds: odd gen only. */
static int gen_cap(long gen)
{
	return 1 + (gen / 2) % 30;
}

/* Bit @cap of the permitted set of a v2 or v3 value. */
static bool has_cap(const unsigned char *v, ssize_t len, int cap)
{
	uint32_t w;

	if (len < 20)
		return false;
	memcpy(&w, v + 4 + 8 * (cap / 32), 4);
	return w & (1u << (cap % 32));
}

static int mark_reader(void *arg)
{
	unsigned char v[64];
	ssize_t len;
	long seen = 0, g;
	int e;

	(void)arg;
	while (!__atomic_load_n(&M->done, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&M->gen, __ATOMIC_ACQUIRE) != seen) {
		g = __atomic_load_n(&M->gen, __ATOMIC_ACQUIRE);
		e = gx(M->path, CAPS, v, sizeof(v), &len);
		__atomic_add_fetch(&M->reads, 1, __ATOMIC_RELAXED);
		if (g == seen)
			continue;
		/* The state of generation g is stable until acknowledged. */
		if (g % 2 ? (e || !has_cap(v, len, gen_cap(g))) :
			    (e || !has_cap(v, len, 0))) {
			if (__atomic_fetch_add(&M->bad, 1, __ATOMIC_RELAXED) < 4)
				printf("# mark: generation %ld read %s, %zd bytes\n", g,
				       e ? strerror(e) : "a value", len);
		}
		seen = g;
		__atomic_store_n(&M->ack, g, __ATOMIC_RELEASE);
	}
	return 0;
}

static void wait_ack(long g)
{
	double give_up = now() + 30;

	while (__atomic_load_n(&M->ack, __ATOMIC_ACQUIRE) != g && now() < give_up)
		sched_yield();
}

static void race_mark(const char *dir)
{
	unsigned char hostcap[20], v[20];
	char key[64];
	long g = 0;
	pid_t pid;
	int st;

	M = mmap(NULL, sizeof(*M), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	memset(M, 0, sizeof(*M));
	snprintf(M->path, sizeof(M->path), "%s/mark", dir);
	close(open(M->path, O_CREAT | O_WRONLY, 0755));
	cap_v2(hostcap, 0);
	snprintf(key, sizeof(key), CAPS "@uid=%d", NS_KEY);
	phase_begin();
	check(sx(M->path, CAPS, hostcap, 20, 0) == 0, "mark: host value");
	M->until = now() + secs;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(in_userns(NS_MAP, 0, mark_reader, NULL));
	while (now() < M->until) {
		cap_v2(v, gen_cap(g + 1));
		check(sx(M->path, key, v, 20, 0) == 0, "mark: set key");
		__atomic_store_n(&M->gen, ++g, __ATOMIC_RELEASE);
		wait_ack(g);
		check(rx(M->path, key) == 0, "mark: remove key");
		__atomic_store_n(&M->gen, ++g, __ATOMIC_RELEASE);
		wait_ack(g);
	}
	__atomic_store_n(&M->done, 1, __ATOMIC_RELEASE);
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "mark: reader status %d", st);
	check(M->bad == 0, "mark: %ld stale reads", M->bad);
	check(g > 10 && M->reads > g, "mark: %ld generations, %ld reads", g, M->reads);
	phase_end(NULL, "mark: %ld key generations against %ld reads in a namespace, none stale",
		  g, M->reads);
	munmap(M, sizeof(*M));
}

/* The names the host of race_list() sets and removes, raw. */
static const char *const list_raw[] = {
	CAPS, CAPS "@uid", CAPS "@uid=300000", CAPS "@uid=100000",
	CAPS "@uid=200000", "user.a", "user.b",
};

/* The only spellings a list of the namespace may hold. */
static const char *const list_seen[] = {
	CAPS, CAPS "@uid", CAPS "@uid=1", "user.a", "user.b",
};

struct list_sync {
	int done;
	long lists, eranges;
	char path[300];
};
static struct list_sync *L;

/* Checks one list of @len bytes; returns false (and says why) if bad. */
static bool list_ok(const char *list, ssize_t len)
{
	bool seen[ARRAY_SIZE(list_seen)] = { false };
	const char *p;
	size_t i;

	if (len > 0 && list[len - 1])
		return check(false, "list: not NUL-terminated (%zd bytes)", len);
	for (p = list; p < list + len; p += strlen(p) + 1) {
		for (i = 0; i < ARRAY_SIZE(list_seen); i++)
			if (!strcmp(p, list_seen[i]))
				break;
		if (i == ARRAY_SIZE(list_seen))
			return check(false, "list: a name the namespace must not see: %s", p);
		if (seen[i])
			return check(false, "list: %s twice", p);
		seen[i] = true;
	}
	return true;
}

static int list_reader(void *arg)
{
	char list[1024];
	ssize_t size, len;

	(void)arg;
	while (!__atomic_load_n(&L->done, __ATOMIC_ACQUIRE)) {
		size = listxattr(L->path, NULL, 0);
		if (!check(size >= 0, "list: size query: %s", strerror(errno)))
			break;
		/* A size of 0 would be another size query. */
		if (size == 0 || size > (ssize_t)sizeof(list))
			continue;
		len = listxattr(L->path, list, size);
		if (len < 0 && errno == ERANGE) {
			L->eranges++;
			continue;
		}
		if (!check(len >= 0, "list: %s", strerror(errno)))
			break;
		if (!list_ok(list, len))
			break;
		L->lists++;
	}
	return 0;
}

static void race_list(const char *dir)
{
	unsigned char v[20];
	unsigned int r = 1;
	double until;
	long writes = 0;
	size_t i;
	pid_t pid;
	int st, e;

	L = mmap(NULL, sizeof(*L), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	memset(L, 0, sizeof(*L));
	snprintf(L->path, sizeof(L->path), "%s/list", dir);
	close(open(L->path, O_CREAT | O_WRONLY, 0755));
	cap_v2(v, 5);
	phase_begin();
	until = now() + secs;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(in_userns(NS_MAP, 0, list_reader, NULL));
	while (now() < until) {
		r = r * 1103515245 + 12345;
		i = (r >> 16) % ARRAY_SIZE(list_raw);
		if ((r >> 8) & 1)
			e = sx(L->path, list_raw[i], v, 20, 0);
		else
			e = rx(L->path, list_raw[i]);
		check(e == 0 || e == ENODATA, "list: host %s %s: %s",
		      (r >> 8) & 1 ? "set" : "remove", list_raw[i], strerror(e));
		writes++;
	}
	__atomic_store_n(&L->done, 1, __ATOMIC_RELEASE);
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "list: reader status %d", st);
	check(L->lists > 10, "list: %ld lists", L->lists);
	phase_end(NULL, "list: %ld lists in a namespace (%ld ERANGE) against %ld host sets and removals",
		  L->lists, L->eranges, writes);
	munmap(L, sizeof(*L));
}

/* Copy-up of NFILES files (chmod) against setxattr through the overlay. */
static void race_copyup(const char *base)
{
	char merged[300], lower[400], path[400], name[64];
	unsigned char hostcap[20], v[20], rd[64];
	ssize_t len;
	pid_t pid;
	int i, st, rounds = 0;
	double until = now() + secs;

	cap_v2(hostcap, 0);
	snprintf(name, sizeof(name), CAPS "@uid=%d", NS_KEY);
	phase_begin();
	while (now() < until) {
		char dir[300];

		snprintf(dir, sizeof(dir), "%s/c%d", base, rounds++);
		mkdir(dir, 0755);
		snprintf(lower, sizeof(lower), "%s/lower", dir);
		mkdir(lower, 0755);
		for (i = 0; i < NFILES; i++) {
			snprintf(path, sizeof(path), "%s/f%d", lower, i);
			close(open(path, O_CREAT | O_WRONLY, 0755));
			check(sx(path, CAPS, hostcap, 20, 0) == 0, "copyup: host value");
			cap_v2(v, 5);
			check(sx(path, name, v, 20, 0) == 0, "copyup: key value");
		}
		if (!check(mount_overlay(dir, merged, sizeof(merged)) == 0,
			   "copyup: mount overlay: %s", strerror(errno)))
			break;
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			for (i = 0; i < NFILES; i++) {
				snprintf(path, sizeof(path), "%s/f%d", merged, i);
				if (chmod(path, 0750))
					_exit(1);
			}
			_exit(0);
		}
		for (i = NFILES - 1; i >= 0; i--) {
			snprintf(path, sizeof(path), "%s/f%d", merged, i);
			cap_v2(v, 10 + i);
			check(sx(path, name, v, 20, 0) == 0, "copyup: set key through the overlay");
			check(sx(path, "user.race", &i, sizeof(i), 0) == 0,
			      "copyup: set user.race through the overlay");
		}
		waitpid(pid, &st, 0);
		check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "copyup: chmod status %d", st);
		for (i = 0; i < NFILES; i++) {
			int got = -1;

			snprintf(path, sizeof(path), "%s/upper/f%d", dir, i);
			check(gx(path, name, rd, sizeof(rd), &len) == 0 && len == 20 &&
			      has_cap(rd, len, 10 + i), "copyup: file %d lost its key value", i);
			check(gx(path, "user.race", &got, sizeof(got), &len) == 0 && got == i,
			      "copyup: file %d lost user.race", i);
			check(gx(path, CAPS, rd, sizeof(rd), &len) == 0 && len == 20 &&
			      !memcmp(rd, hostcap, 20), "copyup: file %d lost the host value", i);
		}
		umount2(merged, MNT_DETACH);
	}
	phase_end(NULL, "copyup: %d rounds of %d copy-ups against setxattr through the overlay",
		  rounds, NFILES);
}

struct flip_arg {
	char path[300];
	double until;
};

/* In the namespace: set, read, remove, list; every result one the ABI allows. */
static int flip_worker(void *p)
{
	struct flip_arg *a = p;
	unsigned char v[20], rd[64];
	char list[1024];
	ssize_t len;
	int e, n = 0;

	while (now() < a->until) {
		cap_v2(v, 1 + n++ % 30);
		e = sx(a->path, CAPS, v, 20, 0);
		check(e == 0 || e == EPERM || e == EINVAL, "sysctl: set: %s", strerror(e));
		e = gx(a->path, CAPS, rd, sizeof(rd), &len);
		check(e == 0 || e == ENODATA || e == EOVERFLOW || e == EINVAL,
		      "sysctl: get: %s", strerror(e));
		len = llistxattr(a->path, list, sizeof(list));
		check(len >= 0 || errno == ERANGE, "sysctl: list: %s", strerror(errno));
		e = rx(a->path, CAPS);
		check(e == 0 || e == ENODATA || e == EPERM || e == EINVAL,
		      "sysctl: remove: %s", strerror(e));
	}
	return 0;
}

/* Whether @path holds no security.capability name at all. */
static bool no_caps_names(const char *path)
{
	char list[4096], *p;
	ssize_t len = llistxattr(path, list, sizeof(list));

	if (len < 0)
		return false;
	for (p = list; p < list + len; p += strlen(p) + 1)
		if (!strncmp(p, CAPS, strlen(CAPS)))
			return false;
	return true;
}

static void race_sysctl(const char *dir)
{
	struct flip_arg *a;
	unsigned char hostcap[20], v[20];
	char name[64];
	pid_t pid, flipper;
	long kills = 0;
	int st;

	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	snprintf(a->path, sizeof(a->path), "%s/flip", dir);
	close(open(a->path, O_CREAT | O_WRONLY, 0777));
	check(chown(a->path, 100000, 100000) == 0, "sysctl: chown");
	cap_v2(hostcap, 0);
	snprintf(name, sizeof(name), CAPS "@uid=%d", NS_KEY + 1);
	a->until = now() + secs;
	phase_begin();
	fflush(stdout);
	flipper = fork();
	if (flipper == 0) {
		int on = 0;

		while (now() < a->until) {
			set_sysctl(on);
			on = !on;
			usleep(200);
		}
		set_sysctl(1);
		_exit(0);
	}
	pid = fork();
	if (pid == 0)
		_exit(in_userns(NS_MAP, 0, flip_worker, a));
	while (now() < a->until) {
		/* A host value and a raw key, then a truncate drops both. */
		sx(a->path, CAPS, hostcap, 20, 0);
		cap_v2(v, 3);
		sx(a->path, name, v, 20, 0);
		check(truncate(a->path, 0) == 0, "sysctl: truncate: %s", strerror(errno));
		kills++;
	}
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "sysctl: namespace status %d", st);
	waitpid(flipper, &st, 0);
	check(feature(), "sysctl: left on");
	/* Killpriv with the sysctl on: nothing of any namespace remains. */
	sx(a->path, CAPS, hostcap, 20, 0);
	cap_v2(v, 3);
	sx(a->path, name, v, 20, 0);
	check(truncate(a->path, 0) == 0 && no_caps_names(a->path),
	      "sysctl: a security.capability name survived the last truncate");
	phase_end(NULL, "sysctl: flipped during %ld truncates and a namespace's set/get/list/remove",
		  kills);
	munmap(a, sizeof(*a));
}

int main(int argc, char **argv)
{
	char base[300], dir[400];
	int opt;

	while ((opt = getopt(argc, argv, "t:")) != -1)
		if (opt == 't')
			secs = atoi(optarg);
	shared_init();
	printf("# race: %ld CPUs online\n", sysconf(_SC_NPROCESSORS_ONLN));
	if (!feature()) {
		printf("1..0 # SKIP feature absent (stock kernel)\n");
		return 0;
	}
	snprintf(base, sizeof(base), "%s/race", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	mkdir(base, 0755);
	tap(mount("tmpfs", base, "tmpfs", 0, "mode=0755") == 0, NULL, "mount tmpfs");
	race_mark(base);
	race_list(base);
	snprintf(dir, sizeof(dir), "%s/ovl", base);
	mkdir(dir, 0755);
	race_copyup(dir);
	race_sysctl(base);
	snprintf(dir, sizeof(dir), "%s/ext4", base);
	snprintf(base + strlen(base), sizeof(base) - strlen(base), "/ext4.img");
	tap(mount_ext4(base, dir, 32) == 0, NULL, "mkfs.ext4 + loop + mount");
	race_mark(dir);
	race_list(dir);
	race_sysctl(dir);
	printf("1..%ld\n", S->tests);
	return S->fails ? 1 : 0;
}
