// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_name_parse - xattr_user_ns_parse() and xattr_user_ns_format(), the
 * kernel's own source, against the grammar of design/semantics.md.
 *
 * The input is a name (any bytes, parsed by length as the kernel does).
 * Invariants:
 *  - the result equals an independent reference parser: accepted keys are
 *    1..4294967294 written canonically, every other "<base>@..." is -EINVAL,
 *    everything else is ordinary (port-map.md §4.1: no space skipping, no
 *    leading zero, no sign, no truncated overflow);
 *  - an accepted namespaced name re-renders (xattr_user_ns_format) to
 *    exactly the input, in a buffer of XATTR_USER_NS_NAME_MAX bytes;
 *  - the parser reads nothing past the name (ASan, exact-size copy).
 */
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xattr_user_ns_name res, ref;
	char *name, *buf;
	int ret, rret;

	if (size > 4 * XATTR_NAME_MAX)
		return -1;
	name = malloc(size ? size : 1);
	memcpy(name, data, size);

	ret = xattr_user_ns_parse(name, size, &res);
	rret = ref_parse(name, size, &ref);
	CHECK(ret == 0 || ret == -EINVAL, "ret %d", ret);
	CHECK(ret == rret, "ret %d, reference %d for \"%.*s\"", ret, rret,
	      (int)size, name);
	if (!memchr(name, '\0', size)) {
		/* the one-pass parser of NUL-terminated names agrees */
		struct xattr_user_ns_name one;
		char *str = malloc(size + 1);

		memcpy(str, name, size);
		str[size] = '\0';
		CHECK(xattr_user_ns_parse_name(str, &one) == ret,
		      "parse_name disagrees on \"%s\"", str);
		CHECK(ret || (one.kind == res.kind && one.base == res.base &&
			      one.key == res.key),
		      "parse_name result differs on \"%s\"", str);
		free(str);
	}
	if (ret == 0) {
		CHECK(res.kind == ref.kind, "kind %d, reference %d", res.kind, ref.kind);
		if (res.kind != XATTR_USER_NS_ORDINARY) {
			CHECK(res.base < XATTR_USER_NS_NR_BASES, "base %u", res.base);
			CHECK(res.base == ref.base, "base %u, reference %u", res.base, ref.base);
		}
		if (res.kind == XATTR_USER_NS_KEY) {
			CHECK(res.key >= 1 && res.key <= 4294967294u, "key %u", res.key);
			CHECK(res.key == ref.key, "key %u, reference %u", res.key, ref.key);
		}
		if (res.kind != XATTR_USER_NS_ORDINARY) {
			const char *out;

			buf = malloc(XATTR_USER_NS_NAME_MAX);
			out = xattr_user_ns_format(buf, res.base, res.kind, res.key);
			CHECK(strnlen(out, XATTR_USER_NS_NAME_MAX) < XATTR_USER_NS_NAME_MAX,
			      "unterminated render");
			CHECK(strlen(out) == size && !memcmp(out, name, size),
			      "render \"%s\" != input \"%.*s\"", out, (int)size, name);
			free(buf);
		}
	}
	free(name);
	return 0;
}
