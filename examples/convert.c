/*
 * convert: converts a provider's message list into loopcompact's wire transcript (SPEC §16) through
 * the C ABI, and prints the cut map and the loss report.
 *
 * Usage: convert FORMAT FILE|-
 *   FORMAT is openai_chat, openai_responses, anthropic, gemini, ai_sdk or langchain; FILE holds the
 *   source document the format reads: the messages array (openai_chat, ai_sdk, langchain),
 *   {"input": ..., "instructions": ...}, {"system": ..., "messages": [...]} or
 *   {"contents": [...], "system_instruction": ...}.
 *
 * Output on success, one item a line:
 *   wire N messages from S source messages
 *   source_index I0 I1 ...        the source message of each wire message ("system" for the
 *                                 system parameter)
 *   cut_allowed A0 A1 ... An      1 where a cut falls on a source message boundary
 *   loss I NAME                   one line per loss, in source order
 *   safe_cut C source_cut S       the largest safe cut keeping the last wire message, and the
 *                                 source messages it summarises ([0, S))
 *   transcript JSON               the wire transcript (canonical bytes)
 * Output on a refused source: one line
 *   error STATUS_NAME REASON at LOCATION offset N
 * (LOCATION and N are "-" when unknown); never a byte of the source.
 *
 * Exit status: 0 converted, 1 refused, 2 for a usage or I/O error (reported on standard error).
 *
 * Build (see README.md): cc -std=c99 -I include examples/convert.c \
 *                           -L target/release -lloopcompact -Wl,-rpath,target/release
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopcompact.h"
#include "read_input.h"

enum { EXIT_CONVERTED = 0, EXIT_REFUSED = 1, EXIT_USAGE_OR_IO = 2 };

static int32_t format_code(const char *name)
{
    static const struct {
        const char *name;
        int32_t code;
    } formats[] = {
        {"openai_chat", LC_FORMAT_OPENAI_CHAT}, {"openai_responses", LC_FORMAT_OPENAI_RESPONSES},
        {"anthropic", LC_FORMAT_ANTHROPIC},     {"gemini", LC_FORMAT_GEMINI},
        {"ai_sdk", LC_FORMAT_AI_SDK},           {"langchain", LC_FORMAT_LANGCHAIN},
    };
    size_t i;
    for (i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        if (strcmp(formats[i].name, name) == 0) {
            return formats[i].code;
        }
    }
    return 0;
}

static void print_index(uint64_t index)
{
    if (index == LC_SOURCE_SYSTEM) {
        printf("system");
    } else {
        printf("%" PRIu64, index);
    }
}

/* Prints everything but the safe cut; returns LC_OK or the status of the accessor that failed. */
static lc_status report(const lc_conversion *conversion, size_t *wire_count)
{
    uint64_t *index = NULL;
    uint8_t *allowed = NULL;
    lc_loss *losses = NULL;
    size_t n = 0, n_allowed = 0, n_losses = 0, i;
    uint64_t source_len = 0;
    lc_status status;

    /* The two-call pattern: the size query gives LC_ERR_BUFFER_TOO_SMALL with the count (or LC_OK
     * with 0), then a buffer of that many elements. */
    status = lc_conversion_source_index(conversion, NULL, 0, &n);
    if (status == LC_ERR_BUFFER_TOO_SMALL) {
        index = malloc(n * sizeof *index);
        status = index == NULL ? LC_ERR_BUFFER_TOO_SMALL : lc_conversion_source_index(conversion, index, n, &n);
    }
    if (status == LC_OK) {
        status = lc_conversion_cut_allowed(conversion, NULL, 0, &n_allowed);
        if (status == LC_ERR_BUFFER_TOO_SMALL) {
            allowed = malloc(n_allowed);
            status = allowed == NULL ? status : lc_conversion_cut_allowed(conversion, allowed, n_allowed, &n_allowed);
        }
    }
    if (status == LC_OK) {
        status = lc_conversion_losses(conversion, NULL, 0, &n_losses);
        if (status == LC_ERR_BUFFER_TOO_SMALL) {
            losses = malloc(n_losses * sizeof *losses);
            status = losses == NULL ? status : lc_conversion_losses(conversion, losses, n_losses, &n_losses);
        }
    }
    if (status == LC_OK) {
        status = lc_conversion_source_len(conversion, &source_len);
    }
    if (status == LC_OK) {
        printf("wire %zu messages from %" PRIu64 " source messages\nsource_index", n, source_len);
        for (i = 0; i < n; i++) {
            putchar(' ');
            print_index(index[i]);
        }
        printf("\ncut_allowed");
        for (i = 0; i < n_allowed; i++) {
            printf(" %d", allowed[i] != 0);
        }
        putchar('\n');
        for (i = 0; i < n_losses; i++) {
            printf("loss ");
            print_index(losses[i].source_index);
            printf(" %s\n", lc_loss_name(losses[i].code));
        }
        *wire_count = n;
    }
    free(index);
    free(allowed);
    free(losses);
    return status;
}

/* The input around the transcript, its safe cut keeping the last wire message, and that cut's
 * source cut; then the transcript itself. */
static lc_status cut_and_transcript(const lc_conversion *conversion, size_t wire_count)
{
    static const char provider[] = "example", model[] = "example-model";
    lc_compaction_input *input = NULL;
    uint64_t cut = 0, source_cut = 0;
    uint8_t *transcript = NULL;
    size_t len = 0;
    lc_status status;

    status = lc_conversion_input(conversion, (const uint8_t *)provider, strlen(provider), (const uint8_t *)model,
                                 strlen(model), 1000, 1, NULL, &input);
    if (status == LC_OK) {
        status = lc_transcript_safe_cut_with(input, wire_count > 0 ? 1 : 0, LC_CUT_PENDING_TAIL, NULL, 0, &cut);
    }
    if (status == LC_OK) {
        status = lc_conversion_source_cut(conversion, cut, &source_cut);
    }
    if (status == LC_OK) {
        printf("safe_cut %" PRIu64 " source_cut %" PRIu64 "\n", cut, source_cut);
        status = lc_conversion_transcript(conversion, NULL, 0, &len);
        if (status == LC_ERR_BUFFER_TOO_SMALL) {
            transcript = malloc(len);
            status = transcript == NULL ? status : lc_conversion_transcript(conversion, transcript, len, &len);
        }
    }
    if (status == LC_OK) {
        printf("transcript %.*s\n", (int)len, (const char *)transcript);
    }
    free(transcript);
    lc_compaction_input_free(input);
    return status;
}

int main(int argc, char **argv)
{
    uint8_t *data = NULL;
    size_t len = 0, wire_count = 0;
    int32_t format;
    lc_conversion *conversion = NULL;
    lc_diagnostic diag;
    lc_status status;

    if (argc != 3 || (format = format_code(argv[1])) == 0) {
        fprintf(stderr, "usage: %s openai_chat|openai_responses|anthropic|gemini|ai_sdk|langchain FILE|-\n",
                argc > 0 ? argv[0] : "convert");
        return EXIT_USAGE_OR_IO;
    }
    if (read_input("convert", argv[2], &data, &len) != 0) {
        return EXIT_USAGE_OR_IO;
    }

    memset(&diag, 0, sizeof diag);
    diag.struct_size = sizeof diag;
    status = lc_transcript_convert(format, data, len, 0, &conversion, &diag);
    free(data); /* the conversion keeps what it needs */
    if (status != LC_OK) {
        const char *reason = lc_status_reason(status);
        printf("error %s %s at %s offset ", lc_status_name(status), reason[0] != '\0' ? reason : "-",
               diag.status == status && diag.location[0] != '\0' ? diag.location : "-");
        if (diag.status == status && diag.offset != LC_OFFSET_UNKNOWN) {
            printf("%" PRIu64 "\n", diag.offset);
        } else {
            printf("-\n");
        }
        return EXIT_REFUSED;
    }

    status = report(conversion, &wire_count);
    if (status == LC_OK) {
        status = cut_and_transcript(conversion, wire_count);
    }
    lc_conversion_free(conversion);
    if (status != LC_OK) {
        fprintf(stderr, "convert: %s\n", lc_status_message(status));
        return EXIT_USAGE_OR_IO;
    }
    return EXIT_CONVERTED;
}
