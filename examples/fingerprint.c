/*
 * fingerprint: computes the request fingerprint of a request-fingerprint document (SPEC §10) through
 * the C ABI of loopcompact.
 *
 * Usage: fingerprint FILE|-
 *   Reads FILE, or standard input when the argument is "-", entirely into memory and passes the bytes
 *   to lc_request_fingerprint. An empty input is passed as (NULL, 0), the empty buffer.
 *
 * Output on success: the 64 lower-case hex characters of the SHA-256 fingerprint and a newline, for
 * example
 *   f0c4cabef8241dc5e6550b771cc4bed570508cfbc820a697efc8439438bde5e0
 * Output on a rejected document: one line with three fields separated by single spaces,
 *   STATUS_NAME REASON MESSAGE
 * for example
 *   LC_FINGERPRINT_MODEL Model The request's model is invalid.
 * REASON is "-" when lc_status_reason is empty (the boundary errors), so the first two fields are
 * always single words and MESSAGE is the rest of the line.
 *
 * Exit status: 0 with a fingerprint, 1 when the document is rejected, 2 for a usage or I/O error
 * (reported on standard error; nothing is written to standard output).
 *
 * Build (see README.md): cc -std=c99 -I include examples/fingerprint.c \
 *                           -L target/release -lloopcompact -Wl,-rpath,target/release
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopcompact.h"
#include "read_input.h"

enum { EXIT_FINGERPRINT = 0, EXIT_REJECTED = 1, EXIT_USAGE_OR_IO = 2 };

int main(int argc, char **argv)
{
    static const char hex[] = "0123456789abcdef";
    const char *path;
    uint8_t *data = NULL;
    size_t len = 0;
    uint8_t digest[LC_FINGERPRINT_LEN];
    char text[2 * LC_FINGERPRINT_LEN + 1];
    lc_status status;
    size_t i;

    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE|-\n", argc > 0 ? argv[0] : "fingerprint");
        return EXIT_USAGE_OR_IO;
    }
    path = argv[1];

    if (read_input("fingerprint", path, &data, &len) != 0) {
        return EXIT_USAGE_OR_IO;
    }

    status = lc_request_fingerprint(data, len, digest);
    free(data);

    if (status == LC_OK) {
        for (i = 0; i < LC_FINGERPRINT_LEN; i++) {
            text[2 * i] = hex[digest[i] >> 4];
            text[2 * i + 1] = hex[digest[i] & 15];
        }
        text[2 * LC_FINGERPRINT_LEN] = '\0';
        printf("%s\n", text);
    } else {
        const char *reason = lc_status_reason(status);
        printf("%s %s %s\n", lc_status_name(status), reason[0] != '\0' ? reason : "-",
               lc_status_message(status));
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "fingerprint: cannot write to standard output\n");
        return EXIT_USAGE_OR_IO;
    }
    return status == LC_OK ? EXIT_FINGERPRINT : EXIT_REJECTED;
}
