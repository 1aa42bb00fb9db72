// SPDX-License-Identifier: GPL-2.0
/*
 * socketpair-pipe.so - LD_PRELOAD shim for rsync in the test guest.
 *
 * The guest kernel is built without CONFIG_UNIX, so socketpair(AF_UNIX)
 * fails with EAFNOSUPPORT and rsync cannot connect its own processes (even
 * for a local copy: "pipe: Address family not supported by protocol").
 * rsync uses each of those pairs in one direction only ([0] read, [1]
 * write), which is what a pipe gives: on that one error this returns
 * pipe2() instead. Every other call, and every xattr call, is rsync's own.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

int socketpair(int domain, int type, int protocol, int sv[2])
{
	static int (*real)(int, int, int, int[2]);
	int ret;

	if (!real)
		real = (int (*)(int, int, int, int[2]))dlsym(RTLD_NEXT, "socketpair");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	ret = real(domain, type, protocol, sv);
	if (ret == 0 || errno != EAFNOSUPPORT || domain != AF_UNIX)
		return ret;
	return pipe2(sv, (type & SOCK_CLOEXEC) ? O_CLOEXEC : 0);
}
