// SPDX-License-Identifier: GPL-2.0
/*
 * Namespaced security xattrs - names, values and lists as each caller sees them
 *
 * A value of security.capability or security.selinux written by root in a
 * user namespace is stored as "<name>@uid=K", K being the namespace root's
 * uid in the filesystem's user namespace; see
 * Documentation/filesystems/xattr-user-ns.rst.
 */

#include "common.h"

static const char host_label[] = "system_u:object_r:bin_t:s0";
static const char ns_label[] = "system_u:object_r:container_file_t:s0";

/* Length of a listxattr() result holding @names. */
static ssize_t list_size(const char *const *names)
{
	ssize_t size = 0;

	for (; *names; names++)
		size += strlen(*names) + 1;
	return size;
}

/* Copies the names of @list that have no '@' and are not bases, in order. */
static size_t plain_names(const char *list, ssize_t len, char *out)
{
	const char *p;
	size_t n = 0;

	for (p = list; p < list + len; p += strlen(p) + 1) {
		if (!strncmp(p, CAPS, strlen(CAPS)) ||
		    !strncmp(p, SELINUX, strlen(SELINUX)))
			continue;
		strcpy(out + n, p);
		n += strlen(p) + 1;
	}
	return n;
}

TEST_F_TIMEOUT(nscaps, two_namespaces_keep_separate_values, NSCAPS_TIMEOUT)
{
	struct cap_value val;
	ssize_t len;

	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));
	ASSERT_EQ(0, ns_set_cap(NS_B, self->file, CAPS, 2, CAPS_B, 0));

	ASSERT_EQ(0, ns_get_cap(NS_A, self->file, CAPS, &val));
	EXPECT_EQ(2, val.rev);
	EXPECT_TRUE(val.effective);
	EXPECT_EQ(CAPS_A, val.permitted);

	ASSERT_EQ(0, ns_get_cap(NS_B, self->file, CAPS, &val));
	EXPECT_EQ(2, val.rev);
	EXPECT_TRUE(val.effective);
	EXPECT_EQ(CAPS_B, val.permitted);

	/* Neither write touched the host's (absent) plain value. */
	EXPECT_EQ(ENODATA,
		  ns_getxattr(NS_HOST, self->file, CAPS, NULL, 0, &len));
}

TEST_F_TIMEOUT(nscaps, namespace_v3_write_lands_under_own_key, NSCAPS_TIMEOUT)
{
	struct cap_value val;
	ssize_t len;

	/* What "setcap -n 0" sends from inside a namespace. */
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 3, CAPS_A, 0));

	ASSERT_EQ(0, ns_get_cap(NS_A, self->file, CAPS, &val));
	EXPECT_EQ(2, val.rev);
	EXPECT_EQ(CAPS_A, val.permitted);
	EXPECT_EQ(0, ns_get_cap(NS_HOST, self->file, CAPS_KEY("1000"), &val));
	EXPECT_EQ(CAPS_A, val.permitted);
	EXPECT_EQ(ENODATA,
		  ns_getxattr(NS_HOST, self->file, CAPS, NULL, 0, &len));
}

TEST_F_TIMEOUT(nscaps, host_sees_raw_names_namespaces_see_their_own,
	       NSCAPS_TIMEOUT)
{
	const char *const host_view[] = { CAPS, CAPS_KEY("1000"),
					  CAPS_KEY("2000"), NULL };
	/* NS_A's uid 1000 is host 2000, NS_B's root. */
	const char *const a_view[] = { CAPS, CAPS_KEY("1000"), NULL };
	/* NS_B does not map host 1000. */
	const char *const b_view[] = { CAPS, NULL };
	struct cap_value val;
	char list[1024];
	ssize_t len;

	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS, 2, CAPS_HOST, 0));
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));
	ASSERT_EQ(0, ns_set_cap(NS_B, self->file, CAPS, 2, CAPS_B, 0));

	ASSERT_EQ(0,
		  ns_listxattr(NS_HOST, self->file, list, sizeof(list), &len));
	EXPECT_TRUE(list_is(list, len, host_view));
	ASSERT_EQ(0, ns_get_cap(NS_HOST, self->file, CAPS, &val));
	EXPECT_EQ(2, val.rev);
	EXPECT_EQ(CAPS_HOST, val.permitted);
	ASSERT_EQ(0, ns_get_cap(NS_HOST, self->file, CAPS_KEY("1000"), &val));
	EXPECT_EQ(CAPS_A, val.permitted);
	ASSERT_EQ(0, ns_get_cap(NS_HOST, self->file, CAPS_KEY("2000"), &val));
	EXPECT_EQ(CAPS_B, val.permitted);

	ASSERT_EQ(0, ns_listxattr(NS_A, self->file, list, sizeof(list), &len));
	EXPECT_TRUE(list_is(list, len, a_view));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_A, self->file, CAPS));
	EXPECT_EQ(CAPS_B, ns_cap_permitted(NS_A, self->file, CAPS_KEY("1000")));

	ASSERT_EQ(0, ns_listxattr(NS_B, self->file, list, sizeof(list), &len));
	EXPECT_TRUE(list_is(list, len, b_view));
	EXPECT_EQ(CAPS_B, ns_cap_permitted(NS_B, self->file, CAPS));
}

TEST_F_TIMEOUT(nscaps, removing_own_value_brings_host_value_back,
	       NSCAPS_TIMEOUT)
{
	struct cap_value val;

	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS, 2, CAPS_HOST, 0));
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_A, self->file, CAPS));

	EXPECT_EQ(0, ns_removexattr(NS_A, self->file, CAPS));
	ASSERT_EQ(0, ns_get_cap(NS_A, self->file, CAPS, &val));
	EXPECT_EQ(2, val.rev);
	EXPECT_EQ(CAPS_HOST, val.permitted);
	EXPECT_EQ(-1, ns_value_len(NS_HOST, self->file, CAPS_KEY("1000")));

	/* The host's value is never removed from below. */
	EXPECT_EQ(ENODATA, ns_removexattr(NS_A, self->file, CAPS));
	EXPECT_EQ(CAPS_HOST, ns_cap_permitted(NS_HOST, self->file, CAPS));
}

TEST_F_TIMEOUT(nscaps, nested_namespace_sees_parent_value, NSCAPS_TIMEOUT)
{
	/* The nested namespace maps host 1100..2099: NS_A's key is hidden. */
	const char *const nested_view[] = { CAPS, NULL };
	const char *const a_view[] = { CAPS, CAPS_KEY("100"), NULL };
	char list[1024];
	ssize_t len;

	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_NESTED, self->file, CAPS));
	ASSERT_EQ(0, ns_listxattr(NS_NESTED, self->file, list, sizeof(list),
				  &len));
	EXPECT_TRUE(list_is(list, len, nested_view));

	/* Its own value then wins, stored under host 1100. */
	ASSERT_EQ(0,
		  ns_set_cap(NS_NESTED, self->file, CAPS, 2, CAPS_NESTED, 0));
	EXPECT_EQ(CAPS_NESTED, ns_cap_permitted(NS_NESTED, self->file, CAPS));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_A, self->file, CAPS));
	EXPECT_EQ(CAPS_NESTED,
		  ns_cap_permitted(NS_HOST, self->file, CAPS_KEY("1100")));
	EXPECT_EQ(CAPS_NESTED,
		  ns_cap_permitted(NS_A, self->file, CAPS_KEY("100")));
	ASSERT_EQ(0, ns_listxattr(NS_A, self->file, list, sizeof(list), &len));
	EXPECT_TRUE(list_is(list, len, a_view));
}

TEST_F_TIMEOUT(nscaps, explicit_key_names_are_translated, NSCAPS_TIMEOUT)
{
	/* NS_A's uid 100 is the nested namespace's root, host 1100. */
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS_KEY("100"), 2,
				CAPS_NESTED, 0));
	EXPECT_EQ(CAPS_NESTED,
		  ns_cap_permitted(NS_HOST, self->file, CAPS_KEY("1100")));
	EXPECT_EQ(-1, ns_value_len(NS_HOST, self->file, CAPS_KEY("100")));
	EXPECT_EQ(CAPS_NESTED, ns_cap_permitted(NS_NESTED, self->file, CAPS));
	/* NS_A has no value of its own. */
	EXPECT_EQ(-1, ns_value_len(NS_A, self->file, CAPS));

	EXPECT_EQ(0, ns_removexattr(NS_A, self->file, CAPS_KEY("100")));
	EXPECT_EQ(-1, ns_value_len(NS_HOST, self->file, CAPS_KEY("1100")));
	EXPECT_EQ(ENODATA, ns_removexattr(NS_A, self->file, CAPS_KEY("100")));
}

TEST_F_TIMEOUT(nscaps, read_walks_own_parent_wildcard_plain, NSCAPS_TIMEOUT)
{
	ssize_t len;

	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS, 2, CAPS_HOST, 0));
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_WILDCARD, 2,
				CAPS_WILD, 0));
	/* The wildcard comes before the host's value... */
	EXPECT_EQ(CAPS_WILD, ns_cap_permitted(NS_B, self->file, CAPS));
	EXPECT_EQ(CAPS_WILD, ns_cap_permitted(NS_NESTED, self->file, CAPS));
	/* ...but not for the host itself. */
	EXPECT_EQ(CAPS_HOST, ns_cap_permitted(NS_HOST, self->file, CAPS));

	/* A parent's value comes before the wildcard. */
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_NESTED, self->file, CAPS));
	ASSERT_EQ(0,
		  ns_set_cap(NS_NESTED, self->file, CAPS, 2, CAPS_NESTED, 0));
	EXPECT_EQ(CAPS_NESTED, ns_cap_permitted(NS_NESTED, self->file, CAPS));

	ASSERT_EQ(0, ns_removexattr(NS_NESTED, self->file, CAPS));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_NESTED, self->file, CAPS));
	ASSERT_EQ(0, ns_removexattr(NS_A, self->file, CAPS));
	EXPECT_EQ(CAPS_WILD, ns_cap_permitted(NS_NESTED, self->file, CAPS));
	EXPECT_EQ(CAPS_WILD, ns_cap_permitted(NS_A, self->file, CAPS));

	ASSERT_EQ(0, ns_removexattr(NS_HOST, self->file, CAPS_WILDCARD));
	EXPECT_EQ(CAPS_HOST, ns_cap_permitted(NS_A, self->file, CAPS));
	EXPECT_EQ(CAPS_HOST, ns_cap_permitted(NS_NESTED, self->file, CAPS));
	EXPECT_EQ(CAPS_HOST, ns_cap_permitted(NS_B, self->file, CAPS));

	ASSERT_EQ(0, ns_removexattr(NS_HOST, self->file, CAPS));
	EXPECT_EQ(ENODATA, ns_getxattr(NS_A, self->file, CAPS, NULL, 0, &len));
	EXPECT_EQ(ENODATA,
		  ns_getxattr(NS_NESTED, self->file, CAPS, NULL, 0, &len));
}

TEST_F_TIMEOUT(nscaps, unmapped_keys_are_hidden, NSCAPS_TIMEOUT)
{
	const char *const host_view[] = { "user.keep", CAPS_KEY("500"),
					  CAPS_KEY("67000"), CAPS_KEY("70000"),
					  NULL };
	/* NS_A maps host 1000..66535: none of them. */
	const char *const a_view[] = { "user.keep", NULL };
	/* NS_B maps host 2000..67535: 67000 is its uid 65000. */
	const char *const b_view[] = { "user.keep", CAPS_KEY("65000"), NULL };
	char list[1024];
	ssize_t len;

	ASSERT_EQ(0, ns_setxattr(NS_HOST, self->file, "user.keep", "k", 1));
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_KEY("500"), 2, CAPS_A,
				0));
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_KEY("67000"), 2,
				CAPS_B, 0));
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_KEY("70000"), 2,
				CAPS_NESTED, 0));

	ASSERT_EQ(0,
		  ns_listxattr(NS_HOST, self->file, list, sizeof(list), &len));
	EXPECT_TRUE(list_is(list, len, host_view));
	ASSERT_EQ(0, ns_listxattr(NS_A, self->file, list, sizeof(list), &len));
	EXPECT_TRUE(list_is(list, len, a_view));
	ASSERT_EQ(0, ns_listxattr(NS_B, self->file, list, sizeof(list), &len));
	EXPECT_TRUE(list_is(list, len, b_view));
	EXPECT_EQ(CAPS_B,
		  ns_cap_permitted(NS_B, self->file, CAPS_KEY("65000")));

	/* None of them is anyone's plain value. */
	EXPECT_EQ(ENODATA, ns_getxattr(NS_A, self->file, CAPS, NULL, 0, &len));
	EXPECT_EQ(ENODATA, ns_getxattr(NS_B, self->file, CAPS, NULL, 0, &len));

	/* A uid the namespace does not map. */
	EXPECT_EQ(ENODATA, ns_getxattr(NS_A, self->file, CAPS_KEY("65536"),
				       NULL, 0, &len));
	EXPECT_EQ(ENODATA, ns_removexattr(NS_A, self->file, CAPS_KEY("65536")));
	EXPECT_EQ(EINVAL, ns_set_cap(NS_A, self->file, CAPS_KEY("65536"), 2,
				     CAPS_A, 0));
	ASSERT_EQ(0,
		  ns_listxattr(NS_HOST, self->file, list, sizeof(list), &len));
	EXPECT_TRUE(list_is(list, len, host_view));
}

TEST_F_TIMEOUT(nscaps, malformed_names_are_einval, NSCAPS_TIMEOUT)
{
	static const char *const names[] = {
		CAPS "@uid=",
		CAPS "@uid=0",
		CAPS "@uid=01",
		CAPS "@uid=+1",
		CAPS "@uid=-1",
		CAPS "@uid= 1",
		CAPS "@uid=1 ",
		CAPS "@uid=4294967295",
		CAPS "@uid=4294967296",
		CAPS "@uid=99999999999",
		CAPS "@uid=1000@uid=1",
		CAPS "@uidx",
		CAPS "@uid=1x",
		CAPS "@gid=1",
		CAPS "@",
		SELINUX "@uid=01",
		SELINUX "@gid=1",
	};
	static const enum ns callers[] = { NS_HOST, NS_A };
	struct vfs_ns_cap_data cap;
	size_t size = cap_encode(&cap, 2, CAPS_A, 0);
	char list[1024];
	ssize_t len;
	int i, c;

	/* Something to remove, should a malformed name alias it. */
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS, 2, CAPS_HOST, 0));
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));

	for (c = 0; c < ARRAY_SIZE(callers); c++) {
		for (i = 0; i < ARRAY_SIZE(names); i++) {
			EXPECT_EQ(EINVAL, ns_getxattr(callers[c], self->file,
						      names[i], NULL, 0, &len))
			TH_LOG("get %s in ns %d", names[i], callers[c]);
			EXPECT_EQ(EINVAL, ns_setxattr(callers[c], self->file,
						      names[i], &cap, size))
			TH_LOG("set %s in ns %d", names[i], callers[c]);
			EXPECT_EQ(EINVAL, ns_removexattr(callers[c], self->file,
							 names[i]))
			TH_LOG("remove %s in ns %d", names[i], callers[c]);
		}
	}
	ASSERT_EQ(0,
		  ns_listxattr(NS_HOST, self->file, list, sizeof(list), &len));
	EXPECT_TRUE(
		list_is(list, len,
			(const char *const[]){ CAPS, CAPS_KEY("1000"), NULL }));
	EXPECT_EQ(CAPS_HOST, ns_cap_permitted(NS_HOST, self->file, CAPS));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_A, self->file, CAPS));
}

TEST_F_TIMEOUT(nscaps, extreme_keys_are_valid, NSCAPS_TIMEOUT)
{
	ASSERT_EQ(0,
		  ns_set_cap(NS_HOST, self->file, CAPS_KEY("1"), 2, CAPS_A, 0));
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_KEY("4294967294"), 2,
				CAPS_B, 0));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_HOST, self->file, CAPS_KEY("1")));
	EXPECT_EQ(CAPS_B, ns_cap_permitted(NS_HOST, self->file,
					   CAPS_KEY("4294967294")));
	EXPECT_EQ(0, ns_removexattr(NS_HOST, self->file, CAPS_KEY("1")));
	EXPECT_EQ(0,
		  ns_removexattr(NS_HOST, self->file, CAPS_KEY("4294967294")));
}

TEST_F_TIMEOUT(nscaps, other_names_with_at_are_ordinary, NSCAPS_TIMEOUT)
{
	char buf[64];
	ssize_t len;

	/* Starts with a base but is not one: an ordinary security.* name. */
	ASSERT_EQ(0, ns_setxattr(NS_HOST, self->file, CAPS "X", "v", 1));
	ASSERT_EQ(0, ns_getxattr(NS_HOST, self->file, CAPS "X", buf,
				 sizeof(buf), &len));
	EXPECT_EQ(1, len);
	EXPECT_EQ(EPERM, ns_setxattr(NS_A, self->file, CAPS "X", "w", 1));

	/* '@' in other names means nothing: no translation. */
	ASSERT_EQ(0, ns_setxattr(NS_HOST, self->file, "user.a@uid=1", "h", 1));
	ASSERT_EQ(0, ns_getxattr(NS_A, self->file, "user.a@uid=1", buf,
				 sizeof(buf), &len));
	ASSERT_EQ(1, len);
	EXPECT_EQ('h', buf[0]);
	ASSERT_EQ(0, ns_setxattr(NS_A, self->file, "user.b@uid=1000", "a", 1));
	EXPECT_EQ(1, ns_value_len(NS_HOST, self->file, "user.b@uid=1000"));
	EXPECT_EQ(-1, ns_value_len(NS_HOST, self->file, "user.b@uid=2000"));
}

TEST_F_TIMEOUT(nscaps, list_size_is_exact_and_small_buffer_gets_erange,
	       NSCAPS_TIMEOUT)
{
	const char *const a_view[] = {
		"user.a",	  "user.b",	   "user.c", CAPS,
		CAPS_KEY("1000"), CAPS_KEY("100"), NULL
	};
	const char *const b_view[] = { "user.a", "user.b", "user.c", CAPS,
				       NULL };
	/* Host 2000 (NS_B's root) is the nested namespace's uid 900. */
	const char *const nested_view[] = { "user.a", "user.b",	       "user.c",
					    CAPS,     CAPS_KEY("900"), NULL };
	static const enum ns callers[] = { NS_HOST, NS_A, NS_B, NS_NESTED };
	const char *const *views[] = { NULL, a_view, b_view, nested_view };
	char list[1024], host_list[1024], plain[1024], host_plain[1024];
	ssize_t len, host_len, n;
	size_t host_n;
	int c;

	ASSERT_EQ(0, ns_setxattr(NS_HOST, self->file, "user.c", "c", 1));
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS, 2, CAPS_HOST, 0));
	ASSERT_EQ(0, ns_setxattr(NS_HOST, self->file, "user.a", "a", 1));
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));
	ASSERT_EQ(0, ns_set_cap(NS_B, self->file, CAPS, 2, CAPS_B, 0));
	ASSERT_EQ(0,
		  ns_set_cap(NS_NESTED, self->file, CAPS, 2, CAPS_NESTED, 0));
	ASSERT_EQ(0, ns_setxattr(NS_HOST, self->file, "user.b", "b", 1));

	ASSERT_EQ(0, ns_listxattr(NS_HOST, self->file, host_list,
				  sizeof(host_list), &host_len));
	host_n = plain_names(host_list, host_len, host_plain);
	ASSERT_EQ(list_size((const char *const[]){ "user.a", "user.b", "user.c",
						   NULL }),
		  host_n);

	for (c = 0; c < ARRAY_SIZE(callers); c++) {
		ASSERT_EQ(0,
			  ns_listxattr(callers[c], self->file, NULL, 0, &len));
		if (views[c]) {
			EXPECT_EQ(list_size(views[c]), len)
			TH_LOG("size query in ns %d", callers[c]);
		} else {
			EXPECT_EQ(host_len, len);
		}
		EXPECT_EQ(ERANGE, ns_listxattr(callers[c], self->file, list,
					       len - 1, &n))
		TH_LOG("buffer one byte short in ns %d", callers[c]);
		EXPECT_EQ(ERANGE,
			  ns_listxattr(callers[c], self->file, list, 1, &n))
		TH_LOG("one-byte buffer in ns %d", callers[c]);
		ASSERT_EQ(0,
			  ns_listxattr(callers[c], self->file, list, len, &n));
		EXPECT_EQ(len, n);
		if (views[c]) {
			EXPECT_TRUE(list_is(list, n, views[c]))
			TH_LOG("list in ns %d", callers[c]);
		}
		/* Other names keep the order the filesystem gives them. */
		EXPECT_EQ(host_n, plain_names(list, n, plain));
		EXPECT_EQ(0, memcmp(plain, host_plain, host_n))
		TH_LOG("order of other names in ns %d", callers[c]);
	}
}

TEST_F_TIMEOUT(nscaps, wildcard_is_writable_by_host_root_only, NSCAPS_TIMEOUT)
{
	static const enum ns callers[] = { NS_A, NS_B, NS_NESTED };
	int c;

	for (c = 0; c < ARRAY_SIZE(callers); c++)
		EXPECT_EQ(EPERM, ns_set_cap(callers[c], self->file,
					    CAPS_WILDCARD, 2, CAPS_WILD, 0));
	EXPECT_EQ(-1, ns_value_len(NS_HOST, self->file, CAPS_WILDCARD));

	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_WILDCARD, 2,
				CAPS_WILD, 0));
	for (c = 0; c < ARRAY_SIZE(callers); c++) {
		EXPECT_EQ(EPERM, ns_removexattr(callers[c], self->file,
						CAPS_WILDCARD));
		EXPECT_EQ(EPERM, ns_set_cap(callers[c], self->file,
					    CAPS_WILDCARD, 2, CAPS_A, 0));
		/* Readable by name and as the plain name. */
		EXPECT_EQ(CAPS_WILD, ns_cap_permitted(callers[c], self->file,
						      CAPS_WILDCARD));
		EXPECT_EQ(CAPS_WILD,
			  ns_cap_permitted(callers[c], self->file, CAPS));
	}
	EXPECT_EQ(CAPS_WILD,
		  ns_cap_permitted(NS_HOST, self->file, CAPS_WILDCARD));
	EXPECT_EQ(0, ns_removexattr(NS_HOST, self->file, CAPS_WILDCARD));
	EXPECT_EQ(-1, ns_value_len(NS_A, self->file, CAPS));
}

TEST_F_TIMEOUT(nscaps, selinux_label_set_in_namespace_stays_there,
	       NSCAPS_TIMEOUT)
{
	char buf[256];
	ssize_t len;

	ASSERT_EQ(0, ns_setxattr(NS_HOST, self->file, SELINUX, host_label,
				 sizeof(host_label)));
	ASSERT_EQ(0, ns_setxattr(NS_A, self->file, SELINUX, ns_label,
				 sizeof(ns_label)));

	ASSERT_EQ(0, ns_getxattr(NS_A, self->file, SELINUX, buf, sizeof(buf),
				 &len));
	ASSERT_EQ(sizeof(ns_label), len);
	EXPECT_STREQ(ns_label, buf);

	ASSERT_EQ(0, ns_getxattr(NS_HOST, self->file, SELINUX, buf, sizeof(buf),
				 &len));
	ASSERT_EQ(sizeof(host_label), len);
	EXPECT_STREQ(host_label, buf);
	ASSERT_EQ(0, ns_getxattr(NS_HOST, self->file, SELINUX "@uid=1000", buf,
				 sizeof(buf), &len));
	ASSERT_EQ(sizeof(ns_label), len);
	EXPECT_STREQ(ns_label, buf);

	/* Another namespace without a label of its own reads the host's. */
	ASSERT_EQ(0, ns_getxattr(NS_B, self->file, SELINUX, buf, sizeof(buf),
				 &len));
	ASSERT_EQ(sizeof(host_label), len);
	EXPECT_STREQ(host_label, buf);

	EXPECT_EQ(0, ns_removexattr(NS_A, self->file, SELINUX));
	ASSERT_EQ(0, ns_getxattr(NS_A, self->file, SELINUX, buf, sizeof(buf),
				 &len));
	ASSERT_EQ(sizeof(host_label), len);
	EXPECT_STREQ(host_label, buf);
}

TEST_F_TIMEOUT(nscaps, file_owner_unmapped_refuses_namespace_writes,
	       NSCAPS_TIMEOUT)
{
	char path[PATH_MAX];
	struct vfs_ns_cap_data cap;
	size_t size = cap_encode(&cap, 2, CAPS_A, 0);
	char list[256];
	ssize_t len;
	int fd, err;

	/* Owned by host root, which no namespace maps. */
	snprintf(path, sizeof(path), "%s/root-owned", self->mnt);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0755);
	ASSERT_LE(0, fd);
	close(fd);

	EXPECT_EQ(EPERM, ns_setxattr(NS_A, path, CAPS, &cap, size));
	EXPECT_EQ(EPERM,
		  ns_setxattr(NS_A, path, SELINUX, ns_label, sizeof(ns_label)));
	/*
	 * Stock 6.12 let anyone write an empty security.capability: refused
	 * now, whichever check (value or permission) comes first.
	 */
	err = ns_setxattr(NS_A, path, CAPS, "", 0);
	EXPECT_TRUE(err == EPERM || err == EINVAL)
	TH_LOG("empty value: %s", strerror(err));
	ASSERT_EQ(0, ns_listxattr(NS_HOST, path, list, sizeof(list), &len));
	EXPECT_EQ(0, len);

	/* Nor can the namespace remove the value the host gave it. */
	ASSERT_EQ(0, ns_set_cap(NS_HOST, path, CAPS_KEY("1000"), 2, CAPS_A, 0));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_A, path, CAPS));
	EXPECT_EQ(EPERM, ns_removexattr(NS_A, path, CAPS));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_HOST, path, CAPS_KEY("1000")));
}

TEST_F_TIMEOUT(nscaps, empty_capability_value_is_refused, NSCAPS_TIMEOUT)
{
	char list[256];
	ssize_t len;

	/* On a file the namespace may set capabilities on: not a value. */
	EXPECT_EQ(EINVAL, ns_setxattr(NS_A, self->file, CAPS, "", 0));
	EXPECT_EQ(EINVAL,
		  ns_setxattr(NS_A, self->file, CAPS_KEY("100"), "", 0));
	ASSERT_EQ(0,
		  ns_listxattr(NS_HOST, self->file, list, sizeof(list), &len));
	EXPECT_EQ(0, len);
}

TEST_F_TIMEOUT(nscaps, fd_and_nofollow_variants_translate, NSCAPS_TIMEOUT)
{
	const char *const a_view[] = { CAPS, CAPS_KEY("1000"), NULL };
	struct vfs_ns_cap_data cap_a, cap_b;
	struct cap_value val;
	struct op op;

	op = (struct op){ .kind = OP_FSET,
			  .path = self->file,
			  .name = CAPS,
			  .value = &cap_a,
			  .size = cap_encode(&cap_a, 2, CAPS_A, 0) };
	ASSERT_EQ(0, run_op(NS_A, &op));
	op = (struct op){ .kind = OP_LSET,
			  .path = self->file,
			  .name = CAPS,
			  .value = &cap_b,
			  .size = cap_encode(&cap_b, 2, CAPS_B, 0) };
	ASSERT_EQ(0, run_op(NS_B, &op));
	EXPECT_EQ(CAPS_A,
		  ns_cap_permitted(NS_HOST, self->file, CAPS_KEY("1000")));
	EXPECT_EQ(CAPS_B,
		  ns_cap_permitted(NS_HOST, self->file, CAPS_KEY("2000")));

	op = (struct op){
		.kind = OP_FGET, .path = self->file, .name = CAPS, .size = 64
	};
	ASSERT_EQ(0, run_op(NS_A, &op));
	ASSERT_EQ(0, cap_decode(op.out, op.ret, &val));
	EXPECT_EQ(CAPS_A, val.permitted);
	op = (struct op){
		.kind = OP_LGET, .path = self->file, .name = CAPS, .size = 64
	};
	ASSERT_EQ(0, run_op(NS_B, &op));
	ASSERT_EQ(0, cap_decode(op.out, op.ret, &val));
	EXPECT_EQ(CAPS_B, val.permitted);

	op = (struct op){ .kind = OP_FLIST, .path = self->file, .size = 256 };
	ASSERT_EQ(0, run_op(NS_A, &op));
	EXPECT_TRUE(list_is(op.out, op.ret, a_view));
	op = (struct op){ .kind = OP_LLIST, .path = self->file, .size = 256 };
	ASSERT_EQ(0, run_op(NS_A, &op));
	EXPECT_TRUE(list_is(op.out, op.ret, a_view));

	op = (struct op){ .kind = OP_FREMOVE,
			  .path = self->file,
			  .name = CAPS };
	EXPECT_EQ(0, run_op(NS_A, &op));
	op = (struct op){ .kind = OP_LREMOVE,
			  .path = self->file,
			  .name = CAPS };
	EXPECT_EQ(ENODATA, run_op(NS_A, &op));
	EXPECT_EQ(-1, ns_value_len(NS_HOST, self->file, CAPS_KEY("1000")));
	EXPECT_EQ(CAPS_B,
		  ns_cap_permitted(NS_HOST, self->file, CAPS_KEY("2000")));
}

TEST_F_TIMEOUT(nscaps, io_uring_xattr_ops_translate, NSCAPS_TIMEOUT)
{
	struct vfs_ns_cap_data cap_a, cap_b;
	struct cap_value val;
	struct op op;

	op = (struct op){ .kind = OP_URING_SET,
			  .path = self->file,
			  .name = CAPS,
			  .value = &cap_a,
			  .size = cap_encode(&cap_a, 2, CAPS_A, 0) };
	ASSERT_EQ(0, run_op(NS_A, &op));
	op = (struct op){ .kind = OP_URING_FSET,
			  .path = self->file,
			  .name = CAPS,
			  .value = &cap_b,
			  .size = cap_encode(&cap_b, 2, CAPS_B, 0) };
	ASSERT_EQ(0, run_op(NS_B, &op));
	EXPECT_EQ(CAPS_A,
		  ns_cap_permitted(NS_HOST, self->file, CAPS_KEY("1000")));
	EXPECT_EQ(CAPS_B,
		  ns_cap_permitted(NS_HOST, self->file, CAPS_KEY("2000")));
	EXPECT_EQ(-1, ns_value_len(NS_HOST, self->file, CAPS));

	op = (struct op){ .kind = OP_URING_GET,
			  .path = self->file,
			  .name = CAPS,
			  .size = 64 };
	ASSERT_EQ(0, run_op(NS_A, &op));
	ASSERT_EQ(0, cap_decode(op.out, op.ret, &val));
	EXPECT_EQ(CAPS_A, val.permitted);
	op = (struct op){ .kind = OP_URING_FGET,
			  .path = self->file,
			  .name = CAPS,
			  .size = 64 };
	ASSERT_EQ(0, run_op(NS_B, &op));
	ASSERT_EQ(0, cap_decode(op.out, op.ret, &val));
	EXPECT_EQ(CAPS_B, val.permitted);

	/* Same grammar and permissions as the system calls. */
	op = (struct op){ .kind = OP_URING_GET,
			  .path = self->file,
			  .name = CAPS "@uid=01",
			  .size = 64 };
	EXPECT_EQ(EINVAL, run_op(NS_A, &op));
	op = (struct op){ .kind = OP_URING_SET,
			  .path = self->file,
			  .name = CAPS_WILDCARD,
			  .value = &cap_a,
			  .size = XATTR_CAPS_SZ_2 };
	EXPECT_EQ(EPERM, run_op(NS_A, &op));
}

TEST_F_TIMEOUT(nscaps, idmapped_mount_maps_keys, NSCAPS_TIMEOUT)
{
	/* Through the idmapped mount, NS_B's root (2000) is fs uid 1000. */
	const char *const b_view[] = { CAPS, CAPS_KEY("1000"), NULL };
	char list[256];
	ssize_t len;

	ASSERT_EQ(0,
		  idmapped_mount(self->mnt, self->idmapped, "0 1000 65536\n"));
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_KEY("1000"), 2,
				CAPS_A, 0));
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_KEY("2000"), 2,
				CAPS_B, 0));

	EXPECT_EQ(CAPS_B, ns_cap_permitted(NS_B, self->file, CAPS));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_B, self->idmapped_file, CAPS));
	/* Fs uid 2000 is uid 3000 on the mount, NS_B's uid 1000. */
	ASSERT_EQ(0, ns_listxattr(NS_B, self->idmapped_file, list, sizeof(list),
				  &len));
	EXPECT_TRUE(list_is(list, len, b_view));
	EXPECT_EQ(CAPS_B, ns_cap_permitted(NS_B, self->idmapped_file,
					   CAPS_KEY("1000")));

	ASSERT_EQ(0, ns_set_cap(NS_B, self->idmapped_file, CAPS, 2, CAPS_NESTED,
				0));
	EXPECT_EQ(CAPS_NESTED,
		  ns_cap_permitted(NS_HOST, self->file, CAPS_KEY("1000")));
	EXPECT_EQ(CAPS_B,
		  ns_cap_permitted(NS_HOST, self->file, CAPS_KEY("2000")));
	EXPECT_EQ(CAPS_NESTED, ns_cap_permitted(NS_A, self->file, CAPS));
	EXPECT_EQ(CAPS_B, ns_cap_permitted(NS_B, self->file, CAPS));
}

TEST_F_TIMEOUT(nscaps, sysctl_off_is_stock_behaviour, NSCAPS_TIMEOUT)
{
	struct vfs_ns_cap_data cap;
	size_t size = cap_encode(&cap, 2, CAPS_A, 0);
	struct cap_value val;
	char list[256];
	ssize_t len;

	ASSERT_EQ(0, set_nscaps_sysctl(false));

	/* Stock 6.12: converted to a plain v3 value with rootid 1000. */
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));
	ASSERT_EQ(0, ns_get_cap(NS_HOST, self->file, CAPS, &val));
	EXPECT_EQ(3, val.rev);
	EXPECT_EQ(1000, val.rootid);
	EXPECT_EQ(CAPS_A, val.permitted);
	ASSERT_EQ(0,
		  ns_listxattr(NS_HOST, self->file, list, sizeof(list), &len));
	EXPECT_TRUE(list_is(list, len, (const char *const[]){ CAPS, NULL }));
	EXPECT_EQ(ENODATA, ns_getxattr(NS_HOST, self->file, CAPS_KEY("1000"),
				       NULL, 0, &len));

	/* Read back as v2 where rootid is the root; elsewhere EOVERFLOW. */
	ASSERT_EQ(0, ns_get_cap(NS_A, self->file, CAPS, &val));
	EXPECT_EQ(2, val.rev);
	EXPECT_EQ(CAPS_A, val.permitted);
	EXPECT_EQ(EOVERFLOW,
		  ns_getxattr(NS_B, self->file, CAPS, NULL, 0, &len));

	/* Names with '@' are ordinary security.* names again. */
	EXPECT_EQ(0,
		  ns_setxattr(NS_HOST, self->file, CAPS "@uid=01", &cap, size));
	EXPECT_EQ(EPERM,
		  ns_setxattr(NS_A, self->file, CAPS_WILDCARD, &cap, size));
	EXPECT_EQ(EPERM, ns_setxattr(NS_A, self->file, SELINUX, ns_label,
				     sizeof(ns_label)));
	ASSERT_EQ(0, ns_listxattr(NS_A, self->file, list, sizeof(list), &len));
	EXPECT_TRUE(
		list_is(list, len,
			(const char *const[]){ CAPS, CAPS "@uid=01", NULL }));

	/* Turned back on, the stored v3 value is a legacy plain value. */
	ASSERT_EQ(0, set_nscaps_sysctl(true));
	EXPECT_EQ(CAPS_A, ns_cap_permitted(NS_A, self->file, CAPS));
	EXPECT_EQ(EOVERFLOW,
		  ns_getxattr(NS_B, self->file, CAPS, NULL, 0, &len));
}

TEST_HARNESS_MAIN
