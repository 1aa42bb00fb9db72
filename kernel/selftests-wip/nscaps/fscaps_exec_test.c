// SPDX-License-Identifier: GPL-2.0
/*
 * Namespaced security xattrs - file capabilities at exec
 *
 * Each check execs the nscaps_caps helper as a non-root uid (root in a user
 * namespace already has every capability there) and reads the permitted and
 * effective sets it reports.
 */

#include "common.h"

/* Every namespace, and the host, exec'ing the file gets nothing. */
static bool grants_nothing_anywhere(const char *path)
{
	static const enum ns all[] = { NS_HOST, NS_A, NS_B, NS_NESTED };
	bool ok = true;
	int i;

	for (i = 0; i < ARRAY_SIZE(all); i++) {
		uint64_t prm = ns_exec_permitted(all[i], path);

		if (prm) {
			fprintf(stderr, "# ns %d got caps %llx\n", all[i],
				(unsigned long long)prm);
			ok = false;
		}
	}
	return ok;
}

/* Sets values for the host, NS_A, NS_B, the nested namespace, the wildcard. */
static int set_all_values(const char *path, bool with_host, bool with_wild)
{
	int err = 0;

	if (with_host)
		err = ns_set_cap(NS_HOST, path, CAPS, 2, CAPS_HOST, 0);
	if (!err)
		err = ns_set_cap(NS_A, path, CAPS, 2, CAPS_A, 0);
	if (!err)
		err = ns_set_cap(NS_B, path, CAPS, 2, CAPS_B, 0);
	if (!err)
		err = ns_set_cap(NS_NESTED, path, CAPS, 2, CAPS_NESTED, 0);
	if (!err && with_wild)
		err = ns_set_cap(NS_HOST, path, CAPS_WILDCARD, 2, CAPS_WILD, 0);
	return err;
}

TEST_F_TIMEOUT(nscaps, own_value_applies_in_namespace, NSCAPS_TIMEOUT)
{
	uint64_t prm, eff;

	ASSERT_EQ(0, ns_exec(NS_A, self->file, &prm, &eff));
	EXPECT_EQ(0, prm);
	EXPECT_EQ(0, eff);

	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));
	ASSERT_EQ(0, ns_exec(NS_A, self->file, &prm, &eff));
	EXPECT_EQ(CAPS_A, prm);
	EXPECT_EQ(CAPS_A, eff);
}

TEST_F_TIMEOUT(nscaps, two_namespaces_get_different_values_from_one_file,
	       NSCAPS_TIMEOUT)
{
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));
	ASSERT_EQ(0, ns_set_cap(NS_B, self->file, CAPS, 3, CAPS_B, 0));

	EXPECT_EQ(CAPS_A, ns_exec_permitted(NS_A, self->file));
	EXPECT_EQ(CAPS_B, ns_exec_permitted(NS_B, self->file));
	EXPECT_EQ(0, ns_exec_permitted(NS_HOST, self->file));
}

TEST_F_TIMEOUT(nscaps, namespace_without_value_gets_host_value, NSCAPS_TIMEOUT)
{
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS, 2, CAPS_HOST, 0));
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));

	EXPECT_EQ(CAPS_HOST, ns_exec_permitted(NS_B, self->file));
	EXPECT_EQ(CAPS_HOST, ns_exec_permitted(NS_HOST, self->file));
	EXPECT_EQ(CAPS_A, ns_exec_permitted(NS_A, self->file));
	EXPECT_EQ(CAPS_A, ns_exec_permitted(NS_NESTED, self->file));
}

TEST_F_TIMEOUT(nscaps, nested_namespace_gets_parent_value, NSCAPS_TIMEOUT)
{
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));
	EXPECT_EQ(CAPS_A, ns_exec_permitted(NS_NESTED, self->file));

	ASSERT_EQ(0,
		  ns_set_cap(NS_NESTED, self->file, CAPS, 2, CAPS_NESTED, 0));
	EXPECT_EQ(CAPS_NESTED, ns_exec_permitted(NS_NESTED, self->file));
	EXPECT_EQ(CAPS_A, ns_exec_permitted(NS_A, self->file));
}

TEST_F_TIMEOUT(nscaps, wildcard_applies_in_every_namespace_not_on_host,
	       NSCAPS_TIMEOUT)
{
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_WILDCARD, 2,
				CAPS_WILD, 0));
	EXPECT_EQ(CAPS_WILD, ns_exec_permitted(NS_A, self->file));
	EXPECT_EQ(CAPS_WILD, ns_exec_permitted(NS_B, self->file));
	EXPECT_EQ(CAPS_WILD, ns_exec_permitted(NS_NESTED, self->file));
	EXPECT_EQ(0, ns_exec_permitted(NS_HOST, self->file));

	/* The host's own value stays the host's; an own value wins. */
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS, 2, CAPS_HOST, 0));
	ASSERT_EQ(0, ns_set_cap(NS_B, self->file, CAPS, 2, CAPS_B, 0));
	EXPECT_EQ(CAPS_HOST, ns_exec_permitted(NS_HOST, self->file));
	EXPECT_EQ(CAPS_WILD, ns_exec_permitted(NS_A, self->file));
	EXPECT_EQ(CAPS_B, ns_exec_permitted(NS_B, self->file));
}

TEST_F_TIMEOUT(nscaps, legacy_v3_value_behaves_as_stock, NSCAPS_TIMEOUT)
{
	struct cap_value val;
	ssize_t len;

	/* A plain v3 value written by the host stays plain and raw. */
	ASSERT_EQ(0,
		  ns_set_cap(NS_HOST, self->file, CAPS, 3, CAPS_LEGACY, 1000));
	ASSERT_EQ(0, ns_get_cap(NS_HOST, self->file, CAPS, &val));
	EXPECT_EQ(3, val.rev);
	EXPECT_EQ(1000, val.rootid);
	EXPECT_EQ(CAPS_LEGACY, val.permitted);

	/* Granted where host 1000 is root, or an ancestor's root... */
	EXPECT_EQ(CAPS_LEGACY, ns_exec_permitted(NS_A, self->file));
	EXPECT_EQ(CAPS_LEGACY, ns_exec_permitted(NS_NESTED, self->file));
	/* ...and nowhere else. */
	EXPECT_EQ(0, ns_exec_permitted(NS_B, self->file));
	EXPECT_EQ(0, ns_exec_permitted(NS_HOST, self->file));

	ASSERT_EQ(0, ns_get_cap(NS_A, self->file, CAPS, &val));
	EXPECT_EQ(2, val.rev);
	EXPECT_EQ(CAPS_LEGACY, val.permitted);
	EXPECT_EQ(EOVERFLOW,
		  ns_getxattr(NS_B, self->file, CAPS, NULL, 0, &len));

	/* A namespace's own value is no longer limited to one rootid. */
	ASSERT_EQ(0, ns_set_cap(NS_B, self->file, CAPS, 2, CAPS_B, 0));
	EXPECT_EQ(CAPS_B, ns_exec_permitted(NS_B, self->file));
	EXPECT_EQ(CAPS_LEGACY, ns_exec_permitted(NS_A, self->file));
	ASSERT_EQ(0, ns_get_cap(NS_HOST, self->file, CAPS, &val));
	EXPECT_EQ(3, val.rev);
	EXPECT_EQ(1000, val.rootid);
}

TEST_F_TIMEOUT(nscaps, setcap_and_getcap_in_namespaces, NSCAPS_TIMEOUT)
{
	char *const setcap_a[] = { "setcap", "cap_net_raw=ep", self->file,
				   NULL };
	char *const setcap_b[] = { "setcap", "cap_chown=ep", self->file, NULL };
	char *const getcap[] = { "getcap", self->file, NULL };
	char out[512], expected[512];
	int status;

	ASSERT_EQ(0, ns_run(NS_A, setcap_a, out, sizeof(out), &status));
	if (status == 127)
		SKIP(return, "setcap (libcap2-bin) is not installed");
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, ns_run(NS_B, setcap_b, out, sizeof(out), &status));
	ASSERT_EQ(0, status);

	ASSERT_EQ(0, ns_run(NS_A, getcap, out, sizeof(out), &status));
	EXPECT_EQ(0, status);
	snprintf(expected, sizeof(expected), "%s cap_net_raw=ep\n", self->file);
	EXPECT_STREQ(expected, out);
	ASSERT_EQ(0, ns_run(NS_B, getcap, out, sizeof(out), &status));
	EXPECT_EQ(0, status);
	snprintf(expected, sizeof(expected), "%s cap_chown=ep\n", self->file);
	EXPECT_STREQ(expected, out);
	/* The host has no capabilities on this file. */
	ASSERT_EQ(0, ns_run(NS_HOST, getcap, out, sizeof(out), &status));
	EXPECT_STREQ("", out);

	EXPECT_EQ(CAP_BIT(CAP_NET_RAW), ns_exec_permitted(NS_A, self->file));
	EXPECT_EQ(CAP_BIT(CAP_CHOWN), ns_exec_permitted(NS_B, self->file));
	EXPECT_EQ(0, ns_exec_permitted(NS_HOST, self->file));
}

TEST_F_TIMEOUT(nscaps, container_value_grants_nothing_on_host, NSCAPS_TIMEOUT)
{
	ssize_t len;

	ASSERT_EQ(0, set_all_values(self->file, false, false));
	EXPECT_EQ(0, ns_exec_permitted(NS_HOST, self->file));
	EXPECT_EQ(ENODATA,
		  ns_getxattr(NS_HOST, self->file, CAPS, NULL, 0, &len));
}

TEST_F_TIMEOUT(nscaps, container_cannot_write_plain_value, NSCAPS_TIMEOUT)
{
	struct vfs_ns_cap_data host_cap;
	size_t size = cap_encode(&host_cap, 2, CAPS_HOST, 0);
	char buf[64];
	ssize_t len;

	ASSERT_EQ(0, ns_setxattr(NS_HOST, self->file, CAPS, &host_cap, size));
	/* Accepted, but lands under the namespace's key. */
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2,
				CAP_BIT(CAP_SYS_ADMIN), 0));
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 3,
				CAP_BIT(CAP_SYS_ADMIN), 0));

	ASSERT_EQ(0, ns_getxattr(NS_HOST, self->file, CAPS, buf, sizeof(buf),
				 &len));
	ASSERT_EQ(size, len);
	EXPECT_EQ(0, memcmp(&host_cap, buf, size));
	EXPECT_EQ(CAPS_HOST, ns_exec_permitted(NS_HOST, self->file));
	EXPECT_EQ(CAPS_HOST, ns_exec_permitted(NS_B, self->file));
	EXPECT_EQ(CAP_BIT(CAP_SYS_ADMIN), ns_exec_permitted(NS_A, self->file));
}

TEST_F_TIMEOUT(nscaps, container_cannot_write_wildcard, NSCAPS_TIMEOUT)
{
	EXPECT_EQ(EPERM,
		  ns_set_cap(NS_A, self->file, CAPS_WILDCARD, 2, CAPS_A, 0));
	EXPECT_EQ(0, ns_exec_permitted(NS_B, self->file));

	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_WILDCARD, 2,
				CAPS_WILD, 0));
	EXPECT_EQ(EPERM, ns_removexattr(NS_A, self->file, CAPS_WILDCARD));
	EXPECT_EQ(EPERM, ns_set_cap(NS_NESTED, self->file, CAPS_WILDCARD, 2,
				    CAPS_A, 0));
	EXPECT_EQ(CAPS_WILD, ns_exec_permitted(NS_B, self->file));
}

TEST_F_TIMEOUT(nscaps, container_cannot_write_key_it_does_not_map,
	       NSCAPS_TIMEOUT)
{
	char list[256];
	ssize_t len;

	/* NS_A maps uids 0..65535; uid 0 has one spelling, the plain name. */
	EXPECT_EQ(EINVAL, ns_set_cap(NS_A, self->file, CAPS_KEY("65536"), 2,
				     CAPS_A, 0));
	EXPECT_EQ(EINVAL, ns_set_cap(NS_A, self->file, CAPS_KEY("4294967294"),
				     2, CAPS_A, 0));
	EXPECT_EQ(EINVAL,
		  ns_set_cap(NS_A, self->file, CAPS_KEY("0"), 2, CAPS_A, 0));
	/* The nested namespace cannot name its parent's root. */
	EXPECT_EQ(EINVAL, ns_set_cap(NS_NESTED, self->file, CAPS_KEY("1000"), 2,
				     CAPS_A, 0));

	ASSERT_EQ(0,
		  ns_listxattr(NS_HOST, self->file, list, sizeof(list), &len));
	EXPECT_EQ(0, len);
	EXPECT_TRUE(grants_nothing_anywhere(self->file));
}

TEST_F_TIMEOUT(nscaps, nested_namespace_cannot_remove_parent_value,
	       NSCAPS_TIMEOUT)
{
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS, 2, CAPS_HOST, 0));
	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));

	EXPECT_EQ(ENODATA, ns_removexattr(NS_NESTED, self->file, CAPS));
	EXPECT_EQ(CAPS_A,
		  ns_cap_permitted(NS_HOST, self->file, CAPS_KEY("1000")));
	EXPECT_EQ(CAPS_A, ns_exec_permitted(NS_NESTED, self->file));
	EXPECT_EQ(CAPS_A, ns_exec_permitted(NS_A, self->file));

	/* Nor the host's, from any namespace. */
	EXPECT_EQ(0, ns_removexattr(NS_A, self->file, CAPS));
	EXPECT_EQ(ENODATA, ns_removexattr(NS_A, self->file, CAPS));
	EXPECT_EQ(ENODATA, ns_removexattr(NS_NESTED, self->file, CAPS));
	EXPECT_EQ(ENODATA, ns_removexattr(NS_B, self->file, CAPS));
	EXPECT_EQ(CAPS_HOST, ns_cap_permitted(NS_HOST, self->file, CAPS));
	EXPECT_EQ(CAPS_HOST, ns_exec_permitted(NS_NESTED, self->file));
}

TEST_F_TIMEOUT(nscaps, namespace_without_root_mapping_cannot_write,
	       NSCAPS_TIMEOUT)
{
	char list[256];
	ssize_t len;

	EXPECT_EQ(EINVAL,
		  ns_set_cap(NS_NOROOT, self->file, CAPS, 2, CAPS_A, 0));
	/* Stock 6.12 would store this as a plain v3 value for host 2002. */
	EXPECT_EQ(EINVAL,
		  ns_set_cap(NS_NOROOT, self->file, CAPS, 3, CAPS_A, 1));

	ASSERT_EQ(0,
		  ns_listxattr(NS_HOST, self->file, list, sizeof(list), &len));
	EXPECT_EQ(0, len);

	/* It still reads the host's value. */
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS, 2, CAPS_HOST, 0));
	EXPECT_EQ(CAPS_HOST, ns_cap_permitted(NS_NOROOT, self->file, CAPS));
}

static void expect_caps_gone(struct __test_metadata *_metadata,
			     const char *path)
{
	char list[512], buf[8];
	ssize_t len;

	ASSERT_EQ(0, ns_listxattr(NS_HOST, path, list, sizeof(list), &len));
	EXPECT_FALSE(list_has_prefix(list, len, CAPS));
	/* Other xattrs are not privileges. */
	ASSERT_EQ(0, ns_getxattr(NS_HOST, path, "user.keep", buf, sizeof(buf),
				 &len));
	EXPECT_TRUE(grants_nothing_anywhere(path));
}

TEST_F_TIMEOUT(nscaps, write_clears_capabilities_in_every_namespace,
	       NSCAPS_TIMEOUT)
{
	char byte;
	int fd;

	ASSERT_EQ(0, ns_setxattr(NS_HOST, self->file, "user.keep", "k", 1));
	ASSERT_EQ(0, set_all_values(self->file, true, true));
	ASSERT_EQ(CAPS_A, ns_exec_permitted(NS_A, self->file));

	/* Rewrite one byte, unchanged: the binary still runs. */
	fd = open(self->file, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, pread(fd, &byte, 1, 0));
	ASSERT_EQ(1, pwrite(fd, &byte, 1, 0));
	ASSERT_EQ(0, close(fd));

	expect_caps_gone(_metadata, self->file);
}

TEST_F_TIMEOUT(nscaps, truncate_clears_namespaced_capabilities, NSCAPS_TIMEOUT)
{
	struct op op = { .kind = OP_TRUNCATE, .path = self->file };
	struct stat st;

	ASSERT_EQ(0, ns_setxattr(NS_HOST, self->file, "user.keep", "k", 1));
	/* Namespaced values only: no plain value to notice. */
	ASSERT_EQ(0, set_all_values(self->file, false, false));
	ASSERT_EQ(CAPS_B, ns_exec_permitted(NS_B, self->file));

	ASSERT_EQ(0, stat(self->file, &st));
	op.length = st.st_size;
	ASSERT_EQ(0, run_op(NS_A, &op));

	expect_caps_gone(_metadata, self->file);
}

TEST_F_TIMEOUT(nscaps, chown_clears_wildcard, NSCAPS_TIMEOUT)
{
	ASSERT_EQ(0, ns_setxattr(NS_HOST, self->file, "user.keep", "k", 1));
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_WILDCARD, 2,
				CAPS_WILD, 0));
	ASSERT_EQ(CAPS_WILD, ns_exec_permitted(NS_B, self->file));

	ASSERT_EQ(0, chown(self->file, FILE_OWNER + 1, FILE_OWNER + 1));

	expect_caps_gone(_metadata, self->file);
}

TEST_F_TIMEOUT(nscaps, namespace_caps_never_reach_outside, NSCAPS_TIMEOUT)
{
	ASSERT_EQ(0,
		  ns_set_cap(NS_NESTED, self->file, CAPS, 2, CAPS_NESTED, 0));
	EXPECT_EQ(CAPS_NESTED, ns_exec_permitted(NS_NESTED, self->file));
	EXPECT_EQ(0, ns_exec_permitted(NS_A, self->file));
	EXPECT_EQ(0, ns_exec_permitted(NS_B, self->file));
	EXPECT_EQ(0, ns_exec_permitted(NS_HOST, self->file));

	ASSERT_EQ(0, ns_set_cap(NS_A, self->file, CAPS, 2, CAPS_A, 0));
	EXPECT_EQ(CAPS_A, ns_exec_permitted(NS_A, self->file));
	EXPECT_EQ(0, ns_exec_permitted(NS_B, self->file));
	EXPECT_EQ(0, ns_exec_permitted(NS_HOST, self->file));
}

TEST_F_TIMEOUT(nscaps, idmapped_mount_gives_each_container_its_value,
	       NSCAPS_TIMEOUT)
{
	ASSERT_EQ(0,
		  idmapped_mount(self->mnt, self->idmapped, "0 1000 65536\n"));
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_KEY("1000"), 2,
				CAPS_A, 0));
	ASSERT_EQ(0, ns_set_cap(NS_HOST, self->file, CAPS_KEY("2000"), 2,
				CAPS_B, 0));

	/* On the idmapped mount NS_B's root is fs uid 1000. */
	EXPECT_EQ(CAPS_B, ns_exec_permitted(NS_B, self->file));
	EXPECT_EQ(CAPS_A, ns_exec_permitted(NS_B, self->idmapped_file));
	EXPECT_EQ(CAPS_A, ns_exec_permitted(NS_A, self->file));
	EXPECT_EQ(0, ns_exec_permitted(NS_HOST, self->idmapped_file));
}

TEST_HARNESS_MAIN
