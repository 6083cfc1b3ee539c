/*
 * compact_roundtrip: one compaction round through the C ABI of loopcompact (SPEC §5, §6, §7).
 *
 * Usage: compact_roundtrip [--max-input-bytes N] INPUT_WIRE_FILE RESULT_FILE [OUTPUT_TOKENS [MAX_OUTPUT_BYTES]]
 *
 *   1. Parses INPUT_WIRE_FILE, the compaction input a host would send to the summarising model
 *      (lc_compaction_input_parse). An invalid input is reported and the program stops.
 *   2. Asks for the exact bytes to send, fitted under N bytes (default: no limit, UINT64_MAX), with the
 *      two-call pattern of lc_compaction_input_encode_within: a size query with a NULL buffer, then a
 *      buffer of that size. Old tool results are stubbed when that is needed to fit (F7.3).
 *   3. Validates RESULT_FILE, the raw reply of the summariser, against the parsed input
 *      (lc_compaction_output_validate). OUTPUT_TOKENS is the output usage the provider reported for
 *      that call (default 1; 0 means "none reported"); MAX_OUTPUT_BYTES is the byte limit of the reply
 *      (default: the size of RESULT_FILE). The summary is fetched with the same two-call pattern.
 *
 * Output, on standard output:
 *   input STATUS_NAME REASON MESSAGE
 *   fitted BYTES bytes                        (a valid input that fits), or
 *   fit STATUS_NAME REASON MESSAGE            (LC_INPUT_TOO_LARGE: nothing fits under N bytes)
 *   result STATUS_NAME REASON MESSAGE         (only for a valid input that fits)
 *   summary:                                  (only when the result is valid)
 *   <the summary text, the exact text of the replacement user message>
 * REASON is "-" when lc_status_reason is empty (LC_OK and the boundary errors), so the first three
 * fields are single words and MESSAGE is the rest of the line.
 *
 * Exit status: 0 when the result is valid, 1 when the input or the result is rejected (or the input
 * does not fit), 2 for a usage or I/O error (reported on standard error).
 *
 * Build (see README.md): cc -std=c99 -I include examples/compact_roundtrip.c \
 *                           -L target/release -lloopcompact -Wl,-rpath,target/release
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopcompact.h"
#include "read_input.h"

enum { EXIT_VALID = 0, EXIT_REJECTED = 1, EXIT_USAGE_OR_IO = 2 };

static const char *program = "compact_roundtrip";

/* A decimal uint64_t: digits only, no sign, no overflow. Returns 0 on success. */
static int parse_u64(const char *text, uint64_t *out)
{
    uint64_t value = 0;
    const char *p = text;

    if (*p == '\0') {
        return -1;
    }
    for (; *p != '\0'; p++) {
        unsigned digit;
        if (*p < '0' || *p > '9') {
            return -1;
        }
        digit = (unsigned)(*p - '0');
        if (value > (UINT64_MAX - digit) / 10) {
            return -1;
        }
        value = value * 10 + digit;
    }
    *out = value;
    return 0;
}

static void print_status(const char *what, lc_status status)
{
    const char *reason = lc_status_reason(status);
    printf("%s %s %s %s\n", what, lc_status_name(status), reason[0] != '\0' ? reason : "-",
           lc_status_message(status));
}

static int usage(void)
{
    fprintf(stderr,
            "usage: %s [--max-input-bytes N] INPUT_WIRE_FILE RESULT_FILE [OUTPUT_TOKENS [MAX_OUTPUT_BYTES]]\n",
            program);
    return EXIT_USAGE_OR_IO;
}

int main(int argc, char **argv)
{
    uint64_t max_input_bytes = UINT64_MAX;
    uint64_t output_tokens = 1;
    uint64_t max_output_bytes = 0;
    int have_max_output = 0;
    int arg = 1;
    int exit_code = EXIT_USAGE_OR_IO;
    uint8_t *wire = NULL, *reply = NULL, *fitted = NULL, *summary = NULL;
    size_t wire_len = 0, reply_len = 0, fitted_len = 0, summary_len = 0;
    lc_compaction_input *input = NULL;
    lc_status status;

    if (argc > 0 && argv[0] != NULL) {
        program = argv[0];
    }
    if (arg < argc && strcmp(argv[arg], "--max-input-bytes") == 0) {
        if (arg + 1 >= argc || parse_u64(argv[arg + 1], &max_input_bytes) != 0) {
            return usage();
        }
        arg += 2;
    }
    if (argc - arg < 2 || argc - arg > 4) {
        return usage();
    }
    if (argc - arg >= 3 && parse_u64(argv[arg + 2], &output_tokens) != 0) {
        return usage();
    }
    if (argc - arg == 4) {
        if (parse_u64(argv[arg + 3], &max_output_bytes) != 0) {
            return usage();
        }
        have_max_output = 1;
    }
    if (read_input(program, argv[arg], &wire, &wire_len) != 0) {
        goto done;
    }
    if (read_input(program, argv[arg + 1], &reply, &reply_len) != 0) {
        goto done;
    }
    if (!have_max_output) {
        max_output_bytes = (uint64_t)reply_len;
    }

    /* 1. The input. The handle owns a copy of the wire, so the file buffer can go. */
    status = lc_compaction_input_parse(wire, wire_len, &input);
    free(wire);
    wire = NULL;
    print_status("input", status);
    if (status != LC_OK) {
        exit_code = EXIT_REJECTED;
        goto done;
    }

    /* 2. The bytes to send, fitted: size query, then the real call with the same limit (A3.6). */
    status = lc_compaction_input_encode_within(input, max_input_bytes, NULL, 0, &fitted_len);
    if (status == LC_ERR_BUFFER_TOO_SMALL) {
        fitted = malloc(fitted_len);
        if (fitted == NULL) {
            fprintf(stderr, "%s: out of memory\n", program);
            goto done;
        }
        status = lc_compaction_input_encode_within(input, max_input_bytes, fitted, fitted_len, &fitted_len);
    }
    if (status != LC_OK) {
        print_status("fit", status);
        exit_code = EXIT_REJECTED;
        goto done;
    }
    printf("fitted %zu bytes\n", fitted_len);

    /* 3. The summariser's reply. A content error is reported by the size query already (A3.1). */
    status = lc_compaction_output_validate(input, reply, reply_len, output_tokens, max_output_bytes, NULL, 0,
                                           &summary_len);
    if (status == LC_ERR_BUFFER_TOO_SMALL) {
        /* Never longer than the reply (O6.4); +1 keeps malloc away from a zero size. */
        summary = malloc(summary_len + 1);
        if (summary == NULL) {
            fprintf(stderr, "%s: out of memory\n", program);
            goto done;
        }
        status = lc_compaction_output_validate(input, reply, reply_len, output_tokens, max_output_bytes, summary,
                                               summary_len + 1, &summary_len);
    }
    print_status("result", status);
    if (status != LC_OK) {
        exit_code = EXIT_REJECTED;
        goto done;
    }
    printf("summary:\n");
    if (summary_len > 0 && fwrite(summary, 1, summary_len, stdout) != summary_len) {
        fprintf(stderr, "%s: cannot write to standard output\n", program);
        goto done;
    }
    printf("\n");
    exit_code = EXIT_VALID;

done:
    lc_compaction_input_free(input); /* NULL is a no-op */
    free(wire);
    free(reply);
    free(fitted);
    free(summary);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: cannot write to standard output\n", program);
        return EXIT_USAGE_OR_IO;
    }
    return exit_code;
}
