/* SPDX-License-Identifier: GPL-2.0 */
/* dumpfmt.h - the `getfattr -d -e hex` dump format, as setfattr --restore reads it */
#ifndef NSCAP_DUMPFMT_H
#define NSCAP_DUMPFMT_H

#include <stdbool.h>
#include <stdio.h>

/**
 * struct nscap_dump_entry - one name=value line of a dump
 * @path:      the "# file:" path, unquoted
 * @name:      the xattr name, unquoted
 * @value:     decoded bytes (NULL when the line had no '=')
 * @len:       their number
 * @line:      line number in the dump, for messages
 */
struct nscap_dump_entry {
	char *path;
	char *name;
	unsigned char *value;
	size_t len;
	unsigned int line;
};

/** struct nscap_dump - a parsed dump: @n entries in file order */
struct nscap_dump {
	struct nscap_dump_entry *v;
	size_t n;
};

/**
 * nscap_dump_parse() - parse a whole dump before anything is applied
 * @f:       the stream
 * @out:     the entries (free with nscap_dump_free(), also on failure)
 * @errline: on failure, the offending line number
 * @why:     on failure, a static description
 *
 * Return: 0, -EINVAL for a syntax error, -ENOMEM, or -EIO for a read error.
 */
int nscap_dump_parse(FILE *f, struct nscap_dump *out, unsigned int *errline,
		     const char **why);

void nscap_dump_free(struct nscap_dump *d);

/**
 * nscap_dump_write_header() - "# file: PATH\n" with getfattr's path rules:
 * leading '/' stripped unless @absolute (caller warns), "./" prefix stripped,
 * '\n', '\r' and '\\' quoted.
 *
 * Return: 0 or -errno.
 */
int nscap_dump_write_header(FILE *out, const char *path, bool absolute);

/** nscap_dump_write_value() - "NAME=0xHEX\n" with the name quoted; 0 or -errno */
int nscap_dump_write_value(FILE *out, const char *name, const void *value,
			   size_t len);

#endif
