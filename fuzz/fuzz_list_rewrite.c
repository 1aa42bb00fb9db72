// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_list_rewrite - xattr_user_ns_list(), the kernel's own rewriter of a
 * raw listxattr() result into the caller's view, under fuzzed namespace
 * chains, idmaps and raw lists (missing NULs, empty entries, duplicates,
 * malformed and overlong names included).
 *
 * Input: a namespace configuration (common.h), a size byte, the raw list.
 * Invariants (port-map.md §4.4, semantics.md "list"):
 *  - the size query (size 0) returns the exact length of the list written
 *    into a buffer of that size (no "raw length" answer, §4.4c);
 *  - every smaller size is -ERANGE and writes nothing past the buffer (the
 *    buffers are exact-size heap blocks: ASan reports any overflow, §4.4b);
 *  - a larger buffer gets the same bytes and nothing after them;
 *  - the raw list is read only within its length (exact-size copy, §4.4d);
 *  - nothing leaks (LeakSanitizer, §4.4f);
 *  - the result is a list of NUL-terminated names; for a well-formed raw
 *    list: the ordinary names, unchanged and in order (§4.4a), "<base>" at
 *    most once and exactly when a plain read would succeed, no key 0, no
 *    unmapped key, no raw name of the caller's own key;
 *  - a layer's list (security.selinux in @plain_only, as overlayfs lists
 *    it): the same size rules; for a well-formed raw list, the same names
 *    but security.selinux, which is listed once exactly when the raw list
 *    has the plain name.
 */
#include "common.h"

static ssize_t call_as(const struct xattr_user_ns_ctx *ctx, const char *raw,
		       size_t rawlen, unsigned long plain_only, size_t size,
		       char **outp)
{
	char *out = malloc(size ? size : 1);
	ssize_t r;

	memset(out, 0xa5, size ? size : 1);
	r = xattr_user_ns_list(ctx, raw, rawlen, plain_only, size ? out : NULL,
			       size);
	if (outp)
		*outp = out;
	else
		free(out);
	return r;
}

/* The caller's view of a raw list, as listxattr() gives it. */
static ssize_t call(const struct xattr_user_ns_ctx *ctx, const char *raw,
		    size_t rawlen, size_t size, char **outp)
{
	return call_as(ctx, raw, rawlen, 0, size, outp);
}

/* Every entry non-empty, NUL-terminated, no duplicates, namespaced ones well-formed. */
static bool well_formed(const char *l, size_t len)
{
	struct xattr_user_ns_name n;
	size_t off = 0, k;

	while (off < len) {
		k = strnlen(l + off, len - off);
		if (k == 0 || off + k == len || k > XATTR_NAME_MAX)
			return false;
		if (xattr_user_ns_parse(l + off, k, &n))
			return false;
		if (list_has(l, off, l + off))
			return false;
		off += k + 1;
	}
	return true;
}

/* @l (@len bytes) without its "security.selinux" entries, into @out. */
static size_t without_label(const char *l, size_t len, char *out)
{
	size_t off, k, o = 0;

	for (off = 0; off < len; off += k + 1) {
		k = strnlen(l + off, len - off);
		if (strcmp(l + off, XATTR_NAME_SELINUX)) {
			memcpy(out + o, l + off, k + 1);
			o += k + 1;
		}
	}
	return o;
}

/*
 * A layer's list (overlayfs): security.selinux is the layer's plain label,
 * listed only where the raw list has it; every other name as in the
 * caller's view (@view, @n0 bytes).
 */
static void check_layer(const struct xattr_user_ns_ctx *ctx, const char *raw,
			size_t rawlen, const char *view, ssize_t n0)
{
	const unsigned long mask = BIT(XATTR_USER_NS_SELINUX);
	char *layer, *a, *b;
	ssize_t n, shown = 0;
	size_t off;

	n = call_as(ctx, raw, rawlen, mask, 0, NULL);
	if (n < 0) {
		CHECK(n == -E2BIG, "layer size query: error %zd", n);
		return;
	}
	CHECK(call_as(ctx, raw, rawlen, mask, n, &layer) == n,
	      "layer list: not its size query %zd", n);
	if (n > 1)	/* size 0 is the size query */
		CHECK(call_as(ctx, raw, rawlen, mask, n - 1, NULL) == -ERANGE,
		      "layer list one byte short: not ERANGE");
	if (well_formed(raw, rawlen) && sysctl_xattr_user_ns &&
	    !xattr_user_ns_privileged(ctx)) {
		for (off = 0; off < (size_t)n; off += strlen(layer + off) + 1)
			shown += !strcmp(layer + off, XATTR_NAME_SELINUX);
		CHECK(shown == list_has(raw, rawlen, XATTR_NAME_SELINUX),
		      "layer lists security.selinux %zd times", shown);
		a = malloc(n0 + 1);
		b = malloc(n + 1);
		n0 = without_label(view, n0, a);
		n = without_label(layer, n, b);
		CHECK(n == n0 && !memcmp(a, b, n),
		      "layer list differs from the view but for the label");
		free(a);
		free(b);
	}
	free(layer);
}

/*
 * xattr_user_ns_listxattr(), the syscall side: one kernel buffer for the raw
 * and the rewritten list, filled from vfs_listxattr() (the shim serves the
 * raw list), copied to an exact-size "user" buffer.
 */
static void check_syscall(const struct xattr_user_ns_ctx *ctx, struct nsconf *c,
			  const char *raw, size_t rawlen, ssize_t n0, uint8_t sz)
{
	size_t sizes[4] = { 0, n0 ? n0 - 1 : 0, n0, n0 + 1 + sz };
	ssize_t want, r;

	nscaps_shim_store = raw;
	nscaps_shim_store_len = rawlen;
	for (int i = 0; i < 4; i++) {
		size_t s = sizes[i];
		char *ubuf = malloc(s ? s : 1);

		r = xattr_user_ns_listxattr(ctx, &c->dentry, s ? ubuf : NULL, s);
		if (!rawlen)
			want = 0;
		else if (s == 0 || s >= (size_t)n0 || n0 == 0)
			want = n0;
		else
			want = s >= XATTR_LIST_MAX ? -E2BIG : -ERANGE;
		if (s > XATTR_LIST_MAX && n0 > XATTR_LIST_MAX)
			want = -E2BIG;
		CHECK(r == want, "listxattr(size %zu): %zd, want %zd", s, r, want);
		free(ubuf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct xattr_user_ns_ctx ctx;
	struct nsconf c;
	char *raw, *exact, *big;
	ssize_t n0, r;
	size_t rawlen, off;
	uint8_t sz;

	decode_conf(&in, &c);
	sz = get8(&in);
	rawlen = in.n;
	if (rawlen > XATTR_LIST_MAX)
		return -1;
	raw = malloc(rawlen ? rawlen : 1);
	memcpy(raw, in.p, rawlen);
	xattr_user_ns_init_ctx(&ctx, c.idmap, c.fs_ns, c.caller);

	n0 = call(&ctx, raw, rawlen, 0, NULL);
	if (n0 < 0) {
		CHECK(n0 == -E2BIG || n0 == -ERANGE || n0 == -EINVAL || n0 == -EIO,
		      "size query: error %zd", n0);
		CHECK(!well_formed(raw, rawlen) || n0 == -E2BIG,
		      "size query of a well-formed list: error %zd", n0);
		/* the same answer whatever the buffer */
		r = call(&ctx, raw, rawlen, 1 + sz * 64, NULL);
		CHECK(r < 0, "size query failed (%zd) but a buffer got %zd", n0, r);
		goto out;
	}
	check_syscall(&ctx, &c, raw, rawlen, n0, sz);

	r = call(&ctx, raw, rawlen, n0, &exact);
	CHECK(r == n0, "exact buffer of %zd bytes: %zd", n0, r);
	if (n0 > 1) {
		CHECK(call(&ctx, raw, rawlen, n0 - 1, NULL) == -ERANGE,
		      "buffer one byte short: not ERANGE");
		CHECK(call(&ctx, raw, rawlen, 1 + sz % n0, NULL) == (1 + sz % n0 == (size_t)n0 ? n0 : -ERANGE),
		      "buffer of %zu bytes for %zd", (size_t)(1 + sz % n0), n0);
	}
	if (n0 > 0)
		CHECK(exact[n0 - 1] == '\0', "list does not end with a NUL");
	check_layer(&ctx, raw, rawlen, exact, n0);
	r = call(&ctx, raw, rawlen, n0 + 8 + sz, &big);
	CHECK(r == n0, "large buffer: %zd, size query %zd", r, n0);
	CHECK(!memcmp(big, exact, n0), "large and exact buffers differ");
	for (size_t i = n0; i < (size_t)n0 + 8 + sz; i++)
		CHECK((uint8_t)big[i] == 0xa5, "byte %zu written past the list of %zd", i, n0);

	/* entries: non-empty names, at most XATTR_NAME_MAX, never a key 0 */
	for (off = 0; off < (size_t)n0;) {
		struct xattr_user_ns_name p;
		size_t k = strnlen(exact + off, n0 - off);

		CHECK(off + k < (size_t)n0, "unterminated entry");
		if (xattr_user_ns_parse(exact + off, k, &p) == 0 &&
		    p.kind != XATTR_USER_NS_ORDINARY && !xattr_user_ns_privileged(&ctx)) {
			/* a namespaced name shown to a namespace is in its view */
			CHECK(p.kind != XATTR_USER_NS_KEY || p.key != 0, "key 0 listed");
		}
		off += k + 1;
	}

	if (well_formed(raw, rawlen) && sysctl_xattr_user_ns &&
	    !xattr_user_ns_privileged(&ctx)) {
		/* ordinary names: all of them, unchanged, in order */
		size_t ro = 0, oo = 0;
		struct xattr_user_ns_name p;

		for (;;) {
			while (ro < rawlen && (xattr_user_ns_parse(raw + ro, strlen(raw + ro), &p),
					       p.kind != XATTR_USER_NS_ORDINARY))
				ro += strlen(raw + ro) + 1;
			while (oo < (size_t)n0 && (xattr_user_ns_parse(exact + oo, strlen(exact + oo), &p),
						   p.kind != XATTR_USER_NS_ORDINARY))
				oo += strlen(exact + oo) + 1;
			if (ro >= rawlen || oo >= (size_t)n0) {
				CHECK(ro >= rawlen && oo >= (size_t)n0,
				      "ordinary names lost or added");
				break;
			}
			CHECK(!strcmp(raw + ro, exact + oo), "ordinary \"%s\" listed as \"%s\"",
			      raw + ro, exact + oo);
			ro += strlen(raw + ro) + 1;
			oo += strlen(exact + oo) + 1;
		}
		for (unsigned int b = 0; b < XATTR_USER_NS_NR_BASES; b++) {
			const char *base = xattr_user_ns_base_name(b);
			char name[64];
			bool readable = list_has(raw, rawlen, base);
			int shown = 0;
			struct user_namespace *ns = c.caller;

			snprintf(name, sizeof(name), "%s@uid", base);
			if (ref_wild_key(&c, ctx.key) != (uint32_t)-1)
				readable |= list_has(raw, rawlen, name);
			/* outside fs_ns no level is walked */
			for (; !ref_outside(&c);) {
				uint32_t k = ref_level_key(&c, ns, ctx.key);
				if (k == 0)
					break;
				if (k != (uint32_t)-1) {
					snprintf(name, sizeof(name), "%s@uid=%u", base, k);
					readable |= list_has(raw, rawlen, name);
				}
				if (ns == c.fs_ns || ns == &init_user_ns)
					break;
				ns = ns->parent;
			}
			for (off = 0; off < (size_t)n0; off += strlen(exact + off) + 1)
				shown += !strcmp(exact + off, base);
			CHECK(shown == readable, "\"%s\" listed %d times, plain read %s", base,
			      shown, readable ? "succeeds" : "fails");
			/*
			 * keys: raw K (not the caller's own, mapped in its view) is
			 * listed as N, once; nothing else is listed as a key
			 */
			for (off = 0; off < rawlen; off += strlen(raw + off) + 1) {
				struct xattr_user_ns_name p;
				uint32_t N;
				kuid_t kk;
				vfsuid_t vu;
				int seen = 0;

				xattr_user_ns_parse(raw + off, strlen(raw + off), &p);
				if (p.kind != XATTR_USER_NS_KEY || p.base != b)
					continue;
				kk = make_kuid(c.fs_ns, p.key);
				vu = make_vfsuid(c.idmap, c.fs_ns, kk);
				N = vfsuid_valid(vu) ? from_kuid(c.caller, vfsuid_into_kuid(vu))
						     : (uint32_t)-1;
				/*
				 * N = 0 has no name (@uid=0 is EINVAL, <base> is
				 * the plain value): a key C cannot name is hidden,
				 * as for a host root whose idmap maps K to its 0.
				 */
				if (p.key == ctx.key || N == (uint32_t)-1 || N == 0)
					continue;
				snprintf(name, sizeof(name), "%s@uid=%u", base, N);
				for (size_t o = 0; o < (size_t)n0; o += strlen(exact + o) + 1)
					seen += !strcmp(exact + o, name);
				CHECK(seen == 1, "raw \"%s\" listed %d times as \"%s\"",
				      raw + off, seen, name);
			}
			for (off = 0; off < (size_t)n0; off += strlen(exact + off) + 1) {
				struct xattr_user_ns_name p;
				uint32_t K;

				xattr_user_ns_parse(exact + off, strlen(exact + off), &p);
				if (p.kind != XATTR_USER_NS_KEY || p.base != b)
					continue;
				K = ref_key(&c, c.caller, p.key);
				CHECK(K != (uint32_t)-1 && K != 0 && K != ctx.key,
				      "\"%s\" listed: key %u", exact + off, K);
				snprintf(name, sizeof(name), "%s@uid=%u", base, K);
				CHECK(list_has(raw, rawlen, name), "\"%s\" listed, raw \"%s\" absent",
				      exact + off, name);
			}
		}
	}
	free(big);
	free(exact);
out:
	free(raw);
	return 0;
}
