// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_raw_names - xattr_user_ns_raw_names(), the kernel's own filter that
 * finds every "<base>@..." raw name of an object for in-kernel callers
 * (killpriv), over fuzzed raw lists served by the fake ->listxattr().
 *
 * Input: a base byte, then the raw list (missing NULs, empty entries,
 * malformed names included).
 * Invariants:
 *  - NULL, an ERR_PTR, or a list of *len bytes whose entries are exactly the
 *    complete (NUL-terminated) raw entries that start with "<base>@", in
 *    order, nothing else (a value killpriv misses keeps capabilities);
 *  - nothing is read past the raw list or written past the buffer (ASan),
 *    nothing leaks (LSan).
 */
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct nsconf c;
	unsigned int base;
	const char *bn;
	size_t len = 0, bl, ro = 0, oo = 0, k;
	char *raw, *out;

	decode_conf(&in, &c);
	base = get8(&in) % XATTR_USER_NS_NR_BASES;
	if (in.n > XATTR_LIST_MAX)
		return -1;
	raw = malloc(in.n ? in.n : 1);
	memcpy(raw, in.p, in.n);
	nscaps_shim_store = raw;
	nscaps_shim_store_len = in.n;

	out = xattr_user_ns_raw_names(&c.dentry, base, &len);
	CHECK(!IS_ERR(out) || PTR_ERR(out) == -ENOMEM, "error %ld", PTR_ERR(out));
	if (IS_ERR(out))
		out = NULL;
	bn = xattr_user_ns_base_name(base);
	bl = strlen(bn);
	if (!out)
		len = 0;
	CHECK(!out || len > 0, "empty list returned");
	for (;;) {
		/* next complete raw entry starting with "<base>@" */
		while (ro < in.n) {
			k = strnlen(raw + ro, in.n - ro);
			if (ro + k < in.n && k > bl && !memcmp(raw + ro, bn, bl) && raw[ro + bl] == '@')
				break;
			ro += k + 1;
		}
		if (ro >= in.n) {
			CHECK(oo == len, "extra names returned (%zu of %zu bytes used)", oo, len);
			break;
		}
		k = strnlen(raw + ro, in.n - ro);
		CHECK(oo + k < len && !memcmp(out + oo, raw + ro, k + 1),
		      "raw \"%s\" missing from the list", raw + ro);
		oo += k + 1;
		ro += k + 1;
	}
	kvfree(out);
	free(raw);
	return 0;
}
