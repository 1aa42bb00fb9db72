// SPDX-License-Identifier: GPL-2.0
/* fscaps.c - encode and decode security.capability values (v1, v2, v3) */
#include <string.h>
#include "fscaps.h"

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static size_t revision_size(unsigned int revision)
{
	switch (revision) {
	case 1: return NSCAP_SIZE_1;
	case 2: return NSCAP_SIZE_2;
	case 3: return NSCAP_SIZE_3;
	default: return 0;
	}
}

int nscap_fcaps_decode(const void *buf, size_t len, struct nscap_fcaps *out)
{
	const unsigned char *p = buf;
	struct nscap_fcaps c = { 0 };
	uint32_t magic;
	size_t want;

	if (!buf || len < 4)
		return NSCAP_FCAPS_ETRUNC;
	magic = get_le32(p);
	c.revision = (magic & NSCAP_REVISION_MASK) >> 24;
	want = revision_size(c.revision);
	if (!want)
		return NSCAP_FCAPS_EREV;
	if (magic & NSCAP_FLAGS_MASK & ~NSCAP_FLAGS_EFFECTIVE)
		return NSCAP_FCAPS_EMAGIC;
	/* The kernel accepts exactly the revision's size, nothing else. */
	if (len < want)
		return NSCAP_FCAPS_ETRUNC;
	if (len > want)
		return NSCAP_FCAPS_ELONG;
	c.effective = magic & NSCAP_FLAGS_EFFECTIVE;
	c.permitted = get_le32(p + 4);
	c.inheritable = get_le32(p + 8);
	if (c.revision >= 2) {
		c.permitted |= (uint64_t)get_le32(p + 12) << 32;
		c.inheritable |= (uint64_t)get_le32(p + 16) << 32;
	}
	if (c.revision == 3)
		c.rootid = get_le32(p + 20);
	*out = c;
	return 0;
}

int nscap_fcaps_encode(const struct nscap_fcaps *caps, void *buf, size_t buflen)
{
	unsigned char *p = buf;
	size_t want;

	if (!caps || !buf)
		return NSCAP_FCAPS_EINVAL;
	want = revision_size(caps->revision);
	if (!want)
		return NSCAP_FCAPS_EINVAL;
	if (buflen < want)
		return NSCAP_FCAPS_ERANGE;
	if (caps->revision == 1 &&
	    ((caps->permitted | caps->inheritable) >> 32))
		return NSCAP_FCAPS_ERANGE;
	if (caps->revision != 3 && caps->rootid)
		return NSCAP_FCAPS_ERANGE;
	put_le32(p, (uint32_t)caps->revision << 24 |
		    (caps->effective ? NSCAP_FLAGS_EFFECTIVE : 0));
	put_le32(p + 4, (uint32_t)caps->permitted);
	put_le32(p + 8, (uint32_t)caps->inheritable);
	if (caps->revision >= 2) {
		put_le32(p + 12, (uint32_t)(caps->permitted >> 32));
		put_le32(p + 16, (uint32_t)(caps->inheritable >> 32));
	}
	if (caps->revision == 3)
		put_le32(p + 20, caps->rootid);
	return (int)want;
}

const char *nscap_fcaps_strerror(int err)
{
	switch (err) {
	case NSCAP_FCAPS_OK: return "success";
	case NSCAP_FCAPS_ETRUNC: return "truncated capability value";
	case NSCAP_FCAPS_ELONG: return "oversized capability value";
	case NSCAP_FCAPS_EREV: return "unknown capability value revision";
	case NSCAP_FCAPS_EMAGIC: return "bad capability magic (reserved flag bits set)";
	case NSCAP_FCAPS_ERANGE: return "capability value does not fit its revision";
	case NSCAP_FCAPS_EINVAL: return "invalid capability value arguments";
	default: return "unknown capability value error";
	}
}
