// SPDX-License-Identifier: GPL-2.0
/* captext.c - between decoded values and libcap's capability text */
#include <errno.h>
#include "captext.h"

/* File capability values hold two 32-bit words per set. */
#define FCAP_BITS 64

static int set_bits(cap_t cap, cap_flag_t flag, uint64_t bits)
{
	for (cap_value_t v = 0; v < FCAP_BITS; v++) {
		if (!(bits >> v & 1))
			continue;
		if (cap_set_flag(cap, flag, 1, &v, CAP_SET))
			return -1;
	}
	return 0;
}

static uint64_t get_bits(cap_t cap, cap_flag_t flag)
{
	uint64_t bits = 0;

	for (cap_value_t v = 0; v < FCAP_BITS; v++) {
		cap_flag_value_t on = CAP_CLEAR;

		if (cap_get_flag(cap, v, flag, &on) == 0 && on == CAP_SET)
			bits |= (uint64_t)1 << v;
	}
	return bits;
}

cap_t nscap_fcaps_to_cap(const struct nscap_fcaps *c)
{
	cap_t cap = cap_init();

	if (!cap)
		return NULL;
	if (set_bits(cap, CAP_PERMITTED, c->permitted) ||
	    set_bits(cap, CAP_INHERITABLE, c->inheritable) ||
	    (c->effective &&
	     set_bits(cap, CAP_EFFECTIVE, c->permitted | c->inheritable))) {
		int e = errno;

		cap_free(cap);
		errno = e;
		return NULL;
	}
	return cap;
}

int nscap_cap_to_fcaps(cap_t cap, unsigned int revision, uint32_t rootid,
		       struct nscap_fcaps *out)
{
	struct nscap_fcaps c = { .revision = revision };
	uint64_t eff;

	if (revision != 2 && revision != 3)
		return -EINVAL;
	c.permitted = get_bits(cap, CAP_PERMITTED);
	c.inheritable = get_bits(cap, CAP_INHERITABLE);
	eff = get_bits(cap, CAP_EFFECTIVE);
	/* libcap's rule: a raised effective set must cover p | i. */
	if (eff && ((c.permitted | c.inheritable) & ~eff))
		return -EINVAL;
	c.effective = eff != 0;
	c.rootid = revision == 3 ? rootid : 0;
	*out = c;
	return 0;
}

char *nscap_fcaps_text(const struct nscap_fcaps *c)
{
	cap_t cap = nscap_fcaps_to_cap(c);
	char *text;

	if (!cap)
		return NULL;
	text = cap_to_text(cap, NULL);
	cap_free(cap);
	return text;
}

int nscap_fcaps_parse_text(const char *text, unsigned int revision,
			   uint32_t rootid, struct nscap_fcaps *out)
{
	cap_t cap = cap_from_text(text);
	int err;

	if (!cap)
		return -EINVAL;
	err = nscap_cap_to_fcaps(cap, revision, rootid, out);
	cap_free(cap);
	return err;
}

int nscap_fcaps_compare(const struct nscap_fcaps *a, const struct nscap_fcaps *b)
{
	uint64_t ea = a->effective ? a->permitted | a->inheritable : 0;
	uint64_t eb = b->effective ? b->permitted | b->inheritable : 0;
	int r = 0;

	if (ea != eb)
		r |= 1 << CAP_EFFECTIVE;
	if (a->permitted != b->permitted)
		r |= 1 << CAP_PERMITTED;
	if (a->inheritable != b->inheritable)
		r |= 1 << CAP_INHERITABLE;
	return r;
}
