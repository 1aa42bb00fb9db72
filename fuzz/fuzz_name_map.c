// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_name_map - xattr_user_ns_map() (the syscall-boundary translation of
 * get/set/remove names, the kernel's own source) under fuzzed namespace
 * chains, idmaps and stored names.
 *
 * Input: a namespace configuration (common.h), an operation byte, a name
 * (up to the first NUL, at most XATTR_NAME_MAX bytes), then the raw names
 * stored on the object (NUL-separated).
 * Invariants, from design/semantics.md "What a caller C sees":
 *  - sysctl off, names outside "security.", ordinary names and
 *    fs-privileged callers: the name itself (or -EINVAL if malformed);
 *    the host's reads: the name, unparsed, and xattr_user_ns_miss() turns
 *    their -ENODATA into -EINVAL if malformed;
 *  - malformed "<base>@..." names: -EINVAL for every caller and operation;
 *  - write/remove never reach the plain name or the wildcard from a
 *    namespace, and never key 0 (port-map.md §4.3); a write of "<base>"
 *    goes to the caller's own key;
 *  - reads of "<base>" resolve in order: own key, ancestors' keys, the
 *    wildcard, the plain name (reference walk written from the spec);
 *  - a built name fits the XATTR_USER_NS_NAME_MAX stack buffer (ASan).
 */
#include "common.h"

static void check_built(const char *r, unsigned int base, struct xattr_user_ns_name *p)
{
	CHECK(strnlen(r, XATTR_USER_NS_NAME_MAX) < XATTR_USER_NS_NAME_MAX,
	      "built name overflows its buffer");
	CHECK(xattr_user_ns_parse(r, strlen(r), p) == 0, "built \"%s\" is malformed", r);
	CHECK(p->kind != XATTR_USER_NS_ORDINARY && p->base == base,
	      "built \"%s\" is of another base", r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct xattr_user_ns_name n, p;
	struct xattr_user_ns_ctx ctx;
	struct nsconf c;
	enum xattr_user_ns_op op;
	const char *r;
	char *name, *buf, *store, buf2[XATTR_USER_NS_NAME_MAX];
	bool read;
	size_t nl, sl;
	uint32_t K;
	int pret;

	decode_conf(&in, &c);
	op = (enum xattr_user_ns_op)(get8(&in) % 4);
	nl = strnlen((const char *)in.p, in.n);
	if (nl == 0 || nl > XATTR_NAME_MAX)
		return -1;
	name = malloc(nl + 1);
	memcpy(name, in.p, nl);
	name[nl] = '\0';
	in.p += nl;
	in.n -= nl;
	if (in.n) {
		in.p++;
		in.n--;
	}
	sl = in.n;
	store = malloc(sl ? sl : 1);
	memcpy(store, in.p, sl);
	nscaps_shim_store = store;
	nscaps_shim_store_len = sl;
	buf = malloc(XATTR_USER_NS_NAME_MAX);

	r = xattr_user_ns_map(c.idmap,
			      &c.dentry, name, op, buf);
	read = op == XATTR_USER_NS_GET || op == XATTR_USER_NS_GET_OWN;
	if (read && !IS_ERR(r)) {
		/* Again: the first read may have set the inode's hint. */
		const char *r2 = xattr_user_ns_map(c.idmap, &c.dentry, name,
						   op, buf2);

		CHECK(!IS_ERR(r2) && !strcmp(r, r2),
		      "second read of \"%s\" gives \"%s\", first \"%s\"", name,
		      IS_ERR(r2) ? "(error)" : r2, r);
	}

	pret = ref_parse(name, nl, &n);
	xattr_user_ns_init_ctx(&ctx, c.idmap, c.fs_ns, c.caller);
	K = ref_own_key(&c);
	CHECK(ctx.key == K, "ctx.key %u, reference %u", ctx.key, K);

	if (!sysctl_xattr_user_ns || strncmp(name, "security.", 9)) {
		CHECK(r == name, "translated with the sysctl off or outside security.");
		goto out;
	}
	if (read && c.caller == c.fs_ns && c.idmap == &nop_mnt_idmap) {
		/* the host reads names unparsed; a miss says EINVAL */
		CHECK(r == name, "fs-privileged read of \"%s\" translated", name);
		CHECK(xattr_user_ns_miss(c.idmap, &c.dentry, name, -ENODATA) ==
		      (pret ? -EINVAL : -ENODATA),
		      "miss on \"%s\": wrong error", name);
		CHECK(xattr_user_ns_miss(c.idmap, &c.dentry, name, -ERANGE) == -ERANGE,
		      "miss rewrote -ERANGE");
		goto out;
	}
	if (pret) {
		CHECK(r == ERR_PTR(-EINVAL), "malformed \"%s\" not -EINVAL (%ld)", name,
		      IS_ERR(r) ? PTR_ERR(r) : 0L);
		goto out;
	}
	/* A name passed through to any other reader is well-formed: no parse on a miss. */
	if (read && r == name)
		CHECK(xattr_user_ns_miss(c.idmap, &c.dentry, name, -ENODATA) == -ENODATA,
		      "miss on passed-through \"%s\": wrong error", name);
	if (n.kind == XATTR_USER_NS_ORDINARY || K == 0) {
		CHECK(r == name, "ordinary or fs-privileged \"%s\" translated", name);
		goto out;
	}
	if (n.kind == XATTR_USER_NS_PLAIN && ref_keyless(&c, K)) {
		/* served as stock: the plain name for every operation */
		CHECK(r == name, "keyless caller's \"%s\" translated", name);
		goto out;
	}
	if (IS_ERR(r)) {
		long e = PTR_ERR(r);
		CHECK(e == -EINVAL || e == -ENODATA || e == -EPERM, "error %ld", e);
	}
	switch (n.kind) {
	case XATTR_USER_NS_WILDCARD:
		if (read)
			CHECK(r == (ref_outside(&c) ? ERR_PTR(-ENODATA) : name),
			      "wildcard read: wrong answer for a caller %s fs_ns",
			      ref_outside(&c) ? "outside" : "below");
		else
			CHECK(r == ERR_PTR(-EPERM), "wildcard write/remove from a namespace not EPERM");
		break;
	case XATTR_USER_NS_PLAIN:
		if (op == XATTR_USER_NS_GET_OWN && K != (uint32_t)-1) {
			/* the caller's own key, unprobed */
			CHECK(!IS_ERR(r), "own read failed (%ld)", PTR_ERR(r));
			check_built(r, n.base, &p);
			CHECK(p.kind == XATTR_USER_NS_KEY && p.key == K,
			      "own read goes to \"%s\", not key %u", r, K);
		} else if (!read) {
			if (K == (uint32_t)-1) {
				CHECK(r == ERR_PTR(op == XATTR_USER_NS_SET ? -EINVAL : -ENODATA),
				      "no key: wrong error");
				break;
			}
			CHECK(!IS_ERR(r) && r != name, "plain write/remove not translated");
			check_built(r, n.base, &p);
			CHECK(p.kind == XATTR_USER_NS_KEY && p.key == K,
			      "plain write/remove goes to \"%s\", not key %u", r, K);
		} else {
			/* reference walk: own key, ancestors', wildcard, plain */
			struct user_namespace *ns = c.caller;
			char want[64] = "";

			for (;;) {
				uint32_t k = ref_level_key(&c, ns, K);
				char cand[64];

				if (k == 0)
					break;
				if (k != (uint32_t)-1) {
					snprintf(cand, sizeof(cand), "%s@uid=%u",
						 xattr_user_ns_base_name(n.base), k);
					if (list_has(store, sl, cand)) {
						strcpy(want, cand);
						break;
					}
				}
				if (ns == c.fs_ns || ns == &init_user_ns)
					break;
				ns = ns->parent;
			}
			if (!want[0]) {
				snprintf(want, sizeof(want), "%s@uid",
					 xattr_user_ns_base_name(n.base));
				if (ref_wild_key(&c, K) == (uint32_t)-1 ||
				    !list_has(store, sl, want))
					strcpy(want, xattr_user_ns_base_name(n.base));
			}
			CHECK(!IS_ERR(r), "plain read failed (%ld)", PTR_ERR(r));
			check_built(r, n.base, &p);
			CHECK(!strcmp(r, want), "plain read resolves to \"%s\", reference \"%s\"",
			      r, want);
		}
		break;
	default: { /* "<base>@uid=N" */
		uint32_t k = ref_key(&c, c.caller, n.key);

		if (k == 0) {
			CHECK(r == ERR_PTR(-EINVAL), "alias of the host's value not EINVAL");
		} else if (k == (uint32_t)-1) {
			CHECK(r == ERR_PTR(op == XATTR_USER_NS_SET ? -EINVAL : -ENODATA),
			      "unmapped N: wrong error");
		} else {
			CHECK(!IS_ERR(r), "@uid=N failed (%ld)", PTR_ERR(r));
			check_built(r, n.base, &p);
			CHECK(p.kind == XATTR_USER_NS_KEY && p.key == k,
			      "@uid=%u goes to \"%s\", not key %u", n.key, r, k);
		}
		break;
	}
	}
	if (!IS_ERR(r) && !read && r != name) {
		CHECK(xattr_user_ns_parse(r, strlen(r), &p) == 0 &&
		      p.kind == XATTR_USER_NS_KEY && p.key != 0,
		      "write/remove from a namespace reaches \"%s\"", r);
	}
out:
	free(buf);
	free(store);
	free(name);
	return 0;
}
