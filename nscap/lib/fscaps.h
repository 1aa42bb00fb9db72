/* SPDX-License-Identifier: GPL-2.0 */
/* fscaps.h - encode and decode security.capability values (v1, v2, v3) */
#ifndef NSCAP_FSCAPS_H
#define NSCAP_FSCAPS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* On-disk layout, as in the kernel's include/uapi/linux/capability.h. */
#define NSCAP_REVISION_MASK 0xFF000000u
#define NSCAP_FLAGS_MASK 0x00FFFFFFu
#define NSCAP_FLAGS_EFFECTIVE 0x000001u
#define NSCAP_REVISION_1 0x01000000u
#define NSCAP_REVISION_2 0x02000000u
#define NSCAP_REVISION_3 0x03000000u
#define NSCAP_SIZE_1 12u
#define NSCAP_SIZE_2 20u
#define NSCAP_SIZE_3 24u
#define NSCAP_SIZE_MAX NSCAP_SIZE_3

/**
 * struct nscap_fcaps - a decoded file capability value
 * @revision:    1, 2 or 3
 * @effective:   the single effective flag of file capabilities
 * @permitted:   permitted set, bit N = capability N
 * @inheritable: inheritable set
 * @rootid:      v3 only: the namespace root uid; 0 for v1/v2
 */
struct nscap_fcaps {
	unsigned int revision;
	bool effective;
	uint64_t permitted;
	uint64_t inheritable;
	uint32_t rootid;
};

/* Decode errors; negative return values of nscap_fcaps_decode(). */
enum nscap_fcaps_err {
	NSCAP_FCAPS_OK = 0,
	NSCAP_FCAPS_ETRUNC = -1,   /* shorter than its revision's size */
	NSCAP_FCAPS_ELONG = -2,    /* longer than its revision's size */
	NSCAP_FCAPS_EREV = -3,     /* unknown revision byte */
	NSCAP_FCAPS_EMAGIC = -4,   /* reserved flag bits set */
	NSCAP_FCAPS_ERANGE = -5,   /* encode: does not fit the revision / buffer */
	NSCAP_FCAPS_EINVAL = -6,   /* encode: bad revision or arguments */
};

/**
 * nscap_fcaps_decode() - decode a raw value with size, revision and magic checks
 * @buf: the raw bytes
 * @len: their number
 * @out: the decoded value (only written on success)
 *
 * Return: 0 or a negative enum nscap_fcaps_err.
 */
int nscap_fcaps_decode(const void *buf, size_t len, struct nscap_fcaps *out);

/**
 * nscap_fcaps_encode() - encode a value in its revision's exact size
 * @caps:   the value; v1 cannot carry bits above 31, v1/v2 carry no rootid
 * @buf:    output buffer
 * @buflen: its size (NSCAP_SIZE_MAX always suffices)
 *
 * Return: the number of bytes written or a negative enum nscap_fcaps_err.
 */
int nscap_fcaps_encode(const struct nscap_fcaps *caps, void *buf, size_t buflen);

/** nscap_fcaps_strerror() - text for a negative enum nscap_fcaps_err */
const char *nscap_fcaps_strerror(int err);

#endif
