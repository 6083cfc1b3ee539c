/*
 * validate_summary: checks a conversation summary against the strict XML grammar of loopcompact
 * (SPEC §4) through its C ABI.
 *
 * Usage: validate_summary [FILE|-]
 *   Reads FILE, or standard input when the argument is "-" or absent, entirely into memory and passes
 *   the bytes to lc_summary_xml_validate. An empty input is passed as (NULL, 0), the empty buffer.
 *
 * Output: one line on standard output with three fields separated by single spaces:
 *   STATUS_NAME REASON MESSAGE
 * for example
 *   LC_SUMMARY_XML_ROOT xml_root The summary's root element is missing or is not conversation_summary.
 * REASON is "-" when lc_status_reason is empty (LC_OK and the boundary errors), so the first two fields
 * are always single words and MESSAGE is the rest of the line.
 *
 * Exit status: 0 when the status is LC_OK, 1 for any other status (the summary is rejected), 2 for a
 * usage or I/O error (reported on standard error; nothing is written to standard output).
 *
 * Build (see README.md): cc -std=c99 -I include examples/validate_summary.c \
 *                           -L target/release -lloopcompact -Wl,-rpath,target/release
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopcompact.h"

enum { EXIT_VALID = 0, EXIT_REJECTED = 1, EXIT_USAGE_OR_IO = 2 };

/* Reads all of `stream` into a malloc'd buffer. Returns 0 and sets *out (NULL when empty) and *out_len,
 * or returns -1 with errno set and nothing allocated. */
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

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "-";
    int from_stdin;
    FILE *stream;
    uint8_t *data = NULL;
    size_t len = 0;
    lc_status status;
    const char *reason;

    if (argc > 2) {
        fprintf(stderr, "usage: %s [FILE|-]\n", argc > 0 ? argv[0] : "validate_summary");
        return EXIT_USAGE_OR_IO;
    }

    from_stdin = strcmp(path, "-") == 0;
    stream = from_stdin ? stdin : fopen(path, "rb");
    if (stream == NULL) {
        fprintf(stderr, "validate_summary: cannot open %s: %s\n", path, strerror(errno));
        return EXIT_USAGE_OR_IO;
    }
    errno = 0;
    if (read_all(stream, &data, &len) != 0) {
        fprintf(stderr, "validate_summary: cannot read %s: %s\n", from_stdin ? "standard input" : path,
                strerror(errno));
        if (!from_stdin) {
            fclose(stream);
        }
        return EXIT_USAGE_OR_IO;
    }
    if (!from_stdin && fclose(stream) != 0) {
        fprintf(stderr, "validate_summary: cannot close %s: %s\n", path, strerror(errno));
        free(data);
        return EXIT_USAGE_OR_IO;
    }

    status = lc_summary_xml_validate(data, len);
    free(data);

    reason = lc_status_reason(status);
    printf("%s %s %s\n", lc_status_name(status), reason[0] != '\0' ? reason : "-", lc_status_message(status));
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "validate_summary: cannot write to standard output\n");
        return EXIT_USAGE_OR_IO;
    }
    return status == LC_OK ? EXIT_VALID : EXIT_REJECTED;
}
