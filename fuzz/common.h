/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the fuzz targets: decoding a namespace configuration (a chain of
 * user namespaces up to 32 deep with fuzzed uid maps, the filesystem's
 * s_user_ns, a mount idmap, the sysctl) from the first bytes of an input,
 * and reference implementations written from design/semantics.md, not
 * from the kernel code, to compare against.
 */
#ifndef NSCAPS_FUZZ_COMMON_H
#define NSCAPS_FUZZ_COMMON_H

#include <kshim.h>
#include <linux/xattr_user_ns.h>

#define CHECK(c, ...)                                                       \
	do {                                                                \
		if (!(c)) {                                                 \
			fprintf(stderr, "invariant failed: %s (%s:%d): ",   \
				#c, __FILE__, __LINE__);                    \
			fprintf(stderr, __VA_ARGS__);                       \
			fprintf(stderr, "\n");                              \
			abort();                                            \
		}                                                           \
	} while (0)

extern int sysctl_xattr_user_ns;

struct input {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t get8(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline uint32_t get32(struct input *in)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)get8(in) << (8 * i);
	return v;
}

/* uids a runtime would use: 0, small ones, subordinate ranges, anything */
static inline uint32_t pick_uid(struct input *in)
{
	switch (get8(in) % 5) {
	case 0:
		return 0;
	case 1:
		return get8(in) * 1000u;
	case 2:
		return 100000u + 65536u * get8(in);
	case 3:
		return 4294967294u - get8(in);
	default:
		return get32(in);
	}
}

/* Add an extent first..first+count-1 -> lower.., clipped to valid uids. */
static inline void add_extent(struct uid_gid_map *m, uint32_t first,
			      uint32_t lower, uint64_t count)
{
	if (m->nr_extents >= NSCAPS_SHIM_EXTENTS || count == 0)
		return;
	if (first + count > 4294967295ull)
		count = 4294967295ull - first;
	if (lower + count > 4294967295ull)
		count = 4294967295ull - lower;
	if (count == 0)
		return;
	/* no overlap with earlier extents, on either side (as the kernel) */
	for (uint32_t i = 0; i < m->nr_extents; i++) {
		struct uid_gid_extent *e = &m->extent[i];
		if (first < (uint64_t)e->first + e->count && e->first < first + count)
			return;
		if (lower < (uint64_t)e->lower_first + e->count &&
		    e->lower_first < lower + count)
			return;
	}
	m->extent[m->nr_extents++] = (struct uid_gid_extent){ first, lower, (uint32_t)count };
}

static inline void decode_map(struct input *in, struct uid_gid_map *m)
{
	memset(m, 0, sizeof(*m));
	switch (get8(in) % 6) {
	case 0: /* no mapping at all (unshare -U without a map) */
		break;
	case 1: /* root only */
		add_extent(m, 0, pick_uid(in), 1);
		break;
	case 2: /* a subordinate range, root included */
		add_extent(m, 0, pick_uid(in), 65536);
		break;
	case 3: /* identity */
		add_extent(m, 0, 0, 4294967295u);
		break;
	case 4: /* no root mapping, some other uids */
		add_extent(m, 1 + get8(in), pick_uid(in), 1 + get8(in) * 256u);
		break;
	default: { /* up to three fuzzed extents */
		int n = 1 + get8(in) % NSCAPS_SHIM_EXTENTS;
		for (int i = 0; i < n; i++) {
			uint32_t first = pick_uid(in), lower = pick_uid(in);
			add_extent(m, first, lower, 1 + (get32(in) & 0xfffff));
		}
		break;
	}
	}
}

struct nsconf {
	struct user_namespace ns[33];	/* ns[1..depth]; ns[0] unused */
	struct user_namespace sibling;
	struct user_namespace *caller, *fs_ns;
	struct mnt_idmap idmap_storage;
	struct mnt_idmap *idmap;
	struct super_block sb;
	struct inode inode;
	struct dentry dentry;
	int depth;
};

static inline void decode_conf(struct input *in, struct nsconf *c)
{
	uint8_t f;

	memset(c, 0, sizeof(*c));
	c->depth = get8(in) % 33;
	for (int i = 1; i <= c->depth; i++) {
		c->ns[i].parent = i == 1 ? &init_user_ns : &c->ns[i - 1];
		c->ns[i].level = i;
		decode_map(in, &c->ns[i].uid_map);
	}
	c->caller = c->depth ? &c->ns[c->depth] : &init_user_ns;
	f = get8(in);
	if (f % 8 == 7) {
		/* a filesystem mounted in an unrelated namespace */
		c->sibling.parent = &init_user_ns;
		c->sibling.level = 1;
		decode_map(in, &c->sibling.uid_map);
		c->fs_ns = &c->sibling;
	} else {
		int lvl = f % (c->depth + 1);
		c->fs_ns = lvl ? &c->ns[lvl] : &init_user_ns;
	}
	switch (get8(in) % 4) {
	case 0:
	case 1:
		c->idmap = &nop_mnt_idmap;
		break;
	default:
		decode_map(in, &c->idmap_storage.uid_map);
		c->idmap = &c->idmap_storage;
		break;
	}
	sysctl_xattr_user_ns = get8(in) % 8 != 0;
	c->sb.s_user_ns = c->fs_ns;
	c->inode.i_sb = &c->sb;
	c->inode.i_op = &nscaps_shim_iop;
	c->inode.i_flags = 0;
	c->sb.s_iflags = SB_I_XATTR_LOCAL;
	c->dentry.d_sb = &c->sb;
	c->dentry.d_inode = &c->inode;
	nscaps_shim_current_ns = c->caller;
}

/* K = uid of (ns, uid) through the idmap into fs_ns (semantics.md: Terms) */
static inline uint32_t ref_key(const struct nsconf *c, struct user_namespace *ns,
			       uint32_t uid)
{
	kuid_t k = make_kuid(ns, uid);

	if (!uid_valid(k))
		return (uint32_t)-1;
	k = from_vfsuid(c->idmap, c->fs_ns, VFSUIDT_INIT(k));
	if (!uid_valid(k))
		return (uint32_t)-1;
	return from_kuid(c->fs_ns, k);
}

/* Reference: whether @ns's root is the host's root (the host's level). */
static inline bool ref_host_root(struct user_namespace *ns)
{
	return uid_eq(make_kuid(ns, 0), GLOBAL_ROOT_UID);
}

/*
 * Reference: the caller's own key (semantics.md: Terms): 0 for an
 * fs-privileged caller; a caller whose root is the host's root has no
 * other key, whatever the idmap makes of that root.
 */
static inline uint32_t ref_own_key(const struct nsconf *c)
{
	uint32_t K;

	if (c->caller == c->fs_ns && c->idmap == &nop_mnt_idmap)
		return 0;
	K = ref_key(c, c->caller, 0);
	if (ref_host_root(c->caller) && K != 0)
		return (uint32_t)-1;
	return K;
}

/*
 * Reference: the key of a level of the read walk, K for the caller's own;
 * an ancestor whose root is the host's root is the host's level (0: the
 * walk ends at the plain value).
 */
static inline uint32_t ref_level_key(const struct nsconf *c,
				     struct user_namespace *ns, uint32_t K)
{
	if (ns == c->caller)
		return K;
	return ref_host_root(ns) ? 0 : ref_key(c, ns, 0);
}

/* Reference: the caller is outside the filesystem's namespace. */
static inline bool ref_outside(const struct nsconf *c)
{
	return !in_userns(c->fs_ns, c->caller);
}

/*
 * Reference: the key of the level the wildcard serves (the innermost level
 * of the walk with a key; none outside fs_ns, none at a key-0 level, none
 * for a level whose root is the host's), or -1 (semantics.md: "wildcard and
 * keyless contexts").
 */
static inline uint32_t ref_wild_key(const struct nsconf *c, uint32_t K)
{
	struct user_namespace *ns = c->caller;

	if (K == 0 || ref_outside(c))
		return (uint32_t)-1;
	for (;;) {
		uint32_t k = ref_level_key(c, ns, K);

		if (k == 0)
			return (uint32_t)-1;
		if (k != (uint32_t)-1)
			return uid_eq(make_kuid(ns, 0), GLOBAL_ROOT_UID) ? (uint32_t)-1 : k;
		if (ns == c->fs_ns || ns == &init_user_ns || !ns->parent)
			return (uint32_t)-1;
		ns = ns->parent;
	}
}

/* Reference: a keyless caller (semantics.md: Terms), K its own key. */
static inline bool ref_keyless(const struct nsconf *c, uint32_t K)
{
	struct user_namespace *ns = c->caller;

	if (K == 0)
		return false;
	if (ref_outside(c))
		return true;
	if (K != (uint32_t)-1)
		return false;
	while (ns != c->fs_ns && ns != &init_user_ns && ns->parent) {
		ns = ns->parent;
		if (ref_key(c, ns, 0) != (uint32_t)-1)
			return false;
	}
	return true;
}

/* Reference grammar (semantics.md, "Raw names on disk") */
static inline int ref_parse(const char *s, size_t len, struct xattr_user_ns_name *r)
{
	r->kind = XATTR_USER_NS_ORDINARY;
	r->base = 0;
	r->key = XATTR_USER_NS_NO_KEY;
	for (unsigned int i = 0; i < XATTR_USER_NS_NR_BASES; i++) {
		const char *b = xattr_user_ns_base_name(i), *rest;
		size_t bl = strlen(b), rl;
		uint64_t v = 0;

		if (len < bl || memcmp(s, b, bl))
			continue;
		if (len == bl) {
			r->kind = XATTR_USER_NS_PLAIN;
			r->base = i;
			return 0;
		}
		if (s[bl] != '@')
			continue;
		rest = s + bl + 1;
		rl = len - bl - 1;
		if (rl == 3 && !memcmp(rest, "uid", 3)) {
			r->kind = XATTR_USER_NS_WILDCARD;
			r->base = i;
			return 0;
		}
		if (rl < 5 || rl > 14 || memcmp(rest, "uid=", 4) || rest[4] == '0')
			return -EINVAL;
		for (size_t j = 4; j < rl; j++) {
			if (rest[j] < '0' || rest[j] > '9')
				return -EINVAL;
			v = v * 10 + (rest[j] - '0');
		}
		if (v < 1 || v > 4294967294ull)
			return -EINVAL;
		r->kind = XATTR_USER_NS_KEY;
		r->base = i;
		r->key = (uint32_t)v;
		return 0;
	}
	return 0;
}

/* Whether the raw list holds name (entries bounded by the list's length) */
static inline bool list_has(const char *list, size_t len, const char *name)
{
	size_t off = 0, n, nl = strlen(name);

	while (off < len) {
		n = strnlen(list + off, len - off);
		if (n == nl && !memcmp(list + off, name, n))
			return true;
		off += n + 1;
	}
	return false;
}

#endif /* NSCAPS_FUZZ_COMMON_H */
