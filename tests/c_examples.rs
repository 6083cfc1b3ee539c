//! Builds every C example (`examples/*.c`) against the library as a C user would (STYLE rule 9):
//! `cc -std=c99 -Wall -Wextra -Werror -pedantic -I include`, linked with the cdylib of this build,
//! then runs each example per the table `RUNS`.
//!
//! Adding an example: put `examples/NAME.c` beside the others and add its runs to `RUNS`; an example
//! with no run, or a run of a missing example, fails `every_example_has_a_run`.
//!
//! C++ examples (`examples/cpp/NAME.cpp`) are built the same way with
//! `c++ -std=c++17 -Wall -Wextra -Werror -pedantic` and run from the same table.
//!
//! `scripts/sanitize` reuses this table: `LOOPCOMPACT_CFLAGS` adds compiler flags (the sanitizers),
//! `LOOPCOMPACT_RUNNER` runs each example under a wrapper (valgrind) and `LOOPCOMPACT_LIB_DIR` links
//! the examples against the `libloopcompact.so` of another directory (`target/release` of
//! `cargo build --release`: the library that ships); all three are unset in a plain run.
//!
//! The cdylib is `target/<profile>/deps/libloopcompact.so`: `cargo test` builds the library target with
//! all its crate types (cdylib, staticlib, rlib) in one rustc call before linking this test against
//! the rlib, so that shared library is always the current one (only `cargo build` also copies it to
//! `target/<profile>/`, which a fresh clone does not have).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// One run of an example, from the manifest directory.
struct Run {
    example: &'static str,
    args: &'static [&'static str],
    /// A file (relative to the manifest directory) fed to standard input; empty input when `None`.
    stdin: Option<&'static str>,
    /// A substring the standard output must contain.
    stdout: &'static str,
    exit: i32,
}

/// Expected results come from the spec (SPEC §4 for the summaries), not from running the examples.
const RUNS: &[Run] = &[
    // fingerprint prints the 64 hex characters on success (exit 0), "NAME REASON MESSAGE" when rejected
    // (exit 1), 2 usage/IO. R10.7: the worked example, pretty-printed in another key order, 5E-1 for 0.5.
    Run {
        example: "fingerprint",
        args: &["examples/data/fingerprint_valid.json"],
        stdin: None,
        stdout: "f0c4cabef8241dc5e6550b771cc4bed570508cfbc820a697efc8439438bde5e0\n",
        exit: 0,
    },
    Run {
        example: "fingerprint",
        args: &["-"],
        stdin: Some("examples/data/fingerprint_valid.json"),
        stdout: "f0c4cabef8241dc5e6550b771cc4bed570508cfbc820a697efc8439438bde5e0\n",
        exit: 0,
    },
    // R10.4 rule 10: plain http to a host that is not loopback.
    Run {
        example: "fingerprint",
        args: &["examples/data/fingerprint_bad_url.json"],
        stdin: None,
        stdout: "LC_FINGERPRINT_MODEL Model ",
        exit: 1,
    },
    // Empty input is (NULL, 0): the empty document is wire.
    Run { example: "fingerprint", args: &["-"], stdin: None, stdout: "LC_FINGERPRINT_WIRE wire ", exit: 1 },
    Run { example: "fingerprint", args: &[], stdin: None, stdout: "", exit: 2 },
    Run { example: "fingerprint", args: &["a", "b"], stdin: None, stdout: "", exit: 2 },
    Run { example: "fingerprint", args: &["examples/data/no_such_file.json"], stdin: None, stdout: "", exit: 2 },
    // compact_roundtrip prints "input NAME REASON MESSAGE", "fitted N bytes", "result NAME REASON MESSAGE",
    // then "summary:" and the text (REASON "-" when empty): exit 0 valid, 1 rejected, 2 usage/IO.
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json"],
        stdin: None,
        stdout: "result LC_OK - Success.\nsummary:\n<conversation_summary>\n<goal>Fix the nightly build",
        exit: 0,
    },
    // E7: canonical length of input_valid.json (computed from the spec rules by hand).
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json"],
        stdin: None,
        stdout: "fitted 1487 bytes",
        exit: 0,
    },
    // O6.4 / X4.22: entities stay escaped in the summary.
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json"],
        stdin: None,
        stdout: "Patch &lt;src/config.rs&gt; and re-run",
        exit: 0,
    },
    // O6.2 step 8: revision 6 instead of 7.
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_wrong_identity.json"],
        stdin: None,
        stdout: "result LC_SUMMARY_IDENTITY identity ",
        exit: 1,
    },
    // X4.18: decisions before constraints.
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_bad_xml.json"],
        stdin: None,
        stdout: "result LC_SUMMARY_XML_STRUCTURE xml_structure ",
        exit: 1,
    },
    // O6.2 step 2: no output usage reported.
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json", "0"],
        stdin: None,
        stdout: "result LC_SUMMARY_TOKEN_USAGE token_usage ",
        exit: 1,
    },
    // O6.2 step 3: equal to max_summary_tokens (2048) is fine, one more is not.
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json", "2048"],
        stdin: None,
        stdout: "result LC_OK - ",
        exit: 0,
    },
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json", "2049"],
        stdin: None,
        stdout: "result LC_SUMMARY_TOKEN_LIMIT token_limit ",
        exit: 1,
    },
    // O6.2 step 1: result_valid.json is 795 bytes.
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json", "1", "794"],
        stdin: None,
        stdout: "result LC_SUMMARY_BYTE_LIMIT byte_limit ",
        exit: 1,
    },
    // W5.2 step 1: a result document is not an input (unknown key summary, no transcript).
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/result_valid.json", "examples/data/result_valid.json"],
        stdin: None,
        stdout: "input LC_INPUT_WIRE wire ",
        exit: 1,
    },
    // F7.3: one byte under the canonical size stubs the one tool message (1333 bytes).
    Run {
        example: "compact_roundtrip",
        args: &["--max-input-bytes", "1486", "examples/data/input_valid.json", "examples/data/result_valid.json"],
        stdin: None,
        stdout: "fitted 1333 bytes",
        exit: 0,
    },
    // F7.4: nothing fits under 1332.
    Run {
        example: "compact_roundtrip",
        args: &["--max-input-bytes", "1332", "examples/data/input_valid.json", "examples/data/result_valid.json"],
        stdin: None,
        stdout: "fit LC_INPUT_TOO_LARGE too_large ",
        exit: 1,
    },
    // Usage and I/O errors: nothing on stdout.
    Run { example: "compact_roundtrip", args: &["examples/data/input_valid.json"], stdin: None, stdout: "", exit: 2 },
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/no_such_file.json"],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    Run {
        example: "compact_roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json", "-1"],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    // policy FILE QUALITY [--manual | --compact-at N --rearm-below N] [OCCUPANCY...] (SPEC P8.3, L9.3).
    Run {
        example: "policy",
        args: &[
            "examples/data/policy_valid.json",
            "3",
            "--compact-at",
            "8000",
            "--rearm-below",
            "6000",
            "7900",
            "8000",
            "7000",
            "6000",
            "5999",
            "10000",
            "6500",
        ],
        stdin: None,
        // L9.3: re-arm is inclusive (6000 stays compact), 5999 re-arms, 10000 is the hard limit.
        stdout: "occupancy=6000 level=2 (compact)\noccupancy=5999 level=1 (normal)\noccupancy=10000 level=3 (hard limit)\noccupancy=6500 level=2 (compact)\n",
        exit: 0,
    },
    Run {
        example: "policy",
        args: &["examples/data/policy_valid.json", "1"],
        stdin: None,
        stdout: "LC_OK - ",
        exit: 0,
    },
    Run {
        example: "policy",
        args: &["examples/data/policy_bad_rearm.json", "2"],
        stdin: None,
        stdout: "LC_POLICY_REARM_BELOW RearmBelow ",
        exit: 1,
    },
    // P8.4: quality 0 (unknown) and 259 (not 3, A3.5) are accepted by no CounterPolicy.
    Run {
        example: "policy",
        args: &["examples/data/policy_valid.json", "0"],
        stdin: None,
        stdout: "LC_POLICY_COUNTER_POLICY CounterPolicy ",
        exit: 1,
    },
    Run {
        example: "policy",
        args: &["examples/data/policy_valid.json", "259"],
        stdin: None,
        stdout: "LC_POLICY_COUNTER_POLICY CounterPolicy ",
        exit: 1,
    },
    Run {
        example: "policy",
        args: &["-", "2"],
        stdin: Some("examples/data/policy_bad_rearm.json"),
        stdout: "LC_POLICY_REARM_BELOW RearmBelow ",
        exit: 1,
    },
    Run { example: "policy", args: &["-", "2"], stdin: None, stdout: "LC_POLICY_WIRE wire ", exit: 1 },
    Run { example: "policy", args: &["examples/data/policy_valid.json"], stdin: None, stdout: "", exit: 2 },
    Run { example: "policy", args: &["examples/data/no_such_file.json", "2"], stdin: None, stdout: "", exit: 2 },
    // validate_summary prints "NAME REASON MESSAGE" (REASON "-" when empty): exit 0 valid, 1 rejected.
    Run {
        example: "validate_summary",
        args: &["examples/data/summary_valid.xml"],
        stdin: None,
        stdout: "LC_OK - ",
        exit: 0,
    },
    Run {
        example: "validate_summary",
        args: &["examples/data/summary_valid_entities.xml"],
        stdin: None,
        stdout: "LC_OK - ",
        exit: 0,
    },
    // X4.6: &nbsp; is not one of the five predefined entities.
    Run {
        example: "validate_summary",
        args: &["examples/data/summary_bad_syntax.xml"],
        stdin: None,
        stdout: "LC_SUMMARY_XML_SYNTAX xml_syntax ",
        exit: 1,
    },
    // X4.18: the first start tag is not conversation_summary.
    Run {
        example: "validate_summary",
        args: &["examples/data/summary_bad_root.xml"],
        stdin: None,
        stdout: "LC_SUMMARY_XML_ROOT xml_root ",
        exit: 1,
    },
    // X4.18: decisions before constraints.
    Run {
        example: "validate_summary",
        args: &["examples/data/summary_bad_structure.xml"],
        stdin: None,
        stdout: "LC_SUMMARY_XML_STRUCTURE xml_structure ",
        exit: 1,
    },
    // X4.20, X4.21: the goal is blank (spaces, a newline and &#x20;).
    Run {
        example: "validate_summary",
        args: &["examples/data/summary_blank_goal.xml"],
        stdin: None,
        stdout: "LC_SUMMARY_XML_CONTENT xml_content ",
        exit: 1,
    },
    // Standard input, with "-" and with no argument.
    Run {
        example: "validate_summary",
        args: &["-"],
        stdin: Some("examples/data/summary_valid.xml"),
        stdout: "LC_OK - ",
        exit: 0,
    },
    Run {
        example: "validate_summary",
        args: &[],
        stdin: Some("examples/data/summary_bad_root.xml"),
        stdout: "LC_SUMMARY_XML_ROOT xml_root ",
        exit: 1,
    },
    // An empty input is passed as (NULL, 0): the empty document is xml_root (X4.19).
    Run { example: "validate_summary", args: &["-"], stdin: None, stdout: "LC_SUMMARY_XML_ROOT xml_root ", exit: 1 },
    // Usage and I/O errors.
    Run { example: "validate_summary", args: &["a", "b"], stdin: None, stdout: "", exit: 2 },
    Run { example: "validate_summary", args: &["examples/data/no_such_file.xml"], stdin: None, stdout: "", exit: 2 },
    // --- round.c: INPUT REPLY OUTPUT_TOKENS STOP KEEP_LAST (docs/SPEC.md §15). input_valid.json has
    // 5 messages, one leading system message, and toolu_01 called in 2 and answered in 3.
    // S14.4: keeping the last message, cut 4 splits no pair; R15.5: the trim takes the final newline,
    // then the fence line (7 bytes) and the closing line with its newline go (5 bytes in all after
    // the summary), leaving the 514-byte summary.
    Run {
        example: "round",
        args: &["examples/data/input_valid.json", "examples/data/reply_fenced.txt", "700", "end", "1"],
        stdin: None,
        stdout: "cut    4 (summarise [0, 4), keep the rest)\nhead   ",
        exit: 0,
    },
    Run {
        example: "round",
        args: &["examples/data/input_valid.json", "examples/data/reply_fenced.txt", "700", "end", "1"],
        stdin: None,
        stdout: "reply  LC_OK: 514 bytes of summary (7 removed before, 5 after: trim fence)\nbuild  ",
        exit: 0,
    },
    Run {
        example: "round",
        args: &["examples/data/input_valid.json", "examples/data/reply_fenced.txt", "700", "end", "1"],
        stdin: None,
        stdout: "bytes of replacement transcript; verify LC_OK",
        exit: 0,
    },
    // R15.4: the first 293 bytes of that summary (ASCII, one line), stopped by length: truncated at
    // the end of the text (column 294), asking for a shorter summary.
    Run {
        example: "round",
        args: &["examples/data/input_valid.json", "examples/data/reply_truncated.txt", "2048", "length", "1"],
        stdin: None,
        stdout: "reply  LC_REPLY_TRUNCATED (class retry) at line 1, column 294\nretry  \"Your summary was cut off",
        exit: 1,
    },
    // The same text with the model's own stop: the grammar's verdict (X4.16, the end inside a token).
    Run {
        example: "round",
        args: &["examples/data/input_valid.json", "examples/data/reply_truncated.txt", "2048", "end", "1"],
        stdin: None,
        stdout: "reply  LC_SUMMARY_XML_SYNTAX (class retry) at line 1, column 294",
        exit: 1,
    },
    // O6.2 step 3 (R15.3 step 4): 2049 tokens against max_summary_tokens 2048.
    Run {
        example: "round",
        args: &["examples/data/input_valid.json", "examples/data/reply_fenced.txt", "2049", "end", "1"],
        stdin: None,
        stdout: "reply  LC_SUMMARY_TOKEN_LIMIT (class retry)",
        exit: 1,
    },
    // Keeping all 5 messages leaves nothing to summarise (S14.4: cut 0; R15.8).
    Run {
        example: "round",
        args: &["examples/data/input_valid.json", "examples/data/reply_fenced.txt", "700", "end", "5"],
        stdin: None,
        stdout: "head   LC_REPLACEMENT_EMPTY_HEAD",
        exit: 2,
    },
    Run { example: "round", args: &["examples/data/input_valid.json"], stdin: None, stdout: "", exit: 2 },
    Run {
        example: "round",
        args: &["examples/data/input_valid.json", "examples/data/reply_fenced.txt", "700", "sometime", "1"],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    // --- examples/cpp/roundtrip.cpp: INPUT RESULT OUTPUT_TOKENS MAX_OUTPUT_BYTES REQUEST_LIMIT; one
    // line "STEP: NAME REASON MESSAGE" per step (input, request, result), then the summary (O6.4).
    // The samples are compact_roundtrip's: result_*.json are 795 bytes, max_summary_tokens is 2048.
    Run {
        example: "roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json", "1", "795", "4096"],
        stdin: None,
        // E7: the canonical length, as for compact_roundtrip; F7.2: it fits as is.
        stdout: "request bytes: 1487\nresult: LC_OK - Success.\n<conversation_summary>\n<goal>Fix the nightly build",
        exit: 0,
    },
    // F7.3: the one tool message stubbed, 154 bytes shorter; F7.4: then nothing else can shrink.
    Run {
        example: "roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json", "1", "795", "1400"],
        stdin: None,
        stdout: "request bytes: 1333\nresult: LC_OK - ",
        exit: 0,
    },
    Run {
        example: "roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json", "1", "795", "1332"],
        stdin: None,
        stdout: "request: LC_INPUT_TOO_LARGE too_large ",
        exit: 1,
    },
    // O6.2 step 8: revision 6 instead of 7.
    Run {
        example: "roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_wrong_identity.json", "1", "795", "4096"],
        stdin: None,
        stdout: "result: LC_SUMMARY_IDENTITY identity ",
        exit: 1,
    },
    // X4.18: decisions before constraints.
    Run {
        example: "roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_bad_xml.json", "1", "795", "4096"],
        stdin: None,
        stdout: "result: LC_SUMMARY_XML_STRUCTURE xml_structure ",
        exit: 1,
    },
    // C13.4: loopcompact::Error carries the diagnosis (the `<` of the misplaced start tag) and the
    // retry message (C13.5).
    Run {
        example: "roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_bad_xml.json", "1", "795", "4096"],
        stdin: None,
        stdout: "where: class retry; line 3, column 1, section constraints, location summary, offset 115, expected \
                 <constraints>, rule X4.18\nretry: Your summary was rejected at line 3, column 1",
        exit: 1,
    },
    // O6.2 steps 1 and 3.
    Run {
        example: "roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json", "1", "794", "4096"],
        stdin: None,
        stdout: "result: LC_SUMMARY_BYTE_LIMIT byte_limit ",
        exit: 1,
    },
    Run {
        example: "roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json", "2049", "795", "4096"],
        stdin: None,
        stdout: "result: LC_SUMMARY_TOKEN_LIMIT token_limit ",
        exit: 1,
    },
    // The input from standard input (2048 tokens: equal to the budget is fine); a reply is not an
    // input document (W5.2: unknown key `summary`).
    Run {
        example: "roundtrip",
        args: &["-", "examples/data/result_valid.json", "2048", "795", "4096"],
        stdin: Some("examples/data/input_valid.json"),
        stdout: "result: LC_OK - ",
        exit: 0,
    },
    Run {
        example: "roundtrip",
        args: &["-", "examples/data/result_valid.json", "1", "795", "4096"],
        stdin: Some("examples/data/result_valid.json"),
        stdout: "input: LC_INPUT_WIRE wire ",
        exit: 1,
    },
    Run { example: "roundtrip", args: &["examples/data/input_valid.json"], stdin: None, stdout: "", exit: 2 },
    Run {
        example: "roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/no_such_file.json", "1", "1", "1"],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    Run {
        example: "roundtrip",
        args: &["examples/data/input_valid.json", "examples/data/result_valid.json", "-1", "1", "1"],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    // --- end of examples/cpp/roundtrip.cpp
    // --- examples/cpp/compact.cpp: [OPTIONS] INPUT KEEP_LAST REPLY... (FILE:TOKENS:STOP or throw), one
    // line per attempt, then the outcome (SPEC R15.12). input_valid.json: 5 messages, max_summary_tokens
    // 2048; keeping 1, the cut is 4 (S14.4). E7 by hand: the head [0, 4) is the 1487 canonical bytes
    // less the last message and its comma (209 bytes) = 1278; the replacement is the system message,
    // the summary message of the 514-byte summary (696 bytes, its <, > and & escaped) and the last message:
    // 1020 bytes. R15.4: the 293-byte truncated reply, stopped by length, asks for a shorter summary;
    // step 4 doubles max_tokens from 1024 to 2048 for the next request; R15.5: 7 bytes of fence before,
    // 5 after.
    Run {
        example: "compact",
        args: &[
            "--max-tokens",
            "1024",
            "examples/data/input_valid.json",
            "1",
            "examples/data/reply_truncated.txt:1024:length",
            "examples/data/reply_fenced.txt:700:end",
        ],
        stdin: None,
        stdout: "attempt 1: max_tokens 1024, 1 turns, head 1278 bytes, LC_REPLY_TRUNCATED (class retry), stop length, \
                 293 bytes\nretry: Your summary was cut off",
        exit: 0,
    },
    Run {
        example: "compact",
        args: &[
            "--max-tokens",
            "1024",
            "examples/data/input_valid.json",
            "1",
            "examples/data/reply_truncated.txt:1024:length",
            "examples/data/reply_fenced.txt:700:end",
        ],
        stdin: None,
        stdout: "attempt 2: max_tokens 2048, 3 turns, head 1278 bytes, LC_OK (class ok), stop end, 526 bytes, removed \
                 trim|unfence (7 before, 5 after), last reply withheld\ncompacted: cut 4, summary 514 bytes, \
                 replacement 1020 bytes, verify LC_OK, requests distinct\n",
        exit: 0,
    },
    // input_escapes.json (4655 bytes, canonical as written but for 2000 raw `<` in the user message
    // and 2000 in the tool result): every output is longer than the first buffer the wrapper sizes
    // from the input (4655 + 4655/128 + 4096 = 8787 bytes; for the replacement 4655 + 6 x 514, the
    // same way, 11895), so each takes its exact size on a second call. Keeping 2 would cut between
    // the call and its result: the cut is 2 (S14.4). E7 by hand: the head is the identity (245),
    // the system message (62), a comma, the user message (2052 + 5 x 2000) and the end (28):
    // 12388; the replacement is [ system (62), the summary message (696), the call (97), the tool
    // message (2088 + 5 x 2000), the answer (79) ] with four commas: 13028.
    Run {
        example: "compact",
        args: &["examples/data/input_escapes.json", "2", "examples/data/reply_fenced.txt:700:end"],
        stdin: None,
        stdout: "attempt 1: max_tokens 2048, 1 turns, head 12388 bytes, LC_OK (class ok), stop end, 526 bytes, removed \
                 trim|unfence (7 before, 5 after)\ncompacted: cut 2, summary 514 bytes, replacement 13028 bytes, verify \
                 LC_OK, requests distinct\n",
        exit: 0,
    },
    // Already at max_summary_tokens: the head's budget becomes 3/4 of 1278 = 958; stubbing the one tool
    // message leaves more than that (F7.4), so the head stays.
    Run {
        example: "compact",
        args: &[
            "examples/data/input_valid.json",
            "1",
            "examples/data/reply_truncated.txt:2048:length",
            "examples/data/reply_fenced.txt:700:end",
        ],
        stdin: None,
        stdout: "attempt 2: max_tokens 2048, 3 turns, head 1278 bytes, LC_OK",
        exit: 0,
    },
    // The same text with the model's own stop (X4.16), shown again with --reshow.
    Run {
        example: "compact",
        args: &[
            "--reshow",
            "examples/data/input_valid.json",
            "1",
            "examples/data/reply_truncated.txt:2048:end",
            "examples/data/reply_fenced.txt:700:end",
        ],
        stdin: None,
        stdout: "LC_SUMMARY_XML_SYNTAX (class retry), stop end, 293 bytes\nretry: Your summary was rejected at line 1, \
                 column 294",
        exit: 0,
    },
    Run {
        example: "compact",
        args: &[
            "--reshow",
            "examples/data/input_valid.json",
            "1",
            "examples/data/reply_truncated.txt:2048:end",
            "examples/data/reply_fenced.txt:700:end",
        ],
        stdin: None,
        stdout: "(7 before, 5 after), last reply reshown\n",
        exit: 0,
    },
    // C13.3: no usage reported is DISCARD, at once; the reason says what to do.
    Run {
        example: "compact",
        args: &["examples/data/input_valid.json", "1", "examples/data/reply_fenced.txt:0:end"],
        stdin: None,
        stdout: "kept history: LC_SUMMARY_TOKEN_USAGE: attempt 1: LC_SUMMARY_TOKEN_USAGE (class discard): the provider \
                 reported no output token usage; turn usage reporting on\n",
        exit: 1,
    },
    // R15.2: a reply limit below 114 bytes is the host's (HOST), before any request.
    Run {
        example: "compact",
        args: &[
            "--max-reply-bytes",
            "100",
            "examples/data/input_valid.json",
            "1",
            "examples/data/reply_fenced.txt:700:end",
        ],
        stdin: None,
        stdout: "kept history: LC_REPLY_BYTE_LIMIT_UNREACHABLE: max_reply_bytes is below the smallest valid summary, so \
                 no reply can meet it; no request was sent\n",
        exit: 1,
    },
    // Out of attempts: the last status.
    Run {
        example: "compact",
        args: &[
            "--attempts",
            "1",
            "examples/data/input_valid.json",
            "1",
            "examples/data/reply_truncated.txt:2048:length",
        ],
        stdin: None,
        stdout: "kept history: LC_REPLY_TRUNCATED: all 1 attempts were rejected, the last with LC_REPLY_TRUNCATED\n",
        exit: 1,
    },
    // Keeping 5 of 5 messages: nothing to summarise (R15.8), the model is not called (no attempt line).
    Run {
        example: "compact",
        args: &["examples/data/input_valid.json", "5", "examples/data/reply_fenced.txt:700:end"],
        stdin: None,
        stdout: "kept history: LC_REPLACEMENT_EMPTY_HEAD: nothing to summarise",
        exit: 1,
    },
    // F7.4: the head of cut 4 stubbed is still far above 500 bytes.
    Run {
        example: "compact",
        args: &[
            "--max-input-bytes",
            "500",
            "examples/data/input_valid.json",
            "1",
            "examples/data/reply_fenced.txt:700:end",
        ],
        stdin: None,
        stdout: "kept history: LC_INPUT_TOO_LARGE: ",
        exit: 1,
    },
    // call_model throws: the exception propagates (exit 2, nothing on stdout), or with on_error
    // keep_history the reason names its type, not its text.
    Run {
        example: "compact",
        args: &["examples/data/input_valid.json", "1", "throw"],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    Run {
        example: "compact",
        args: &[
            "--keep-history-on-error",
            "examples/data/input_valid.json",
            "1",
            "examples/data/reply_truncated.txt:2048:end",
            "throw",
        ],
        stdin: None,
        stdout: "kept history: LC_OK: attempt 2: call_model threw std::runtime_error\n",
        exit: 1,
    },
    // max_tokens above max_summary_tokens (2048) is the host's error.
    Run {
        example: "compact",
        args: &[
            "--max-tokens",
            "2049",
            "examples/data/input_valid.json",
            "1",
            "examples/data/reply_fenced.txt:700:end",
        ],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    // max_tokens 0 is refused before step 1, as Python and JS refuse it: even where nothing is to
    // be summarised (keep_last 99: cut 0, which would keep the history with LC_REPLACEMENT_EMPTY_HEAD).
    Run {
        example: "compact",
        args: &["--max-tokens", "0", "examples/data/input_valid.json", "99", "examples/data/reply_fenced.txt:700:end"],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    Run { example: "compact", args: &["examples/data/input_valid.json", "1"], stdin: None, stdout: "", exit: 2 },
    Run {
        example: "compact",
        args: &["examples/data/input_valid.json", "1", "examples/data/reply_fenced.txt:700:sometime"],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    // --- end of examples/cpp/compact.cpp
    // --- examples/cpp/compact_stream.cpp: [OPTIONS] INPUT KEEP_LAST CHUNK_BYTES REPLY... (SPEC T17.6), the
    // round over a model that streams each reply in CHUNK_BYTES chunks. summary_bad_structure.xml (220
    // bytes, 4 chunks of 64): "<decisions" has its "<" at 64 (line 3, column 3) and dies at the "d"
    // (65, examples/cpp/stream.cpp's run), in chunk 2: 128 bytes read, the stream released, its usage
    // never asked; the attempt is RETRY with X4.18's message, and the next request withholds it.
    // reply_spaced_fence.txt is U+00A0, a space and LF (4 bytes) before reply_fenced.txt: 530 bytes in
    // 9 chunks, read to the end; the whole reply's cleanup removes 4 + 7 bytes before, 5 after (as
    // compact.cpp's run with reply_fenced.txt, 4 more), and the round ends as there: cut 4, 514, 1020.
    Run {
        example: "compact_stream",
        args: &[
            "examples/data/input_valid.json",
            "1",
            "64",
            "examples/data/summary_bad_structure.xml:700:end",
            "examples/data/reply_spaced_fence.txt:700:end",
        ],
        stdin: None,
        stdout: "attempt 1: LC_SUMMARY_XML_STRUCTURE (class retry), stop unknown, 128 bytes, aborted, at line 3, column \
                 3; stream: read 2 of 4 chunks, released, usage asked 0\nretry: Your summary was rejected at line 3, \
                 column 3, in the constraints section",
        exit: 0,
    },
    Run {
        example: "compact_stream",
        args: &[
            "examples/data/input_valid.json",
            "1",
            "64",
            "examples/data/summary_bad_structure.xml:700:end",
            "examples/data/reply_spaced_fence.txt:700:end",
        ],
        stdin: None,
        stdout: "attempt 2: LC_OK (class ok), stop end, 530 bytes, removed trim|unfence (11 before, 5 after), last \
                 reply withheld; stream: read 9 of 9 chunks, released, usage asked 1\ncompacted: cut 4, summary 514 \
                 bytes, replacement 1020 bytes, verify LC_OK\nreply 1: read 2 of 4 chunks, released, usage asked 0\n\
                 reply 2: read 9 of 9 chunks, released, usage asked 1\n",
        exit: 0,
    },
    // R15.3 step 2: summary_valid.xml (395 bytes, 7 chunks of 64) under a 200-byte limit: 192 bytes
    // after chunk 3, 256 after chunk 4, the first over it: aborted there, limit 200, actual 256.
    Run {
        example: "compact_stream",
        args: &[
            "--max-reply-bytes",
            "200",
            "--attempts",
            "1",
            "examples/data/input_valid.json",
            "1",
            "64",
            "examples/data/summary_valid.xml:700:end",
        ],
        stdin: None,
        stdout: "attempt 1: LC_SUMMARY_BYTE_LIMIT (class retry), stop unknown, 256 bytes, aborted, limit 200, actual \
                 256; stream: read 4 of 7 chunks, released, usage asked 0\n",
        exit: 1,
    },
    // Without unfence the fence is text before the root (X4.18): dead at byte 0, in chunk 1 of 33
    // (526 bytes in 16-byte chunks); --reshow sends back the 16 bytes read, LF shown as a space.
    Run {
        example: "compact_stream",
        args: &[
            "--no-unfence",
            "--reshow",
            "examples/data/input_valid.json",
            "1",
            "16",
            "examples/data/reply_fenced.txt:700:end",
            "examples/data/summary_valid.xml:700:end",
        ],
        stdin: None,
        stdout: "attempt 1: LC_SUMMARY_XML_STRUCTURE (class retry), stop unknown, 16 bytes, aborted, at line 1, column \
                 1; stream: read 1 of 33 chunks, released, usage asked 0\n",
        exit: 0,
    },
    Run {
        example: "compact_stream",
        args: &[
            "--no-unfence",
            "--reshow",
            "examples/data/input_valid.json",
            "1",
            "16",
            "examples/data/reply_fenced.txt:700:end",
            "examples/data/summary_valid.xml:700:end",
        ],
        stdin: None,
        stdout: "attempt 2: LC_OK (class ok), stop end, 395 bytes, last reply reshown: ```xml <conversa; stream: read \
                 25 of 25 chunks, released, usage asked 1\n",
        exit: 0,
    },
    // A reply read to the end is judged whole, usage included: no usage reported is DISCARD (C13.3).
    Run {
        example: "compact_stream",
        args: &["examples/data/input_valid.json", "1", "16", "examples/data/reply_fenced.txt:0:end"],
        stdin: None,
        stdout: "attempt 1: LC_SUMMARY_TOKEN_USAGE (class discard), stop end, 526 bytes; stream: read 33 of 33 \
                 chunks, released, usage asked 1\n",
        exit: 1,
    },
    // The stream's exceptions are call_model's: the third next() throws (2 chunks read, released,
    // usage never asked) and propagates (exit 2), or with keep_history the reason names its type.
    Run {
        example: "compact_stream",
        args: &["examples/data/input_valid.json", "1", "64", "examples/data/summary_valid.xml:700:end:next@3"],
        stdin: None,
        stdout: "compact threw std::runtime_error\nreply 1: read 2 of 7 chunks, released, usage asked 0\n",
        exit: 2,
    },
    Run {
        example: "compact_stream",
        args: &[
            "--keep-history-on-error",
            "examples/data/input_valid.json",
            "1",
            "64",
            "examples/data/summary_bad_structure.xml:700:end",
            "examples/data/summary_valid.xml:700:end:next@3",
        ],
        stdin: None,
        stdout: "kept history: LC_OK: attempt 2: the reply stream threw std::runtime_error\nreply 1: read 2 of 4 \
                 chunks, released, usage asked 0\nreply 2: read 2 of 7 chunks, released, usage asked 0\n",
        exit: 1,
    },
    Run {
        example: "compact_stream",
        args: &[
            "--keep-history-on-error",
            "examples/data/input_valid.json",
            "1",
            "64",
            "examples/data/summary_valid.xml:700:end:usage",
        ],
        stdin: None,
        stdout: "kept history: LC_OK: attempt 1: the reply stream threw std::runtime_error\nreply 1: read 7 of 7 \
                 chunks, released, usage asked 1\n",
        exit: 1,
    },
    // The differential: 8 files x 4 wrappings x 5 settings x chunk sizes 1..64 = 10240 rounds.
    Run {
        example: "compact_stream",
        args: &[
            "--differential",
            "examples/data/input_valid.json",
            "1",
            "examples/data/summary_valid.xml",
            "examples/data/summary_valid_entities.xml",
            "examples/data/summary_bad_root.xml",
            "examples/data/summary_bad_structure.xml",
            "examples/data/summary_bad_syntax.xml",
            "examples/data/summary_blank_goal.xml",
            "examples/data/reply_fenced.txt",
            "examples/data/reply_truncated.txt",
        ],
        stdin: None,
        stdout: "differential: 10240 rounds, every streamed verdict agrees with the whole reply's\n",
        exit: 0,
    },
    Run {
        example: "compact_stream",
        args: &["examples/data/input_valid.json", "1", "0", "x"],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    Run {
        example: "compact_stream",
        args: &["examples/data/input_valid.json", "1", "16", "examples/data/reply_fenced.txt:700:end:later"],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    // --- end of examples/cpp/compact_stream.cpp
    // --- examples/cpp/render.cpp: GOAL CONSTRAINTS DECISIONS STATE OPEN_ITEMS, or --grammar KIND, or
    // --schema (SPEC §17.1, §17.2). G17.8 by hand: the root, each section on its own line, & < > as
    // entities, CR as &#13;, an empty optional section self-closed; 23 + 22 + 41 + 13 + 49 + 14 + 23
    // = 185 bytes. G17.9: a blank goal is xml_content, U+0001 xml_syntax, both class retry.
    Run {
        example: "render",
        args: &["Ship 1.2", "no API change", "", "tests <pass> & CI green", ""],
        stdin: None,
        stdout: "<conversation_summary>\n<goal>Ship 1.2</goal>\n<constraints>no API change</constraints>\n<decisions/>\n\
                 <state>tests &lt;pass&gt; &amp; CI green</state>\n<open_items/>\n</conversation_summary>\n\
                 valid: 185 bytes, every section reads back\n",
        exit: 0,
    },
    Run {
        example: "render",
        args: &["g", "", "a\r\nb ]]>", "s", "- one\n- two"],
        stdin: None,
        stdout: "<decisions>a&#13;\nb ]]&gt;</decisions>\n<state>s</state>\n<open_items>- one\n- two</open_items>\n",
        exit: 0,
    },
    Run {
        example: "render",
        args: &[" \t\u{3000}", "", "", "s", ""],
        stdin: None,
        stdout: "refused: LC_SUMMARY_XML_CONTENT xml_content (class retry)\n",
        exit: 1,
    },
    // The first refusal in section order: the blank state comes after the control character.
    Run {
        example: "render",
        args: &["g", "a\u{1}", "", " ", ""],
        stdin: None,
        stdout: "refused: LC_SUMMARY_XML_SYNTAX xml_syntax (class retry)\n",
        exit: 1,
    },
    // G17.5, G17.6: the start rules; G17.7: no other property.
    Run { example: "render", args: &["--grammar", "lark"], stdin: None, stdout: "\nstart: ", exit: 0 },
    Run { example: "render", args: &["--grammar", "gbnf"], stdin: None, stdout: "root ::= ", exit: 0 },
    Run { example: "render", args: &["--grammar", "regex"], stdin: None, stdout: "<conversation_summary>", exit: 0 },
    Run { example: "render", args: &["--schema"], stdin: None, stdout: "\"additionalProperties\":false", exit: 0 },
    Run { example: "render", args: &["--grammar", "ebnf"], stdin: None, stdout: "", exit: 2 },
    Run { example: "render", args: &["g", "c", "d", "s"], stdin: None, stdout: "", exit: 2 },
    // --- end of examples/cpp/render.cpp
    // --- examples/cpp/stream.cpp: CHUNK_BYTES FILE (SPEC §17.3), by hand from the files' bytes.
    // summary_valid.xml: 395 bytes, no trailing newline: 16-byte chunks, 25 of them, all viable.
    Run {
        example: "stream",
        args: &["16", "examples/data/summary_valid.xml"],
        stdin: None,
        stdout: "valid: 395 bytes in 25 chunks\n",
        exit: 0,
    },
    // reply_fenced.txt (526 bytes) opens with a Markdown fence: text before the root, dead at
    // byte 0 (T17.3); the 510 bytes after the first chunk are never fed.
    Run {
        example: "stream",
        args: &["16", "examples/data/reply_fenced.txt"],
        stdin: None,
        stdout: "dead in chunk 1: byte 0 killed it; LC_SUMMARY_XML_STRUCTURE at offset 0 (line 1, column 1); \
                 510 of 526 bytes never fed\n",
        exit: 1,
    },
    // summary_bad_structure.xml (220 bytes): line 1 is 23 bytes, line 2 "  <goal>Ship the release
    // today.</goal>" 38 + LF, so line 3's "<decisions>" has its "<" at 62 + 2 = 64 (column 3) and
    // dies at the "d" (65: the start tag must be <constraints>), in chunk 10 of 7 bytes (63..69);
    // 220 - 70 = 150 bytes never fed. The diagnosis names the start tag at its "<".
    Run {
        example: "stream",
        args: &["7", "examples/data/summary_bad_structure.xml"],
        stdin: None,
        stdout: "dead in chunk 10: byte 65 killed it; LC_SUMMARY_XML_STRUCTURE at offset 64 (line 3, column 3); \
                 150 of 220 bytes never fed\n",
        exit: 1,
    },
    // reply_truncated.txt (293 bytes) stops inside <decisions>: viable to the end, then X4.16 at
    // the end of the input.
    Run {
        example: "stream",
        args: &["64", "examples/data/reply_truncated.txt"],
        stdin: None,
        stdout: "invalid at the end: LC_SUMMARY_XML_SYNTAX at offset 293\n",
        exit: 1,
    },
    Run { example: "stream", args: &["0", "examples/data/summary_valid.xml"], stdin: None, stdout: "", exit: 2 },
    Run { example: "stream", args: &["16", "examples/data/no_such_file.xml"], stdin: None, stdout: "", exit: 2 },
    // --- end of examples/cpp/stream.cpp
    // --- examples/cpp/structured.cpp INPUT: the round with structured output (SPEC G17.10), one
    // line per step, each checked in the example against the SPEC; here the lines that say what
    // happened. The rendered summary of its five texts is 218 bytes (G17.8 written out by hand in
    // the example).
    Run {
        example: "structured",
        args: &["examples/data/input_valid.json"],
        stdin: None,
        stdout: "sections: compacted, 218 bytes\n",
        exit: 0,
    },
    Run {
        example: "structured",
        args: &["examples/data/input_valid.json"],
        stdin: None,
        stdout: "blank goal: LC_SUMMARY_XML_CONTENT section goal (class retry), then compacted\n",
        exit: 0,
    },
    Run {
        example: "structured",
        args: &["examples/data/input_valid.json"],
        stdin: None,
        stdout: "not the object: wire, wire, wire, wire, wire, output_shape, output_shape, output_shape, output_shape, \
                 output_shape\n",
        exit: 0,
    },
    Run {
        example: "structured",
        args: &["examples/data/input_valid.json"],
        stdin: None,
        stdout: "structured: every step as expected\n",
        exit: 0,
    },
    Run { example: "structured", args: &[], stdin: None, stdout: "", exit: 2 },
    Run { example: "structured", args: &["examples/no_such_file.json"], stdin: None, stdout: "", exit: 2 },
    // --- end of examples/cpp/structured.cpp
    // demo [DATA_DIR]: the first run (scripts/demo), one line per step; exit 0 when every step gives
    // the result its sample is made for. F7.3: the tool message stubbed under 1400 bytes; C13.4: the
    // misplaced <decisions> of result_bad_xml.json; R10.7: the worked example; P8.4: quality 0 is
    // accepted by no CounterPolicy; S14.4: a cut at 3 separates toolu_01's call from its result.
    Run { example: "demo", args: &[], stdin: None, stdout: "demo: every step as expected\n", exit: 0 },
    Run {
        example: "demo",
        args: &["examples/data"],
        stdin: None,
        stdout: "fit          under 1400 bytes: LC_OK, 1333 bytes to send (1487 unfitted",
        exit: 0,
    },
    Run {
        example: "demo",
        args: &["examples/data"],
        stdin: None,
        stdout: "bad reply    result_bad_xml.json: LC_SUMMARY_XML_STRUCTURE (class retry) at summary, line 3, column \
                 1, section constraints: expected <constraints> (rule X4.18)\nretry        \"Your summary was rejected",
        exit: 0,
    },
    Run {
        example: "demo",
        args: &["examples/data"],
        stdin: None,
        stdout: "fingerprint_valid.json: f0c4cabef8241dc5e6550b771cc4bed570508cfbc820a697efc8439438bde5e0\n",
        exit: 0,
    },
    Run {
        example: "demo",
        args: &["examples/data"],
        stdin: None,
        stdout: "quality 0): LC_POLICY_COUNTER_POLICY (class host) at CounterPolicy",
        exit: 0,
    },
    Run {
        example: "demo",
        args: &["examples/data"],
        stdin: None,
        stdout: "keeping at least the last 2 of 5 messages: cut at 2 (summarise [0, 2), keep [2, 5)); a cut at 3 is \
                 LC_CUT_UNSAFE\n",
        exit: 0,
    },
    Run { example: "demo", args: &["examples/no_such_dir"], stdin: None, stdout: "", exit: 2 },
    Run { example: "demo", args: &["a", "b"], stdin: None, stdout: "", exit: 2 },
    // examples/cpp/pairing.cpp: SPEC §16.9 by hand, after the input's counts (7 messages, the first a
    // system message; max_summary_tokens 512, as the files say). input_pending.json: message 6, the last assistant
    // message, waits for c2 (G16.13): the pending-tail cut keeping 1 is 6 (c1's pair lies before it),
    // §14's verdict is 500; the plan with the pending tail is empty and the repaired transcript is the
    // input in canonical bytes (E7.3: "usage":null on assistant messages).
    Run {
        example: "pairing",
        args: &["examples/data/input_pending.json", "1"],
        stdin: None,
        stdout: "messages: 7, leading systems: 1, max_summary_tokens: 512\n\
                 violation: message 6, block 0: LC_PAIRING_UNANSWERED_CALL\nsafe cut: 6\n\
                 safe cut (S14.4): LC_PAIRING_UNANSWERED_CALL\nrepair plan: []\nrepaired: \
                 [{\"role\":\"system\",\"blocks\":[{\"type\":\"text\",\"text\":\"be brief\"}]},\
                 {\"role\":\"user\",\"blocks\":[{\"type\":\"text\",\"text\":\"list the files\"}]},\
                 {\"role\":\"assistant\",\"blocks\":[{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"ls\",\"input\":{}}],\"usage\":null},\
                 {\"role\":\"tool\",\"blocks\":[{\"type\":\"text\",\"text\":\"a.go b.go\"}],\"tool_use_id\":\"c1\",\"is_error\":false},\
                 {\"role\":\"assistant\",\"blocks\":[{\"type\":\"text\",\"text\":\"two files\"}],\"usage\":null},\
                 {\"role\":\"user\",\"blocks\":[{\"type\":\"text\",\"text\":\"now ship it\"}]},\
                 {\"role\":\"assistant\",\"blocks\":[{\"type\":\"tool_use\",\"id\":\"c2\",\"name\":\"deploy\",\"input\":{}}],\"usage\":null}]\n",
        exit: 0,
    },
    // input_unpaired.json: b (message 1, block 1) has no result and message 3 answers no call
    // (G16.14, in transcript order); the last assistant message (5) has no call, so there is no
    // pending tail and both cuts give the first violation's status. The plan (G16.15): drop message
    // 3, then b's synthetic error result before message 4 (after message 1 and the tool messages
    // that follow it).
    Run {
        example: "pairing",
        args: &["examples/data/input_unpaired.json", "1"],
        stdin: None,
        stdout: "messages: 6, leading systems: 0, max_summary_tokens: 512\n\
                 violation: message 1, block 1: LC_PAIRING_UNANSWERED_CALL\nviolation: message 3: \
                 LC_PAIRING_ORPHAN_RESULT\nsafe cut: LC_PAIRING_UNANSWERED_CALL\nsafe cut (S14.4): \
                 LC_PAIRING_UNANSWERED_CALL\nrepair plan: [{\"action\":\"drop_result\",\"message\":3,\"block\":null},\
                 {\"action\":\"add_result\",\"before\":4,\"call_message\":1,\"call_block\":1,\"tool_use_id\":\"b\",\
                 \"text\":\"[no result was recorded for this tool call]\"}]\nrepaired: \
                 [{\"role\":\"user\",\"blocks\":[{\"type\":\"text\",\"text\":\"run both\"}]},\
                 {\"role\":\"assistant\",\"blocks\":[{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"t\",\"input\":{}},\
                 {\"type\":\"tool_use\",\"id\":\"b\",\"name\":\"t\",\"input\":{}}],\"usage\":null},\
                 {\"role\":\"tool\",\"blocks\":[{\"type\":\"text\",\"text\":\"ok\"}],\"tool_use_id\":\"a\",\"is_error\":false},\
                 {\"role\":\"tool\",\"blocks\":[{\"type\":\"text\",\"text\":\"[no result was recorded for this tool call]\"}],\
                 \"tool_use_id\":\"b\",\"is_error\":true},\
                 {\"role\":\"user\",\"blocks\":[{\"type\":\"text\",\"text\":\"go on\"}]},\
                 {\"role\":\"assistant\",\"blocks\":[{\"type\":\"text\",\"text\":\"done\"}],\"usage\":null}]\n",
        exit: 0,
    },
    Run { example: "pairing", args: &["examples/data/input_unpaired.json"], stdin: None, stdout: "", exit: 2 },
    // convert (C) and conversion (C++): SPEC §16.2 and §16.4 on examples/data/convert_*.json, the
    // figures worked out by hand from the tables. Chat: one wire message per message; losses
    // `name` on the developer message (dropped_name), image `detail` "high" (dropped_media_options),
    // the repeated `city` key (duplicate_argument_key, the last value kept, G16.4); keeping the last
    // message the safe cut is 4 (the call and its result summarised together), source cut 4.
    Run {
        example: "convert",
        args: &["openai_chat", "examples/data/convert_chat.json"],
        stdin: None,
        stdout: "wire 5 messages from 5 source messages\nsource_index 0 1 2 3 4\ncut_allowed 1 1 1 1 1 1\n\
                 loss 0 dropped_name\nloss 1 dropped_media_options\nloss 2 duplicate_argument_key\n\
                 safe_cut 4 source_cut 4\n",
        exit: 0,
    },
    Run {
        example: "convert",
        args: &["openai_chat", "examples/data/convert_chat.json"],
        stdin: None,
        stdout: "\"id\":\"call_1\",\"name\":\"get_weather\",\"input\":{\"city\":\"Oslo\"}",
        exit: 0,
    },
    // Anthropic: the system parameter is wire message 0 (source "system", its cache_control
    // dropped); the last user message holds two tool results and a text: three wire messages from
    // source 2 (G16.1), no cut inside them; a document by URL keeps its name only. Keeping the last
    // message, cuts 5 and 4 are not allowed and 3 splits the calls from their results: cut 2,
    // which summarises source [0, 1) (the system parameter counts as no source message).
    Run {
        example: "convert",
        args: &["anthropic", "examples/data/convert_anthropic.json"],
        stdin: None,
        stdout: "wire 6 messages from 3 source messages\nsource_index system 0 1 2 2 2\n\
                 cut_allowed 1 1 1 1 0 0 1\nloss system dropped_cache_control\nloss 0 document_not_inline\n\
                 safe_cut 2 source_cut 1\n",
        exit: 0,
    },
    // G16.3: the signature byte-exact, with its format.
    Run {
        example: "convert",
        args: &["anthropic", "examples/data/convert_anthropic.json"],
        stdin: None,
        stdout: "\"signature\":\"EqQBCkYIBxgCKkB0c2lnbmF0dXJl\",\"signature_format\":\"anthropic\"",
        exit: 0,
    },
    // 701 at the unknown role's value (byte 45), never its bytes.
    Run {
        example: "convert",
        args: &["openai_chat", "examples/data/convert_bad_role.json"],
        stdin: None,
        stdout: "error LC_CONVERT_SHAPE convert_shape at messages[1].role offset 45\n",
        exit: 1,
    },
    Run {
        example: "convert",
        args: &["openai_chat", "examples/data/no_such_file.json"],
        stdin: None,
        stdout: "",
        exit: 2,
    },
    Run { example: "convert", args: &["klingon", "examples/data/convert_chat.json"], stdin: None, stdout: "", exit: 2 },
    Run {
        example: "conversion",
        args: &["examples/data/convert_chat.json", "examples/data/convert_anthropic.json"],
        stdin: None,
        stdout: "openai_chat: loss 0 dropped_name\nopenai_chat: loss 1 dropped_media_options\n\
                 openai_chat: loss 2 duplicate_argument_key\n\
                 openai_chat: keeping the last message, summarise wire [0, 4) = source [0, 4)\n",
        exit: 0,
    },
    Run {
        example: "conversion",
        args: &["examples/data/convert_chat.json", "examples/data/convert_anthropic.json"],
        stdin: None,
        stdout: "anthropic: 6 wire messages from 3 source messages\nanthropic: source_index system 0 1 2 2 2\n\
                 anthropic: cut_allowed 1 1 1 1 0 0 1\nanthropic: loss system dropped_cache_control\n\
                 anthropic: loss 0 document_not_inline\n\
                 anthropic: keeping the last message, summarise wire [0, 2) = source [0, 1)\n",
        exit: 0,
    },
    Run {
        example: "conversion",
        args: &["examples/data/convert_bad_role.json", "examples/data/convert_anthropic.json"],
        stdin: None,
        stdout: "openai_chat: refused LC_CONVERT_SHAPE; line 1, column 46, location messages[1].role, offset 45",
        exit: 1,
    },
    Run { example: "conversion", args: &["examples/data/convert_chat.json"], stdin: None, stdout: "", exit: 2 },
];

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>`: this test runs as `target/<profile>/deps/c_examples-<hash>`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap_or_else(|| panic!("unexpected test path {}", exe.display())).to_owned()
}

/// The example sources: `examples/*.c`, sorted.
fn example_sources() -> Vec<PathBuf> {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(manifest_dir().join("examples"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "c"))
        .collect();
    // C++ examples, built with c++ -std=c++17 (see `compiler`).
    sources.extend(
        std::fs::read_dir(manifest_dir().join("examples").join("cpp"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "cpp")),
    );
    sources.sort();
    sources
}

/// The compiler and language standard for a source: C99 for `.c`, C++17 for `.cpp`.
fn compiler(source: &Path) -> (&'static str, &'static str) {
    if source.extension().is_some_and(|e| e == "cpp") { ("c++", "-std=c++17") } else { ("cc", "-std=c99") }
}

fn stem(path: &Path) -> String {
    path.file_stem().unwrap().to_str().unwrap().to_owned()
}

/// Extra compiler flags from `LOOPCOMPACT_CFLAGS` (whitespace-separated), e.g. the sanitizer flags
/// of `scripts/sanitize`; none by default.
fn extra_cflags() -> Vec<String> {
    std::env::var("LOOPCOMPACT_CFLAGS").unwrap_or_default().split_whitespace().map(str::to_owned).collect()
}

/// The command that runs an example: the executable itself, or `LOOPCOMPACT_RUNNER`
/// (whitespace-separated, e.g. `valgrind --error-exitcode=99`) with the executable as its argument.
/// Without `LD_LIBRARY_PATH`: cargo sets it to this build's `deps/`, and the loader searches it
/// before the run path, so an example linked against `LOOPCOMPACT_LIB_DIR` would load the library
/// of `deps/` instead ([`check_loaded_library`] makes sure it does not).
fn example_command(exe: &Path) -> Command {
    let runner = std::env::var("LOOPCOMPACT_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    let mut command = match words.next() {
        Some(program) => {
            let mut command = Command::new(program);
            command.args(words).arg(exe);
            command
        }
        None => Command::new(exe),
    };
    command.env_remove("LD_LIBRARY_PATH");
    command
}

/// Checks that `exe`, started as [`example_command`] starts it, loads the `libloopcompact.so` of
/// `lib_dir` (glibc's loader lists what it would load under `LD_TRACE_LOADED_OBJECTS`).
fn check_loaded_library(exe: &Path, lib_dir: &Path) {
    let output = Command::new(exe)
        .env_remove("LD_LIBRARY_PATH")
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let listing = String::from_utf8_lossy(&output.stdout);
    let want = format!("libloopcompact.so => {} ", lib_dir.join("libloopcompact.so").display());
    assert!(listing.contains(&want), "{} does not load {want}:\n{listing}", exe.display());
}

/// Compiles every example once per test process; returns the directory holding the executables
/// and the directory of the library they load.
fn built_examples() -> &'static (PathBuf, PathBuf) {
    static BUILT: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    BUILT.get_or_init(|| {
        // `cargo test` builds the library (all its crate types) as a dependency of this test, into
        // `deps/` beside the test executable; only `cargo build` copies it up to the profile
        // directory. The copy in `deps/` is the one built with the rlib this test links, unless
        // LOOPCOMPACT_LIB_DIR names another build.
        let deps = profile_dir().join("deps");
        let lib_dir = match std::env::var_os("LOOPCOMPACT_LIB_DIR") {
            Some(dir) => std::path::absolute(PathBuf::from(dir)).unwrap(),
            None if deps.join("libloopcompact.so").is_file() => deps,
            None => profile_dir(),
        };
        assert!(
            lib_dir.join("libloopcompact.so").is_file(),
            "{} has no libloopcompact.so (the cdylib crate type)",
            lib_dir.display()
        );
        let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_examples");
        std::fs::create_dir_all(&out_dir).unwrap();
        let mut rpath = std::ffi::OsString::from("-Wl,-rpath,");
        rpath.push(&lib_dir);
        for source in example_sources() {
            let exe = out_dir.join(stem(&source));
            let (cc, std) = compiler(&source);
            let output = Command::new(cc)
                .args([std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
                .arg(manifest_dir().join("include"))
                .arg(&source)
                .arg("-o")
                .arg(&exe)
                .arg("-L")
                .arg(&lib_dir)
                .arg("-lloopcompact")
                .arg(&rpath)
                .args(extra_cflags())
                .output()
                .unwrap_or_else(|e| panic!("cannot run `{cc}` (a C/C++ toolchain is required): {e}"));
            assert!(
                output.status.success(),
                "{} does not compile:\n{}{}",
                source.display(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        (out_dir, lib_dir)
    })
}

#[test]
fn every_example_has_a_run() {
    let sources: Vec<String> = example_sources().iter().map(|p| stem(p)).collect();
    for source in &sources {
        assert!(RUNS.iter().any(|r| r.example == source), "examples/{source}.c has no run in RUNS");
    }
    for run in RUNS {
        assert!(
            sources.iter().any(|s| s == run.example),
            "RUNS names examples/{}.c, which does not exist",
            run.example
        );
    }
}

#[test]
fn every_sample_summary_has_a_run() {
    for entry in std::fs::read_dir(manifest_dir().join("examples").join("data")).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        if !(file.starts_with("summary_") && file.ends_with(".xml")) {
            continue;
        }
        let arg = format!("examples/data/{file}");
        assert!(
            RUNS.iter().any(|r| r.example == "validate_summary" && r.args == [arg.as_str()]),
            "examples/data/{file} has no expected result in RUNS"
        );
    }
}

#[test]
fn examples_build_and_run() {
    let (dir, lib_dir) = built_examples();
    for source in example_sources() {
        check_loaded_library(&dir.join(stem(&source)), lib_dir);
    }
    let mut failures = Vec::new();
    for run in RUNS {
        let stdin = match run.stdin {
            Some(file) => Stdio::from(std::fs::File::open(manifest_dir().join(file)).unwrap()),
            None => Stdio::null(),
        };
        let output = example_command(&dir.join(run.example))
            .args(run.args)
            .current_dir(manifest_dir())
            .stdin(stdin)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", run.example));
        let stdout = String::from_utf8_lossy(&output.stdout);
        if output.status.code() != Some(run.exit) || !stdout.contains(run.stdout) {
            failures.push(format!(
                "{} {:?} (stdin {:?}): expected exit {} and stdout containing {:?}, got {:?}, stdout {:?}, stderr {:?}",
                run.example,
                run.args,
                run.stdin,
                run.exit,
                run.stdout,
                output.status.code(),
                stdout,
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} runs failed:\n{}", failures.len(), RUNS.len(), failures.join("\n"));
}
