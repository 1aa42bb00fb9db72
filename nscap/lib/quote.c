// SPDX-License-Identifier: GPL-2.0
/* quote.c - getfattr/setfattr-compatible name quoting and value encodings */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "quote.h"

char *nscap_quote(const char *s, const char *chars)
{
	size_t n = 0, extra = 0;
	char *out, *q;

	if (!s) {
		errno = EINVAL;
		return NULL;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++)
		if (*p == '\\' || strchr(chars, *p))
			extra += 3;
	out = malloc(n + extra + 1);
	if (!out)
		return NULL;
	q = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || strchr(chars, *p)) {
			*q++ = '\\';
			*q++ = (char)('0' + (*p >> 6));
			*q++ = (char)('0' + ((*p >> 3) & 7));
			*q++ = (char)('0' + (*p & 7));
		} else {
			*q++ = (char)*p;
		}
	}
	*q = '\0';
	return out;
}

static int isoctal(char c)
{
	return c >= '0' && c <= '7';
}

char *nscap_unquote(char *s)
{
	char *r = s, *w = s;

	if (!s)
		return s;
	while (*r) {
		if (r[0] == '\\' && isoctal(r[1]) && isoctal(r[2]) && isoctal(r[3])) {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) |
				      (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return s;
}

char *nscap_hex_encode(const void *buf, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *p = buf;
	char *out = malloc(2 * len + 3), *q;

	if (!out)
		return NULL;
	q = out;
	*q++ = '0';
	*q++ = 'x';
	for (size_t i = 0; i < len; i++) {
		*q++ = digits[p[i] >> 4];
		*q++ = digits[p[i] & 15];
	}
	*q = '\0';
	return out;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int b64_digit(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static int decode_hex(const char *v, unsigned char *d, size_t *len)
{
	size_t n = 0;

	for (;;) {
		int hi, lo;

		while (isspace((unsigned char)*v))
			v++;
		if (!*v)
			break;
		hi = hex_digit(*v++);
		while (isspace((unsigned char)*v))
			v++;
		if (!*v)
			return -EINVAL; /* odd number of digits */
		lo = hex_digit(*v++);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		d[n++] = (unsigned char)(hi << 4 | lo);
	}
	*len = n;
	return 0;
}

static int decode_b64(const char *v, unsigned char *d, size_t *len)
{
	size_t n = 0;
	for (;;) {
		int q[4], pad = 0;

		while (isspace((unsigned char)*v))
			v++;
		if (!*v)
			break;
		for (int i = 0; i < 4; i++) {
			if (!v[i])
				return -EINVAL;
			if (v[i] == '=') {
				q[i] = 0;
				pad++;
			} else {
				if (pad)
					return -EINVAL; /* data after padding */
				q[i] = b64_digit(v[i]);
				if (q[i] < 0)
					return -EINVAL;
			}
		}
		if (pad > 2)
			return -EINVAL;
		v += 4;
		d[n++] = (unsigned char)(q[0] << 2 | q[1] >> 4);
		if (pad < 2)
			d[n++] = (unsigned char)((q[1] & 15) << 4 | q[2] >> 2);
		if (pad < 1)
			d[n++] = (unsigned char)((q[2] & 3) << 6 | q[3]);
		if (pad) {
			while (isspace((unsigned char)*v))
				v++;
			if (*v)
				return -EINVAL;
			break;
		}
	}
	*len = n;
	return 0;
}

static int decode_text(const char *v, unsigned char *d, size_t *len)
{
	size_t n = 0, l = strlen(v);
	const char *end = v + l;

	if (l >= 2 && v[0] == '"' && v[l - 1] == '"') {
		v++;
		end--;
	}
	while (v < end) {
		if (v[0] == '\\' && v + 1 < end && (v[1] == '\\' || v[1] == '"')) {
			d[n++] = (unsigned char)v[1];
			v += 2;
		} else if (v[0] == '\\' && v + 1 < end && isoctal(v[1])) {
			int c = 0;

			v++;
			for (int i = 0; i < 3 && v < end && isoctal(*v); i++)
				c = (c << 3) | (*v++ - '0');
			d[n++] = (unsigned char)c;
		} else {
			d[n++] = (unsigned char)*v++;
		}
	}
	*len = n;
	return 0;
}

int nscap_value_decode(const char *text, unsigned char **out, size_t *len)
{
	size_t l = text ? strlen(text) : 0;
	unsigned char *d;
	int err;

	*out = NULL;
	*len = 0;
	if (!text)
		return -EINVAL;
	d = malloc(l + 1);
	if (!d)
		return -ENOMEM;
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
		err = decode_hex(text + 2, d, len);
	else if (text[0] == '0' && (text[1] == 's' || text[1] == 'S'))
		err = decode_b64(text + 2, d, len);
	else
		err = decode_text(text, d, len);
	if (err) {
		free(d);
		*len = 0;
		return err;
	}
	*out = d;
	return 0;
}
