/* SPDX-License-Identifier: GPL-2.0 */
/* xname.h - raw namespaced xattr names: <base>, <base>@uid=K, <base>@uid */
#ifndef NSCAP_XNAME_H
#define NSCAP_XNAME_H

#include <stddef.h>
#include <stdint.h>

#define NSCAP_XATTR_CAPS "security.capability"
#define NSCAP_XATTR_SELINUX "security.selinux"
/* XATTR_NAME_MAX from <linux/limits.h>: longer names are ERANGE. */
#define NSCAP_XATTR_NAME_MAX 255
/* Largest key: 4294967295 is (uid_t)-1, which is never a valid uid. */
#define NSCAP_UID_MAX 4294967294u

/**
 * enum nscap_name_kind - what a raw xattr name is
 * @NSCAP_NAME_OTHER:    not namespaced: any name that is not a base or <base>@...
 * @NSCAP_NAME_PLAIN:    exactly <base> (the host's value)
 * @NSCAP_NAME_UID:      <base>@uid=K with a well-formed K
 * @NSCAP_NAME_WILDCARD: <base>@uid
 * @NSCAP_NAME_INVALID:  <base>@ followed by anything else (EINVAL in the kernel)
 */
enum nscap_name_kind {
	NSCAP_NAME_OTHER,
	NSCAP_NAME_PLAIN,
	NSCAP_NAME_UID,
	NSCAP_NAME_WILDCARD,
	NSCAP_NAME_INVALID,
};

/**
 * struct nscap_name - a parsed raw name
 * @kind: see enum nscap_name_kind
 * @base: the base (a string from the table) unless @kind is NSCAP_NAME_OTHER
 * @uid:  K for NSCAP_NAME_UID, else 0
 */
struct nscap_name {
	enum nscap_name_kind kind;
	const char *base;
	uint32_t uid;
};

/**
 * nscap_parse_uid() - parse K with the kernel's strict grammar
 * @s:   the text: decimal digits, no sign, no leading zero, no spaces
 * @out: K on success
 *
 * Return: 0, or -EINVAL (syntax, or K = 0) or -ERANGE (above NSCAP_UID_MAX).
 */
int nscap_parse_uid(const char *s, uint32_t *out);

/** nscap_name_parse() - classify @name; never fails, see enum nscap_name_kind */
void nscap_name_parse(const char *name, struct nscap_name *out);

/**
 * nscap_name_build() - build a raw name into @buf
 * @base: a base name, e.g. NSCAP_XATTR_CAPS
 * @kind: NSCAP_NAME_PLAIN, NSCAP_NAME_UID or NSCAP_NAME_WILDCARD
 * @uid:  K for NSCAP_NAME_UID (1..NSCAP_UID_MAX)
 * @buf:  output, NUL-terminated
 * @len:  size of @buf
 *
 * Return: the name's length, -EINVAL for bad arguments, -ERANGE if @buf is
 * too small or the name exceeds NSCAP_XATTR_NAME_MAX.
 */
int nscap_name_build(const char *base, enum nscap_name_kind kind, uint32_t uid,
		     char *buf, size_t len);

/** nscap_name_is_base() - return the table's base string if @s is a base */
const char *nscap_name_is_base(const char *s);

#endif
