/*
 * read_input.h: the one file-reading routine the C examples share (header-only, each example is a
 * single translation unit). Not part of loopcompact's API: the library never reads files.
 */
#ifndef LOOPCOMPACT_EXAMPLES_READ_INPUT_H
#define LOOPCOMPACT_EXAMPLES_READ_INPUT_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads all of `stream` into a malloc'd buffer. Returns 0 and sets *out (NULL when empty: (NULL, 0)
 * is the empty buffer of the C ABI) and *out_len, or returns -1 with errno set and nothing
 * allocated. */
static int read_all(FILE *stream, uint8_t **out, size_t *out_len)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    size_t cap = 0;

    for (;;) {
        if (len == cap) {
            size_t new_cap = cap == 0 ? 4096 : cap * 2;
            uint8_t *grown;
            if (new_cap < cap) {
                free(buf);
                errno = ENOMEM;
                return -1;
            }
            grown = realloc(buf, new_cap);
            if (grown == NULL) {
                free(buf);
                errno = ENOMEM;
                return -1;
            }
            buf = grown;
            cap = new_cap;
        }
        len += fread(buf + len, 1, cap - len, stream);
        if (ferror(stream)) {
            int saved = errno != 0 ? errno : EIO;
            free(buf);
            errno = saved;
            return -1;
        }
        if (feof(stream)) {
            break;
        }
    }

    if (len == 0) {
        free(buf);
        buf = NULL;
    }
    *out = buf;
    *out_len = len;
    return 0;
}

/* Reads the file at `path`, or standard input when `path` is "-", as read_all does. On failure prints
 * "PROGRAM: cannot open/read/close PATH: REASON" to standard error and returns -1 with nothing
 * allocated. */
static int read_input(const char *program, const char *path, uint8_t **out, size_t *out_len)
{
    int from_stdin = strcmp(path, "-") == 0;
    FILE *stream = from_stdin ? stdin : fopen(path, "rb");

    if (stream == NULL) {
        fprintf(stderr, "%s: cannot open %s: %s\n", program, path, strerror(errno));
        return -1;
    }
    errno = 0;
    if (read_all(stream, out, out_len) != 0) {
        fprintf(stderr, "%s: cannot read %s: %s\n", program, from_stdin ? "standard input" : path,
                strerror(errno));
        if (!from_stdin) {
            fclose(stream);
        }
        return -1;
    }
    if (!from_stdin && fclose(stream) != 0) {
        fprintf(stderr, "%s: cannot close %s: %s\n", program, path, strerror(errno));
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

#endif
