/*
 * round.c: one compaction round from the model's own reply (docs/SPEC.md §15), as a C host runs it.
 *
 *   round INPUT REPLY OUTPUT_TOKENS STOP KEEP_LAST
 *
 * INPUT is a compaction input wire document; REPLY the summariser's text as it arrived (here, a
 * file; in a host, the provider's response); STOP is "end", "length" or "unknown"; KEEP_LAST the
 * number of recent messages to keep. Prints the cut, the size of the head sent to the summariser,
 * the verdict on the reply with what cleanup removed, then the replacement transcript's size and
 * its check. Exit status: 0 accepted, 1 rejected (the retry message is printed), 2 usage or I/O.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopcompact.h"
#include "read_input.h"

static const char *class_name(int32_t class_)
{
    switch (class_) {
    case LC_CLASS_RETRY:
        return "retry";
    case LC_CLASS_DISCARD:
        return "discard";
    case LC_CLASS_HOST:
        return "host";
    case LC_CLASS_BUG:
        return "bug";
    default:
        return "ok";
    }
}

/* Runs the two-call pattern of a function writing a variable-length result: the size query, then a
 * buffer of that size. Returns the status; on LC_OK *out is malloc'd (the caller frees it). */
typedef lc_status (*writer)(const void *ctx, uint8_t *buf, size_t cap, size_t *len);

static lc_status two_call(writer write, const void *ctx, uint8_t **out, size_t *out_len)
{
    size_t len = 0;
    lc_status rc = write(ctx, NULL, 0, &len);
    if (rc != LC_ERR_BUFFER_TOO_SMALL) {
        return rc;
    }
    *out = malloc(len);
    if (*out == NULL) {
        return LC_ERR_NULL_ARGUMENT;
    }
    rc = write(ctx, *out, len, out_len);
    if (rc != LC_OK) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

struct head_args {
    const lc_compaction_input *input;
    uint64_t cut;
};

static lc_status write_head(const void *ctx, uint8_t *buf, size_t cap, size_t *len)
{
    const struct head_args *a = ctx;
    return lc_compaction_input_encode_head_within(a->input, a->cut, UINT64_MAX, buf, cap, len);
}

struct build_args {
    const lc_compaction_input *input;
    uint64_t cut;
    const uint8_t *summary;
    size_t summary_len;
};

static lc_status write_replacement(const void *ctx, uint8_t *buf, size_t cap, size_t *len)
{
    const struct build_args *a = ctx;
    return lc_replacement_build(a->input, a->cut, a->summary, a->summary_len, buf, cap, len);
}

int main(int argc, char **argv)
{
    uint8_t *wire = NULL, *reply = NULL, *head = NULL, *summary = NULL, *replacement = NULL;
    size_t wire_len = 0, reply_len = 0, head_len = 0, summary_len = 0, replacement_len = 0;
    lc_compaction_input *input = NULL;
    lc_diagnostic diag;
    uint64_t cut = 0;
    int32_t stop;
    char *end;
    unsigned long long tokens, keep_last;
    int status = 2;
    lc_status rc;

    if (argc != 6) {
        fprintf(stderr, "usage: %s INPUT REPLY OUTPUT_TOKENS end|length|unknown KEEP_LAST\n", argv[0]);
        return 2;
    }
    tokens = strtoull(argv[3], &end, 10);
    if (*argv[3] == '\0' || *end != '\0' || argv[3][0] == '-') {
        fprintf(stderr, "%s: OUTPUT_TOKENS must be an unsigned integer\n", argv[0]);
        return 2;
    }
    keep_last = strtoull(argv[5], &end, 10);
    if (*argv[5] == '\0' || *end != '\0' || argv[5][0] == '-') {
        fprintf(stderr, "%s: KEEP_LAST must be an unsigned integer\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[4], "end") == 0) {
        stop = LC_STOP_END;
    } else if (strcmp(argv[4], "length") == 0) {
        stop = LC_STOP_LENGTH;
    } else if (strcmp(argv[4], "unknown") == 0) {
        stop = LC_STOP_UNKNOWN;
    } else {
        fprintf(stderr, "%s: STOP must be end, length or unknown\n", argv[0]);
        return 2;
    }
    if (read_input(argv[0], argv[1], &wire, &wire_len) != 0 || read_input(argv[0], argv[2], &reply, &reply_len) != 0) {
        free(wire);
        return 2;
    }

    rc = lc_compaction_input_parse(wire, wire_len, &input);
    if (rc != LC_OK) {
        printf("input  %s: %s\n", lc_status_name(rc), lc_status_message(rc));
        goto done;
    }
    /* The cut: the largest that keeps KEEP_LAST messages and splits no tool call from its result. */
    rc = lc_transcript_safe_cut(input, keep_last, &cut);
    if (rc != LC_OK) {
        printf("cut    %s: %s\n", lc_status_name(rc), lc_status_message(rc));
        goto done;
    }
    {
        struct head_args h = {input, cut};
        rc = two_call(write_head, &h, &head, &head_len);
    }
    if (rc != LC_OK) {
        printf("head   %s: %s\n", lc_status_name(rc), lc_status_message(rc));
        goto done;
    }
    printf("cut    %llu (summarise [0, %llu), keep the rest)\n", (unsigned long long)cut,
           (unsigned long long)cut);
    printf("head   %zu bytes to send with lc_summary_instructions()\n", head_len);

    /* The reply as it arrived: trimmed and unfenced, what was removed reported in the diagnosis. */
    summary = malloc(reply_len > 0 ? reply_len : 1);
    if (summary == NULL) {
        goto done;
    }
    memset(&diag, 0, sizeof diag);
    diag.struct_size = sizeof diag;
    rc = lc_compaction_reply_diagnose(input, reply, reply_len, (uint64_t)tokens, stop, 65536,
                                      LC_REPLY_TRIM | LC_REPLY_UNFENCE, summary, reply_len, &summary_len, &diag);
    if (rc != LC_OK) {
        size_t message_len = 0;
        char *message;
        printf("reply  %s (class %s)", lc_status_name(rc), class_name(diag.status_class));
        if (diag.line > 0) {
            printf(" at line %llu, column %llu", (unsigned long long)diag.line, (unsigned long long)diag.column);
        }
        printf("\n");
        if (lc_retry_message(&diag, NULL, 0, &message_len) == LC_ERR_BUFFER_TOO_SMALL &&
            (message = malloc(message_len)) != NULL) {
            if (lc_retry_message(&diag, (uint8_t *)message, message_len, &message_len) == LC_OK) {
                printf("retry  \"%.*s\"\n", (int)message_len, message);
            }
            free(message);
        }
        status = 1;
        goto done;
    }
    printf("reply  LC_OK: %zu bytes of summary (%llu removed before, %llu after:%s%s)\n", summary_len,
           (unsigned long long)diag.removed_before, (unsigned long long)diag.removed_after,
           (diag.removed & LC_REPLY_TRIM) ? " trim" : "", (diag.removed & LC_REPLY_UNFENCE) ? " fence" : "");

    {
        struct build_args b = {input, cut, summary, summary_len};
        rc = two_call(write_replacement, &b, &replacement, &replacement_len);
    }
    if (rc != LC_OK) {
        printf("build  %s: %s\n", lc_status_name(rc), lc_status_message(rc));
        goto done;
    }
    /* A host that rebuilds the history in its own format checks it the same way. */
    rc = lc_replacement_verify(input, cut, replacement, replacement_len, NULL);
    printf("build  %zu bytes of replacement transcript; verify %s\n", replacement_len, lc_status_name(rc));
    status = rc == LC_OK ? 0 : 1;

done:
    free(replacement);
    free(summary);
    free(head);
    lc_compaction_input_free(input);
    free(reply);
    free(wire);
    return status;
}
