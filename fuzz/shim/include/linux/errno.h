/* SPDX-License-Identifier: GPL-2.0 */
/* shim: glibc's <errno.h> includes <linux/errno.h> too; keep the real one */
#include_next <linux/errno.h>
#include <kshim.h>
