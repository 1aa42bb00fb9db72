// SPDX-License-Identifier: GPL-2.0
/*
 * capexit: the tiny static binary that xattr_bench execs in its exec loops.
 * No libc: it asks capget() for its effective set and exits 42 if
 * CAP_NET_RAW is in it, 0 otherwise (the exec feature probe reads that).
 * Build: gcc -O2 -static -nostdlib -fno-stack-protector -o capexit capexit.c
 */
#include <linux/capability.h>
#include <sys/syscall.h>

static long sys2(long n, long a, long b)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b)
			 : "rcx", "r11", "memory");
	return r;
}

__attribute__((force_align_arg_pointer)) void _start(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	int code;

	sys2(SYS_capget, (long)&h, (long)d);
	code = (d[0].effective & (1u << CAP_NET_RAW)) ? 42 : 0;
	for (;;)
		sys2(SYS_exit, code, 0);
}
