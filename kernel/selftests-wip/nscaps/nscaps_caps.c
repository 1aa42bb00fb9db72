// SPDX-License-Identifier: GPL-2.0
/*
 * Namespaced security xattrs - exec target that reports its capabilities
 *
 * The tests copy this program onto the filesystem under test, give it file
 * capabilities and exec it as a non-root uid: it prints its permitted and
 * effective sets, in hex, as "PERMITTED EFFECTIVE".
 */

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

int main(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	unsigned long long prm, eff;

	if (syscall(SYS_capget, &hdr, data)) {
		perror("capget");
		return 1;
	}
	prm = (unsigned long long)data[1].permitted << 32 | data[0].permitted;
	eff = (unsigned long long)data[1].effective << 32 | data[0].effective;
	printf("%llx %llx\n", prm, eff);
	return 0;
}
