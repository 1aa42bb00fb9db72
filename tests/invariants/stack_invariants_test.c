// SPDX-License-Identifier: GPL-2.0
/*
 * Namespaced security xattrs - the four invariants of stacking, over
 * generated configurations
 *
 * A differential test: each stack is drawn from a seeded generator (the
 * host filesystem, tmpfs or ext4; the lower layer, a directory of it, an
 * idmapped mount of that directory or a tmpfs of NS_HELD; the overlay
 * mounted by host root or, with userxattr, by root of NS_HELD), and so is
 * each of its MAX_FILES files (the security.capability names on the lower
 * file, the operation done through the overlay, by whom, and
 * fs.xattr_user_ns during it).  Every value has its own capability set, so
 * a value read or applied by exec names the level it came from.  Callers:
 * host root and uid 5000, root and uid 1 of NS_HELD, NS_HELD_NESTED, NS_B;
 * root callers also exec the file as a non-root uid.  The reference is what
 * each caller resolves on the layer itself before the operation, never a
 * hard-coded expectation:
 *
 *  view:     through the overlay, each caller reads (errno or value),
 *            lists and execs what it does on the lower layer file;
 *  copy-up:  after the operation each caller resolves through the overlay
 *            to what it resolved on the layer, or to nothing;
 *  killpriv: a write, truncate or chown by the mounter of a file it may
 *            write succeeds and leaves no security.capability name
 *            (well-formed or not) on the upper file;
 *  switch:   with fs.xattr_user_ns=0, every operation of the mounter on a
 *            file it may write succeeds.
 *
 * Execs compare only where both filesystems honour file capabilities for
 * the caller (mnt_may_suid(): callers inside the filesystem's user
 * namespace), as stock decides.
 *
 * Where stock 6.12 itself differs from the layer, the reference is stock:
 *
 *  - view applies to callers at or below the overlay's user namespace.
 *    To host root, host uid 5000 and NS_B a rootless overlay is a
 *    filesystem of NS_HELD: exec through it grants them nothing, and they
 *    read and list its own value (what NS_HELD's root resolves) under
 *    stock's rules for a keyless caller (check_outside());
 *  - exec through an overlay fails with EOVERFLOW where the mounter cannot
 *    convert the value's rootid (exec_overflows());
 *  - a copy-up may fail as stock's does, with EOVERFLOW or, the sysctl at
 *    0, EPERM; then nothing changed (copy_up_fails()).
 *
 * An overlay whose namespace is keyless on the lower layer (host root
 * above NS_HELD's tmpfs, an idmap that maps no root of the overlay's) has
 * that layer's plain values only, as on stock: there the reference of a
 * lower file is its twin, which holds its plain value only, through the
 * overlay (keyless_overlay()).
 *
 * NSCAPS_SEED sets the seed (default: time based), NSCAPS_INV_SECONDS the
 * time budget (default 240 s), NSCAPS_CONFIG=I runs stack I of the seed
 * only: a mismatch line "seed=S config=I.J" replays with NSCAPS_SEED=S
 * NSCAPS_CONFIG=I.
 */

#include "common.h"

#include <stdarg.h>
#include <time.h>

#define DEFAULT_SECONDS 240
#define MAX_FILES 8

/* Capability sets of the values: each names its level. */
#define CAPS_PLAIN2 CAP_BIT(CAP_NET_RAW)
#define CAPS_PLAIN3 CAP_BIT(CAP_NET_ADMIN)
#define CAPS_WILDV CAP_BIT(CAP_KILL)
#define CAPS_KEY1 CAP_BIT(CAP_NET_BIND_SERVICE)
#define CAPS_KEY2 CAP_BIT(CAP_CHOWN)
#define CAPS_FAR CAP_BIT(CAP_SYS_NICE)
#define CAPS_JUNK CAP_BIT(CAP_MKNOD)
#define CAPS_SETCAP CAP_BIT(CAP_SYS_PTRACE)

/*
 * Idmaps of the idmapped lower mount: "foreign" maps the layer's uid 0 to
 * host uid 100000, as for a container that NS_HELD is not; "held" swaps
 * uids 0-999 and 1000-1999, so that NS_HELD's root (host 1000) is the
 * layer's root and host root is the layer's uid 1000.
 */
static const char *const idmaps[] = {
	"0 100000 65536\n",
	"0 1000 1000\n1000 0 1000\n2000 2000 63536\n",
};

static const char *const idmap_names[] = { "foreign", "held" };

enum { IDMAP_FOREIGN, IDMAP_HELD };

/* NS_HELD's map is NS_A's, "0 1000 65536"; NS_B's is "0 2000 65536". */
#define HELD_ROOT 1000
#define B_ROOT 2000
#define MAP_RANGE 65536

enum lower_kind {
	LOWER_HOST,	/* a directory of the host filesystem */
	LOWER_IDMAP,	/* an idmapped mount of that directory */
	LOWER_NSTMPFS,	/* a tmpfs that root of NS_HELD mounted */
};

static const char *const lower_names[] = { "host-dir", "idmapped",
					   "ns-tmpfs" };

/* Who resolves: root callers also exec the file as a non-root uid. */
enum caller {
	C_HOST,
	C_HOST_USER,
	C_HELD,
	C_HELD_USER,
	C_NESTED,
	C_B,
	NR_CALLERS,
};

static const char *const caller_names[] = {
	"host-root", "host-uid5000", "held-root", "held-uid1", "held-nested",
	"ns-b",
};

/* What a caller runs as, and whether it is root of its namespace. */
static const bool caller_is_root[] = { true, false, true, false, true, true };

/* Callers that may start an operation other than the mounter. */
static const enum caller op_callers[] = { C_HOST, C_HELD, C_NESTED, C_B };

/* The values a lower file may carry. */
enum value_slot {
	VAL_PLAIN,	/* plain, v2 or v3 */
	VAL_WILD,	/* the wildcard */
	VAL_KEY1,	/* NS_HELD's key (its child's on NS_HELD's tmpfs) */
	VAL_KEY2,	/* NS_B's key */
	VAL_FAR,	/* a key no namespace here has */
	VAL_JUNK,	/* a name that does not parse */
	NR_VALS,
};

static const char *const junk_names[] = { CAPS "@junk", CAPS "@uid=01" };

enum op_kind {
	OP_VIEW,	/* read, list, exec only */
	OP_CHMOD,
	OP_OPEN_WRITE,
	OP_USER_XATTR,
	OP_SETCAP,	/* setcap, then setcap -r */
	OP_CHOWN,
	OP_TRUNC,
	OP_WRITE,
	NR_OPS,
};

static const char *const op_names[] = {
	"view", "chmod", "open-for-write", "user-setxattr", "setcap+setcap-r",
	"chown", "truncate", "write",
};

static bool op_kills_priv(enum op_kind op)
{
	return op == OP_CHOWN || op == OP_TRUNC || op == OP_WRITE;
}

struct file_config {
	/* The values, in the order they are written (listing order). */
	int nr_values;
	enum value_slot order[NR_VALS];
	unsigned int values;	/* bits of enum value_slot */
	/* The file lives on the upper layer already, not on the lower. */
	bool on_upper;
	int plain_rev;
	uint32_t plain_rootid;
	int junk;
	enum op_kind op;
	enum caller by;
	/* fs.xattr_user_ns during the operation. */
	bool sysctl;
};

struct stack_config {
	unsigned int index;
	enum fs_type fs;
	enum lower_kind lower;
	int idmap;
	bool rootless;
	int nr_files;
	struct file_config file[MAX_FILES];
};

/* Paths of one stack. */
struct stack {
	char top[64];
	char mnt[96];
	char image[96];
	char lower[128];
	char upper[128];
	char work[128];
	char idlower[96];
	char nsfs[96];
	char nslower[128];
	char merged[96];
	/* The directory the overlay takes as its lower layer. */
	const char *layer;
	/* Whether callers run in NS_HELD's mount namespace. */
	bool in_held_mntns;
};

/* One caller's resolution of one file. */
struct probe {
	bool reached;
	int read_err;
	struct cap_value val;
	bool exec;
	int exec_err;
	uint64_t exec_prm;
	uint64_t exec_eff;
	int list_err;
	char names[256];
	/* access(W_OK): whether the caller may write the file. */
	int write_err;
};

/* What a caller's child probes, in memory shared with it. */
struct probe_set {
	int nr_files;
	uid_t exec_uid;
	bool exec;
	char path[MAX_FILES][160];
	struct probe res[MAX_FILES];
};

struct run_stats {
	unsigned long long seed;
	unsigned int stacks;
	unsigned int configurations;
	unsigned int skipped;
	unsigned int mismatches;
	unsigned int by_invariant[4];
	/* The stack and file of the last mismatch header printed. */
	int shown_stack;
	int shown_file;
	/* Mismatches by invariant, caller and aspect, for the summary. */
	int nr_classes;
	struct {
		char key[128];
		unsigned int count;
		unsigned int stack;
		int file;
	} classes[64];
};

enum invariant { INV_VIEW, INV_COPY_UP, INV_KILLPRIV, INV_SWITCH };

static const char *const inv_names[] = { "view", "copy-up", "killpriv",
					 "switch" };

/* splitmix64: small, seedable, the same everywhere. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int pick(uint64_t *state, unsigned int n)
{
	return next_random(state) % n;
}

/*
 * Operations by weight: every operation through the overlay, those that
 * drop privileges twice as often (they check two invariants).
 */
static const enum op_kind op_weights[] = {
	OP_VIEW, OP_CHMOD, OP_CHMOD, OP_OPEN_WRITE, OP_USER_XATTR, OP_SETCAP,
	OP_CHOWN, OP_CHOWN, OP_TRUNC, OP_TRUNC, OP_WRITE, OP_WRITE,
};

/*
 * How many values a file has: small sets more often, single values most
 * (the fewer names, the fewer paths that copy the file up first).
 */
static const int nr_values_weights[] = { 0, 1, 1, 1, 1, 1, 2, 2, 2, 3, 4, 6 };

static void generate_file(uint64_t *state, const struct stack_config *c,
			  struct file_config *f)
{
	int i, j, t;

	/* A random permutation of the slots; the first nr_values are set. */
	for (i = 0; i < NR_VALS; i++)
		f->order[i] = i;
	for (i = NR_VALS - 1; i > 0; i--) {
		j = pick(state, i + 1);
		t = f->order[i];
		f->order[i] = f->order[j];
		f->order[j] = t;
	}
	f->nr_values = nr_values_weights[pick(state,
					      ARRAY_SIZE(nr_values_weights))];
	for (i = 0; i < f->nr_values; i++)
		f->values |= 1U << f->order[i];
	f->plain_rev = pick(state, 3) ? 2 : 3;
	f->plain_rootid = pick(state, 3);
	f->junk = pick(state, ARRAY_SIZE(junk_names));
	f->on_upper = pick(state, 5) < 2;
	f->op = op_weights[pick(state, ARRAY_SIZE(op_weights))];
	f->sysctl = pick(state, 2);
	f->by = c->rootless ? C_HELD : C_HOST;
	if (!op_kills_priv(f->op) && pick(state, 2))
		f->by = op_callers[pick(state, ARRAY_SIZE(op_callers))];
}

/* Stack @index of @seed, independent of the stacks before it. */
static void generate(unsigned long long seed, unsigned int index,
		     struct stack_config *c)
{
	uint64_t state = seed ^ ((index + 1) * 0xd1342543de82ef95ULL);
	unsigned int roll;
	int i;

	next_random(&state);
	memset(c, 0, sizeof(*c));
	c->index = index;
	c->fs = pick(&state, 2) ? FS_EXT4 : FS_TMPFS;
	roll = pick(&state, 4);
	c->lower = roll < 2 ? LOWER_HOST :
		   roll == 2 ? LOWER_IDMAP : LOWER_NSTMPFS;
	c->idmap = pick(&state, ARRAY_SIZE(idmaps));
	c->rootless = pick(&state, 2);
	c->nr_files = MAX_FILES;
	for (i = 0; i < c->nr_files; i++)
		generate_file(&state, c, &c->file[i]);
}

static enum caller mounter(const struct stack_config *c)
{
	return c->rootless ? C_HELD : C_HOST;
}

/*
 * Whether the overlay's namespace is keyless on the lower layer: host
 * root above NS_HELD's tmpfs, or through an idmap where its root has no
 * key (host root has none but 0, and "foreign" maps neither host root nor
 * NS_HELD's).  The overlay then has the layer's plain values only, as on
 * stock, and the reference of a lower file is its twin "fI.plain", which
 * holds the file's plain value only, through the overlay.
 */
static bool keyless_overlay(const struct stack_config *c)
{
	if (c->lower == LOWER_NSTMPFS)
		return !c->rootless;
	return c->lower == LOWER_IDMAP &&
	       (!c->rootless || c->idmap == IDMAP_FOREIGN);
}

/*
 * Whether the values of @f are NS_HELD's raw names (a lower file on its
 * tmpfs) rather than the host's.
 */
static bool on_held_fs(const struct stack_config *c,
		       const struct file_config *f)
{
	return c->lower == LOWER_NSTMPFS && !f->on_upper;
}

/* Raw names and rootids of the slots, on the host fs or NS_HELD's tmpfs. */
static const char *slot_key(const struct stack_config *c,
			    const struct file_config *f, enum value_slot s)
{
	bool ns = on_held_fs(c, f);

	switch (s) {
	case VAL_KEY1:
		return ns ? CAPS_KEY("100") : CAPS_KEY("1000");
	case VAL_KEY2:
		return ns ? CAPS_KEY("1000") : CAPS_KEY("2000");
	case VAL_FAR:
		return ns ? CAPS_KEY("60000") : CAPS_KEY("100000");
	case VAL_WILD:
		return CAPS_WILDCARD;
	case VAL_JUNK:
		return junk_names[f->junk];
	default:
		return CAPS;
	}
}

static uint32_t plain_rootid(const struct stack_config *c,
			     const struct file_config *f)
{
	static const uint32_t host[] = { 1000, 2000, 100000 };
	static const uint32_t ns[] = { 100, 1000, 60000 };

	return (on_held_fs(c, f) ? ns : host)[f->plain_rootid];
}

static void describe_file(const struct stack_config *c,
			  const struct file_config *f, char *buf, size_t size)
{
	size_t n;
	int i;

	n = snprintf(buf, size, "%s values={",
		     f->on_upper ? "upper-file" : "lower-file");
	for (i = 0; i < f->nr_values && n < size; i++) {
		enum value_slot v = f->order[i];

		if (v == VAL_PLAIN && f->plain_rev == 2)
			n += snprintf(buf + n, size - n, "%splain-v2",
				      i ? " " : "");
		else if (v == VAL_PLAIN)
			n += snprintf(buf + n, size - n,
				      "%splain-v3(rootid %u)", i ? " " : "",
				      plain_rootid(c, f));
		else
			n += snprintf(buf + n, size - n, "%s%s", i ? " " : "",
				      slot_key(c, f, v));
	}
	if (n < size)
		snprintf(buf + n, size - n, "} op=%s by=%s sysctl=%d",
			 op_names[f->op], caller_names[f->by], f->sysctl);
}

static void describe_stack(const struct stack_config *c, char *buf,
			   size_t size)
{
	char lower[64];

	if (c->lower == LOWER_IDMAP)
		snprintf(lower, sizeof(lower), "idmapped(%s)",
			 idmap_names[c->idmap]);
	else
		snprintf(lower, sizeof(lower), "%s", lower_names[c->lower]);
	snprintf(buf, size, "fs=%s lower=%s overlay=%s",
		 c->fs == FS_EXT4 ? "ext4" : "tmpfs", lower,
		 c->rootless ? "rootless(NS_HELD,userxattr)" : "rootful(host)");
}

/* Which level a capability set came from. */
static const char *level_of(uint64_t permitted)
{
	switch (permitted) {
	case 0:
		return "none";
	case CAPS_PLAIN2:
		return "plain-v2";
	case CAPS_PLAIN3:
		return "plain-v3";
	case CAPS_WILDV:
		return "wildcard";
	case CAPS_KEY1:
		return "key1";
	case CAPS_KEY2:
		return "key2";
	case CAPS_FAR:
		return "far-key";
	case CAPS_JUNK:
		return "junk-name";
	case CAPS_SETCAP:
		return "setcap";
	default:
		return "?";
	}
}

static const char *err_name(int err)
{
	const char *name;

	if (err == SETUP_FAILED)
		return "SETUP_FAILED";
	name = strerrorname_np(err);
	return name ?: "E?";
}

static void fmt_read(const struct probe *p, char *buf, size_t size)
{
	if (p->read_err)
		snprintf(buf, size, "%s", err_name(p->read_err));
	else
		snprintf(buf, size, "%s(v%d,%llx%s,rootid %u)",
			 level_of(p->val.permitted), p->val.rev,
			 (unsigned long long)p->val.permitted,
			 p->val.effective ? ",e" : "", p->val.rootid);
}

static void fmt_exec(const struct probe *p, char *buf, size_t size)
{
	if (p->exec_err)
		snprintf(buf, size, "%s", err_name(p->exec_err));
	else
		snprintf(buf, size, "%s(%llx/%llx)", level_of(p->exec_prm),
			 (unsigned long long)p->exec_prm,
			 (unsigned long long)p->exec_eff);
}

static bool same_read(const struct probe *a, const struct probe *b)
{
	if (a->read_err || b->read_err)
		return a->read_err == b->read_err;
	return a->val.rev == b->val.rev &&
	       a->val.effective == b->val.effective &&
	       a->val.permitted == b->val.permitted &&
	       a->val.rootid == b->val.rootid;
}

static bool same_exec(const struct probe *a, const struct probe *b)
{
	if (a->exec_err || b->exec_err)
		return a->exec_err == b->exec_err;
	return a->exec_prm == b->exec_prm && a->exec_eff == b->exec_eff;
}

static void count_class(struct run_stats *st, const struct stack_config *c,
			int file, const char *key)
{
	int i;

	for (i = 0; i < st->nr_classes; i++) {
		if (!strcmp(st->classes[i].key, key)) {
			st->classes[i].count++;
			return;
		}
	}
	if (i == ARRAY_SIZE(st->classes))
		return;
	snprintf(st->classes[i].key, sizeof(st->classes[i].key), "%s", key);
	st->classes[i].count = 1;
	st->classes[i].stack = c->index;
	st->classes[i].file = file;
	st->nr_classes++;
}

/*
 * Prints the stack and file once, then one mismatch line; @aspect (what
 * differs) classifies it for the summary.
 */
static void mismatch(struct run_stats *st, const struct stack_config *c,
		     int file, enum invariant inv, enum caller who,
		     const char *aspect, const char *fmt, ...)
{
	char desc[512], key[128];
	va_list ap;

	if (st->shown_stack != (int)c->index || st->shown_file != file) {
		describe_stack(c, desc, sizeof(desc));
		printf("# config seed=%llu config=%u.%d: %s ", st->seed,
		       c->index, file, desc);
		describe_file(c, &c->file[file], desc, sizeof(desc));
		printf("%s\n", desc);
		st->shown_stack = c->index;
		st->shown_file = file;
	}
	printf("# MISMATCH seed=%llu config=%u.%d inv=%s caller=%s: %s",
	       st->seed, c->index, file, inv_names[inv], caller_names[who],
	       aspect);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	snprintf(key, sizeof(key), "inv=%s caller=%s %s", inv_names[inv],
		 caller_names[who], aspect);
	count_class(st, c, file, key);
	st->mismatches++;
	st->by_invariant[inv]++;
}

/* Running as a caller. */
struct call {
	enum caller who;
	int (*fn)(void *arg);
	void *arg;
};

static int call_fn(void *arg)
{
	const struct call *call = arg;
	uid_t uid;

	if (call->who == C_HOST_USER || call->who == C_HELD_USER) {
		uid = call->who == C_HOST_USER ? HOST_EXEC_UID : NS_EXEC_UID;
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid))
			return SETUP_FAILED;
	}
	return call->fn(call->arg);
}

/*
 * Runs @fn as @who: NS_HELD's callers in its namespaces, the others in
 * NS_HELD's mount namespace when @in_held_mntns, else in the test's.
 */
static int run_as(enum caller who, bool in_held_mntns, int (*fn)(void *),
		  void *arg)
{
	struct call call = { .who = who, .fn = fn, .arg = arg };
	pid_t pid;

	switch (who) {
	case C_HELD:
	case C_HELD_USER:
		return run_in(NS_HELD, call_fn, &call);
	case C_NESTED:
		return run_in(NS_HELD_NESTED, call_fn, &call);
	default:
		break;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return SETUP_FAILED;
	if (pid == 0) {
		if (in_held_mntns && setns(held.mntns, CLONE_NEWNS))
			_exit(SETUP_FAILED);
		_exit(run_in_levels(ns_levels[who == C_B ? NS_B : NS_HOST],
				    call_fn, &call));
	}
	return wait_child(pid);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The security.capability* names of a list, sorted, space separated. */
static void caps_names(const char *list, ssize_t len, char *out, size_t size)
{
	const char *names[64];
	const char *p;
	size_t n = 0, i, o = 0;

	for (p = list; p < list + len && n < ARRAY_SIZE(names);
	     p += strlen(p) + 1) {
		if (!strncmp(p, CAPS, strlen(CAPS)))
			names[n++] = p;
	}
	qsort(names, n, sizeof(names[0]), name_cmp);
	out[0] = '\0';
	for (i = 0; i < n && o < size; i++)
		o += snprintf(out + o, size - o, "%s%s", i ? " " : "",
			      names[i]);
}

/*
 * Execs @path as @uid with no capabilities and reads its sets; unlike
 * exec_helper(), returns the errno of a failed execve().
 */
static int exec_caps(const char *path, uid_t uid, uint64_t *prm,
		     uint64_t *eff)
{
	unsigned long long p, e;
	int out[2], err;
	char buf[128];
	ssize_t len;
	pid_t pid;

	if (pipe2(out, O_CLOEXEC))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		char *const argv[] = { (char *)path, NULL };
		char *const envp[] = { NULL };

		if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid) ||
		    dup2(out[1], STDOUT_FILENO) < 0)
			_exit(SETUP_FAILED);
		execve(path, argv, envp);
		_exit(errno < SETUP_FAILED ? errno : SETUP_FAILED);
	}
	close(out[1]);
	len = read(out[0], buf, sizeof(buf) - 1);
	close(out[0]);
	err = wait_child(pid);
	if (err)
		return err;
	if (len > 0)
		buf[len] = '\0';
	if (len <= 0 || sscanf(buf, "%llx %llx", &p, &e) != 2)
		return len <= 0 ? EIO : EBADMSG;
	*prm = p;
	*eff = e;
	return 0;
}

static int probe_fn(void *arg)
{
	struct probe_set *set = arg;
	char buf[4096];
	ssize_t len;
	int i;

	for (i = 0; i < set->nr_files; i++) {
		struct probe *p = &set->res[i];

		p->reached = true;
		p->write_err = access(set->path[i], W_OK) ? errno : 0;
		len = getxattr(set->path[i], CAPS, buf, 64);
		p->read_err = len < 0 ? errno :
			      cap_decode(buf, len, &p->val);
		len = listxattr(set->path[i], buf, sizeof(buf));
		p->list_err = len < 0 ? errno : 0;
		if (len >= 0)
			caps_names(buf, len, p->names, sizeof(p->names));
		p->exec = set->exec;
		if (!set->exec)
			continue;
		p->exec_err = exec_caps(set->path[i], set->exec_uid,
					&p->exec_prm, &p->exec_eff);
	}
	return 0;
}

/*
 * Every caller's resolution of the files of @c: on their layer (the lower
 * layer or, for a file there already, the upper one), through the
 * overlay, or the lower files' twins through the overlay.
 */
enum snap_kind {
	SNAP_OVERLAY,	/* the files through the overlay */
	SNAP_LAYER,	/* on their layer */
	SNAP_TWIN,	/* the lower files' twins through the overlay */
};

static void snapshot(const struct stack *s, const struct stack_config *c,
		     enum snap_kind kind,
		     struct probe res[NR_CALLERS][MAX_FILES])
{
	bool on_layer = kind == SNAP_LAYER;
	struct probe_set *set;
	const char *dir;
	int w, i, err;

	memset(res, 0, sizeof(struct probe) * NR_CALLERS * MAX_FILES);
	set = mmap(NULL, sizeof(*set), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (set == MAP_FAILED)
		return;
	for (w = 0; w < NR_CALLERS; w++) {
		memset(set, 0, sizeof(*set));
		set->nr_files = c->nr_files;
		set->exec = caller_is_root[w];
		set->exec_uid = w == C_HOST ? HOST_EXEC_UID : NS_EXEC_UID;
		for (i = 0; i < c->nr_files; i++) {
			dir = !on_layer ? s->merged :
			      c->file[i].on_upper ? s->upper : s->layer;
			snprintf(set->path[i], sizeof(set->path[i]),
				 "%s/f%d%s", dir, i,
				 kind == SNAP_TWIN && !c->file[i].on_upper ?
				 ".plain" : "");
		}
		err = run_as(w, s->in_held_mntns, probe_fn, set);
		if (err) {
			printf("# %s could not probe the %s: %s\n",
			       caller_names[w], on_layer ? "layers" : "overlay",
			       err_name(err));
			continue;
		}
		memcpy(res[w], set->res, sizeof(set->res));
	}
	munmap(set, sizeof(*set));
}

/* Writes one value, as host root or as root of NS_HELD. */
struct xattr_write {
	const char *path;
	const char *name;
	struct vfs_ns_cap_data cap;
	size_t size;
};

static int setxattr_fn(void *arg)
{
	const struct xattr_write *w = arg;

	return setxattr(w->path, w->name, &w->cap, w->size, 0) ? errno : 0;
}

static int write_value(bool as_held, const char *path, const char *name,
		       int rev, uint64_t permitted, uint32_t rootid)
{
	struct xattr_write w = { .path = path, .name = name };

	w.size = cap_encode(&w.cap, rev, permitted, rootid);
	if (as_held)
		return run_in(NS_HELD, setxattr_fn, &w);
	return setxattr_fn(&w);
}

/*
 * Puts the values of @f on @path, in their order; the name that does not
 * parse raw, with the sysctl off.
 */
static int write_values(const struct stack_config *c,
			const struct file_config *f, const char *path,
			const char **what)
{
	static const uint64_t caps[] = {
		[VAL_WILD] = CAPS_WILDV, [VAL_KEY1] = CAPS_KEY1,
		[VAL_KEY2] = CAPS_KEY2,	 [VAL_FAR] = CAPS_FAR,
		[VAL_JUNK] = CAPS_JUNK,
	};
	bool held_fs = on_held_fs(c, f);
	int i, err = 0;

	for (i = 0; !err && i < f->nr_values; i++) {
		enum value_slot v = f->order[i];
		const char *name = slot_key(c, f, v);

		*what = name;
		switch (v) {
		case VAL_PLAIN:
			if (f->plain_rev == 2)
				err = write_value(held_fs, path, name, 2,
						  CAPS_PLAIN2, 0);
			else
				err = write_value(held_fs, path, name, 3,
						  CAPS_PLAIN3,
						  plain_rootid(c, f));
			break;
		case VAL_WILD:
			err = write_value(held_fs, path, name, 2, caps[v], 0);
			break;
		case VAL_JUNK:
			err = set_nscaps_sysctl(false);
			if (!err)
				err = write_value(held_fs, path, name, 2,
						  caps[v], 0);
			if (set_nscaps_sysctl(true) && !err)
				err = EIO;
			break;
		default:
			err = write_value(held_fs, path, name, 3, caps[v],
					  strtoul(strchr(name, '=') + 1, NULL,
						  10));
			break;
		}
	}
	if (!err && !held_fs) {
		*what = "user.keep";
		err = setxattr(path, "user.keep", "k", 1, 0) ? errno : 0;
	}
	return err;
}

/* The twin of a lower file (keyless_overlay()): its plain value only. */
static int write_plain_twin(const struct stack_config *c,
			    const struct file_config *f, const char *path,
			    const char **what)
{
	struct file_config twin = *f;
	int i;

	twin.nr_values = 0;
	for (i = 0; i < f->nr_values; i++)
		if (f->order[i] == VAL_PLAIN)
			twin.order[twin.nr_values++] = VAL_PLAIN;
	return write_values(c, &twin, path, what);
}

/* Creates the files of a layer, owned by FILE_OWNER in its uids. */
struct lower_files {
	const char *dir;
	const struct stack_config *c;
	/* The files that live on the upper layer, or those on the lower. */
	bool upper;
	uid_t owner;
	/* A tmpfs to mount first, whose "lower" directory is dir. */
	const char *tmpfs;
};

static int make_files_fn(void *arg)
{
	const struct lower_files *l = arg;
	char path[PATH_MAX];
	int i, err;

	if (l->tmpfs) {
		if (mount("nscaps-inv", l->tmpfs, "tmpfs", 0,
			  "mode=0755,size=32m") ||
		    mkdir(l->dir, 0755))
			return errno;
	}
	for (i = 0; i < l->c->nr_files; i++) {
		if (l->c->file[i].on_upper != l->upper)
			continue;
		snprintf(path, sizeof(path), "%s/f%d", l->dir, i);
		err = copy_helper(path);
		if (err)
			return err;
		if (chown(path, l->owner, l->owner) || chmod(path, 0755))
			return errno;
		if (l->upper || !keyless_overlay(l->c))
			continue;
		snprintf(path, sizeof(path), "%s/f%d.plain", l->dir, i);
		err = copy_helper(path);
		if (err)
			return err;
		if (chown(path, l->owner, l->owner) || chmod(path, 0755))
			return errno;
	}
	return 0;
}

struct ovl_mount {
	const char *lower;
	const char *upper;
	const char *work;
	const char *target;
	bool userxattr;
};

static int mount_overlay_fn(void *arg)
{
	const struct ovl_mount *m = arg;
	char opts[512];

	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s%s",
		 m->lower, m->upper, m->work, m->userxattr ? ",userxattr" : "");
	return mount("overlay", m->target, "overlay", 0, opts) ? errno : 0;
}

/* Runs @fn as host root in NS_HELD's mount namespace. */
static int in_held_mntns(int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return SETUP_FAILED;
	if (pid == 0) {
		if (setns(held.mntns, CLONE_NEWNS))
			_exit(SETUP_FAILED);
		_exit(fn(arg));
	}
	return wait_child(pid);
}

static void stack_teardown(struct stack *s)
{
	set_nscaps_sysctl(true);
	ns_release();
	umount2(s->merged, MNT_DETACH);
	umount2(s->idlower, MNT_DETACH);
	umount2(s->mnt, MNT_DETACH);
	unlink(s->image);
	rmdir(s->merged);
	rmdir(s->idlower);
	rmdir(s->nsfs);
	rmdir(s->mnt);
	rmdir(s->top);
}

/* Records in @why the setup step that failed with @err; returns @err. */
static int failed(char *why, size_t size, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(why, size, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < size)
		snprintf(why + n, size - n, ": %s", err_name(err));
	return err;
}

static int stack_dirs(struct stack *s)
{
	snprintf(s->top, sizeof(s->top), "/tmp/nscaps-inv.XXXXXX");
	if (!mkdtemp(s->top)) {
		s->top[0] = '\0';
		return errno;
	}
	snprintf(s->mnt, sizeof(s->mnt), "%s/mnt", s->top);
	snprintf(s->image, sizeof(s->image), "%s/ext4.img", s->top);
	snprintf(s->lower, sizeof(s->lower), "%s/lower", s->mnt);
	snprintf(s->upper, sizeof(s->upper), "%s/upper", s->mnt);
	snprintf(s->work, sizeof(s->work), "%s/work", s->mnt);
	snprintf(s->idlower, sizeof(s->idlower), "%s/idlower", s->top);
	snprintf(s->nsfs, sizeof(s->nsfs), "%s/nsfs", s->top);
	snprintf(s->nslower, sizeof(s->nslower), "%s/lower", s->nsfs);
	snprintf(s->merged, sizeof(s->merged), "%s/merged", s->top);
	/* Uids of every namespace must reach the layers. */
	if (chmod(s->top, 0755) || mkdir(s->mnt, 0755) ||
	    mkdir(s->idlower, 0755) || mkdir(s->nsfs, 0755) ||
	    mkdir(s->merged, 0755))
		return errno;
	return 0;
}

/*
 * Creates the files of @c that live on one layer (@upper) in @dir and puts
 * their values on them; with @tmpfs, as root of NS_HELD in @dir of a tmpfs
 * it mounts on @tmpfs.
 */
static int layer_files(const struct stack_config *c, bool upper,
		       const char *dir, const char *tmpfs, char *why,
		       size_t size)
{
	struct lower_files files = { .dir = dir, .c = c, .upper = upper,
				     .owner = FILE_OWNER };
	const char *what = "";
	char path[192];
	int i, err;

	if (tmpfs) {
		files.tmpfs = tmpfs;
		files.owner = FILE_OWNER - 1000;
		err = run_in(NS_HELD, make_files_fn, &files);
	} else {
		err = make_files_fn(&files);
	}
	if (err)
		return failed(why, size, err, "creating the %s files",
			      upper ? "upper" : "lower");
	for (i = 0; i < c->nr_files; i++) {
		if (c->file[i].on_upper != upper)
			continue;
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		err = write_values(c, &c->file[i], path, &what);
		if (err)
			return failed(why, size, err, "%swriting %s on f%d",
				      tmpfs ? "NS_HELD " : "", what, i);
		if (upper || !keyless_overlay(c))
			continue;
		snprintf(path, sizeof(path), "%s/f%d.plain", dir, i);
		err = write_plain_twin(c, &c->file[i], path, &what);
		if (err)
			return failed(why, size, err, "%swriting %s on f%d.plain",
				      tmpfs ? "NS_HELD " : "", what, i);
	}
	return 0;
}

/*
 * Builds the stack of @c; returns 0, or an errno and in @why the step that
 * failed.  Host mounts come before NS_HELD, whose mount namespace copies
 * them: its callers see the host's layers and a rootful overlay there.
 */
static int stack_setup(const struct stack_config *c, struct stack *s,
		       char *why, size_t size)
{
	struct ovl_mount m = { .upper = s->upper, .work = s->work,
			       .target = s->merged, .userxattr = c->rootless };
	bool ns_lower = c->lower == LOWER_NSTMPFS;
	int err;

	err = stack_dirs(s);
	if (err)
		return failed(why, size, err, "directories");
	err = mount_test_fs(c->fs, s->mnt, s->image);
	if (err)
		return failed(why, size, err, "mounting the %s",
			      c->fs == FS_EXT4 ? "ext4 image" : "tmpfs");
	if (mkdir(s->lower, 0755) || mkdir(s->upper, 0755) ||
	    mkdir(s->work, 0755))
		return failed(why, size, errno, "layer directories");

	err = layer_files(c, true, s->upper, NULL, why, size);
	if (err)
		return err;
	s->layer = s->lower;
	if (!ns_lower) {
		err = layer_files(c, false, s->lower, NULL, why, size);
		if (err)
			return err;
	}
	if (c->lower == LOWER_IDMAP) {
		err = idmapped_mount(s->lower, s->idlower, idmaps[c->idmap]);
		if (err)
			return failed(why, size, err, "idmapped mount (%s)",
				      idmap_names[c->idmap]);
		s->layer = s->idlower;
	}
	m.lower = s->layer;
	if (!c->rootless && !ns_lower) {
		err = mount_overlay_fn(&m);
		if (err)
			return failed(why, size, err, "rootful overlay");
	}

	err = ns_hold();
	if (err)
		return failed(why, size, err, "holding NS_HELD");
	if (ns_lower) {
		err = layer_files(c, false, s->nslower, s->nsfs, why, size);
		if (err)
			return err;
		s->layer = s->nslower;
		m.lower = s->layer;
	}
	if (c->rootless) {
		if (chown(s->upper, 1000, 1000) || chown(s->work, 1000, 1000))
			return failed(why, size, errno, "upper owner");
		err = run_in(NS_HELD, mount_overlay_fn, &m);
		if (err)
			return failed(why, size, err,
				      "NS_HELD mounting the overlay");
	} else if (ns_lower) {
		err = in_held_mntns(mount_overlay_fn, &m);
		if (err)
			return failed(why, size, err,
				      "rootful overlay in NS_HELD's mounts");
	}
	s->in_held_mntns = c->rootless || ns_lower;
	return 0;
}

/* The operations, run as their caller on the overlay's file. */
static int chmod_op(void *arg)
{
	return chmod(arg, 0755) ? errno : 0;
}

static int open_write_op(void *arg)
{
	int fd = open(arg, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	return close(fd) ? errno : 0;
}

static int user_xattr_op(void *arg)
{
	return setxattr(arg, "user.inv", "1", 1, 0) ? errno : 0;
}

static int setcap_op(void *arg)
{
	struct vfs_ns_cap_data cap;
	size_t size = cap_encode(&cap, 2, CAPS_SETCAP, 0);

	if (setxattr(arg, CAPS, &cap, size, 0))
		return errno;
	return removexattr(arg, CAPS) ? errno : 0;
}

static int chown_op(void *arg)
{
	return chown(arg, 0, 0) ? errno : 0;
}

static int truncate_op(void *arg)
{
	struct stat st;

	if (stat(arg, &st) || truncate(arg, st.st_size))
		return errno;
	return 0;
}

static int write_op(void *arg)
{
	int fd, err = 0;
	char byte;

	fd = open(arg, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (pread(fd, &byte, 1, 0) != 1 || pwrite(fd, &byte, 1, 0) != 1)
		err = errno ?: EIO;
	if (close(fd) && !err)
		err = errno;
	return err;
}

static int (*const op_fns[])(void *) = {
	[OP_CHMOD] = chmod_op,	   [OP_OPEN_WRITE] = open_write_op,
	[OP_USER_XATTR] = user_xattr_op, [OP_SETCAP] = setcap_op,
	[OP_CHOWN] = chown_op,	   [OP_TRUNC] = truncate_op,
	[OP_WRITE] = write_op,
};

/*
 * Whether setcap -r by @opc may have removed the level @c resolved to: @c
 * is @opc or below it, or, on a rootless overlay, NS_HELD's own level,
 * which is the overlay's plain name, whoever writes it.
 */
static bool setcap_exempt(const struct stack_config *c, enum caller w,
			  enum caller opc)
{
	bool held = w == C_HELD || w == C_HELD_USER || w == C_NESTED;

	if (c->rootless && (held || opc == C_HOST))
		return w != C_B || opc == C_B;
	switch (opc) {
	case C_HELD:
	case C_HELD_USER:
		return held;
	case C_NESTED:
	case C_B:
		return w == opc;
	default:
		return false;
	}
}

/*
 * Exec honours file capabilities only for callers inside the user namespace
 * of the file's filesystem (mnt_may_suid(), as on stock): execs compare
 * where the layer and the overlay both honour them for @w.
 */
static bool exec_comparable(const struct stack_config *c, enum caller w)
{
	if (w == C_HELD || w == C_HELD_USER || w == C_NESTED)
		return true;
	return !c->rootless && c->lower != LOWER_NSTMPFS;
}

/*
 * Whether @w is outside the user namespace of a rootless overlay (host
 * root and uid 5000, NS_B): to it the overlay is a filesystem of NS_HELD,
 * as on stock, and invariant 1 does not apply (check_outside()).
 */
static bool outside_overlay(const struct stack_config *c, enum caller w)
{
	return c->rootless && (w == C_HOST || w == C_HOST_USER || w == C_B);
}

/*
 * Exec through an overlay reads the value as the mounter does
 * (ovl_xattr_get() -> vfs_getxattr() -> cap_inode_getsecurity()), and
 * get_file_caps() fails the exec on any error but ENODATA: a rootid the
 * overlay's namespace cannot map is EOVERFLOW there, where exec on the
 * layer reads the value raw and only ignores it.  Stock 6.12 does the
 * same; the caller's read through the overlay says EOVERFLOW too.
 */
static bool exec_overflows(const struct probe *ref, const struct probe *ovl)
{
	return ovl->exec_err == EOVERFLOW && ovl->read_err == EOVERFLOW &&
	       !ref->exec_err && !ref->exec_prm && !ref->exec_eff;
}

/* Host uid @kuid in the namespace of @w (outside NS_HELD), or -1. */
static int64_t outside_uid(enum caller w, uint64_t kuid)
{
	if (w == C_B)
		return kuid >= B_ROOT && kuid - B_ROOT < MAP_RANGE ?
		       (int64_t)(kuid - B_ROOT) : -1;
	return kuid;
}

/*
 * What stock 6.12's cap_inode_getsecurity() returns to @w outside NS_HELD
 * for a filesystem of NS_HELD whose value is @held, as NS_HELD's root
 * reads it (v2: its root's; v3: a rootid in its uids): the rootid as a
 * host uid, then as a uid of @w's namespace: v3 if that is not 0, v2 if it
 * is the root of @w's namespace (rootid_owns_currentns()), else EOVERFLOW.
 */
static void stock_outside_read(enum caller w, const struct probe *held,
			       struct probe *exp)
{
	int64_t root;

	exp->read_err = held->read_err;
	exp->val = held->val;
	if (held->read_err)
		return;
	root = outside_uid(w, HELD_ROOT +
			      (held->val.rev == 3 ? held->val.rootid : 0));
	if (root > 0) {
		exp->val.rev = 3;
		exp->val.rootid = root;
	} else if (root == 0) {
		exp->val.rev = 2;
		exp->val.rootid = 0;
	} else {
		exp->read_err = EOVERFLOW;
	}
}

/*
 * The list @w outside NS_HELD gets (xattr_user_ns_list() for a keyless
 * caller) from the overlay's raw names, which NS_HELD's root lists: the
 * plain name as it is, a key K of NS_HELD as the uid of @w for it (hidden
 * if it has none, or it is @w's root); malformed names are hidden, and so
 * is the wildcard, which serves no namespace outside the filesystem's
 * (xattr_user_ns_wildcard_serves()).
 */
static void outside_list(enum caller w, const char *held, char *out,
			 size_t size)
{
	char names[256], *name, *save, *end;
	const char *list[32];
	char keys[32][48];
	size_t n = 0, i, o = 0;
	unsigned long k;
	int64_t uid;

	snprintf(names, sizeof(names), "%s", held);
	for (name = strtok_r(names, " ", &save); name && n < ARRAY_SIZE(list);
	     name = strtok_r(NULL, " ", &save)) {
		if (!strcmp(name, CAPS)) {
			list[n++] = name;
			continue;
		}
		if (strncmp(name, CAPS_KEY(""), strlen(CAPS_KEY(""))))
			continue;
		name += strlen(CAPS_KEY(""));
		if (*name < '1' || *name > '9')
			continue;
		k = strtoul(name, &end, 10);
		if (*end || k >= MAP_RANGE)
			continue;
		uid = outside_uid(w, HELD_ROOT + k);
		if (uid <= 0)
			continue;
		snprintf(keys[n], sizeof(keys[n]), CAPS_KEY("%lld"),
			 (long long)uid);
		list[n] = keys[n];
		n++;
	}
	qsort(list, n, sizeof(list[0]), name_cmp);
	out[0] = '\0';
	for (i = 0; i < n && o < size; i++)
		o += snprintf(out + o, size - o, "%s%s", i ? " " : "",
			      list[i]);
}

/* A host uid of the lower layer's file system uid @uid, or -1. */
static int64_t layer_uid(const struct stack_config *c, uint32_t uid)
{
	if (uid >= MAP_RANGE)
		return c->lower == LOWER_HOST ? (int64_t)uid : -1;
	switch (c->lower) {
	case LOWER_NSTMPFS:
		return HELD_ROOT + uid;
	case LOWER_IDMAP:
		if (c->idmap == IDMAP_FOREIGN)
			return 100000 + uid;
		if (uid < 2000)
			return uid < 1000 ? uid + 1000 : uid - 1000;
		return uid;
	default:
		return uid;
	}
}

/*
 * Whether @w lists raw names on the lower layer and on a rootless overlay
 * whose namespace is that layer's root through the "held" idmap: NS_HELD's
 * root and uid 1.  The overlay's raw keys are uids of NS_HELD, the layer's are
 * its file system uids (held_rekeyed_list()).
 */
static bool rekeyed_list(const struct stack_config *c, enum caller w)
{
	return c->rootless && c->lower == LOWER_IDMAP &&
	       c->idmap == IDMAP_HELD && (w == C_HELD || w == C_HELD_USER);
}

/*
 * The raw list of the overlay (rekeyed_list()) from the layer's raw list
 * @layer: the plain name and the wildcard as they are, a key K as
 * "@uid=N" with N NS_HELD's uid for the layer's uid K through the idmap
 * (hidden if it has none, or is 0: the layer's root), malformed names
 * hidden (xattr_user_ns_list() with NS_HELD as the caller).
 */
static void held_rekeyed_list(const struct stack_config *c, const char *layer,
			      char *out, size_t size)
{
	char names[256], *name, *save, *end;
	const char *list[32];
	char keys[32][48];
	size_t n = 0, i, o = 0;
	unsigned long k;
	int64_t uid;

	snprintf(names, sizeof(names), "%s", layer);
	for (name = strtok_r(names, " ", &save); name && n < ARRAY_SIZE(list);
	     name = strtok_r(NULL, " ", &save)) {
		if (!strcmp(name, CAPS) || !strcmp(name, CAPS_WILDCARD)) {
			list[n++] = name;
			continue;
		}
		if (strncmp(name, CAPS_KEY(""), strlen(CAPS_KEY(""))))
			continue;
		name += strlen(CAPS_KEY(""));
		if (*name < '1' || *name > '9')
			continue;
		k = strtoul(name, &end, 10);
		if (*end)
			continue;
		uid = layer_uid(c, k) - HELD_ROOT;
		if (layer_uid(c, k) < 0 || uid <= 0 || uid >= MAP_RANGE)
			continue;
		snprintf(keys[n], sizeof(keys[n]), CAPS_KEY("%lld"),
			 (long long)uid);
		list[n] = keys[n];
		n++;
	}
	qsort(list, n, sizeof(list[0]), name_cmp);
	out[0] = '\0';
	for (i = 0; i < n && o < size; i++)
		o += snprintf(out + o, size - o, "%s%s", i ? " " : "",
			      list[i]);
}

/*
 * Callers outside a rootless overlay's namespace see it as stock shows
 * them a filesystem of NS_HELD (@held: what NS_HELD's root resolves and
 * lists through it).  Exec grants them no file capabilities: stock's
 * get_file_caps() requires current_in_userns(sb->s_user_ns), and
 * mnt_may_suid() the same.  That one is the security check.
 */
static void check_outside(struct run_stats *st, const struct stack_config *c,
			  int i, enum invariant inv, enum caller who,
			  const struct probe *held, const struct probe *ovl)
{
	char a[128], b[128], names[256];
	struct probe exp = { 0 };

	if (ovl->exec && (ovl->exec_err || ovl->exec_prm || ovl->exec_eff)) {
		fmt_exec(ovl, b, sizeof(b));
		mismatch(st, c, i, inv, who, "outside exec",
			 ": %s, not none", b);
	}
	if (!held->reached)
		return;
	stock_outside_read(who, held, &exp);
	if (!same_read(&exp, ovl)) {
		fmt_read(held, a, sizeof(a));
		fmt_read(&exp, names, sizeof(names));
		fmt_read(ovl, b, sizeof(b));
		mismatch(st, c, i, inv, who, "outside read",
			 " %s: held-root=%s stock=%s overlay=%s", CAPS, a,
			 names, b);
	}
	if (held->list_err || ovl->list_err) {
		if (held->list_err != ovl->list_err)
			mismatch(st, c, i, inv, who, "outside list",
				 ": held-root=%s overlay=%s",
				 err_name(held->list_err),
				 err_name(ovl->list_err));
		return;
	}
	outside_list(who, held->names, names, sizeof(names));
	if (strcmp(names, ovl->names))
		mismatch(st, c, i, inv, who, "outside list",
			 ": held-root=[%s] stock=[%s] overlay=[%s]",
			 held->names, names, ovl->names);
}

/* Invariant 1: the overlay shows each caller what the layer does. */
static void check_view(struct run_stats *st, const struct stack_config *c,
		       int i, enum caller who, const struct probe *layer,
		       const struct probe *ovl)
{
	const char *expect = layer->names;
	char a[128], b[128], names[256];

	if (!same_read(layer, ovl)) {
		fmt_read(layer, a, sizeof(a));
		fmt_read(ovl, b, sizeof(b));
		mismatch(st, c, i, INV_VIEW, who, "read",
			 " %s: layer=%s overlay=%s", CAPS, a, b);
	}
	if (layer->exec && exec_comparable(c, who) &&
	    !same_exec(layer, ovl) && !exec_overflows(layer, ovl)) {
		fmt_exec(layer, a, sizeof(a));
		fmt_exec(ovl, b, sizeof(b));
		mismatch(st, c, i, INV_VIEW, who, "exec",
			 ": layer=%s overlay=%s", a, b);
	}
	if (rekeyed_list(c, who) && !c->file[i].on_upper) {
		held_rekeyed_list(c, layer->names, names, sizeof(names));
		expect = names;
	}
	if (layer->list_err != ovl->list_err || strcmp(expect, ovl->names))
		mismatch(st, c, i, INV_VIEW, who, "list",
			 ": layer=%s[%s] overlay=%s[%s]",
			 layer->list_err ? err_name(layer->list_err) : "",
			 layer->names,
			 ovl->list_err ? err_name(ovl->list_err) : "",
			 ovl->names);
}

/*
 * Invariant 2: after the operation, the same value or nothing.  A value is
 * known by its capability set (each level has its own); a copy-up may
 * re-encode it (v2 to v3 for the mounter's root, as stock does), which
 * exec then judges.
 */
static void check_copy_up(struct run_stats *st, const struct stack_config *c,
			  int i, enum caller who, const struct probe *before,
			  const struct probe *after)
{
	char a[128], b[128];
	bool same;

	if (before->read_err || after->read_err)
		same = before->read_err == after->read_err;
	else
		same = before->val.permitted == after->val.permitted &&
		       before->val.effective == after->val.effective;
	if (!same && after->read_err != ENODATA) {
		fmt_read(before, a, sizeof(a));
		fmt_read(after, b, sizeof(b));
		mismatch(st, c, i, INV_COPY_UP, who, "read",
			 " %s: before=%s after=%s", CAPS, a, b);
	}
	if (before->exec && exec_comparable(c, who) &&
	    !same_exec(before, after) && !exec_overflows(before, after) &&
	    (after->exec_err || after->exec_prm || after->exec_eff)) {
		fmt_exec(before, a, sizeof(a));
		fmt_exec(after, b, sizeof(b));
		mismatch(st, c, i, INV_COPY_UP, who, "exec",
			 ": before=%s after=%s", a, b);
	}
}

/*
 * The known limit of copy-up (Documentation, "overlayfs"): a rootless
 * overlay whose namespace is the lower layer's root (its own tmpfs, or
 * the layer through the "held" idmap) stores what that namespace
 * resolves on the lower layer, its plain value, under its key on an
 * upper layer it does not own (a host directory, always here); the
 * namespaces below it read that key before the wildcard there.  Where
 * they resolved the lower layer's wildcard before, they resolve the
 * overlay namespace's value after: the upper layer cannot hold both
 * levels of the layer's root.  Never a level above the overlay's.
 */
static bool copy_up_takes_mounter_level(const struct stack_config *c,
					enum caller w,
					const struct probe *before,
					const struct probe *after,
					const struct probe *mounter_before)
{
	bool layer_root = c->lower == LOWER_NSTMPFS ||
			  (c->lower == LOWER_IDMAP && c->idmap == IDMAP_HELD);

	return c->rootless && layer_root && w == C_NESTED && !before->read_err &&
	       before->val.permitted == CAPS_WILDV &&
	       same_read(after, mounter_before);
}

/*
 * Whether the overlay's mounter cannot map host uid @kuid (-1: none): host
 * root maps every uid, NS_HELD's root its range and host root, an
 * ancestor's root (rootid_owns_currentns()).
 */
static bool mounter_cannot_map(const struct stack_config *c, int64_t kuid)
{
	if (kuid < 0)
		return true;
	if (!c->rootless)
		return false;
	return kuid != 0 && (kuid < HELD_ROOT || kuid - HELD_ROOT >= MAP_RANGE);
}

/*
 * Whether the operation on @f may fail with @err because stock 6.12 fails
 * the copy-up it triggers, done as the mounter (host root, or NS_HELD's
 * root for a rootless overlay):
 *
 *  EOVERFLOW: ovl_copy_up_one() refuses an owner the mounter cannot map,
 *             and ovl_copy_xattr() stops on the -EOVERFLOW of
 *             cap_inode_getsecurity() for a plain value whose rootid the
 *             mounter cannot map, the lower mount's idmap applied (no
 *             uid of the "foreign" idmap is NS_HELD's, and host root has
 *             none for a rootid that idmap leaves unmapped);
 *  EPERM:     with fs.xattr_user_ns=0 names are raw, and a key, the
 *             wildcard or a malformed name is an unknown security name on
 *             the upper layer: it needs CAP_SYS_ADMIN in the upper fs's
 *             namespace, which NS_HELD's root lacks, and ovl_copy_xattr()
 *             stops on -EPERM.  Host root may write them.
 */
static bool copy_up_fails(const struct stack_config *c,
			  const struct file_config *f, int err)
{
	uint32_t owner = FILE_OWNER, root;

	if (f->on_upper)
		return false;
	switch (err) {
	case EOVERFLOW:
		if (c->lower == LOWER_NSTMPFS)
			owner -= HELD_ROOT;
		if (mounter_cannot_map(c, layer_uid(c, owner)))
			return true;
		if (!(f->values & (1U << VAL_PLAIN)))
			return false;
		root = f->plain_rev == 3 ? plain_rootid(c, f) : 0;
		return mounter_cannot_map(c, layer_uid(c, root));
	case EPERM:
		return c->rootless && !f->sysctl &&
		       (f->values & ~(1U << VAL_PLAIN));
	default:
		return false;
	}
}

/* A copy-up that failed as stock's does changes nothing. */
static void check_unchanged(struct run_stats *st,
			    const struct stack_config *c, int i,
			    enum caller who, const struct probe *before,
			    const struct probe *after)
{
	char a[128], b[128];

	if (!same_read(before, after)) {
		fmt_read(before, a, sizeof(a));
		fmt_read(after, b, sizeof(b));
		mismatch(st, c, i, INV_COPY_UP, who, "failed copy-up read",
			 " %s: before=%s after=%s", CAPS, a, b);
	}
	if (before->exec && !same_exec(before, after)) {
		fmt_exec(before, a, sizeof(a));
		fmt_exec(after, b, sizeof(b));
		mismatch(st, c, i, INV_COPY_UP, who, "failed copy-up exec",
			 ": before=%s after=%s", a, b);
	}
}

/* Invariant 3: no capability name of any spelling on the upper file. */
static void check_upper_clean(struct run_stats *st,
			      const struct stack_config *c, int i,
			      const struct stack *s)
{
	char path[192], list[4096], names[256];
	ssize_t len;

	snprintf(path, sizeof(path), "%s/f%d", s->upper, i);
	len = listxattr(path, list, sizeof(list));
	if (len < 0) {
		mismatch(st, c, i, INV_KILLPRIV, C_HOST, "upper file",
			 ": listing it: %s", err_name(errno));
		return;
	}
	caps_names(list, len, names, sizeof(names));
	if (names[0])
		mismatch(st, c, i, INV_KILLPRIV, C_HOST, "upper file keeps",
			 " [%s] after %s with sysctl=%d by %s", names,
			 op_names[c->file[i].op], c->file[i].sysctl,
			 caller_names[c->file[i].by]);
}

static void run_stack(struct run_stats *st, const struct stack_config *c)
{
	static struct probe layer[NR_CALLERS][MAX_FILES];
	static struct probe before[NR_CALLERS][MAX_FILES];
	static struct probe after[NR_CALLERS][MAX_FILES];
	static struct probe twin[NR_CALLERS][MAX_FILES];
	int op_err[MAX_FILES] = { 0 };
	struct stack s = { 0 };
	char why[256], desc[256];
	bool mutated = false;
	int i, w, err;

	err = stack_setup(c, &s, why, sizeof(why));
	if (err) {
		describe_stack(c, desc, sizeof(desc));
		printf("# config seed=%llu config=%u skipped (%s): %s\n",
		       st->seed, c->index, desc, why);
		st->skipped += c->nr_files;
		stack_teardown(&s);
		return;
	}

	snapshot(&s, c, SNAP_LAYER, layer);
	snapshot(&s, c, SNAP_OVERLAY, before);
	/* The reference of a lower file under a keyless overlay: its twin. */
	if (keyless_overlay(c)) {
		snapshot(&s, c, SNAP_TWIN, twin);
		for (i = 0; i < c->nr_files; i++)
			for (w = 0; !c->file[i].on_upper && w < NR_CALLERS; w++)
				layer[w][i] = twin[w][i];
	}
	for (i = 0; i < c->nr_files; i++) {
		for (w = 0; w < NR_CALLERS; w++) {
			if (before[w][i].reached && outside_overlay(c, w))
				check_outside(st, c, i, INV_VIEW, w,
					      &before[C_HELD][i],
					      &before[w][i]);
			else if (layer[w][i].reached && before[w][i].reached)
				check_view(st, c, i, w, &layer[w][i],
					   &before[w][i]);
		}
	}

	for (i = 0; i < c->nr_files; i++) {
		const struct file_config *f = &c->file[i];
		char path[192];

		if (f->op == OP_VIEW)
			continue;
		mutated = true;
		snprintf(path, sizeof(path), "%s/f%d", s.merged, i);
		if (set_nscaps_sysctl(f->sysctl))
			printf("# setting fs.xattr_user_ns failed\n");
		op_err[i] = run_as(f->by, s.in_held_mntns, op_fns[f->op],
				   path);
		set_nscaps_sysctl(true);
	}

	if (mutated)
		snapshot(&s, c, SNAP_OVERLAY, after);
	for (i = 0; mutated && i < c->nr_files; i++) {
		const struct file_config *f = &c->file[i];
		bool may_write = f->by == mounter(c) &&
				 !layer[f->by][i].write_err;
		bool as_stock;
		char aspect[64];

		if (f->op == OP_VIEW)
			continue;
		snprintf(aspect, sizeof(aspect), "%s with sysctl=%d failed: %s",
			 op_names[f->op], f->sysctl, err_name(op_err[i]));
		as_stock = op_err[i] && copy_up_fails(c, f, op_err[i]);
		for (w = 0; w < NR_CALLERS; w++) {
			if (!after[w][i].reached)
				continue;
			if (outside_overlay(c, w))
				check_outside(st, c, i, INV_COPY_UP, w,
					      &after[C_HELD][i], &after[w][i]);
			else if (as_stock && before[w][i].reached)
				check_unchanged(st, c, i, w, &before[w][i],
						&after[w][i]);
			else if (as_stock)
				continue;
			else if (f->op == OP_SETCAP &&
				 setcap_exempt(c, w, f->by))
				continue;
			else if (copy_up_takes_mounter_level(c, w,
					&layer[w][i], &after[w][i],
					&before[mounter(c)][i]))
				continue;
			else if (layer[w][i].reached)
				check_copy_up(st, c, i, w, &layer[w][i],
					      &after[w][i]);
		}
		/* Stock fails it too: invariants 3 and 4 do not apply. */
		if (as_stock)
			continue;
		/* Stock lets the mounter do it where it may write the file. */
		if (!may_write) {
			if (op_kills_priv(f->op) && !op_err[i])
				check_upper_clean(st, c, i, &s);
			continue;
		}
		if (op_kills_priv(f->op)) {
			if (op_err[i])
				mismatch(st, c, i, INV_KILLPRIV, f->by, aspect,
					 "");
			else
				check_upper_clean(st, c, i, &s);
		}
		if (!f->sysctl && op_err[i])
			mismatch(st, c, i, INV_SWITCH, f->by, aspect, "");
	}
	st->configurations += c->nr_files;
	stack_teardown(&s);
}

static unsigned long env_ulong(const char *name, unsigned long dflt)
{
	const char *val = getenv(name);
	char *end;
	unsigned long n;

	if (!val || !*val)
		return dflt;
	n = strtoul(val, &end, 0);
	return *end ? dflt : n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

FIXTURE(inv)
{
	int unused;
};

FIXTURE_SETUP(inv)
{
	if (!kernel_has_nscaps())
		SKIP(return, "kernel without namespaced xattrs (no %s)",
		     SYSCTL_XATTR_USER_NS);
	ASSERT_EQ(0, set_nscaps_sysctl(true));
	/* Mounts go away with this process. */
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
}

FIXTURE_TEARDOWN(inv)
{
	set_nscaps_sysctl(true);
}

/*
 * The harness's timeout: the loop stops starting stacks at the budget, and
 * one stack takes far less than this margin.
 */
#define INV_TIMEOUT 3600

TEST_F_TIMEOUT(inv, stacking_invariants, INV_TIMEOUT)
{
	struct run_stats st = { .shown_stack = -1, .shown_file = -1 };
	unsigned int index;
	unsigned long budget, only;
	struct stack_config c;
	double start;

	st.seed = env_ulong("NSCAPS_SEED", (unsigned long)time(NULL) ^
					   ((unsigned long)getpid() << 16));
	budget = env_ulong("NSCAPS_INV_SECONDS", DEFAULT_SECONDS);
	only = env_ulong("NSCAPS_CONFIG", ~0UL);
	printf("# seed=%llu\n", st.seed);
	printf("# budget=%lu s, %d files per stack\n", budget, MAX_FILES);
	fflush(stdout);

	start = now();
	for (index = only == ~0UL ? 0 : only;; index++) {
		if (only == ~0UL && now() - start >= budget)
			break;
		generate(st.seed, index, &c);
		run_stack(&st, &c);
		st.stacks++;
		if (only != ~0UL)
			break;
	}
	printf("# stacks=%u seconds=%.0f\n", st.stacks, now() - start);
	printf("# mismatches by invariant: view=%u copy-up=%u killpriv=%u switch=%u\n",
	       st.by_invariant[INV_VIEW], st.by_invariant[INV_COPY_UP],
	       st.by_invariant[INV_KILLPRIV], st.by_invariant[INV_SWITCH]);
	for (index = 0; index < st.nr_classes; index++)
		printf("# class %-60s %4u first=%llu/%u.%d\n",
		       st.classes[index].key, st.classes[index].count, st.seed,
		       st.classes[index].stack, st.classes[index].file);
	printf("# skipped=%u\n", st.skipped);
	printf("# configurations=%u mismatches=%u seed=%llu\n",
	       st.configurations, st.mismatches, st.seed);
	fflush(stdout);
	if (!st.configurations)
		SKIP(return, "no configuration could be set up");
	EXPECT_EQ(0, st.mismatches);
}

TEST_HARNESS_MAIN
