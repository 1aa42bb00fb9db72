// SPDX-License-Identifier: GPL-2.0
/*
 * stress - several user namespaces (processes) set, remove, list and exec
 * on the same files at once for a bounded time, on tmpfs and on ext4; then
 * every value written and not removed must read back byte for byte, and
 * nothing removed may still be visible, from inside and from the host.
 *
 *   stress [-t SECONDS] [-w WORKERS]      (in the test VM only, as root)
 *
 * Each namespace keeps a model of what it wrote: its own per-namespace
 * security.capability and security.selinux values (patched kernel only:
 * on a stock kernel these are one shared value, so that part is skipped)
 * and its own user.* names.  The host worker churns user.* names and
 * reads every raw name.  TAP on stdout; counts as "# ops=N lost=N stale=N".
 */
#include "common.h"

#define NFILES 3
#define NNAMES 6
#define MAXW 8

struct model {
	/* per file: own caps, own selinux, own user names */
	bool caps[NFILES], lab[NFILES], user[NFILES][NNAMES];
	unsigned char capv[NFILES][20];
	char labv[NFILES][32];
	unsigned char userv[NFILES][NNAMES][64];
	int userlen[NFILES][NNAMES];
};
static struct model *models;	/* shared: index w */
static bool feat;
static int workers = 4, secs = 20;
static unsigned char hostcap[20];

struct warg {
	int w;
	char files[NFILES][400];
	double until;
};

static void bump(long *c) { __atomic_add_fetch(c, 1, __ATOMIC_RELAXED); }

static void lost(const char *what, int w, int f)
{
	bump(&S->lost);
	check(false, "worker %d file %d: %s lost", w, f, what);
}
static void stale(const char *what, int w, int f)
{
	bump(&S->stale);
	check(false, "worker %d file %d: %s stale", w, f, what);
}

/* Compare what the namespace reads with its model. */
static void verify(struct warg *a, int f)
{
	struct model *m = &models[a->w];
	unsigned char rd[256];
	char name[64];
	ssize_t len;
	int e;

	if (feat) {
		e = gx(a->files[f], CAPS, rd, sizeof(rd), &len);
		if (m->caps[f]) {
			if (e || len != 20 || memcmp(rd, m->capv[f], 20))
				lost(CAPS, a->w, f);
		} else if (e == 0 && len == 20 && memcmp(rd, hostcap, 20)) {
			stale(CAPS " (not the host's value)", a->w, f);
		} else if (e) {
			lost(CAPS " (host's value not visible)", a->w, f);
		}
		e = gx(a->files[f], "security.selinux", rd, sizeof(rd), &len);
		if (m->lab[f]) {
			if (e || len != (ssize_t)strlen(m->labv[f]) + 1 || memcmp(rd, m->labv[f], len))
				lost("security.selinux", a->w, f);
		} else if (e == 0 && (len != 7 || memcmp(rd, "host_t", 7))) {
			stale("security.selinux (not the host's label)", a->w, f);
		}
	}
	for (int j = 0; j < NNAMES; j++) {
		snprintf(name, sizeof(name), "user.w%d.%d", a->w, j);
		e = gx(a->files[f], name, rd, sizeof(rd), &len);
		if (m->user[f][j]) {
			if (e || len != m->userlen[f][j] || memcmp(rd, m->userv[f][j], len))
				lost(name, a->w, f);
		} else if (e != ENODATA) {
			stale(name, a->w, f);
		}
	}
}

/* list with a large buffer; the list changes under us: retry on ERANGE */
static ssize_t list_retry(const char *path, char *buf, size_t size)
{
	ssize_t r = -1;

	for (int i = 0; i < 200; i++) {
		count_op();
		r = llistxattr(path, buf, size);
		if (r >= 0 || errno != ERANGE)
			break;
	}
	return r;
}

static int worker(void *p)
{
	struct warg *a = p;
	struct model *m = &models[a->w];
	static char lb[65536];
	char name[64];
	int e;

	rng_state ^= (uint64_t)(a->w + 1) * 0x2545f4914f6cdd1dull;
	while (now() < a->until) {
		int f = rnd() % NFILES, op = rnd() % 10, j = rnd() % NNAMES;
		const char *path = a->files[f];

		switch (op) {
		case 0: { /* own capability value; the model changes only on success */
			unsigned char v[20];

			if (!feat)
				break;
			cap_v2(v, rnd() % 41);
			e = sx(path, CAPS, v, 20, 0);
			check(e == 0 || e == ENOSPC, "w%d: set caps: %s", a->w, strerror(e));
			if (!e) {
				memcpy(m->capv[f], v, 20);
				m->caps[f] = true;
			}
			break;
		}
		case 1:
			if (!feat)
				break;
			e = rx(path, CAPS);
			check(e == 0 || (e == ENODATA && !m->caps[f]), "w%d: remove caps: %s",
			      a->w, strerror(e));
			m->caps[f] = false;
			break;
		case 2: { /* own label */
			char v[32];

			if (!feat)
				break;
			snprintf(v, sizeof(v), "w%d_t:%u", a->w, (unsigned)(rnd() % 1000));
			e = sx(path, "security.selinux", v, strlen(v) + 1, 0);
			check(e == 0 || e == ENOSPC, "w%d: set label: %s", a->w, strerror(e));
			if (!e) {
				strcpy(m->labv[f], v);
				m->lab[f] = true;
			}
			break;
		}
		case 3:
		case 4: { /* own user names */
			unsigned char v[64];
			int len = 1 + rnd() % 64;

			snprintf(name, sizeof(name), "user.w%d.%d", a->w, j);
			for (int i = 0; i < len; i++)
				v[i] = rnd();
			e = sx(path, name, v, len, 0);
			check(e == 0 || e == ENOSPC, "w%d: set %s: %s", a->w, name, strerror(e));
			if (!e) {
				memcpy(m->userv[f][j], v, len);
				m->user[f][j] = true;
				m->userlen[f][j] = len;
			}
			break;
		}
		case 5:
			snprintf(name, sizeof(name), "user.w%d.%d", a->w, j);
			e = rx(path, name);
			check(e == 0 || (e == ENODATA && !m->user[f][j]), "w%d: remove %s: %s",
			      a->w, name, strerror(e));
			m->user[f][j] = false;
			break;
		case 6: { /* list: own names as the model says */
			ssize_t n = list_retry(path, lb, sizeof(lb));

			if (!check(n >= 0, "w%d: list: %s", a->w, strerror(errno)))
				break;
			for (int k = 0; k < NNAMES; k++) {
				bool in = false;

				snprintf(name, sizeof(name), "user.w%d.%d", a->w, k);
				for (ssize_t o = 0; o < n; o += strlen(lb + o) + 1)
					in |= !strcmp(lb + o, name);
				if (in && !m->user[f][k])
					stale(name, a->w, f);
				if (!in && m->user[f][k])
					lost(name, a->w, f);
			}
			break;
		}
		case 7: { /* exec the file (file capabilities resolve now) */
			pid_t pid;
			int st;

			count_op();
			pid = fork();
			if (pid == 0) {
				execl(path, "true", (char *)NULL);
				_exit(126);
			}
			waitpid(pid, &st, 0);
			check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "w%d: exec: status %d", a->w, st);
			break;
		}
		default:
			verify(a, f);
		}
	}
	for (int f = 0; f < NFILES; f++)
		verify(a, f);
	return 0;
}

/* The host churns its own names and reads every raw name meanwhile. */
static void host_worker(struct warg *a)
{
	static char lb[65536];
	char val[256];
	ssize_t n;

	while (now() < a->until) {
		const char *path = a->files[rnd() % NFILES];
		char name[64];

		snprintf(name, sizeof(name), "user.host.%d", (int)(rnd() % NNAMES));
		if (rnd() % 2)
			sx(path, name, "h", 1, 0);
		else
			rx(path, name);
		n = list_retry(path, lb, sizeof(lb));
		check(n >= 0, "host: list: %s", strerror(errno));
		for (ssize_t o = 0; n > 0 && o < n; o += strlen(lb + o) + 1) {
			ssize_t len;
			int e = gx(path, lb + o, val, sizeof(val), &len);

			/* a name may be removed between list and read, nothing else */
			check(e == 0 || e == ENODATA, "host: read %s: %s", lb + o, strerror(e));
		}
	}
}

static void run_fs(const char *label, const char *dir)
{
	struct warg a[MAXW + 1];
	pid_t pids[MAXW];
	char cmd[600];
	double until;
	int st;

	mkdir(dir, 0755);
	cap_v2(hostcap, 0);
	memset(models, 0, sizeof(*models) * MAXW);
	for (int f = 0; f < NFILES; f++) {
		char path[400];

		snprintf(path, sizeof(path), "%s/f%d", dir, f);
		snprintf(cmd, sizeof(cmd), "cp /bin/busybox %s", path);
		if (system(cmd)) { }
		if (chown(path, 100000, 100000)) { }
		chmod(path, 0777);
		sx(path, CAPS, hostcap, 20, 0);
		sx(path, "security.selinux", "host_t", 7, 0);
		for (int w = 0; w <= workers; w++)
			strcpy(a[w].files[f], path);
	}
	until = now() + secs / 2.0;
	phase_begin();
	for (int w = 0; w < workers; w++) {
		a[w].w = w;
		a[w].until = until;
		pids[w] = fork();
		if (pids[w] == 0) {
			char map[64];

			/* root is its own key; the files' owner is uid 1 inside */
			snprintf(map, sizeof(map), "0 %d 1\n1 100000 1", 200000 + 1000 * w);
			_exit(in_userns(map, 0, worker, &a[w]));
		}
	}
	a[workers].until = until;
	host_worker(&a[workers]);
	for (int w = 0; w < workers; w++) {
		waitpid(pids[w], &st, 0);
		check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "worker %d: status %d", w, st);
	}
	/* the host's view: plain values untouched, each namespace's key as modelled */
	for (int f = 0; f < NFILES; f++) {
		unsigned char rd[64];
		ssize_t len;
		int e = gx(a[0].files[f], CAPS, rd, sizeof(rd), &len);

		if (e || len != 20 || memcmp(rd, hostcap, 20))
			lost("host " CAPS, -1, f);
		if (!feat)
			continue;
		for (int w = 0; w < workers; w++) {
			char raw[64];

			snprintf(raw, sizeof(raw), CAPS "@uid=%d", 200000 + 1000 * w);
			e = gx(a[0].files[f], raw, rd, sizeof(rd), &len);
			if (models[w].caps[f] && e)
				lost(raw, w, f);
			if (!models[w].caps[f] && e != ENODATA)
				stale(raw, w, f);
		}
	}
	phase_end(NULL, "%s: %d namespaces + host for %ds: set/remove/list/exec, then verify",
		  label, workers, secs / 2);
}

int main(int argc, char **argv)
{
	char base[300], dir[400], img[400];
	int opt;

	while ((opt = getopt(argc, argv, "t:w:")) != -1) {
		if (opt == 't')
			secs = atoi(optarg);
		else if (opt == 'w')
			workers = atoi(optarg) > MAXW ? MAXW : atoi(optarg);
	}
	shared_init();
	models = mmap(NULL, sizeof(*models) * MAXW, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	feat = feature();
	printf("# stress: feature %s\n", feat ? "present (patched kernel)" : "absent (stock kernel)");
	snprintf(base, sizeof(base), "%s/st", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	mkdir(base, 0755);
	tap(mount("tmpfs", base, "tmpfs", 0, "mode=0755") == 0, NULL, "mount tmpfs");
	snprintf(dir, sizeof(dir), "%s/d", base);
	run_fs("tmpfs", dir);
	snprintf(img, sizeof(img), "%s/ext4.img", base);
	snprintf(dir, sizeof(dir), "%s/ext4", base);
	tap(mount_ext4(img, dir, 32) == 0, NULL, "mkfs.ext4 + loop + mount");
	strcat(dir, "/d");
	run_fs("ext4", dir);
	if (!feat)
		tap(true, "SKIP feature absent: per-namespace values are one shared value on stock",
		    "per-namespace security.capability/security.selinux under stress");
	else
		tap(true, NULL, "per-namespace security.capability/security.selinux under stress (checked above)");
	tap(S->lost == 0 && S->stale == 0, NULL, "no lost or stale values (lost %ld, stale %ld)",
	    S->lost, S->stale);
	printf("# ops=%ld lost=%ld stale=%ld\n", S->ops, S->lost, S->stale);
	printf("1..%ld\n", S->tests);
	return S->fails ? 1 : 0;
}
