// SPDX-License-Identifier: GPL-2.0
/* dumpfmt.c - the `getfattr -d -e hex` dump format, as setfattr --restore reads it */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "dumpfmt.h"
#include "quote.h"

void nscap_dump_free(struct nscap_dump *d)
{
	char *last_path = NULL;

	for (size_t i = 0; i < d->n; i++) {
		/* Entries of one block share their path. */
		if (d->v[i].path != last_path)
			free(d->v[i].path);
		last_path = d->v[i].path;
		free(d->v[i].name);
		free(d->v[i].value);
	}
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

static int push(struct nscap_dump *d, size_t *cap)
{
	if (d->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct nscap_dump_entry *v = realloc(d->v, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->v = v;
		*cap = nc;
	}
	memset(&d->v[d->n], 0, sizeof(d->v[0]));
	return 0;
}

int nscap_dump_parse(FILE *f, struct nscap_dump *out, unsigned int *errline,
		     const char **why)
{
	char *line = NULL, *path = NULL;
	size_t linecap = 0, cap = 0;
	bool path_used = true;
	unsigned int lineno = 0;
	ssize_t r;
	int err = 0;

	out->v = NULL;
	out->n = 0;
	*why = NULL;
	*errline = 0;
	while ((r = getline(&line, &linecap, f)) >= 0) {
		char *eq;

		lineno++;
		if (r > 0 && line[r - 1] == '\n')
			line[--r] = '\0';
		if (memchr(line, '\0', (size_t)r)) {
			err = -EINVAL;
			*why = "NUL byte in line";
			break;
		}
		if (r == 0) { /* a blank line ends a block */
			if (!path_used)
				free(path);
			path = NULL;
			path_used = true;
			continue;
		}
		if (!path) {
			if (strncmp(line, "# file: ", 8) != 0) {
				err = -EINVAL;
				*why = "expected \"# file: PATH\"";
				break;
			}
			path = strdup(line + 8);
			if (!path) {
				err = -ENOMEM;
				break;
			}
			nscap_unquote(path);
			path_used = false;
			if (!*path) {
				err = -EINVAL;
				*why = "empty path";
				break;
			}
			continue;
		}
		if (line[0] == '#') {
			err = -EINVAL;
			*why = "comment inside a file block (missing blank line?)";
			break;
		}
		err = push(out, &cap);
		if (err)
			break;
		eq = strchr(line, '=');
		if (eq)
			*eq = '\0';
		out->v[out->n].line = lineno;
		out->v[out->n].path = path;
		out->v[out->n].name = strdup(line);
		if (!out->v[out->n].name) {
			err = -ENOMEM;
			break;
		}
		path_used = true;
		out->n++;
		nscap_unquote(out->v[out->n - 1].name);
		if (!*out->v[out->n - 1].name) {
			err = -EINVAL;
			*why = "empty attribute name";
			break;
		}
		if (eq) {
			struct nscap_dump_entry *e = &out->v[out->n - 1];

			err = nscap_value_decode(eq + 1, &e->value, &e->len);
			if (err) {
				if (err == -EINVAL)
					*why = "bad value encoding";
				break;
			}
		}
	}
	if (!err && ferror(f)) {
		err = -EIO;
		*why = "read error";
	}
	if (!path_used)
		free(path);
	free(line);
	if (err)
		*errline = lineno;
	return err;
}

int nscap_dump_write_header(FILE *out, const char *path, bool absolute)
{
	char *q;

	if (!absolute) {
		if (*path == '/') {
			while (*path == '/')
				path++;
		} else if (path[0] == '.' && path[1] == '/') {
			path++;
			while (*path == '/')
				path++;
		}
		if (!*path)
			path = ".";
	}
	q = nscap_quote(path, NSCAP_QUOTE_PATH);
	if (!q)
		return -errno;
	fprintf(out, "# file: %s\n", q);
	free(q);
	return 0;
}

int nscap_dump_write_value(FILE *out, const char *name, const void *value,
			   size_t len)
{
	char *q = nscap_quote(name, NSCAP_QUOTE_NAME);
	char *hex;

	if (!q)
		return -errno;
	hex = nscap_hex_encode(value, len);
	if (!hex) {
		free(q);
		return -ENOMEM;
	}
	fprintf(out, "%s=%s\n", q, hex);
	free(hex);
	free(q);
	return 0;
}
