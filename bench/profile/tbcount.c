// SPDX-License-Identifier: GPL-2.0
/*
 * tbcount: a QEMU (7.2, plugin API version 1) TCG plugin that counts the
 * guest instructions executed per translated block, for bench/profile/
 * profile.sh.
 *
 *   qemu-system-x86_64 ... -plugin file=tbcount.so,out=FILE,on=ADDR/BYTES,off=ADDR/BYTES...
 *                                  [,split=A:B:...]
 *
 * Each translated block is keyed by its start vaddr and its instruction
 * count (one vaddr can be translated with different lengths, e.g. when
 * -icount cuts a block short), as in QEMU's contrib/plugins/hotblocks.c.
 * Kernel blocks (vaddr >= 0xffffffff80000000) get a counter of their own;
 * all user blocks share one.  A counter is incremented inline by the
 * block's instruction count each time the block runs.
 *
 * Phases: counting is on only between markers, user-mode blocks named by
 * on=ADDR/BYTES and off=ADDR/BYTES (hex; repeatable): a block that starts at
 * ADDR with those first bytes of code (so that another process's code at the
 * same vaddr is not taken for it).  Each "on" block starts the next phase
 * (1, 2, ... up to MAXPHASE), each "off" block stops counting.  profile.sh
 * puts "on" at the entry of xattr_bench's loop() and "off" after each call
 * of it, so phase 1 is the warm-up loop and phases 2.. the timed rounds.
 * At a marker the plugin adds the counters' difference since the last
 * marker to the phase that was running.
 *
 * Buckets (optional, split=A:B:... with kernel vaddrs in hex): within a
 * phase, instructions are also split by which of the listed addresses was
 * the last one to start a block (bucket 1..n; bucket 0: none yet in this
 * phase).  With the entry points of two system calls (e.g.
 * __x64_sys_setxattr and __x64_sys_removexattr) that separates the two
 * calls of a loop that alternates them: a bucket holds one call's body, its
 * return to user space, the user code after it and the next call's entry.
 * In this mode blocks are counted by a callback instead of inline.
 *
 * At exit, FILE gets:
 *     # tbcount markers=M phases=P buckets=B
 *     phase p bucket b user INSNS              (user-mode instructions)
 *     phase p bucket b VADDR N_INSNS EXECS     (one line per kernel block
 *                                               that ran in that phase)
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define KERNEL_BASE	0xffffffff80000000ULL
#define MAXPHASE	16
#define MAXBUCKET	8
#define MAXMARK		8

struct mark {
	uint64_t addr;
	uint8_t bytes[8];
	int nbytes;
	int on;
};

struct tbc {
	uint64_t key;		/* vaddr's low 48 bits | n_insns << 48 */
	uint64_t vaddr;
	uint64_t n;
	uint64_t count;		/* instructions; the inline op adds n */
	uint64_t base;		/* count at the last marker */
	uint64_t acc[MAXPHASE + 1][MAXBUCKET];
};

static GMutex lock;
static GHashTable *tbs;
static struct tbc user = { .n = 1 };	/* all user blocks */
static const char *outpath;
static int phase;			/* 0: not counting */
static int nmarkers, maxphase_seen, nextphase = 1;
static struct mark marks[MAXMARK];
static int nmarks;
static uint64_t split_addr[MAXBUCKET];
static int nsplit;
static int bucket;

/* settle: add what each counter ran since the last marker to the phase */
static void settle_one(struct tbc *t)
{
	if (phase)
		t->acc[phase][bucket] += t->count - t->base;
	t->base = t->count;
}

static void settle_cb(gpointer key, gpointer value, gpointer udata)
{
	settle_one(value);
}

static void marker_exec(unsigned int vcpu, void *udata)
{
	const struct mark *m = udata;

	g_mutex_lock(&lock);
	if (!nsplit) {
		g_hash_table_foreach(tbs, settle_cb, NULL);
		settle_one(&user);
	}
	phase = 0;
	if (m->on) {
		phase = nextphase;
		if (nextphase < MAXPHASE)
			nextphase++;
	}
	bucket = 0;
	nmarkers++;
	if (phase > maxphase_seen)
		maxphase_seen = phase;
	g_mutex_unlock(&lock);
}

/* is this block the one mark m names? */
static bool mark_match(const struct mark *m, struct qemu_plugin_tb *tb, size_t n)
{
	uint8_t code[16];
	size_t i, len = 0;

	if (qemu_plugin_tb_vaddr(tb) != m->addr)
		return false;
	for (i = 0; i < n && len < (size_t)m->nbytes; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		size_t sz = qemu_plugin_insn_size(insn);

		if (sz > sizeof(code) - len)
			sz = sizeof(code) - len;
		memcpy(code + len, qemu_plugin_insn_data(insn), sz);
		len += sz;
	}
	return len >= (size_t)m->nbytes && !memcmp(code, m->bytes, m->nbytes);
}

/* split mode: one callback per block run, straight into the bucket */
static void tb_exec_split(unsigned int vcpu, void *udata)
{
	struct tbc *t = udata;

	if (phase)
		t->acc[phase][bucket] += t->n;
}

static void tb_exec_user_split(unsigned int vcpu, void *udata)
{
	if (phase)
		user.acc[phase][bucket] += (uintptr_t)udata;
}

static void split_exec(unsigned int vcpu, void *udata)
{
	bucket = (int)(uintptr_t)udata;
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct tbc *t;
	uint64_t key;

	if (pc < KERNEL_BASE) {
		for (i = 0; i < (size_t)nmarks; i++)
			if (mark_match(&marks[i], tb, n))
				qemu_plugin_register_vcpu_tb_exec_cb(tb, marker_exec,
								     QEMU_PLUGIN_CB_NO_REGS,
								     &marks[i]);
		if (nsplit)
			qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec_user_split,
							     QEMU_PLUGIN_CB_NO_REGS,
							     (void *)(uintptr_t)n);
		else
			qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
								 &user.count, n);
		return;
	}

	key = (pc & 0xffffffffffffULL) | ((uint64_t)n << 48);
	g_mutex_lock(&lock);
	t = g_hash_table_lookup(tbs, &key);
	if (!t) {
		t = g_new0(struct tbc, 1);
		t->key = key;
		t->vaddr = pc;
		t->n = n;
		g_hash_table_insert(tbs, &t->key, t);
	}
	g_mutex_unlock(&lock);

	for (i = 0; i < (size_t)nsplit; i++)
		if (split_addr[i] == pc)
			qemu_plugin_register_vcpu_tb_exec_cb(tb, split_exec,
							     QEMU_PLUGIN_CB_NO_REGS,
							     (void *)(uintptr_t)(i + 1));
	if (nsplit)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec_split,
						     QEMU_PLUGIN_CB_NO_REGS, t);
	else
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &t->count, n);
}

static gint cmp_vaddr(gconstpointer a, gconstpointer b)
{
	const struct tbc *x = *(struct tbc *const *)a, *y = *(struct tbc *const *)b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	GPtrArray *all;
	FILE *f;
	int ph, b;
	guint i;

	g_mutex_lock(&lock);
	if (!nsplit) {
		g_hash_table_foreach(tbs, settle_cb, NULL);
		settle_one(&user);
	}
	f = fopen(outpath, "w");
	if (!f) {
		perror(outpath);
		g_mutex_unlock(&lock);
		return;
	}
	fprintf(f, "# tbcount markers=%d phases=%d buckets=%d\n", nmarkers,
		maxphase_seen, nsplit + 1);
	all = g_ptr_array_new();
	{
		GHashTableIter it;
		gpointer k, v;

		g_hash_table_iter_init(&it, tbs);
		while (g_hash_table_iter_next(&it, &k, &v))
			g_ptr_array_add(all, v);
	}
	g_ptr_array_sort(all, cmp_vaddr);
	for (ph = 1; ph <= maxphase_seen; ph++) {
		for (b = 0; b <= nsplit; b++) {
			fprintf(f, "phase %d bucket %d user %" PRIu64 "\n", ph, b,
				user.acc[ph][b]);
			for (i = 0; i < all->len; i++) {
				struct tbc *t = g_ptr_array_index(all, i);

				if (t->acc[ph][b])
					fprintf(f, "phase %d bucket %d %" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
						ph, b, t->vaddr, t->n, t->acc[ph][b] / t->n);
			}
		}
	}
	fclose(f);
	g_ptr_array_free(all, TRUE);
	g_mutex_unlock(&lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			outpath = argv[i] + 4;
		} else if (!strncmp(argv[i], "split=", 6)) {
			char *s = argv[i] + 6, *end;

			while (*s && nsplit < MAXBUCKET - 1) {
				split_addr[nsplit++] = strtoull(s, &end, 16);
				if (end == s)
					break;
				s = *end == ':' ? end + 1 : end;
			}
		} else if ((!strncmp(argv[i], "on=", 3) || !strncmp(argv[i], "off=", 4)) &&
			   nmarks < MAXMARK) {
			struct mark *m = &marks[nmarks++];
			char *s = strchr(argv[i], '=') + 1, *end;

			m->on = argv[i][1] == 'n';
			m->addr = strtoull(s, &end, 16);
			if (*end == '/')
				for (s = end + 1; s[0] && s[1] && m->nbytes < 8; s += 2) {
					char hx[3] = { s[0], s[1], 0 };

					m->bytes[m->nbytes++] = strtoul(hx, NULL, 16);
				}
		} else {
			fprintf(stderr, "tbcount: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!outpath) {
		fprintf(stderr, "tbcount: needs out=FILE\n");
		return -1;
	}
	if (info->system_emulation && info->system.max_vcpus > 1)
		fprintf(stderr, "tbcount: %d vCPUs: the inline counters are not atomic\n",
			info->system.max_vcpus);
	tbs = g_hash_table_new(g_int64_hash, g_int64_equal);
	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
