/* SPDX-License-Identifier: GPL-2.0 */
/* captext.h - between decoded values and libcap's capability text */
#ifndef NSCAP_CAPTEXT_H
#define NSCAP_CAPTEXT_H

#include <sys/capability.h>
#include "fscaps.h"

/**
 * nscap_fcaps_to_cap() - a cap_t as libcap's cap_get_file() would build it:
 * effective = permitted | inheritable when the effective flag is set.
 *
 * Return: a cap_t to cap_free(), or NULL with errno set.
 */
cap_t nscap_fcaps_to_cap(const struct nscap_fcaps *c);

/**
 * nscap_cap_to_fcaps() - the value libcap's cap_set_file() would write
 * @cap:      the capability state
 * @revision: 2 or 3
 * @rootid:   for revision 3
 * @out:      the value
 *
 * Return: 0, or -EINVAL when the effective set is neither empty nor covers
 * permitted | inheritable (files carry a single effective bit).
 */
int nscap_cap_to_fcaps(cap_t cap, unsigned int revision, uint32_t rootid,
		       struct nscap_fcaps *out);

/**
 * nscap_fcaps_text() - libcap's cap_to_text() of a value, e.g. "cap_net_raw=ep"
 *
 * Return: a string to cap_free(), or NULL with errno set.
 */
char *nscap_fcaps_text(const struct nscap_fcaps *c);

/**
 * nscap_fcaps_parse_text() - cap_from_text() into a value
 * Return: 0, -EINVAL for bad text or a bad effective set.
 */
int nscap_fcaps_parse_text(const char *text, unsigned int revision,
			   uint32_t rootid, struct nscap_fcaps *out);

/**
 * nscap_fcaps_compare() - which sets differ, in the CAP_DIFFERS() encoding
 * of cap_compare(): bit CAP_EFFECTIVE, CAP_PERMITTED, CAP_INHERITABLE.
 * The revision and rootid are not compared (as setcap -v does not).
 */
int nscap_fcaps_compare(const struct nscap_fcaps *a, const struct nscap_fcaps *b);

#endif
