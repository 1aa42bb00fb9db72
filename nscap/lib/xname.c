// SPDX-License-Identifier: GPL-2.0
/* xname.c - raw namespaced xattr names: <base>, <base>@uid=K, <base>@uid */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "xname.h"

/* One table, as in the kernel: adding a base is one line. */
static const char *const bases[] = {
	NSCAP_XATTR_CAPS,
	NSCAP_XATTR_SELINUX,
};

#define UID_PREFIX "@uid"

const char *nscap_name_is_base(const char *s)
{
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if (strcmp(s, bases[i]) == 0)
			return bases[i];
	return NULL;
}

int nscap_parse_uid(const char *s, uint32_t *out)
{
	uint64_t v = 0;
	size_t n = 0;

	if (!s || s[0] < '1' || s[0] > '9')
		return -EINVAL; /* empty, sign, space, or leading zero (or K = 0) */
	for (; s[n]; n++) {
		if (s[n] < '0' || s[n] > '9')
			return -EINVAL;
		/* Ten digits hold every uid; stop before v can overflow. */
		if (n >= 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(s[n] - '0');
	}
	if (v > NSCAP_UID_MAX)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

void nscap_name_parse(const char *name, struct nscap_name *out)
{
	out->kind = NSCAP_NAME_OTHER;
	out->base = NULL;
	out->uid = 0;
	if (!name)
		return;
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		size_t bl = strlen(bases[i]);
		const char *rest;

		if (strncmp(name, bases[i], bl) != 0)
			continue;
		rest = name + bl;
		if (*rest == '\0') {
			out->kind = NSCAP_NAME_PLAIN;
		} else if (*rest != '@') {
			continue; /* security.capabilityX: an ordinary name */
		} else if (strcmp(rest, UID_PREFIX) == 0) {
			out->kind = NSCAP_NAME_WILDCARD;
		} else if (strncmp(rest, UID_PREFIX "=", 5) == 0 &&
			   nscap_parse_uid(rest + 5, &out->uid) == 0) {
			out->kind = NSCAP_NAME_UID;
		} else {
			out->kind = NSCAP_NAME_INVALID;
			out->uid = 0;
		}
		out->base = bases[i];
		return;
	}
}

int nscap_name_build(const char *base, enum nscap_name_kind kind, uint32_t uid,
		     char *buf, size_t len)
{
	int n;

	if (!base || !buf || !*base)
		return -EINVAL;
	switch (kind) {
	case NSCAP_NAME_PLAIN:
		n = snprintf(buf, len, "%s", base);
		break;
	case NSCAP_NAME_WILDCARD:
		n = snprintf(buf, len, "%s" UID_PREFIX, base);
		break;
	case NSCAP_NAME_UID:
		if (uid == 0 || uid > NSCAP_UID_MAX)
			return -EINVAL;
		n = snprintf(buf, len, "%s" UID_PREFIX "=%u", base, (unsigned int)uid);
		break;
	default:
		return -EINVAL;
	}
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len || n > NSCAP_XATTR_NAME_MAX) {
		if (len)
			buf[0] = '\0';
		return -ERANGE;
	}
	return n;
}
