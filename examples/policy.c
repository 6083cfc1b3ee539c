/*
 * policy: validates a compaction policy for a token counter (SPEC §8.1) and walks a sequence of
 * context occupancies through the pressure function (SPEC L9.3), as a host loop would, through the
 * C ABI of loopcompact.
 *
 * Usage: policy FILE QUALITY [--manual | --compact-at N --rearm-below N] [OCCUPANCY...]
 *
 *   FILE       the policy document (JSON, SPEC P8.2), or "-" for standard input. It is read
 *              entirely and passed to lc_compaction_policy_validate; an empty file is (NULL, 0).
 *   QUALITY    the token counter's quality: 0 unknown, 1 exact provider, 2 exact local,
 *              3 heuristic estimate (any other int32 value is treated as unknown).
 *   OCCUPANCY  context occupancies in basis points (0-65535; 10000 is a full context), in the
 *              order the host measured them.
 *
 *   The library validates the policy but, being a validator, hands none of its values back, and
 *   this example carries no JSON parser. So the three values the pressure function needs are
 *   repeated on the command line and must match the file: --manual for "Automatic":false, or
 *   --compact-at and --rearm-below for "Automatic":true with its "CompactAt" and "RearmBelow".
 *   They are required only when occupancies are given.
 *
 * Output: first one line with three fields separated by single spaces,
 *   STATUS_NAME REASON MESSAGE
 * for example
 *   LC_POLICY_REARM_BELOW RearmBelow The compaction policy's RearmBelow must be non-zero and below ...
 * with REASON "-" when lc_status_reason is empty (LC_OK and the boundary errors). Then, only for a
 * valid policy, one line per occupancy with the level lc_pressure_level decided, e.g.
 *   occupancy=8000 level=2 (compact)
 * The walk starts at level 1 (normal) and passes each level on as the next call's previous level,
 * which is what gives the re-arm hysteresis: after "compact", the level stays "compact" down to
 * and including the RearmBelow occupancy.
 *
 * Exit status: 0 for a valid policy (after the walk), 1 when the policy is rejected (no walk),
 * 2 for a usage or I/O error (reported on standard error; nothing is written to standard output).
 *
 * Build (see README.md): cc -std=c99 -I include examples/policy.c \
 *                           -L target/release -lloopcompact -Wl,-rpath,target/release
 * Try:   policy examples/data/policy_valid.json 3 --compact-at 8000 --rearm-below 6000 \
 *               7900 8000 7000 6000 5999 10000 6500
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopcompact.h"
#include "read_input.h"

enum { EXIT_VALID = 0, EXIT_REJECTED = 1, EXIT_USAGE_OR_IO = 2 };

static const char *const program = "policy";

static int usage(void)
{
    fprintf(stderr,
            "usage: %s FILE QUALITY [--manual | --compact-at N --rearm-below N] [OCCUPANCY...]\n"
            "  FILE: a compaction policy document (JSON), or - for standard input\n"
            "  QUALITY: token counter quality, 0 unknown, 1 exact provider, 2 exact local, 3 heuristic\n"
            "  --manual, or --compact-at and --rearm-below: the policy's Automatic, CompactAt and\n"
            "    RearmBelow, repeated from FILE; required when occupancies are given\n"
            "  OCCUPANCY: basis points, 0-65535 (10000 = full)\n",
            program);
    return EXIT_USAGE_OR_IO;
}

/* Parses a decimal integer in [min, max] that fills the whole string. */
static bool parse_long(const char *text, long min, long max, long *out)
{
    char *end = NULL;
    long value;

    /* strtol would also skip leading white space and take a '+'. */
    if (text[0] != '-' && (text[0] < '0' || text[0] > '9')) {
        return false;
    }
    errno = 0;
    value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < min || value > max) {
        return false;
    }
    *out = value;
    return true;
}

static bool parse_basis_points(const char *text, uint16_t *out)
{
    long value;

    if (!parse_long(text, 0, UINT16_MAX, &value)) {
        return false;
    }
    *out = (uint16_t)value;
    return true;
}

static const char *level_name(int32_t level)
{
    switch (level) {
    case 1:
        return "normal";
    case 2:
        return "compact";
    case 3:
        return "hard limit";
    default:
        return "unknown";
    }
}

int main(int argc, char **argv)
{
    long quality;
    bool manual = false;
    bool have_compact_at = false;
    bool have_rearm_below = false;
    uint16_t compact_at = 0;
    uint16_t rearm_below = 0;
    uint16_t *occupancies = NULL;
    size_t occupancy_count = 0;
    uint8_t *data = NULL;
    size_t len = 0;
    lc_status status;
    const char *reason;
    int32_t level;
    size_t i;
    int arg;

    if (argc < 3) {
        return usage();
    }
    if (!parse_long(argv[2], INT32_MIN, INT32_MAX, &quality)) {
        fprintf(stderr, "%s: QUALITY must be an integer, got %s\n", program, argv[2]);
        return usage();
    }

    occupancies = malloc(sizeof *occupancies * (size_t)argc);
    if (occupancies == NULL) {
        fprintf(stderr, "%s: out of memory\n", program);
        return EXIT_USAGE_OR_IO;
    }
    for (arg = 3; arg < argc; arg++) {
        const char *a = argv[arg];
        if (strcmp(a, "--manual") == 0) {
            manual = true;
        } else if (strcmp(a, "--compact-at") == 0 || strcmp(a, "--rearm-below") == 0) {
            bool is_compact_at = strcmp(a, "--compact-at") == 0;
            uint16_t *slot = is_compact_at ? &compact_at : &rearm_below;
            if (arg + 1 >= argc || !parse_basis_points(argv[arg + 1], slot)) {
                fprintf(stderr, "%s: %s needs a value 0-65535\n", program, a);
                free(occupancies);
                return usage();
            }
            if (is_compact_at) {
                have_compact_at = true;
            } else {
                have_rearm_below = true;
            }
            arg++;
        } else if (parse_basis_points(a, &occupancies[occupancy_count])) {
            occupancy_count++;
        } else {
            fprintf(stderr, "%s: not an option or an occupancy (0-65535): %s\n", program, a);
            free(occupancies);
            return usage();
        }
    }
    if (manual && (have_compact_at || have_rearm_below)) {
        fprintf(stderr, "%s: --manual takes no thresholds\n", program);
        free(occupancies);
        return usage();
    }
    if (occupancy_count > 0 && !manual && !(have_compact_at && have_rearm_below)) {
        fprintf(stderr, "%s: occupancies need --manual, or --compact-at and --rearm-below\n", program);
        free(occupancies);
        return usage();
    }

    if (read_input(program, argv[1], &data, &len) != 0) {
        free(occupancies);
        return EXIT_USAGE_OR_IO;
    }
    status = lc_compaction_policy_validate(data, len, (int32_t)quality);
    free(data);

    reason = lc_status_reason(status);
    printf("%s %s %s\n", lc_status_name(status), reason[0] != '\0' ? reason : "-", lc_status_message(status));

    if (status == LC_OK) {
        level = 1; /* normal: nothing measured yet */
        for (i = 0; i < occupancy_count; i++) {
            level = lc_pressure_level(level, occupancies[i], !manual, compact_at, rearm_below);
            printf("occupancy=%u level=%d (%s)\n", (unsigned)occupancies[i], (int)level, level_name(level));
        }
    }
    free(occupancies);

    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: cannot write to standard output\n", program);
        return EXIT_USAGE_OR_IO;
    }
    return status == LC_OK ? EXIT_VALID : EXIT_REJECTED;
}
