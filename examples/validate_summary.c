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
#include "read_input.h"

enum { EXIT_VALID = 0, EXIT_REJECTED = 1, EXIT_USAGE_OR_IO = 2 };

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "-";
    uint8_t *data = NULL;
    size_t len = 0;
    lc_status status;
    const char *reason;

    if (argc > 2) {
        fprintf(stderr, "usage: %s [FILE|-]\n", argc > 0 ? argv[0] : "validate_summary");
        return EXIT_USAGE_OR_IO;
    }

    if (read_input("validate_summary", path, &data, &len) != 0) {
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
