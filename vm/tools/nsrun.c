// SPDX-License-Identifier: GPL-2.0
/*
 * nsrun - run a command in a new user namespace with explicit id maps
 *
 *   nsrun [-m MAP]... [-u UID] [-n] -- COMMAND [ARG]...
 *
 * -m MAP   a uid_map/gid_map line "inside outside count" (repeatable),
 *          written by the parent, as a container runtime does;
 *          no -m: the namespace has no mappings at all
 * -u UID   run as UID inside the namespace (default 0, its root; a
 *          non-root uid shows what file capabilities grant)
 * -n       also unshare the mount namespace
 * -H       no new namespace: only switch to -u UID on the host (to show
 *          what a host process gets from the same file), or in the
 *          namespace nsrun runs in
 *
 * Exit status: the command's, or 125 when nsrun itself fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

static void fail(const char *what)
{
	fprintf(stderr, "nsrun: %s: %s\n", what, strerror(errno));
	exit(125);
}

static void write_file(pid_t pid, const char *file, const char *text)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail(path);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail(path);
	close(fd);
}

int main(int argc, char **argv)
{
	char map[4096] = "";
	int sync_pipe[2], opt, status, flags = CLONE_NEWUSER, host = 0;
	long uid = 0;
	pid_t pid;
	char c;

	while ((opt = getopt(argc, argv, "+m:u:nH")) != -1) {
		switch (opt) {
		case 'm':
			if (strlen(map) + strlen(optarg) + 2 > sizeof(map)) {
				fprintf(stderr, "nsrun: too many maps\n");
				return 125;
			}
			strcat(map, optarg);
			strcat(map, "\n");
			break;
		case 'u':
			uid = strtol(optarg, NULL, 10);
			break;
		case 'n':
			flags |= CLONE_NEWNS;
			break;
		case 'H':
			host = 1;
			break;
		default:
			fprintf(stderr, "usage: nsrun [-m MAP]... [-u UID] [-n] [-H] -- COMMAND [ARG]...\n");
			return 125;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "nsrun: no command\n");
		return 125;
	}
	if (host) {
		/*
		 * Inside a namespace nsrun made, setgroups is denied (EPERM):
		 * the groups stay as they are, the uid and gid still change.
		 */
		if ((setgroups(0, NULL) && errno != EPERM) ||
		    setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			fail("setresuid");
		execvp(argv[optind], argv + optind);
		fail(argv[optind]);
	}
	if (pipe2(sync_pipe, O_CLOEXEC))
		fail("pipe");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		if (unshare(flags))
			fail("unshare");
		close(sync_pipe[1]);
		/* Wait for the parent to write the maps (EOF = go). */
		if (read(sync_pipe[0], &c, 1) < 0)
			fail("read");
		/* Become the namespace's uid (root by default), as runtimes do. */
		if (map[0] && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
			fail("setresuid");
		execvp(argv[optind], argv + optind);
		fail(argv[optind]);
	}
	close(sync_pipe[0]);
	/* The child unshares before it reads; wait until it has. */
	for (;;) {
		char path[64], self[64], child[64];
		ssize_t a, b;

		snprintf(path, sizeof(path), "/proc/%d/ns/user", getpid());
		a = readlink(path, self, sizeof(self) - 1);
		snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
		b = readlink(path, child, sizeof(child) - 1);
		if (a < 0 || b < 0)
			fail("readlink ns/user");
		self[a] = child[b] = '\0';
		if (strcmp(self, child))
			break;
		usleep(1000);
	}
	if (map[0]) {
		write_file(pid, "uid_map", map);
		write_file(pid, "setgroups", "deny");
		write_file(pid, "gid_map", map);
	}
	close(sync_pipe[1]);
	if (waitpid(pid, &status, 0) < 0)
		fail("waitpid");
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
