/*
 * demo: the whole validation boundary of loopcompact on the bundled samples, as a host uses it
 * (SPEC §2): one line per step.
 *
 * Usage: demo [DATA_DIR]        DATA_DIR defaults to examples/data
 *
 *   input        validate the compaction input with a diagnosis, then parse it into a handle (§5)
 *   fit          the exact request bytes, fitted under a byte limit (§7): old tool results stubbed
 *   good reply   a valid summariser reply: the summary that replaces the old history (§6)
 *   bad reply    an invalid one: where (line, column, section), why (rule, expected) (§13)
 *   retry        the message to send the summariser with its next attempt (C13.5)
 *   fingerprint  the request fingerprint of a request document (§10), and a rejected document
 *   policy       a compaction policy checked against two token-counter qualities (§8)
 *   pairing      the tool-call pairing of the transcript (§14)
 *   safe cut     where the history can be cut while keeping the last messages (§14)
 *   loop guard   whether the policy's re-arm threshold can be met, and whether a compaction helped
 *
 * Every rejection is diagnosed with the _diagnose sibling of the function, which returns the same
 * status; the diagnosis holds no input bytes (C13.1), so it is safe to log.
 *
 * Exit status: 0 when every step gave the result the samples are made for (the bad reply and the
 * bad documents rejected, the rest accepted), 1 otherwise, 2 for a usage or I/O error.
 *
 * Build (scripts/demo does this):
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -I include examples/demo.c \
 *      -L target/release -lloopcompact -Wl,-rpath,"$PWD/target/release" -o demo
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopcompact.h"
#include "read_input.h"

enum { EXIT_AS_EXPECTED = 0, EXIT_UNEXPECTED = 1, EXIT_USAGE_OR_IO = 2 };

/* The sample a step reads, and what it is for. */
#define INPUT "input_valid.json"
#define GOOD_REPLY "result_valid.json"
#define BAD_REPLY "result_bad_xml.json"
#define FINGERPRINT "fingerprint_valid.json"
#define BAD_FINGERPRINT "fingerprint_bad_url.json"
#define POLICY "policy_valid.json"

/* The host's numbers: the request byte limit is below the input's canonical size (1487 bytes), so
 * fitting has to stub the old tool result; the reply used 812 output tokens of its 2048. */
#define REQUEST_LIMIT 1400u
#define OUTPUT_TOKENS 812u
#define MAX_REPLY_BYTES 65536u
#define KEEP_LAST 2u
#define INPUT_LIMIT 100000u   /* tokens: the model's resolved input limit */
#define FIXED_TOKENS 20000u   /* system prompt and tool definitions */
#define POST_TOKENS 30000u    /* the rebuilt request after the compaction */
#define REARM_BELOW 6000u     /* policy_valid.json's RearmBelow */

static const char *program = "demo";
static const char *data_dir = "examples/data";
static int unexpected = 0;

/* Reads DATA_DIR/NAME; exits with EXIT_USAGE_OR_IO when it cannot. */
static uint8_t *load(const char *name, size_t *len)
{
    char path[4096];
    uint8_t *buf = NULL;
    int n = snprintf(path, sizeof path, "%s/%s", data_dir, name);
    if (n < 0 || (size_t)n >= sizeof path || read_input(program, path, &buf, len) != 0) {
        fprintf(stderr, "%s: cannot read the sample %s/%s\n", program, data_dir, name);
        exit(EXIT_USAGE_OR_IO);
    }
    return buf;
}

static void *checked_malloc(size_t size)
{
    void *p = malloc(size > 0 ? size : 1);
    if (p == NULL) {
        fprintf(stderr, "%s: out of memory\n", program);
        exit(EXIT_USAGE_OR_IO);
    }
    return p;
}

static lc_diagnostic blank_diagnostic(void)
{
    lc_diagnostic diag;
    memset(&diag, 0, sizeof diag);
    diag.struct_size = sizeof diag;
    return diag;
}

static const char *class_name(int32_t status_class)
{
    static const char *const names[] = {"ok", "retry", "discard", "host", "bug"};
    return status_class >= 0 && status_class <= LC_CLASS_BUG ? names[status_class] : "unknown";
}

static const char *section_name(int32_t section)
{
    static const char *const names[] = {"", "goal", "constraints", "decisions", "state", "open_items",
                                        "conversation_summary"};
    return section >= 0 && section <= LC_SECTION_ROOT ? names[section] : "";
}

/* "STEP  " padded to one column, so the results line up. */
static void step(const char *name)
{
    printf("%-12s ", name);
}

/* A step's result is the one the sample is made for, or the demo says so and fails at the end. */
static void expect(int as_expected)
{
    if (!as_expected) {
        printf("  ^ unexpected result\n");
        unexpected = 1;
    }
}

/* "NAME (class C) at LOCATION, line L, column C, section S: expected E (rule R)", the parts that
 * are known. */
static void print_diagnosis(const lc_diagnostic *d)
{
    const char *sep = " at ";
    printf("%s (class %s)", lc_status_name(d->status), class_name(d->status_class));
    if (d->location[0] != '\0') {
        printf("%s%s", sep, d->location);
        sep = ", ";
    }
    if (d->line != 0) {
        printf("%sline %" PRIu64 ", column %" PRIu64, sep, d->line, d->column);
        sep = ", ";
    }
    if (d->section != LC_SECTION_NONE) {
        printf("%ssection %s", sep, section_name(d->section));
        sep = ", ";
    }
    if (d->limit != LC_LIMIT_UNKNOWN) {
        printf("%slimit %" PRIu64 ", actual %" PRIu64, sep, d->limit, d->actual);
    }
    if (d->expected != NULL && d->expected[0] != '\0') {
        printf(": expected %s", d->expected);
    }
    if (d->rule != NULL && d->rule[0] != '\0') {
        printf(" (rule %s)", d->rule);
    }
    printf("\n");
}

/* The retry message for the summariser (two-call pattern), on one line. */
static void print_retry_message(const lc_diagnostic *d)
{
    size_t len = 0, i;
    uint8_t *text;
    lc_status status = lc_retry_message(d, NULL, 0, &len);
    if (status != LC_ERR_BUFFER_TOO_SMALL) {
        printf("(lc_retry_message: %s)\n", lc_status_name(status));
        expect(0);
        return;
    }
    text = checked_malloc(len);
    status = lc_retry_message(d, text, len, &len);
    if (status != LC_OK) {
        printf("(lc_retry_message: %s)\n", lc_status_name(status));
        expect(0);
        free(text);
        return;
    }
    putchar('"');
    for (i = 0; i < len; i++) {
        putchar(text[i] == '\n' ? ' ' : text[i]);
    }
    printf("\"\n");
    free(text);
}

/* input: validate with a diagnosis, then parse (the handle keeps its own copy of the bytes). */
static lc_compaction_input *input_step(void)
{
    size_t len = 0;
    uint8_t *wire = load(INPUT, &len);
    lc_diagnostic diag = blank_diagnostic();
    lc_compaction_input *input = NULL;
    lc_status status = lc_compaction_input_diagnose(wire, len, &diag);

    step("input");
    printf("%s (%zu bytes): ", INPUT, len);
    if (status == LC_OK) {
        status = lc_compaction_input_parse(wire, len, &input);
    }
    if (status == LC_OK) {
        printf("LC_OK, a valid compaction input, parsed into a handle\n");
    } else {
        print_diagnosis(&diag);
        expect(0);
    }
    free(wire);
    return input;
}

/* fit: the size query counts, the second call writes exactly that many bytes. */
static void fit_step(const lc_compaction_input *input)
{
    size_t full = 0, fitted_len = 0;
    uint8_t *fitted;
    lc_status status = lc_compaction_input_encode_within(input, UINT64_MAX, NULL, 0, &full);

    step("fit");
    printf("under %u bytes: ", REQUEST_LIMIT);
    if (status == LC_ERR_BUFFER_TOO_SMALL) {
        status = lc_compaction_input_encode_within(input, REQUEST_LIMIT, NULL, 0, &fitted_len);
    }
    if (status != LC_ERR_BUFFER_TOO_SMALL) {
        printf("%s\n", lc_status_name(status));
        expect(0);
        return;
    }
    fitted = checked_malloc(fitted_len);
    status = lc_compaction_input_encode_within(input, REQUEST_LIMIT, fitted, fitted_len, &fitted_len);
    if (status == LC_OK) {
        printf("LC_OK, %zu bytes to send (%zu unfitted: the old tool result stubbed)\n", fitted_len, full);
    } else {
        printf("%s\n", lc_status_name(status));
    }
    expect(status == LC_OK && fitted_len <= REQUEST_LIMIT && fitted_len < full);
    free(fitted);
}

/* good reply / bad reply: the summary is never longer than the reply, so one buffer of the reply's
 * size suffices (O6.4). */
static void reply_step(const lc_compaction_input *input, const char *name, const char *file, int should_pass)
{
    size_t len = 0, summary_len = 0;
    uint8_t *reply = load(file, &len);
    uint8_t *summary = checked_malloc(len);
    lc_diagnostic diag = blank_diagnostic();
    lc_status status = lc_compaction_output_diagnose(input, reply, len, OUTPUT_TOKENS, MAX_REPLY_BYTES, summary, len,
                                                     &summary_len, &diag);

    step(name);
    printf("%s: ", file);
    if (status == LC_OK) {
        lc_span spans[5];
        lc_status sections = lc_summary_sections(summary, summary_len, spans);
        printf("LC_OK, a summary of %zu bytes replaces the history", summary_len);
        if (sections == LC_OK) {
            printf(" (goal %zu bytes, state %zu bytes)", spans[0].len, spans[3].len);
        }
        printf("\n");
    } else {
        print_diagnosis(&diag);
        step("retry");
        print_retry_message(&diag);
    }
    expect((status == LC_OK) == should_pass && (should_pass || diag.status_class == LC_CLASS_RETRY));
    free(reply);
    free(summary);
}

static void fingerprint_step(const char *file, int should_pass)
{
    size_t len = 0, i;
    uint8_t *json = load(file, &len);
    uint8_t digest[LC_FINGERPRINT_LEN];
    lc_diagnostic diag = blank_diagnostic();
    lc_status status = lc_request_fingerprint_diagnose(json, len, digest, &diag);

    step("fingerprint");
    printf("%s: ", file);
    if (status == LC_OK) {
        for (i = 0; i < sizeof digest; i++) {
            printf("%02x", digest[i]);
        }
        printf("\n");
    } else {
        print_diagnosis(&diag);
    }
    expect((status == LC_OK) == should_pass);
    free(json);
}

static void policy_step(int32_t quality, const char *quality_name, int should_pass)
{
    size_t len = 0;
    uint8_t *json = load(POLICY, &len);
    lc_diagnostic diag = blank_diagnostic();
    lc_status status = lc_compaction_policy_diagnose(json, len, quality, &diag);

    step("policy");
    printf("%s for %s counter (quality %d): ", POLICY, quality_name, (int)quality);
    if (status == LC_OK) {
        printf("LC_OK\n");
    } else {
        print_diagnosis(&diag);
    }
    expect((status == LC_OK) == should_pass);
    free(json);
}

static void pairing_step(const lc_compaction_input *input)
{
    lc_diagnostic diag = blank_diagnostic();
    lc_status status = lc_transcript_pairing_check(input, &diag);

    step("pairing");
    printf("%s: ", INPUT);
    if (status == LC_OK) {
        printf("LC_OK, every tool call has exactly one result\n");
    } else {
        print_diagnosis(&diag);
    }
    expect(status == LC_OK);
}

static void cut_step(const lc_compaction_input *input)
{
    uint64_t messages = 0, cut = 0;
    /* Keeping nothing, the whole transcript is the largest safe cut (S14.4): the message count. */
    lc_status status = lc_transcript_safe_cut(input, 0, &messages);

    step("safe cut");
    if (status == LC_OK) {
        status = lc_transcript_safe_cut(input, KEEP_LAST, &cut);
    }
    if (status != LC_OK) {
        printf("%s\n", lc_status_name(status));
        expect(0);
        return;
    }
    printf("keeping at least the last %u of %" PRIu64 " messages: cut at %" PRIu64 " (summarise [0, %" PRIu64
           "), keep [%" PRIu64 ", %" PRIu64 "))",
           KEEP_LAST, messages, cut, cut, cut, messages);
    if (cut + KEEP_LAST < messages) {
        /* The cut the host asked for splits a tool call from its result. */
        lc_status wanted = lc_transcript_cut_check(input, messages - KEEP_LAST);
        printf("; a cut at %" PRIu64 " is %s", messages - KEEP_LAST, lc_status_name(wanted));
    }
    printf("\n");
    expect(cut > 0 && lc_transcript_cut_check(input, cut) == LC_OK);
}

static void loop_guard_step(void)
{
    size_t len = 0;
    uint8_t *json = load(POLICY, &len);
    lc_status threshold = lc_compaction_threshold_check(json, len, INPUT_LIMIT, FIXED_TOKENS);
    lc_status progress = lc_compaction_progress_check(POST_TOKENS, INPUT_LIMIT, REARM_BELOW);

    step("loop guard");
    printf("input limit %u, fixed %u tokens: threshold %s; %u tokens after compaction: progress %s\n",
           INPUT_LIMIT, FIXED_TOKENS, lc_status_name(threshold), POST_TOKENS, lc_status_name(progress));
    expect(threshold == LC_OK && progress == LC_OK);
    free(json);
}

int main(int argc, char **argv)
{
    lc_compaction_input *input;

    if (argc > 0 && argv[0] != NULL) {
        program = argv[0];
    }
    if (argc > 2) {
        fprintf(stderr, "usage: %s [DATA_DIR]\n", program);
        return EXIT_USAGE_OR_IO;
    }
    if (argc == 2) {
        data_dir = argv[1];
    }
    if (lc_abi_version() != LC_ABI_VERSION) {
        fprintf(stderr, "%s: libloopcompact has ABI %u, this program needs %d\n", program,
                (unsigned)lc_abi_version(), LC_ABI_VERSION);
        return EXIT_USAGE_OR_IO;
    }
    printf("loopcompact %s (C ABI %u) on the samples in %s/\n", lc_version(), (unsigned)lc_abi_version(), data_dir);

    input = input_step();
    if (input != NULL) {
        fit_step(input);
        reply_step(input, "good reply", GOOD_REPLY, 1);
        reply_step(input, "bad reply", BAD_REPLY, 0);
    }
    fingerprint_step(FINGERPRINT, 1);
    fingerprint_step(BAD_FINGERPRINT, 0);
    policy_step(LC_COUNTER_QUALITY_HEURISTIC, "a heuristic", 1);
    policy_step(LC_COUNTER_QUALITY_UNKNOWN, "an unknown", 0);
    if (input != NULL) {
        pairing_step(input);
        cut_step(input);
    }
    loop_guard_step();
    lc_compaction_input_free(input);

    printf("%s\n", unexpected ? "demo: some step gave an unexpected result" : "demo: every step as expected");
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: cannot write to standard output\n", program);
        return EXIT_USAGE_OR_IO;
    }
    return unexpected ? EXIT_UNEXPECTED : EXIT_AS_EXPECTED;
}
