/* The C side of tools/bench_overhead.py: nanoseconds per call of lc_summary_xml_validate or
 * lc_compaction_input_validate on one file, the best of ROUNDS rounds of CALLS calls, with no
 * Python and no ctypes in the way. Built by scripts/bench-python against the library the Python
 * package loads, so both sides time the same machine code.
 *
 *   bench_c summary|input FILE CALLS ROUNDS
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loopcompact.h"

/* CPU time of the process, as tools/bench_overhead.py measures the Python side (time.process_time_ns):
 * on a shared machine, a process waiting for a core is not charged for the wait. */
static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: bench_c summary|input FILE CALLS ROUNDS\n");
        return 2;
    }
    int summary = strcmp(argv[1], "summary") == 0;
    FILE *f = fopen(argv[2], "rb");
    if (f == NULL) {
        perror(argv[2]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)size + 1);
    if (buf == NULL || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 2;
    }
    fclose(f);
    long calls = atol(argv[3]), rounds = atol(argv[4]);
    double best = 1e300;
    volatile lc_status sink = 0;
    for (long r = 0; r < rounds; r++) {
        double start = now_ns();
        for (long i = 0; i < calls; i++) {
            sink = summary ? lc_summary_xml_validate(buf, (size_t)size) : lc_compaction_input_validate(buf, (size_t)size);
        }
        double per_call = (now_ns() - start) / (double)calls;
        if (per_call < best) {
            best = per_call;
        }
    }
    if (sink != LC_OK) {
        fprintf(stderr, "%s: status %d\n", argv[2], (int)sink);
        return 1;
    }
    printf("%.1f\n", best);
    free(buf);
    return 0;
}
