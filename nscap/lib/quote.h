/* SPDX-License-Identifier: GPL-2.0 */
/* quote.h - getfattr/setfattr-compatible name quoting and value encodings */
#ifndef NSCAP_QUOTE_H
#define NSCAP_QUOTE_H

#include <stddef.h>

/* getfattr quotes names with these (and always '\\') as \ooo ... */
#define NSCAP_QUOTE_NAME "=\n\r"
/* ... and paths with these. */
#define NSCAP_QUOTE_PATH "\n\r"

/**
 * nscap_quote() - quote like attr's quote(): '\\' and each byte of @chars
 * becomes a backslash and three octal digits; every other byte is kept.
 *
 * Return: a malloc'd string, or NULL with errno set.
 */
char *nscap_quote(const char *s, const char *chars);

/**
 * nscap_unquote() - undo nscap_quote() in place like setfattr's unquote():
 * only a backslash followed by three octal digits is replaced.
 *
 * Return: @s
 */
char *nscap_unquote(char *s);

/** nscap_hex_encode() - "0x" and lowercase hex digits; malloc'd, NULL on ENOMEM */
char *nscap_hex_encode(const void *buf, size_t len);

/**
 * nscap_value_decode() - decode a value as setfattr does: "0x.." hex, "0s.."
 * base64, otherwise text with optional quotes and backslash escapes.
 * Whitespace between hex digits or base64 quads is skipped.
 * @text: the encoded value
 * @out:  malloc'd bytes (free it); may be of length 0
 * @len:  their number
 *
 * Return: 0, -EINVAL for a bad encoding, -ENOMEM.
 */
int nscap_value_decode(const char *text, unsigned char **out, size_t *len);

#endif
