// SPDX-License-Identifier: GPL-2.0
/* nscap.c - manage namespaced file capabilities (security.capability@uid=K) */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "captext.h"
#include "dumpfmt.h"
#include "fscaps.h"
#include "xname.h"

#ifndef NSCAP_VERSION
#define NSCAP_VERSION "0.1.0"
#endif

#define SYSCTL_PATH "/proc/sys/fs/xattr_user_ns"

/* Exit codes, as documented in nscap(1). */
#define EXIT_OK 0
#define EXIT_FAIL 1  /* a file could not be handled, or verify found a difference */
#define EXIT_USAGE 2 /* bad command line */

static const char *progname = "nscap";
static bool opt_quiet;
static bool hinted;

static void freep(void *p)
{
	free(*(void **)p);
}

static void cap_freep(void *p)
{
	if (*(void **)p)
		cap_free(*(void **)p);
}

#define _cleanup_free_ __attribute__((cleanup(freep)))
#define _cleanup_cap_free_ __attribute__((cleanup(cap_freep)))

/* The kernel has no ENOATTR; getfattr prints ENODATA this way too. */
static const char *xstrerror(int err)
{
	if (err == ENODATA)
		return "No such attribute";
	return strerror(err);
}

static void __attribute__((format(printf, 1, 2))) warnx_(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "nscap: FILE: WHAT: strerror" */
static void file_error(const char *path, const char *what, int err)
{
	if (what)
		fprintf(stderr, "%s: %s: %s: %s\n", progname, path, what, xstrerror(err));
	else
		fprintf(stderr, "%s: %s: %s\n", progname, path, xstrerror(err));
}

/* ---- kernel probe ------------------------------------------------------ */

enum kernel_state { KERNEL_ABSENT, KERNEL_OFF, KERNEL_ON };

static const char *sysctl_path(void)
{
	const char *p = getenv("NSCAP_SYSCTL");

	return p && *p ? p : SYSCTL_PATH;
}

static enum kernel_state kernel_state(void)
{
	FILE *f = fopen(sysctl_path(), "re");
	int v = 0;

	if (!f)
		return KERNEL_ABSENT;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v ? KERNEL_ON : KERNEL_OFF;
}

/* True unless this process's user namespace maps the full uid range 0-to-0. */
static bool in_child_userns(void)
{
	FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long a, b, c;
	bool child = true;

	if (!f)
		return false;
	if (fscanf(f, "%lu %lu %lu", &a, &b, &c) == 3 && a == 0 && b == 0 &&
	    c == 4294967295ul)
		child = false;
	fclose(f);
	return child;
}

/* Errors that a kernel without namespaced xattrs can explain. */
static bool ns_errno(int err)
{
	return err == EPERM || err == EINVAL || err == EOPNOTSUPP ||
	       err == EOVERFLOW || err == ENODATA;
}

static void hint_once(void)
{
	enum kernel_state ks;

	if (opt_quiet || hinted)
		return;
	ks = kernel_state();
	if (ks == KERNEL_ON)
		return;
	hinted = true;
	if (ks == KERNEL_ABSENT)
		fprintf(stderr,
			"Hint: this kernel lacks namespaced xattrs (no %s): a "
			"namespace shares the host's security.capability; raw "
			"@uid administration still works as host root.\n",
			sysctl_path());
	else
		fprintf(stderr,
			"Hint: namespaced xattrs are disabled (%s is 0): enable "
			"them as host root with `sysctl -w fs.xattr_user_ns=1`; "
			"raw @uid administration still works as host root.\n",
			sysctl_path());
}

/* ---- targets and raw xattr access -------------------------------------- */

/**
 * struct target - which value a command works on
 * @kind: NSCAP_NAME_PLAIN (what this namespace reads and writes),
 *        NSCAP_NAME_UID or NSCAP_NAME_WILDCARD
 * @uid:  K for NSCAP_NAME_UID
 * @name: the xattr name
 */
struct target {
	enum nscap_name_kind kind;
	uint32_t uid;
	char name[NSCAP_XATTR_NAME_MAX + 1];
};

static int target_init(struct target *t, enum nscap_name_kind kind, uint32_t uid)
{
	t->kind = kind;
	t->uid = uid;
	return nscap_name_build(NSCAP_XATTR_CAPS, kind, uid, t->name,
				sizeof(t->name)) < 0 ? -1 : 0;
}

static int parse_uid_arg(const char *arg, uint32_t *uid)
{
	int err = nscap_parse_uid(arg, uid);

	if (err == -ERANGE)
		warnx_("invalid --uid '%s': above %u", arg, NSCAP_UID_MAX);
	else if (err)
		warnx_("invalid --uid '%s': expected 1..%u in decimal without "
		       "sign or leading zero (uid 0 is the plain name)",
		       arg, NSCAP_UID_MAX);
	return err;
}

/* Read a whole value; returns its length or -errno. *out is malloc'd. */
static ssize_t get_value(const char *path, const char *name, bool nofollow,
			 unsigned char **out)
{
	for (int tries = 0; tries < 8; tries++) {
		ssize_t n = nofollow ? lgetxattr(path, name, NULL, 0)
				     : getxattr(path, name, NULL, 0);
		unsigned char *buf;

		if (n < 0)
			return -errno;
		buf = malloc((size_t)n + 1);
		if (!buf)
			return -ENOMEM;
		n = nofollow ? lgetxattr(path, name, buf, (size_t)n + 1)
			     : getxattr(path, name, buf, (size_t)n + 1);
		if (n >= 0) {
			*out = buf;
			return n;
		}
		free(buf);
		if (errno != ERANGE)
			return -errno;
	}
	return -ERANGE;
}

/* List names; returns the list's length or -errno. *out is malloc'd. */
static ssize_t list_names(const char *path, bool nofollow, char **out)
{
	for (int tries = 0; tries < 8; tries++) {
		ssize_t n = nofollow ? llistxattr(path, NULL, 0)
				     : listxattr(path, NULL, 0);
		char *buf;

		if (n < 0)
			return -errno;
		buf = malloc((size_t)n + 1);
		if (!buf)
			return -ENOMEM;
		n = nofollow ? llistxattr(path, buf, (size_t)n + 1)
			     : listxattr(path, buf, (size_t)n + 1);
		if (n >= 0) {
			buf[n] = '\0';
			*out = buf;
			return n;
		}
		free(buf);
		if (errno != ERANGE)
			return -errno;
	}
	return -ERANGE;
}

/*
 * Read and decode a capability value. Returns 0, -ENODATA when absent,
 * 1 after printing an error.
 */
static int read_fcaps(const char *path, const char *name, struct nscap_fcaps *c,
		      bool quiet_missing)
{
	_cleanup_free_ unsigned char *buf = NULL;
	ssize_t n = get_value(path, name, false, &buf);
	int err;

	if (n < 0) {
		if (quiet_missing && (n == -ENODATA || n == -EOPNOTSUPP))
			return -ENODATA;
		file_error(path, name, (int)-n);
		if (n == -EOVERFLOW && in_child_userns())
			hint_once();
		return 1;
	}
	err = nscap_fcaps_decode(buf, (size_t)n, c);
	if (err) {
		fprintf(stderr, "%s: %s: %s: %s (%zd bytes)\n", progname, path,
			name, nscap_fcaps_strerror(err), n);
		return 1;
	}
	return 0;
}

/* Write a value; @flags as setxattr()'s (XATTR_CREATE: EEXIST is reported). */
static int write_fcaps(const char *path, const struct target *t,
		       const struct nscap_fcaps *c, int flags)
{
	unsigned char buf[NSCAP_SIZE_MAX];
	int n = nscap_fcaps_encode(c, buf, sizeof(buf));

	if (n < 0) {
		fprintf(stderr, "%s: %s: %s: %s\n", progname, path, t->name,
			nscap_fcaps_strerror(n));
		return 1;
	}
	if (setxattr(path, t->name, buf, (size_t)n, flags)) {
		int e = errno;

		if (e == EEXIST) {
			fprintf(stderr, "%s: %s: %s: already exists; use "
				"--force to overwrite it\n", progname, path, t->name);
			return 1;
		}
		file_error(path, t->name, e);
		if ((t->kind != NSCAP_NAME_PLAIN || in_child_userns()) && ns_errno(e))
			hint_once();
		return 1;
	}
	return 0;
}

static int remove_name(const char *path, const char *name, bool ns_sensitive)
{
	if (removexattr(path, name)) {
		int e = errno;

		file_error(path, name, e);
		if (ns_sensitive && ns_errno(e) && in_child_userns())
			hint_once();
		return 1;
	}
	return 0;
}

static void print_caps_line(const char *path, const struct nscap_fcaps *c,
			    const char *tag)
{
	_cleanup_cap_free_ char *text = nscap_fcaps_text(c);

	if (!text) {
		file_error(path, "capability text", errno);
		return;
	}
	if (tag && *tag)
		printf("%s %s [%s]\n", path, text, tag);
	else
		printf("%s %s\n", path, text);
}

/* ---- usage ------------------------------------------------------------- */

static void __attribute__((noreturn)) usage(FILE *out, int status)
{
	fprintf(out,
		"Usage:\n"
		" %1$s [options] get [-r] [-n] <file>...\n"
		" %1$s [options] list <file>...\n"
		" %1$s [options] set [--uid <K> | --wildcard] [--format v2|v3] <caps> <file>...\n"
		" %1$s [options] remove [--uid <K> | --wildcard | --all] <file>...\n"
		" %1$s [options] verify [--uid <K> | --wildcard] <caps> <file>...\n"
		" %1$s [options] dump [-a] [-R] [-P] [--absolute-names] <file>...\n"
		" %1$s [options] restore [-n] <dumpfile>\n"
		" %1$s [options] convert --to-uid [--format v2|v3] [-f] <file>...\n"
		" %1$s [options] convert --to-plain (--uid <K> | --wildcard) [--strip] <file>...\n"
		" %1$s [options] convert --to-wildcard [--uid <K>] [-f] <file>...\n"
		" %1$s [options] convert --from-wildcard [--uid <K>] [--format v2|v3] [-f] <file>...\n"
		" %1$s [options] status\n"
		"\n"
		"Manage file capabilities that differ per user namespace\n"
		"(security.capability, security.capability@uid=K, security.capability@uid).\n"
		"\n"
		"Commands:\n"
		" get       print what this namespace resolves, like getcap\n"
		" list      print every value on the file: plain, [uid=K], [uid=*]\n"
		" set       write a value (this namespace's, key K's, or the wildcard)\n"
		" remove    remove a value\n"
		" verify    compare a value with <caps>, like setcap -v\n"
		" dump      print values in `getfattr -d -m - -e hex' format\n"
		" restore   write the values of a dump (also read by setfattr --restore)\n"
		" convert   plain v3 rootid K -> @uid=K, key K's value -> plain v2,\n"
		"           the plain value or key K's -> the wildcard, and back\n"
		" status    report whether the kernel supports namespaced xattrs\n"
		"\n"
		"Options:\n"
		" -u, --uid <K>         use security.capability@uid=K (K as this namespace sees it)\n"
		" -w, --wildcard        use security.capability@uid (any namespace without its own)\n"
		" -r, --recursive       get: walk directories, like getcap -r\n"
		" -R, --recursive       dump: walk directories, like getfattr -R\n"
		" -n, --rootid          get: append [rootid=R] for v3 values, like getcap -n\n"
		" -n, --dry-run         restore: check the dump, change nothing\n"
		" -P, --no-dereference  dump: read symlinks themselves (like getfattr -h)\n"
		"     --absolute-names  dump: keep a leading '/' in paths\n"
		" -a, --all             dump: every name, not only security.capability*;\n"
		"                       remove: every security.capability* name\n"
		"     --format v2|v3    revision to write (set --uid, convert --to-uid,\n"
		"                       convert --from-wildcard --uid: v3)\n"
		" -f, --force           convert: overwrite an existing destination value\n"
		" -q, --quiet           no Hint: lines\n"
		"\n"
		" -h, --help            display this help\n"
		" -V, --version         display version\n"
		"\n"
		"Exit status: 0 success, 1 failure or difference, 2 usage error.\n"
		"\n"
		"For more details see nscap(1).\n",
		progname);
	exit(status);
}

static void __attribute__((noreturn)) bad_usage(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fprintf(stderr, "%s: ", progname);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "Try '%s --help' for more information.\n", progname);
	exit(EXIT_USAGE);
}

/* ---- command line of the subcommands ----------------------------------- */

enum {
	OPT_FORMAT = CHAR_MAX + 1,
	OPT_TO_UID,
	OPT_TO_PLAIN,
	OPT_TO_WILDCARD,
	OPT_FROM_WILDCARD,
	OPT_STRIP,
	OPT_ABSOLUTE,
};

/**
 * struct cmdopts - options shared by the subcommands
 */
struct cmdopts {
	bool has_uid, wildcard, recursive, rootid, all, dry_run, force, strip;
	bool absolute, to_uid, to_plain, to_wildcard, from_wildcard, nofollow;
	uint32_t uid;
	unsigned int format; /* 0: default */
};

static void parse_cmd(int argc, char **argv, const char *shortopts,
		      struct cmdopts *o)
{
	static const struct option longopts[] = {
		{ "uid", required_argument, NULL, 'u' },
		{ "wildcard", no_argument, NULL, 'w' },
		{ "recursive", no_argument, NULL, 'r' },
		{ "rootid", no_argument, NULL, 'n' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "to-uid", no_argument, NULL, OPT_TO_UID },
		{ "to-plain", no_argument, NULL, OPT_TO_PLAIN },
		{ "to-wildcard", no_argument, NULL, OPT_TO_WILDCARD },
		{ "from-wildcard", no_argument, NULL, OPT_FROM_WILDCARD },
		{ "strip", no_argument, NULL, OPT_STRIP },
		{ "absolute-names", no_argument, NULL, OPT_ABSOLUTE },
		{ "no-dereference", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0];
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0; /* GNU: restart on the subcommand's argv */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'u':
			if (parse_uid_arg(optarg, &o->uid))
				bad_usage(NULL);
			o->has_uid = true;
			break;
		case 'w': o->wildcard = true; break;
		case 'r': case 'R': o->recursive = true; break;
		case 'n':
			if (strcmp(cmd, "restore") == 0)
				o->dry_run = true;
			else
				o->rootid = true;
			break;
		case 'a': o->all = true; break;
		case 'P': o->nofollow = true; break;
		case 'f': o->force = true; break;
		case 'q': opt_quiet = true; break;
		case OPT_FORMAT:
			if (strcmp(optarg, "v2") == 0)
				o->format = 2;
			else if (strcmp(optarg, "v3") == 0)
				o->format = 3;
			else
				bad_usage("invalid --format '%s': expected v2 or v3", optarg);
			break;
		case OPT_TO_UID: o->to_uid = true; break;
		case OPT_TO_PLAIN: o->to_plain = true; break;
		case OPT_TO_WILDCARD: o->to_wildcard = true; break;
		case OPT_FROM_WILDCARD: o->from_wildcard = true; break;
		case OPT_STRIP: o->strip = true; break;
		case OPT_ABSOLUTE: o->absolute = true; break;
		case 'h': usage(stdout, EXIT_OK);
		case 'V':
			printf("%s from nscaps %s\n", progname, NSCAP_VERSION);
			exit(EXIT_OK);
		default:
			bad_usage(NULL);
		}
	}
	if (o->has_uid && o->wildcard)
		bad_usage("%s: --uid and --wildcard are mutually exclusive", cmd);
}

/* Reject options that getopt accepted for another subcommand. */
static void only(const char *cmd, bool cond, const char *what)
{
	if (cond)
		bad_usage("%s: %s is not valid here", cmd, what);
}

static void need_files(const char *cmd, int argc, int min)
{
	if (argc - optind < min)
		bad_usage("%s: missing %s", cmd, min > 1 ? "arguments" : "file operand");
}

static void target_from_opts(const struct cmdopts *o, struct target *t)
{
	if (o->has_uid)
		target_init(t, NSCAP_NAME_UID, o->uid);
	else if (o->wildcard)
		target_init(t, NSCAP_NAME_WILDCARD, 0);
	else
		target_init(t, NSCAP_NAME_PLAIN, 0);
}

/* ---- get ---------------------------------------------------------------- */

static bool get_rootid;
static int get_status;

static void get_one(const char *path)
{
	struct nscap_fcaps c;
	char tag[32] = "";
	int r = read_fcaps(path, NSCAP_XATTR_CAPS, &c, true);

	if (r == -ENODATA)
		return;
	if (r) {
		get_status = EXIT_FAIL;
		return;
	}
	if (get_rootid && c.revision == 3 && c.rootid)
		snprintf(tag, sizeof(tag), "rootid=%u", (unsigned int)c.rootid);
	print_caps_line(path, &c, tag);
}

static int get_walk(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_F)
		get_one(path);
	else if (type == FTW_NS || type == FTW_DNR) {
		file_error(path, type == FTW_NS ? "stat" : "open directory", errno);
		get_status = EXIT_FAIL;
	}
	return 0;
}

static int cmd_get(int argc, char **argv)
{
	struct cmdopts o;

	parse_cmd(argc, argv, "rnqhV", &o);
	need_files(argv[0], argc, 1);
	get_rootid = o.rootid;
	if (in_child_userns() && kernel_state() != KERNEL_ON)
		hint_once();
	for (int i = optind; i < argc; i++) {
		struct stat st;

		if (lstat(argv[i], &st)) {
			file_error(argv[i], NULL, errno);
			get_status = EXIT_FAIL;
		} else if (o.recursive) {
			if (nftw(argv[i], get_walk, 20, FTW_PHYS)) {
				file_error(argv[i], "walk", errno);
				get_status = EXIT_FAIL;
			}
		} else if (S_ISREG(st.st_mode)) {
			/* Like getcap: only regular files, symlinks not followed. */
			get_one(argv[i]);
		}
	}
	return get_status;
}

/* ---- list --------------------------------------------------------------- */

struct listed {
	char *name;
	struct nscap_name parsed;
};

static int listed_cmp(const void *pa, const void *pb)
{
	const struct listed *a = pa, *b = pb;

	if (a->parsed.kind != b->parsed.kind) {
		static const int rank[] = {
			[NSCAP_NAME_PLAIN] = 0, [NSCAP_NAME_UID] = 1,
			[NSCAP_NAME_WILDCARD] = 2, [NSCAP_NAME_INVALID] = 3,
			[NSCAP_NAME_OTHER] = 4,
		};
		return rank[a->parsed.kind] - rank[b->parsed.kind];
	}
	if (a->parsed.uid != b->parsed.uid)
		return a->parsed.uid < b->parsed.uid ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * Collect the security.capability* names of @path, sorted: plain, @uid=K by
 * K, wildcard, malformed. Returns the count or -1 after printing an error.
 */
static ssize_t cap_names(const char *path, char **bufp, struct listed **outp)
{
	ssize_t len = list_names(path, false, bufp);
	struct listed *v;
	size_t n = 0, max = 0;

	*outp = NULL;
	if (len < 0) {
		file_error(path, "list xattrs", (int)-len);
		return -1;
	}
	for (char *p = *bufp; p < *bufp + len; p += strlen(p) + 1)
		max++;
	v = calloc(max + 1, sizeof(*v));
	if (!v) {
		file_error(path, "list xattrs", ENOMEM);
		return -1;
	}
	for (char *p = *bufp; p < *bufp + len; p += strlen(p) + 1) {
		nscap_name_parse(p, &v[n].parsed);
		if (v[n].parsed.kind == NSCAP_NAME_OTHER ||
		    strcmp(v[n].parsed.base, NSCAP_XATTR_CAPS) != 0)
			continue;
		v[n++].name = p;
	}
	qsort(v, n, sizeof(*v), listed_cmp);
	*outp = v;
	return (ssize_t)n;
}

static int cmd_list(int argc, char **argv)
{
	struct cmdopts o;
	int status = EXIT_OK;

	parse_cmd(argc, argv, "qhV", &o);
	need_files(argv[0], argc, 1);
	for (int i = optind; i < argc; i++) {
		_cleanup_free_ char *buf = NULL;
		_cleanup_free_ struct listed *v = NULL;
		ssize_t n = cap_names(argv[i], &buf, &v);

		if (n < 0) {
			status = EXIT_FAIL;
			continue;
		}
		for (ssize_t j = 0; j < n; j++) {
			const struct nscap_name *pn = &v[j].parsed;
			struct nscap_fcaps c;
			char tag[64] = "";

			if (pn->kind == NSCAP_NAME_INVALID) {
				fprintf(stderr, "%s: %s: %s: malformed name "
					"(the kernel rejects it with EINVAL); "
					"remove it with `setfattr -x`\n",
					progname, argv[i], v[j].name);
				status = EXIT_FAIL;
				continue;
			}
			if (read_fcaps(argv[i], v[j].name, &c, false)) {
				status = EXIT_FAIL;
				continue;
			}
			if (pn->kind == NSCAP_NAME_PLAIN) {
				if (c.revision == 3)
					snprintf(tag, sizeof(tag), "rootid=%u",
						 (unsigned int)c.rootid);
			} else if (pn->kind == NSCAP_NAME_UID) {
				if (c.revision == 3 && c.rootid != pn->uid)
					snprintf(tag, sizeof(tag), "uid=%u rootid=%u",
						 (unsigned int)pn->uid,
						 (unsigned int)c.rootid);
				else
					snprintf(tag, sizeof(tag), "uid=%u",
						 (unsigned int)pn->uid);
			} else {
				if (c.revision == 3)
					snprintf(tag, sizeof(tag), "uid=* rootid=%u",
						 (unsigned int)c.rootid);
				else
					snprintf(tag, sizeof(tag), "uid=*");
			}
			print_caps_line(argv[i], &c, tag);
		}
	}
	return status;
}

/* ---- set / remove / verify -------------------------------------------- */

static unsigned int write_revision(const struct cmdopts *o, const struct target *t)
{
	if (o->format)
		return o->format;
	/* The kernel stores a namespace's own write as v3 with rootid = K. */
	return t->kind == NSCAP_NAME_UID ? 3 : 2;
}

static int parse_caps_arg(const char *text, unsigned int rev, uint32_t rootid,
			  struct nscap_fcaps *c)
{
	int err = nscap_fcaps_parse_text(text, rev, rootid, c);
	cap_t parsed;

	if (!err)
		return 0;
	parsed = cap_from_text(text);
	if (parsed)
		cap_free(parsed);
	bad_usage("invalid capabilities '%s': %s", text,
		  parsed ? "file capabilities need an effective set that is "
		  "empty or covers permitted and inheritable (e.g. =ep)" :
		  "not understood by cap_from_text(3)");
}

static int cmd_set(int argc, char **argv)
{
	struct cmdopts o;
	struct target t;
	struct nscap_fcaps c;
	unsigned int rev;
	int status = EXIT_OK;

	parse_cmd(argc, argv, "u:wqhV", &o);
	need_files(argv[0], argc, 2);
	target_from_opts(&o, &t);
	rev = write_revision(&o, &t);
	if (rev == 3 && t.kind != NSCAP_NAME_UID)
		bad_usage("set: --format v3 needs --uid (a v3 value carries its root uid)");
	parse_caps_arg(argv[optind], rev, t.uid, &c);
	if (t.kind == NSCAP_NAME_PLAIN && in_child_userns())
		hint_once();
	for (int i = optind + 1; i < argc; i++)
		if (write_fcaps(argv[i], &t, &c, 0))
			status = EXIT_FAIL;
	return status;
}

static int cmd_remove(int argc, char **argv)
{
	struct cmdopts o;
	struct target t;
	int status = EXIT_OK;

	parse_cmd(argc, argv, "u:waqhV", &o);
	need_files(argv[0], argc, 1);
	if (o.all && (o.has_uid || o.wildcard))
		bad_usage("remove: --all excludes --uid and --wildcard");
	target_from_opts(&o, &t);
	for (int i = optind; i < argc; i++) {
		_cleanup_free_ char *buf = NULL;
		_cleanup_free_ struct listed *v = NULL;
		ssize_t n;

		if (!o.all) {
			if (remove_name(argv[i], t.name,
					t.kind != NSCAP_NAME_PLAIN || in_child_userns()))
				status = EXIT_FAIL;
			continue;
		}
		n = cap_names(argv[i], &buf, &v);
		if (n < 0)
			status = EXIT_FAIL;
		for (ssize_t j = 0; j < n; j++)
			if (remove_name(argv[i], v[j].name, false))
				status = EXIT_FAIL;
	}
	return status;
}

static int cmd_verify(int argc, char **argv)
{
	struct cmdopts o;
	struct target t;
	struct nscap_fcaps want;
	int status = EXIT_OK;

	parse_cmd(argc, argv, "u:wqhV", &o);
	need_files(argv[0], argc, 2);
	target_from_opts(&o, &t);
	parse_caps_arg(argv[optind], 2, 0, &want);
	for (int i = optind + 1; i < argc; i++) {
		struct nscap_fcaps have = { .revision = 2 };
		int r = read_fcaps(argv[i], t.name, &have, true), d;

		if (r > 0) {
			status = EXIT_FAIL;
			continue;
		}
		if (r == -ENODATA) /* no value compares as "=" */
			have = (struct nscap_fcaps){ .revision = 2 };
		d = nscap_fcaps_compare(&have, &want);
		if (d) {
			printf("%s differs in [%s%s%s]\n", argv[i],
			       CAP_DIFFERS(d, CAP_PERMITTED) ? "p" : "",
			       CAP_DIFFERS(d, CAP_INHERITABLE) ? "i" : "",
			       CAP_DIFFERS(d, CAP_EFFECTIVE) ? "e" : "");
			status = EXIT_FAIL;
		} else {
			printf("%s: OK\n", argv[i]);
		}
	}
	return status;
}

/* ---- dump / restore ---------------------------------------------------- */

static bool dump_all, dump_absolute, dump_nofollow, dump_warned;
static int dump_status;

static int pstrcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void dump_one(const char *path, bool nofollow)
{
	_cleanup_free_ char *list = NULL;
	_cleanup_free_ char **names = NULL;
	ssize_t len = list_names(path, nofollow, &list);
	size_t n = 0, max = 0;
	bool header = false;

	if (len < 0) {
		file_error(path, NULL, (int)-len);
		dump_status = EXIT_FAIL;
		return;
	}
	for (char *p = list; p < list + len; p += strlen(p) + 1)
		max++;
	names = calloc(max + 1, sizeof(*names));
	if (!names) {
		file_error(path, NULL, ENOMEM);
		dump_status = EXIT_FAIL;
		return;
	}
	for (char *p = list; p < list + len; p += strlen(p) + 1) {
		struct nscap_name pn;

		if (!*p)
			continue;
		nscap_name_parse(p, &pn);
		if (!dump_all && (pn.kind == NSCAP_NAME_OTHER ||
				  strcmp(pn.base, NSCAP_XATTR_CAPS) != 0))
			continue;
		names[n++] = p;
	}
	/* getfattr sorts names with strcmp(). */
	qsort(names, n, sizeof(*names), pstrcmp);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ unsigned char *val = NULL;
		ssize_t vl = get_value(path, names[i], nofollow, &val);

		if (vl < 0) {
			file_error(path, names[i], (int)-vl);
			dump_status = EXIT_FAIL;
			continue;
		}
		if (!header) {
			if (*path == '/' && !dump_absolute && !dump_warned) {
				fprintf(stderr, "%s: Removing leading '/' from "
					"absolute path names\n", progname);
				dump_warned = true;
			}
			nscap_dump_write_header(stdout, path, dump_absolute);
			header = true;
		}
		nscap_dump_write_value(stdout, names[i], val, (size_t)vl);
	}
	if (header)
		putchar('\n');
}

static int dump_walk(const char *path, const struct stat *st, int type,
		     struct FTW *ftw)
{
	(void)st;
	if (type == FTW_NS || type == FTW_DNR) {
		file_error(path, type == FTW_NS ? "stat" : "open directory", errno);
		dump_status = EXIT_FAIL;
		return 0;
	}
	(void)ftw;
	dump_one(path, dump_nofollow);
	return 0;
}

static int cmd_dump(int argc, char **argv)
{
	struct cmdopts o;

	parse_cmd(argc, argv, "aRPqhV", &o);
	need_files(argv[0], argc, 1);
	dump_all = o.all;
	dump_absolute = o.absolute;
	dump_nofollow = o.nofollow;
	for (int i = optind; i < argc; i++) {
		if (o.recursive) {
			if (nftw(argv[i], dump_walk, 20, FTW_PHYS)) {
				file_error(argv[i], NULL, errno);
				dump_status = EXIT_FAIL;
			}
		} else {
			dump_one(argv[i], dump_nofollow);
		}
	}
	return dump_status;
}

/* Check one dump entry before anything is written. Returns 0 or 1. */
static int restore_check(const char *dumpfile, const struct nscap_dump_entry *e)
{
	struct nscap_name pn;
	struct nscap_fcaps c;
	int err;

	nscap_name_parse(e->name, &pn);
	if (pn.kind == NSCAP_NAME_OTHER || strcmp(pn.base, NSCAP_XATTR_CAPS) != 0)
		return 0;
	if (pn.kind == NSCAP_NAME_INVALID) {
		fprintf(stderr, "%s: %s:%u: %s: %s: malformed namespaced name "
			"(the kernel rejects it)\n", progname, dumpfile, e->line,
			e->path, e->name);
		return 1;
	}
	err = nscap_fcaps_decode(e->value, e->value ? e->len : 0, &c);
	if (err) {
		fprintf(stderr, "%s: %s:%u: %s: %s: %s (%zu bytes)\n", progname,
			dumpfile, e->line, e->path, e->name,
			nscap_fcaps_strerror(err), e->len);
		return 1;
	}
	return 0;
}

static int cmd_restore(int argc, char **argv)
{
	struct cmdopts o;
	struct nscap_dump d = { 0 };
	const char *file, *why;
	unsigned int line;
	FILE *f;
	int err, status = EXIT_OK;

	parse_cmd(argc, argv, "nqhV", &o);
	need_files(argv[0], argc, 1);
	if (argc - optind > 1)
		bad_usage("restore: one dump file at a time");
	file = argv[optind];
	f = strcmp(file, "-") == 0 ? stdin : fopen(file, "re");
	if (!f) {
		file_error(file, NULL, errno);
		return EXIT_FAIL;
	}
	err = nscap_dump_parse(f, &d, &line, &why);
	if (f != stdin)
		fclose(f);
	if (err) {
		if (why)
			fprintf(stderr, "%s: %s:%u: %s\n", progname, file, line, why);
		else
			file_error(file, NULL, -err);
		nscap_dump_free(&d);
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < d.n; i++)
		if (restore_check(file, &d.v[i]))
			status = EXIT_FAIL;
	if (status || o.dry_run) {
		nscap_dump_free(&d);
		return status;
	}
	for (size_t i = 0; i < d.n; i++) {
		const struct nscap_dump_entry *e = &d.v[i];

		if (setxattr(e->path, e->name, e->value ? (void *)e->value : "",
			     e->value ? e->len : 0, 0)) {
			file_error(e->path, e->name, errno);
			status = EXIT_FAIL;
		}
	}
	nscap_dump_free(&d);
	return status;
}

/* ---- convert ------------------------------------------------------------ */

/*
 * Write @c under @dst, then remove @src: the value moves, and is never absent
 * in between. An existing @dst is kept (exit 1) unless @force. If @src cannot
 * be removed (a caller that may write @dst but not remove @src), @dst is put
 * back as it was: a failed move changes nothing.
 */
static int move_value(const char *path, const char *src, const struct target *dst,
		      const struct nscap_fcaps *c, bool force)
{
	_cleanup_free_ unsigned char *old = NULL;
	ssize_t oldlen = -ENODATA;
	int e, undo;

	if (force) {
		oldlen = get_value(path, dst->name, false, &old);
		if (oldlen < 0 && oldlen != -ENODATA) {
			file_error(path, dst->name, (int)-oldlen);
			return 1;
		}
	}
	if (write_fcaps(path, dst, c, force ? 0 : XATTR_CREATE))
		return 1;
	if (!removexattr(path, src))
		return 0;
	e = errno;
	file_error(path, src, e);
	if (ns_errno(e) && in_child_userns())
		hint_once();
	undo = oldlen >= 0 ? setxattr(path, dst->name, old, (size_t)oldlen, XATTR_REPLACE)
			   : removexattr(path, dst->name);
	if (undo)
		fprintf(stderr, "%s: %s: %s: could not be put back (%s); the value "
			"is now in both names\n", progname, path, dst->name, strerror(errno));
	else
		fprintf(stderr, "%s: %s: %s put back as it was; nothing changed\n",
			progname, path, dst->name);
	return 1;
}

static int convert_to_uid(const char *path, const struct cmdopts *o)
{
	struct nscap_fcaps c;
	struct target t;
	int r = read_fcaps(path, NSCAP_XATTR_CAPS, &c, true);

	if (r == -ENODATA) {
		file_error(path, NSCAP_XATTR_CAPS, ENODATA);
		return 1;
	}
	if (r)
		return 1;
	if (c.revision != 3 || c.rootid == 0) {
		fprintf(stderr, "%s: %s: %s: a v%u value without a rootid; "
			"nothing to convert (it is the host's value)\n",
			progname, path, NSCAP_XATTR_CAPS, c.revision);
		return 1;
	}
	target_init(&t, NSCAP_NAME_UID, c.rootid);
	if (o->format == 2) {
		c.revision = 2;
		c.rootid = 0;
	}
	return move_value(path, NSCAP_XATTR_CAPS, &t, &c, o->force);
}

/*
 * --to-wildcard moves @src (the plain value, or key K's) to the wildcard, as
 * v2: it then applies in every namespace without a value of its own, never
 * on the host. --from-wildcard moves the wildcard back to @dst (the plain
 * value as v2, or key K's as v3 with rootid K, or v2 with --format v2).
 */
static int convert_wildcard(const char *path, const struct cmdopts *o,
			    const struct target *src, const struct target *dst)
{
	struct nscap_fcaps c;
	int r = read_fcaps(path, src->name, &c, true);

	if (r == -ENODATA) {
		file_error(path, src->name, ENODATA);
		return 1;
	}
	if (r)
		return 1;
	if (dst->kind == NSCAP_NAME_UID && o->format != 2) {
		c.revision = 3;
		c.rootid = dst->uid;
	} else {
		c.revision = 2;
		c.rootid = 0;
	}
	return move_value(path, src->name, dst, &c, o->force);
}

static int convert_to_plain(const char *path, const struct cmdopts *o,
			    const struct target *src)
{
	struct nscap_fcaps c;
	struct target plain;
	int r = read_fcaps(path, src->name, &c, true);

	if (r == -ENODATA) {
		file_error(path, src->name, ENODATA);
		return 1;
	}
	if (r)
		return 1;
	c.revision = 2;
	c.rootid = 0;
	target_init(&plain, NSCAP_NAME_PLAIN, 0);
	if (write_fcaps(path, &plain, &c, 0))
		return 1;
	if (o->strip) {
		_cleanup_free_ char *buf = NULL;
		_cleanup_free_ struct listed *v = NULL;
		ssize_t n = cap_names(path, &buf, &v);
		int status = n < 0;

		for (ssize_t j = 0; j < n; j++)
			if (v[j].parsed.kind != NSCAP_NAME_PLAIN &&
			    remove_name(path, v[j].name, false))
				status = 1;
		return status;
	}
	return 0;
}

static int cmd_convert(int argc, char **argv)
{
	struct cmdopts o;
	struct target src, dst, wild, key;
	int status = EXIT_OK;

	parse_cmd(argc, argv, "u:wfqhV", &o);
	need_files(argv[0], argc, 1);
	if (o.to_uid + o.to_plain + o.to_wildcard + o.from_wildcard != 1)
		bad_usage("convert: give exactly one of --to-uid, --to-plain, "
			  "--to-wildcard and --from-wildcard");
	target_init(&wild, NSCAP_NAME_WILDCARD, 0);
	target_from_opts(&o, &key);
	if (o.to_uid) {
		only("convert --to-uid", o.has_uid || o.wildcard,
		     "--uid/--wildcard (K is the value's rootid)");
		only("convert --to-uid", o.strip, "--strip");
	} else if (o.to_plain) {
		if (!o.has_uid && !o.wildcard)
			bad_usage("convert --to-plain: needs --uid K or --wildcard");
		only("convert --to-plain", o.format != 0, "--format (always v2)");
		only("convert --to-plain", o.force, "--force");
		src = key;
	} else {
		const char *cmd = o.to_wildcard ? "convert --to-wildcard"
						: "convert --from-wildcard";

		only(cmd, o.wildcard, "--wildcard");
		only(cmd, o.strip, "--strip");
		only(cmd, o.to_wildcard && o.format != 0, "--format (always v2)");
		only(cmd, o.format == 3 && !o.has_uid,
		     "--format v3 without --uid (the plain value is v2)");
		src = o.to_wildcard ? key : wild;
		dst = o.to_wildcard ? wild : key;
	}
	for (int i = optind; i < argc; i++) {
		int r;

		if (o.to_uid)
			r = convert_to_uid(argv[i], &o);
		else if (o.to_plain)
			r = convert_to_plain(argv[i], &o, &src);
		else
			r = convert_wildcard(argv[i], &o, &src, &dst);
		if (r)
			status = EXIT_FAIL;
	}
	return status;
}

/* ---- status ------------------------------------------------------------- */

static int cmd_status(int argc, char **argv)
{
	struct cmdopts o;
	enum kernel_state ks;

	parse_cmd(argc, argv, "qhV", &o);
	if (argc - optind > 0)
		bad_usage("status: no operands expected");
	ks = kernel_state();
	printf("namespaced xattrs: %s\n",
	       ks == KERNEL_ON ? "enabled" : ks == KERNEL_OFF ? "disabled" : "absent");
	printf("user namespace: %s\n", in_child_userns() ? "child" : "initial");
	hint_once();
	return EXIT_OK;
}

/* ---- main --------------------------------------------------------------- */

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "get", cmd_get },       { "list", cmd_list },
	{ "set", cmd_set },       { "remove", cmd_remove },
	{ "verify", cmd_verify }, { "dump", cmd_dump },
	{ "restore", cmd_restore }, { "convert", cmd_convert },
	{ "status", cmd_status },
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+hVq", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout, EXIT_OK);
		case 'V':
			printf("%s from nscaps %s\n", progname, NSCAP_VERSION);
			return EXIT_OK;
		case 'q': opt_quiet = true; break;
		default: bad_usage(NULL);
		}
	}
	if (optind >= argc)
		bad_usage("no command given");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name) == 0) {
			int status = commands[i].fn(argc - optind, argv + optind);

			if (fflush(stdout) || ferror(stdout)) {
				warnx_("write error: %s", strerror(errno));
				return EXIT_FAIL;
			}
			return status;
		}
	}
	bad_usage("unknown command '%s'", argv[optind]);
}
