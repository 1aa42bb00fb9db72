/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for compiling fs/xattr_user_ns.c unchanged under libFuzzer.
 *
 * Only what that file (and its header) uses: basic types, errno values,
 * ERR_PTR, compiler macros, a model of user namespaces (uid maps that map a
 * namespace's uids to kernel uids, exactly like the kernel's extents), mount
 * idmaps with the semantics of fs/mnt_idmapping.c, and a fake xattr store
 * behind __vfs_getxattr()/vfs_listxattr().
 */
#ifndef NSCAPS_KSHIM_H
#define NSCAPS_KSHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

/* errno values the kernel has and glibc spells differently or lacks */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

/* compiler.h */
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define __user
#define __kernel
#define __force
#define __must_check
#define __read_mostly
#define __ro_after_init
#define __init
#define __exit
#define __initdata
#undef __always_inline
#define __always_inline inline __attribute__((always_inline))
#define noinline __attribute__((noinline))
#define __maybe_unused __attribute__((unused))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define fallthrough __attribute__((fallthrough))
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define barrier() __asm__ __volatile__("" ::: "memory")
#define EXPORT_SYMBOL(s)
#define EXPORT_SYMBOL_GPL(s)
#define EXPORT_SYMBOL_FOR_TESTS_ONLY(s)
#define EXPORT_SYMBOL_IF_KUNIT(s)
#define __uninitialized
#define IS_ENABLED(c) 0	/* the only use: CONFIG_KMSAN */

/* sprintf.h: lib/vsprintf.c's contract (no NUL, 0 if it does not fit) */
static inline int num_to_str(char *buf, int size, unsigned long long num,
			     unsigned int width)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%0*llu", (int)width, num);

	if (n > size)
		return 0;
	memcpy(buf, tmp, n);
	return n;
}

/* unaligned.h (the harness runs on little-endian hosts) */
#define get_unaligned(p)						\
	({ __typeof__(*(p) + 0) __v; memcpy(&__v, (p), sizeof(__v)); __v; })
static inline uint64_t get_unaligned_le64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* bitops.h: the index of the lowest set bit; @w is not 0 */
static inline unsigned int __ffs64(uint64_t w)
{
	return __builtin_ctzll(w);
}

/* asm/word-at-a-time.h: the little-endian generic version */
struct word_at_a_time {
	const unsigned long one_bits, high_bits;
};
#define REPEAT_BYTE(x) ((~0ul / 0xff) * (x))
#define WORD_AT_A_TIME_CONSTANTS { REPEAT_BYTE(0x01), REPEAT_BYTE(0x80) }
static inline unsigned long has_zero(unsigned long a, unsigned long *bits,
				     const struct word_at_a_time *c)
{
	unsigned long mask = ((a - c->one_bits) & ~a) & c->high_bits;
	*bits = mask;
	return mask;
}
static inline unsigned long prep_zero_mask(unsigned long a, unsigned long bits,
					   const struct word_at_a_time *c)
{
	return bits;
}
static inline unsigned long create_zero_mask(unsigned long bits)
{
	bits = (bits - 1) & ~bits;
	return bits >> 7;
}
static inline unsigned long find_zero(unsigned long mask)
{
	return mask * 0x0001020304050608ul >> 56;
}
#define VISIBLE_IF_KUNIT static
#define fs_initcall(f)
#define late_initcall(f)
#define module_init(f)

/*
 * jump_label.h: the one static key, fs.xattr_user_ns, reads the integer the
 * harness sets (kshim.c), as the sysctl's handler would flip it.
 */
extern int sysctl_xattr_user_ns;
struct static_key_true {
	int unused;
};
#define DEFINE_STATIC_KEY_TRUE(name) struct static_key_true name
#define DECLARE_STATIC_KEY_TRUE(name) extern struct static_key_true name
#define static_branch_likely(key) ((void)(key), READ_ONCE(sysctl_xattr_user_ns) != 0)
#define static_key_enabled(key) static_branch_likely(key)

/* build_bug.h */
#define __nscaps_static_assert(expr, msg, ...) _Static_assert(expr, msg)
#define static_assert(expr, ...) __nscaps_static_assert(expr, ##__VA_ARGS__, #expr)
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)

/* bug.h: a kernel warning is a fuzzer crash */
#define nscaps_shim_bug(c, what)                                            \
	({                                                                  \
		bool __c = !!(c);                                           \
		if (__c) {                                                  \
			fprintf(stderr, "%s: %s at %s:%d\n", what, #c,      \
				__FILE__, __LINE__);                        \
			abort();                                            \
		}                                                           \
		__c;                                                        \
	})
#define WARN_ON(c) nscaps_shim_bug(c, "WARN_ON")
#define WARN_ON_ONCE(c) nscaps_shim_bug(c, "WARN_ON_ONCE")
#define WARN(c, ...) nscaps_shim_bug(c, "WARN")
#define WARN_ONCE(c, ...) nscaps_shim_bug(c, "WARN_ONCE")
#define BUG_ON(c) ((void)nscaps_shim_bug(c, "BUG_ON"))
#define BUG() abort()
#define might_sleep() do { } while (0)
#define lockdep_assert_held(l) do { } while (0)
#define pr_warn(...) do { } while (0)
#define pr_info(...) do { } while (0)
#define pr_debug(...) do { } while (0)
#define pr_err(...) do { } while (0)
#define pr_warn_once(...) do { } while (0)
#define pr_warn_ratelimited(...) do { } while (0)

/* kernel.h, minmax.h, array_size.h, overflow.h */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d) __builtin_sub_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
#define container_of(ptr, type, member)                                     \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* bits.h */
#define BITS_PER_LONG 64
#define BIT(n) (1UL << (n))
#define BIT_ULL(n) (1ULL << (n))

/* ctype.h: the kernel's isdigit() is a plain range test */
#define isdigit(c) ('0' <= (c) && (c) <= '9')
#define isspace(c) ((c) == ' ' || ((c) >= '\t' && (c) <= '\r'))

/* string.h: strscpy() */
static inline ssize_t strscpy(char *dst, const char *src, size_t count)
{
	size_t len;

	if (count == 0)
		return -E2BIG;
	len = strnlen(src, count);
	if (len == count) {
		memcpy(dst, src, count - 1);
		dst[count - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

/* err.h */
#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) unlikely((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE((unsigned long)ptr); }
static inline bool IS_ERR_OR_NULL(const void *ptr) { return !ptr || IS_ERR(ptr); }

/* slab.h */
typedef unsigned int gfp_t;
#define GFP_KERNEL 0u
#define GFP_NOFS 0u
#define __GFP_NOWARN 0u
static inline void *kmalloc(size_t n, gfp_t f) { (void)f; return malloc(n ? n : 1); }
static inline void *kzalloc(size_t n, gfp_t f) { (void)f; return calloc(1, n ? n : 1); }
static inline void *kvmalloc(size_t n, gfp_t f) { return kmalloc(n, f); }
static inline void *kvzalloc(size_t n, gfp_t f) { return kzalloc(n, f); }
static inline void kfree(const void *p) { free((void *)p); }
static inline void kvfree(const void *p) { free((void *)p); }

/* uaccess.h: "user" buffers are plain memory in the harness */
static inline unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}
static inline unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}
#define put_user(x, p) ({ *(p) = (x); 0; })

/* uapi/linux/xattr.h and linux/xattr.h */
#define XATTR_CREATE 0x1
#define XATTR_REPLACE 0x2
#define XATTR_OS2_PREFIX "os2."
#define XATTR_SECURITY_PREFIX "security."
#define XATTR_SECURITY_PREFIX_LEN (sizeof(XATTR_SECURITY_PREFIX) - 1)
#define XATTR_SYSTEM_PREFIX "system."
#define XATTR_TRUSTED_PREFIX "trusted."
#define XATTR_USER_PREFIX "user."
#define XATTR_USER_PREFIX_LEN (sizeof(XATTR_USER_PREFIX) - 1)
#define XATTR_CAPS_SUFFIX "capability"
#define XATTR_NAME_CAPS XATTR_SECURITY_PREFIX XATTR_CAPS_SUFFIX
#define XATTR_SELINUX_SUFFIX "selinux"
#define XATTR_NAME_SELINUX XATTR_SECURITY_PREFIX XATTR_SELINUX_SUFFIX
#define XATTR_NAME_MAX 255
#define XATTR_SIZE_MAX 65536
#define XATTR_LIST_MAX 65536

/* uidgid.h */
typedef struct { uid_t val; } kuid_t;
typedef struct { gid_t val; } kgid_t;
typedef struct { uid_t val; } vfsuid_t;
#define KUIDT_INIT(v) ((kuid_t){ (uid_t)(v) })
#define INVALID_UID KUIDT_INIT(-1)
#define GLOBAL_ROOT_UID KUIDT_INIT(0)
#define VFSUIDT_INIT(k) ((vfsuid_t){ (k).val })
#define VFSUIDT_INIT_RAW(v) ((vfsuid_t){ (uid_t)(v) })
#define INVALID_VFSUID VFSUIDT_INIT_RAW(-1)
static inline uid_t __kuid_val(kuid_t k) { return k.val; }
static inline uid_t __vfsuid_val(vfsuid_t v) { return v.val; }
static inline bool uid_valid(kuid_t k) { return k.val != (uid_t)-1; }
static inline bool vfsuid_valid(vfsuid_t v) { return v.val != (uid_t)-1; }
static inline bool uid_eq(kuid_t a, kuid_t b) { return a.val == b.val; }
static inline kuid_t vfsuid_into_kuid(vfsuid_t v) { return KUIDT_INIT(v.val); }

/*
 * user_namespace.h: a namespace maps its uids to its parent's uids through
 * up to NSCAPS_SHIM_EXTENTS extents (what the parent wrote to uid_map); the
 * initial namespace is the identity on 0..4294967294.  The kernel composes
 * the extents into kernel uids when uid_map is written; the result is the
 * same.
 */
#define NSCAPS_SHIM_EXTENTS 3
struct uid_gid_extent {
	u32 first;
	u32 lower_first;
	u32 count;
};
struct uid_gid_map {
	u32 nr_extents;
	struct uid_gid_extent extent[NSCAPS_SHIM_EXTENTS];
};
struct user_namespace {
	struct uid_gid_map uid_map;
	struct user_namespace *parent;
	int level;
};
extern struct user_namespace init_user_ns;
extern struct user_namespace *nscaps_shim_current_ns;

static inline u32 nscaps_map_down(const struct uid_gid_map *m, u32 id)
{
	for (u32 i = 0; i < m->nr_extents; i++) {
		const struct uid_gid_extent *e = &m->extent[i];
		if (id >= e->first && id - e->first < e->count)
			return e->lower_first + (id - e->first);
	}
	return (u32)-1;
}
static inline u32 nscaps_map_up(const struct uid_gid_map *m, u32 id)
{
	for (u32 i = 0; i < m->nr_extents; i++) {
		const struct uid_gid_extent *e = &m->extent[i];
		if (id >= e->lower_first && id - e->lower_first < e->count)
			return e->first + (id - e->lower_first);
	}
	return (u32)-1;
}
static inline kuid_t make_kuid(struct user_namespace *ns, uid_t uid)
{
	for (; ns && ns != &init_user_ns; ns = ns->parent) {
		uid = nscaps_map_down(&ns->uid_map, uid);
		if (uid == (uid_t)-1)
			return INVALID_UID;
	}
	return KUIDT_INIT(uid);
}
static inline uid_t from_kuid(struct user_namespace *ns, kuid_t kuid)
{
	uid_t uid;

	if (!ns || ns == &init_user_ns)
		return kuid.val;
	uid = from_kuid(ns->parent, kuid);
	if (uid == (uid_t)-1)
		return uid;
	return nscaps_map_up(&ns->uid_map, uid);
}
static inline uid_t from_kuid_munged(struct user_namespace *ns, kuid_t kuid)
{
	uid_t uid = from_kuid(ns, kuid);
	return uid == (uid_t)-1 ? 65534 : uid;
}
static inline bool kuid_has_mapping(struct user_namespace *ns, kuid_t kuid)
{
	return from_kuid(ns, kuid) != (uid_t)-1;
}
static inline bool in_userns(const struct user_namespace *ancestor,
			     const struct user_namespace *child)
{
	const struct user_namespace *ns;

	for (ns = child; ns->level > ancestor->level; ns = ns->parent)
		;
	return ns == ancestor;
}
static inline struct user_namespace *current_user_ns(void)
{
	return nscaps_shim_current_ns;
}

/* sched/signal.h: one task, never killed; retries never sleep. */
struct task_struct;
#define current ((struct task_struct *)NULL)
static inline bool fatal_signal_pending(struct task_struct *p) { (void)p; return false; }
static inline void cond_resched(void) { }

/* mnt_idmapping.h, with the semantics of fs/mnt_idmapping.c */
struct mnt_idmap {
	struct uid_gid_map uid_map;
};
extern struct mnt_idmap nop_mnt_idmap;
extern struct mnt_idmap invalid_mnt_idmap;
static inline bool initial_idmapping(const struct user_namespace *ns)
{
	return ns == &init_user_ns;
}
static inline vfsuid_t make_vfsuid(struct mnt_idmap *idmap,
				   struct user_namespace *fs_userns, kuid_t kuid)
{
	uid_t uid;

	if (idmap == &nop_mnt_idmap)
		return VFSUIDT_INIT(kuid);
	if (idmap == &invalid_mnt_idmap)
		return INVALID_VFSUID;
	if (initial_idmapping(fs_userns))
		uid = __kuid_val(kuid);
	else
		uid = from_kuid(fs_userns, kuid);
	if (uid == (uid_t)-1)
		return INVALID_VFSUID;
	return VFSUIDT_INIT_RAW(nscaps_map_down(&idmap->uid_map, uid));
}
static inline kuid_t from_vfsuid(struct mnt_idmap *idmap,
				 struct user_namespace *fs_userns, vfsuid_t vfsuid)
{
	uid_t uid;

	if (idmap == &nop_mnt_idmap)
		return KUIDT_INIT(vfsuid.val);
	if (idmap == &invalid_mnt_idmap)
		return INVALID_UID;
	uid = nscaps_map_up(&idmap->uid_map, __vfsuid_val(vfsuid));
	if (uid == (uid_t)-1)
		return INVALID_UID;
	if (initial_idmapping(fs_userns))
		return KUIDT_INIT(uid);
	return make_kuid(fs_userns, uid);
}

/* dcache.h, fs.h, xattr.h: one object with a fake raw xattr store */
struct super_block {
	struct user_namespace *s_user_ns;
	unsigned long s_iflags;
};
#define SB_I_XATTR_LOCAL 0x00004000
struct dentry;
struct inode_operations {
	ssize_t (*listxattr)(struct dentry *dentry, char *list, size_t size);
};
struct inode {
	struct super_block *i_sb;
	const struct inode_operations *i_op;
	unsigned int i_flags;
};
#define S_NONSXATTR (1 << 18)
/* One thread: the lock always succeeds. */
static inline int inode_trylock(struct inode *inode) { (void)inode; return 1; }
static inline void inode_unlock(struct inode *inode) { (void)inode; }
static inline void inode_set_flags(struct inode *inode, unsigned int flags,
				   unsigned int mask)
{
	inode->i_flags = (inode->i_flags & ~mask) | flags;
}
extern const struct inode_operations nscaps_shim_iop;
/* d_flags: the harness's objects are never stacked (no DCACHE_OP_REAL). */
#define DCACHE_OP_REAL 0x04000000
struct dentry {
	unsigned int d_flags;
	struct super_block *d_sb;
	struct inode *d_inode;
};
static inline struct inode *d_inode(const struct dentry *d) { return d->d_inode; }
static inline struct inode *d_backing_inode(const struct dentry *d) { return d->d_inode; }

/* mount.h, path.h: what the overlay's helpers use (not fuzzed). */
struct vfsmount {
	struct mnt_idmap *mnt_idmap;
};
struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
};
static inline struct mnt_idmap *mnt_idmap(const struct vfsmount *mnt)
{
	return mnt->mnt_idmap;
}

/* The store: a raw list (names, each NUL-terminated), set by the harness. */
extern const char *nscaps_shim_store;
extern size_t nscaps_shim_store_len;
extern unsigned long nscaps_shim_store_probes;
int __vfs_getxattr(struct dentry *dentry, struct inode *inode, const char *name,
		   void *value, size_t size);
ssize_t vfs_listxattr(struct dentry *dentry, char *list, size_t size);

#endif /* NSCAPS_KSHIM_H */
