/* SPDX-License-Identifier: GPL-2.0 */
/* shim: everything is in kshim.h */
#include <kshim.h>
