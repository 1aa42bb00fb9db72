// SPDX-License-Identifier: GPL-2.0
/* Globals and the fake xattr store of the userspace shim (see kshim.h). */
#include <kshim.h>

struct user_namespace init_user_ns = {
	.uid_map = { 1, { { 0, 0, 4294967295U } } },
	.parent = NULL,
	.level = 0,
};
struct user_namespace *nscaps_shim_current_ns = &init_user_ns;
struct mnt_idmap nop_mnt_idmap;
/*
 * fs.xattr_user_ns: the kernel keeps it in a static key (kshim.h).  Weak:
 * a series from before the static key defines it in fs/xattr_user_ns.c.
 */
__attribute__((weak)) int sysctl_xattr_user_ns = 1;
struct mnt_idmap invalid_mnt_idmap;

const char *nscaps_shim_store;
size_t nscaps_shim_store_len;
unsigned long nscaps_shim_store_probes;

/* Presence of a raw name in the store; every value is 20 bytes long. */
int __vfs_getxattr(struct dentry *dentry, struct inode *inode, const char *name,
		   void *value, size_t size)
{
	size_t off = 0, n, len = strlen(name);

	(void)dentry;
	(void)inode;
	nscaps_shim_store_probes++;
	if (len > XATTR_NAME_MAX)
		abort(); /* a raw name the kernel could never build */
	while (off < nscaps_shim_store_len) {
		n = strnlen(nscaps_shim_store + off, nscaps_shim_store_len - off);
		if (n == len && !memcmp(nscaps_shim_store + off, name, len)) {
			if (size && size < 20)
				return -ERANGE;
			if (size)
				memset(value, 'v', 20);
			return 20;
		}
		off += n + 1;
	}
	return -ENODATA;
}

ssize_t vfs_listxattr(struct dentry *dentry, char *list, size_t size)
{
	(void)dentry;
	if (!size)
		return nscaps_shim_store_len;
	if (size < nscaps_shim_store_len)
		return -ERANGE;
	memcpy(list, nscaps_shim_store, nscaps_shim_store_len);
	return nscaps_shim_store_len;
}

/* ->listxattr() of the fake filesystem: the store, as vfs_listxattr(). */
const struct inode_operations nscaps_shim_iop = {
	.listxattr = vfs_listxattr,
};
