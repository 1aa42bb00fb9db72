// SPDX-License-Identifier: GPL-2.0
/* unit.c - native unit tests of the nscap library, TAP output */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "captext.h"
#include "dumpfmt.h"
#include "fscaps.h"
#include "quote.h"
#include "xname.h"

static int n_run, n_fail;

static void __attribute__((format(printf, 2, 3))) ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	n_run++;
	if (!cond)
		n_fail++;
	printf("%sok %d - ", cond ? "" : "not ", n_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Parse "0x..." test vectors; returns the length. */
static size_t unhex(const char *hex, unsigned char *buf, size_t max)
{
	unsigned char *d = NULL;
	size_t len = 0;

	if (nscap_value_decode(hex, &d, &len) || len > max) {
		fprintf(stderr, "bad test vector %s\n", hex);
		exit(99);
	}
	memcpy(buf, d, len);
	free(d);
	return len;
}

/* ---- decode -------------------------------------------------------------- */

static const struct decode_case {
	const char *desc;
	const char *hex;   /* NULL: use len zero bytes */
	size_t len;        /* when hex is NULL */
	int err;
	unsigned int rev;
	bool eff;
	unsigned long long p, i;
	unsigned int rootid;
} decode_cases[] = {
	{ "v2 cap_net_raw=ep", "0x0100000200200000000000000000000000000000",
	  0, 0, 2, true, 0x2000, 0, 0 },
	{ "v2 cap_net_raw=p (no effective)",
	  "0x0000000200200000000000000000000000000000", 0, 0, 2, false, 0x2000, 0, 0 },
	{ "v3 rootid 1000 little-endian",
	  "0x010000030020000000000000000000000000000000e8030000", 0, 0, 0, 0, 0, 0, 0 },
	{ "v3 rootid 1000", "0x0100000300200000000000000000000000000000e8030000",
	  0, 0, 3, true, 0x2000, 0, 1000 },
	{ "v3 rootid 4294967294", "0x0000000301000000020000000000000000000000feffffff",
	  0, 0, 3, false, 1, 2, 4294967294u },
	{ "v1 12 bytes", "0x010000010300000004000000", 0, 0, 1, true, 3, 4, 0 },
	{ "v2 high words", "0x0000000201000000000000000100000000000080",
	  0, 0, 2, false, 0x100000001ull, 0x8000000000000000ull, 0 },
	{ "empty", NULL, 0, NSCAP_FCAPS_ETRUNC, 0, 0, 0, 0, 0 },
	{ "3 bytes", "0x010000", 0, NSCAP_FCAPS_ETRUNC, 0, 0, 0, 0, 0 },
	{ "magic only", "0x01000002", 0, NSCAP_FCAPS_ETRUNC, 0, 0, 0, 0, 0 },
	{ "v1 truncated (11)", "0x0100000103000000040000", 0, NSCAP_FCAPS_ETRUNC, 0, 0, 0, 0, 0 },
	{ "v2 truncated (19)", "0x01000002002000000000000000000000000000",
	  0, NSCAP_FCAPS_ETRUNC, 0, 0, 0, 0, 0 },
	{ "v2 header with v1 size (12)", "0x010000020020000000000000",
	  0, NSCAP_FCAPS_ETRUNC, 0, 0, 0, 0, 0 },
	{ "v3 truncated (23)", "0x0100000300200000000000000000000000000000e80300",
	  0, NSCAP_FCAPS_ETRUNC, 0, 0, 0, 0, 0 },
	{ "v3 header with v2 size (20)", "0x0100000300200000000000000000000000000000",
	  0, NSCAP_FCAPS_ETRUNC, 0, 0, 0, 0, 0 },
	{ "v1 oversized (13)", "0x01000001030000000400000000", 0, NSCAP_FCAPS_ELONG, 0, 0, 0, 0, 0 },
	{ "v1 header with v2 size (20)", "0x0100000100200000000000000000000000000000",
	  0, NSCAP_FCAPS_ELONG, 0, 0, 0, 0, 0 },
	{ "v2 oversized (21)", "0x010000020020000000000000000000000000000000",
	  0, NSCAP_FCAPS_ELONG, 0, 0, 0, 0, 0 },
	{ "v2 header with v3 size (24)", "0x0100000200200000000000000000000000000000e8030000",
	  0, NSCAP_FCAPS_ELONG, 0, 0, 0, 0, 0 },
	{ "v3 oversized (25)", "0x0100000300200000000000000000000000000000e803000000",
	  0, NSCAP_FCAPS_ELONG, 0, 0, 0, 0, 0 },
	{ "revision 0", "0x0100000000200000000000000000000000000000", 0, NSCAP_FCAPS_EREV, 0, 0, 0, 0, 0 },
	{ "revision 4", "0x0100000400200000000000000000000000000000e8030000",
	  0, NSCAP_FCAPS_EREV, 0, 0, 0, 0, 0 },
	{ "revision 0xff", "0x010000ff00200000000000000000000000000000",
	  0, NSCAP_FCAPS_EREV, 0, 0, 0, 0, 0 },
	{ "all-zero 20 bytes", NULL, 20, NSCAP_FCAPS_EREV, 0, 0, 0, 0, 0 },
	{ "reserved flag bit 1", "0x0200000200200000000000000000000000000000",
	  0, NSCAP_FCAPS_EMAGIC, 0, 0, 0, 0, 0 },
	{ "reserved flag bit 23", "0x0100800200200000000000000000000000000000",
	  0, NSCAP_FCAPS_EMAGIC, 0, 0, 0, 0, 0 },
	{ "ASCII garbage", "0x6361705f6e65745f7261773d6570", 0, NSCAP_FCAPS_EREV, 0, 0, 0, 0, 0 },
};

static void test_decode(void)
{
	for (size_t k = 0; k < sizeof(decode_cases) / sizeof(decode_cases[0]); k++) {
		const struct decode_case *t = &decode_cases[k];
		unsigned char buf[64] = { 0 };
		size_t len = t->hex ? unhex(t->hex, buf, sizeof(buf)) : t->len;
		struct nscap_fcaps c = { .revision = 77 };
		int err = nscap_fcaps_decode(buf, len, &c);

		if (t->rev == 0 && t->err == 0) { /* a vector known to be bad */
			ok(err == NSCAP_FCAPS_ELONG, "decode: %s -> %s", t->desc,
			   nscap_fcaps_strerror(err));
			continue;
		}
		if (t->err) {
			ok(err == t->err && c.revision == 77,
			   "decode: %s rejected (%s), output untouched", t->desc,
			   nscap_fcaps_strerror(t->err));
			continue;
		}
		ok(err == 0 && c.revision == t->rev && c.effective == t->eff &&
		   c.permitted == t->p && c.inheritable == t->i &&
		   c.rootid == t->rootid, "decode: %s", t->desc);
	}
	ok(nscap_fcaps_decode(NULL, 20, &(struct nscap_fcaps){ 0 }) == NSCAP_FCAPS_ETRUNC,
	   "decode: NULL buffer");
	{
		static unsigned char big[65536];

		big[3] = 2;
		ok(nscap_fcaps_decode(big, sizeof(big), &(struct nscap_fcaps){ 0 }) ==
		   NSCAP_FCAPS_ELONG, "decode: 64 KiB value with a v2 header");
	}
}

/* ---- encode -------------------------------------------------------------- */

static void test_encode(void)
{
	unsigned char buf[NSCAP_SIZE_MAX], want[NSCAP_SIZE_MAX];
	struct nscap_fcaps c = { .revision = 2, .effective = true, .permitted = 0x2000 };
	size_t wl;
	int n;

	n = nscap_fcaps_encode(&c, buf, sizeof(buf));
	wl = unhex("0x0100000200200000000000000000000000000000", want, sizeof(want));
	ok(n == 20 && memcmp(buf, want, wl) == 0, "encode: v2 cap_net_raw=ep bytes");

	c.revision = 3;
	c.rootid = 1000;
	n = nscap_fcaps_encode(&c, buf, sizeof(buf));
	wl = unhex("0x0100000300200000000000000000000000000000e8030000", want, sizeof(want));
	ok(n == 24 && memcmp(buf, want, wl) == 0, "encode: v3 rootid 1000 bytes");

	c = (struct nscap_fcaps){ .revision = 1, .permitted = 3, .inheritable = 4, .effective = true };
	n = nscap_fcaps_encode(&c, buf, sizeof(buf));
	wl = unhex("0x010000010300000004000000", want, sizeof(want));
	ok(n == 12 && memcmp(buf, want, wl) == 0, "encode: v1 bytes");

	for (unsigned int rev = 1; rev <= 3; rev++) {
		struct nscap_fcaps in = {
			.revision = rev, .effective = rev != 2,
			.permitted = rev == 1 ? 0x80000001u : 0xC000000000000001ull,
			.inheritable = rev == 1 ? 0x10 : 0x100000000ull,
			.rootid = rev == 3 ? 4294967294u : 0,
		}, out;

		/* Field by field: the struct's padding is not part of a value. */
		n = nscap_fcaps_encode(&in, buf, sizeof(buf));
		ok(n > 0 && nscap_fcaps_decode(buf, (size_t)n, &out) == 0 &&
		   out.revision == in.revision && out.effective == in.effective &&
		   out.permitted == in.permitted &&
		   out.inheritable == in.inheritable && out.rootid == in.rootid,
		   "encode: v%u round trip", rev);
	}
	c = (struct nscap_fcaps){ .revision = 1, .permitted = 1ull << 40 };
	ok(nscap_fcaps_encode(&c, buf, sizeof(buf)) == NSCAP_FCAPS_ERANGE,
	   "encode: v1 cannot hold capability 40");
	c = (struct nscap_fcaps){ .revision = 2, .rootid = 5 };
	ok(nscap_fcaps_encode(&c, buf, sizeof(buf)) == NSCAP_FCAPS_ERANGE,
	   "encode: v2 cannot hold a rootid");
	c = (struct nscap_fcaps){ .revision = 3, .rootid = 5 };
	ok(nscap_fcaps_encode(&c, buf, 23) == NSCAP_FCAPS_ERANGE,
	   "encode: v3 into a 23-byte buffer");
	c.revision = 2;
	c.rootid = 0;
	ok(nscap_fcaps_encode(&c, buf, 20) == 20, "encode: v2 into exactly 20 bytes");
	c.revision = 0;
	ok(nscap_fcaps_encode(&c, buf, sizeof(buf)) == NSCAP_FCAPS_EINVAL,
	   "encode: revision 0");
	c.revision = 4;
	ok(nscap_fcaps_encode(&c, buf, sizeof(buf)) == NSCAP_FCAPS_EINVAL,
	   "encode: revision 4");
	ok(nscap_fcaps_encode(NULL, buf, sizeof(buf)) == NSCAP_FCAPS_EINVAL,
	   "encode: NULL value");
}

/* ---- names --------------------------------------------------------------- */

static const struct name_case {
	const char *name;
	enum nscap_name_kind kind;
	const char *base;
	uint32_t uid;
} name_cases[] = {
	{ "security.capability", NSCAP_NAME_PLAIN, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid", NSCAP_NAME_WILDCARD, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=1", NSCAP_NAME_UID, NSCAP_XATTR_CAPS, 1 },
	{ "security.capability@uid=1000", NSCAP_NAME_UID, NSCAP_XATTR_CAPS, 1000 },
	{ "security.capability@uid=4294967294", NSCAP_NAME_UID, NSCAP_XATTR_CAPS, 4294967294u },
	{ "security.capability@uid=4294967295", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=4294967296", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=4294968296", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=9999999999", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=99999999999", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=18446744073709551617", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=0", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=00", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=01", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=0005", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=+1", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=-1", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=1 ", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid= 5", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=5\n", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=0x10", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid=1000=", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uidx", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@uid@uid=1", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@gid=1", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@UID=1", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capability@", NSCAP_NAME_INVALID, NSCAP_XATTR_CAPS, 0 },
	{ "security.capabilityX", NSCAP_NAME_OTHER, NULL, 0 },
	{ "security.capability.x@uid=1", NSCAP_NAME_OTHER, NULL, 0 },
	{ "security.capabilit", NSCAP_NAME_OTHER, NULL, 0 },
	{ "Security.capability", NSCAP_NAME_OTHER, NULL, 0 },
	{ "user.a@uid=1", NSCAP_NAME_OTHER, NULL, 0 },
	{ "trusted.capability@uid=1", NSCAP_NAME_OTHER, NULL, 0 },
	{ "", NSCAP_NAME_OTHER, NULL, 0 },
	{ "security.selinux", NSCAP_NAME_PLAIN, NSCAP_XATTR_SELINUX, 0 },
	{ "security.selinux@uid=5", NSCAP_NAME_UID, NSCAP_XATTR_SELINUX, 5 },
	{ "security.selinux@uid", NSCAP_NAME_WILDCARD, NSCAP_XATTR_SELINUX, 0 },
	{ "security.selinux@uid=05", NSCAP_NAME_INVALID, NSCAP_XATTR_SELINUX, 0 },
};

static const char *kind_str(enum nscap_name_kind k)
{
	static const char *const s[] = { "other", "plain", "uid", "wildcard", "invalid" };

	return k <= NSCAP_NAME_INVALID ? s[k] : "?";
}

static void test_names(void)
{
	char buf[NSCAP_XATTR_NAME_MAX + 2];
	char base[NSCAP_XATTR_NAME_MAX + 2];
	uint32_t uid;

	for (size_t k = 0; k < sizeof(name_cases) / sizeof(name_cases[0]); k++) {
		const struct name_case *t = &name_cases[k];
		struct nscap_name pn;
		char shown[64];

		nscap_name_parse(t->name, &pn);
		snprintf(shown, sizeof(shown), "%s", t->name);
		for (char *p = shown; *p; p++)
			if (*p == '\n')
				*p = '|';
		ok(pn.kind == t->kind && pn.uid == t->uid &&
		   (t->base ? pn.base && strcmp(pn.base, t->base) == 0 : pn.base == NULL),
		   "name: '%s' is %s", shown, kind_str(t->kind));
	}
	ok(nscap_parse_uid("4294967294", &uid) == 0 && uid == 4294967294u,
	   "uid: 4294967294 is the largest key");
	ok(nscap_parse_uid("4294967295", &uid) == -ERANGE, "uid: 4294967295 is -ERANGE");
	ok(nscap_parse_uid("12345678901", &uid) == -ERANGE, "uid: 11 digits is -ERANGE");
	ok(nscap_parse_uid("0", &uid) == -EINVAL, "uid: 0 is -EINVAL");
	ok(nscap_parse_uid("", &uid) == -EINVAL, "uid: empty is -EINVAL");
	ok(nscap_parse_uid(NULL, &uid) == -EINVAL, "uid: NULL is -EINVAL");

	ok(nscap_name_build(NSCAP_XATTR_CAPS, NSCAP_NAME_PLAIN, 0, buf, sizeof(buf)) == 19 &&
	   strcmp(buf, "security.capability") == 0, "build: plain");
	ok(nscap_name_build(NSCAP_XATTR_CAPS, NSCAP_NAME_WILDCARD, 0, buf, sizeof(buf)) == 23 &&
	   strcmp(buf, "security.capability@uid") == 0, "build: wildcard");
	ok(nscap_name_build(NSCAP_XATTR_CAPS, NSCAP_NAME_UID, 4294967294u, buf, sizeof(buf)) == 34 &&
	   strcmp(buf, "security.capability@uid=4294967294") == 0, "build: largest key");
	ok(nscap_name_build(NSCAP_XATTR_CAPS, NSCAP_NAME_UID, 0, buf, sizeof(buf)) == -EINVAL,
	   "build: K=0 refused (the plain name is K=0's only spelling)");
	ok(nscap_name_build(NSCAP_XATTR_CAPS, NSCAP_NAME_UID, 4294967295u, buf, sizeof(buf)) == -EINVAL,
	   "build: K=4294967295 refused");
	ok(nscap_name_build(NSCAP_XATTR_CAPS, NSCAP_NAME_INVALID, 1, buf, sizeof(buf)) == -EINVAL,
	   "build: kind invalid refused");
	ok(nscap_name_build(NSCAP_XATTR_CAPS, NSCAP_NAME_UID, 1000, buf, 29) == 28,
	   "build: buffer of exactly length + 1");
	ok(nscap_name_build(NSCAP_XATTR_CAPS, NSCAP_NAME_UID, 1000, buf, 28) == -ERANGE &&
	   buf[0] == '\0', "build: buffer one byte short is -ERANGE");
	ok(nscap_name_build(NSCAP_XATTR_CAPS, NSCAP_NAME_UID, 1000, buf, 0) == -ERANGE,
	   "build: zero-size buffer");
	/* Names at XATTR_NAME_MAX: 250 + "@uid=1" = 256 is one too long. */
	memset(base, 'b', 250);
	base[250] = '\0';
	ok(nscap_name_build(base, NSCAP_NAME_UID, 1, buf, sizeof(buf)) == -ERANGE,
	   "build: 256-byte name is -ERANGE");
	base[249] = '\0';
	ok(nscap_name_build(base, NSCAP_NAME_UID, 1, buf, sizeof(buf)) == 255,
	   "build: 255-byte name fits");
	for (uint32_t k = 1; k != 0 && k <= NSCAP_UID_MAX; k = k < 0x10000000u ? k * 7 + 3 : 0) {
		struct nscap_name pn;

		nscap_name_build(NSCAP_XATTR_CAPS, NSCAP_NAME_UID, k, buf, sizeof(buf));
		nscap_name_parse(buf, &pn);
		if (pn.kind != NSCAP_NAME_UID || pn.uid != k) {
			ok(false, "build/parse round trip of %u", (unsigned int)k);
			return;
		}
	}
	ok(true, "build/parse round trip over many keys");
}

/* ---- quoting and value encodings ----------------------------------------- */

static void test_quote(void)
{
	static const struct {
		const char *in, *chars, *out;
	} q[] = {
		{ "security.capability@uid=1000", NSCAP_QUOTE_NAME, "security.capability@uid\\0751000" },
		{ "security.capability", NSCAP_QUOTE_NAME, "security.capability" },
		{ "user.a\\b", NSCAP_QUOTE_NAME, "user.a\\134b" },
		{ "user.nl\nx", NSCAP_QUOTE_NAME, "user.nl\\012x" },
		{ "user.cr\rx", NSCAP_QUOTE_NAME, "user.cr\\015x" },
		{ "user.sp ace\ttab", NSCAP_QUOTE_NAME, "user.sp ace\ttab" },
		{ "user.\xff\x01", NSCAP_QUOTE_NAME, "user.\xff\x01" },
		{ "a=b\nc", NSCAP_QUOTE_PATH, "a=b\\012c" },
		{ "", NSCAP_QUOTE_NAME, "" },
	};

	for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
		char *s = nscap_quote(q[k].in, q[k].chars);
		bool good = s && strcmp(s, q[k].out) == 0;

		if (good) {
			nscap_unquote(s);
			good = strcmp(s, q[k].in) == 0;
		}
		ok(good, "quote: case %zu quotes like getfattr and unquotes back", k);
		free(s);
	}
	{
		char s1[] = "a\\07", s2[] = "a\\8000", s3[] = "\\075\\075", s4[] = "x\\";

		ok(strcmp(nscap_unquote(s1), "a\\07") == 0, "unquote: two digits kept");
		ok(strcmp(nscap_unquote(s2), "a\\8000") == 0, "unquote: non-octal kept");
		ok(strcmp(nscap_unquote(s3), "==") == 0, "unquote: adjacent escapes");
		ok(strcmp(nscap_unquote(s4), "x\\") == 0, "unquote: trailing backslash");
	}
	{
		char *h = nscap_hex_encode("", 0);

		ok(h && strcmp(h, "0x") == 0, "hex: empty value is 0x");
		free(h);
		h = nscap_hex_encode("\x01\xab\xff", 3);
		ok(h && strcmp(h, "0x01abff") == 0, "hex: lowercase digits");
		free(h);
	}
	{
		static const struct {
			const char *in;
			int err;
			const char *bytes;
			size_t len;
		} v[] = {
			{ "0x01AbfF", 0, "\x01\xab\xff", 3 },
			{ "0X 01 ab\n", 0, "\x01\xab", 2 },
			{ "0x", 0, "", 0 },
			{ "0x0", -EINVAL, NULL, 0 },
			{ "0x0g", -EINVAL, NULL, 0 },
			{ "0sAQAAAg==", 0, "\x01\x00\x00\x02", 4 },
			{ "0sAQID", 0, "\x01\x02\x03", 3 },
			{ "0sAQI=", 0, "\x01\x02", 2 },
			{ "0sAQ=", -EINVAL, NULL, 0 },
			{ "0sA===", -EINVAL, NULL, 0 },
			{ "0sAQ==AQID", -EINVAL, NULL, 0 },
			{ "0s!!!!", -EINVAL, NULL, 0 },
			{ "\"a\\\"b\\\\c\\012\"", 0, "a\"b\\c\n", 6 },
			{ "plain", 0, "plain", 5 },
			{ "", 0, "", 0 },
		};

		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			unsigned char *d = NULL;
			size_t len = 99;
			int err = nscap_value_decode(v[k].in, &d, &len);

			ok(err == v[k].err &&
			   (err || (len == v[k].len && memcmp(d, v[k].bytes, len) == 0)),
			   "value decode: case %zu (%s)", k, v[k].err ? "rejected" : "decoded");
			free(d);
		}
	}
}

/* ---- dump format ----------------------------------------------------------- */

static int parse_str(const char *text, struct nscap_dump *d, unsigned int *line,
		     const char **why)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err;

	if (!f)
		return -errno;
	err = nscap_dump_parse(f, d, line, why);
	fclose(f);
	return err;
}

static void test_dump(void)
{
	struct nscap_dump d;
	unsigned int line;
	const char *why;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	err = parse_str("# file: a\\012b\n"
			"security.capability=0x0100000200200000000000000000000000000000\n"
			"security.capability@uid\\0751000=0x0100000300200000000000000000000000000000e8030000\n"
			"\n\n"
			"# file: c\n"
			"user.empty\n"
			"user.t=\"x\"\n"
			"\n", &d, &line, &why);
	ok(err == 0 && d.n == 4, "dump parse: two blocks, four entries");
	ok(d.n == 4 && strcmp(d.v[0].path, "a\nb") == 0 &&
	   strcmp(d.v[1].name, "security.capability@uid=1000") == 0 &&
	   d.v[1].len == 24 && d.v[1].value[20] == 0xe8 &&
	   strcmp(d.v[2].path, "c") == 0 && d.v[2].value == NULL &&
	   d.v[3].len == 1 && d.v[3].line == 8,
	   "dump parse: paths and names unquoted, values decoded");
	nscap_dump_free(&d);

	err = parse_str("# file: a\nuser.x=0x1\n", &d, &line, &why);
	ok(err == -EINVAL && line == 2 && why, "dump parse: odd hex digits at line 2");
	nscap_dump_free(&d);
	err = parse_str("user.x=0x01\n", &d, &line, &why);
	ok(err == -EINVAL && line == 1, "dump parse: value before a # file: line");
	nscap_dump_free(&d);
	err = parse_str("# file: a\nuser.x=0x01\n# file: b\n", &d, &line, &why);
	ok(err == -EINVAL && line == 3, "dump parse: missing blank line between blocks");
	nscap_dump_free(&d);
	err = parse_str("# file: a\n=0x01\n", &d, &line, &why);
	ok(err == -EINVAL && line == 2, "dump parse: empty name");
	nscap_dump_free(&d);
	err = parse_str("", &d, &line, &why);
	ok(err == 0 && d.n == 0, "dump parse: empty input");
	nscap_dump_free(&d);
	err = parse_str("# file: a\nuser.x=0x01", &d, &line, &why);
	ok(err == 0 && d.n == 1 && d.v[0].len == 1, "dump parse: no final newline");
	nscap_dump_free(&d);

	f = open_memstream(&buf, &len);
	nscap_dump_write_header(f, "/abs/p", false);
	nscap_dump_write_header(f, ".//rel", false);
	nscap_dump_write_header(f, "/", false);
	nscap_dump_write_header(f, "/abs", true);
	nscap_dump_write_header(f, "n\nl", false);
	nscap_dump_write_value(f, "security.capability@uid=7", "\x01\x02", 2);
	fclose(f);
	ok(buf && strcmp(buf, "# file: abs/p\n# file: rel\n# file: .\n# file: /abs\n"
			 "# file: n\\012l\nsecurity.capability@uid\\0757=0x0102\n") == 0,
	   "dump write: getfattr path rules and name quoting");
	free(buf);
}

/* ---- libcap bridge --------------------------------------------------------- */

static void test_captext(void)
{
	struct nscap_fcaps c;
	char *t;

	ok(nscap_fcaps_parse_text("cap_net_raw=ep", 2, 0, &c) == 0 && c.revision == 2 &&
	   c.effective && c.permitted == 1u << 13 && c.inheritable == 0,
	   "text: cap_net_raw=ep");
	t = nscap_fcaps_text(&c);
	ok(t && strcmp(t, "cap_net_raw=ep") == 0, "text: back to cap_net_raw=ep");
	cap_free(t);
	ok(nscap_fcaps_parse_text("cap_net_raw,cap_sys_admin+p", 3, 1000, &c) == 0 &&
	   c.revision == 3 && c.rootid == 1000 && !c.effective &&
	   c.permitted == ((1u << 13) | (1u << 21)), "text: two caps =p as v3");
	ok(nscap_fcaps_parse_text("=", 2, 0, &c) == 0 && !c.permitted && !c.effective,
	   "text: empty set");
	t = nscap_fcaps_text(&c);
	ok(t && strcmp(t, "=") == 0, "text: empty prints as =");
	cap_free(t);
	ok(nscap_fcaps_parse_text("cap_net_raw=p cap_sys_admin=ei", 2, 0, &c) == -EINVAL,
	   "text: partial effective set rejected");
	ok(nscap_fcaps_parse_text("cap_bogus=ep", 2, 0, &c) == -EINVAL,
	   "text: unknown name rejected");
	ok(nscap_fcaps_parse_text("cap_net_raw=ep", 1, 0, &c) == -EINVAL,
	   "text: v1 is never written");
	c = (struct nscap_fcaps){ .revision = 2, .effective = true, .inheritable = 1,
				  .permitted = 1ull << 40 };
	t = nscap_fcaps_text(&c);
	ok(t && strcmp(t, "cap_chown=ei cap_checkpoint_restore+ep") == 0,
	   "text: mixed p/i with effective (got '%s')", t ? t : "(null)");
	cap_free(t);
	c = (struct nscap_fcaps){ .revision = 2, .effective = true,
				  .permitted = 1 | 1ull << 50 | 1ull << 63 };
	t = nscap_fcaps_text(&c);
	ok(t && strcmp(t, "cap_chown=ep 50,63+ep") == 0,
	   "text: capabilities unknown to libcap print as numbers (got '%s')",
	   t ? t : "(null)");
	{
		struct nscap_fcaps back;

		ok(t && nscap_fcaps_parse_text(t, 2, 0, &back) == 0 &&
		   back.permitted == c.permitted && back.effective,
		   "text: numbered capabilities parse back");
	}
	cap_free(t);
	{
		struct nscap_fcaps a = { .revision = 2, .effective = true, .permitted = 1 };
		struct nscap_fcaps b = { .revision = 3, .effective = true, .permitted = 1, .rootid = 9 };
		int r;

		ok(nscap_fcaps_compare(&a, &b) == 0, "compare: revision and rootid ignored");
		b.effective = false;
		r = nscap_fcaps_compare(&a, &b);
		ok(r == 1 << CAP_EFFECTIVE, "compare: effective differs");
		b.permitted = 2;
		b.inheritable = 4;
		r = nscap_fcaps_compare(&a, &b);
		ok(CAP_DIFFERS(r, CAP_PERMITTED) && CAP_DIFFERS(r, CAP_INHERITABLE),
		   "compare: p and i differ");
	}
}

int main(void)
{
	test_decode();
	test_encode();
	test_names();
	test_quote();
	test_dump();
	test_captext();
	printf("1..%d\n", n_run);
	printf("# %d passed, %d failed\n", n_run - n_fail, n_fail);
	return n_fail ? 1 : 0;
}
