// roundtrip: one compaction round trip through loopcompact from C++17, with the header-only wrapper
// include/loopcompact.hpp over the C ABI (include/loopcompact.h).
//
// Usage: roundtrip INPUT RESULT OUTPUT_TOKENS MAX_OUTPUT_BYTES REQUEST_LIMIT
//
//   INPUT             the compaction input wire document (JSON, SPEC §5), or - for standard input
//   RESULT            the summariser's reply (JSON, SPEC §6)
//   OUTPUT_TOKENS     the output tokens the provider reported for the reply (0: none reported)
//   MAX_OUTPUT_BYTES  the byte limit for the reply
//   REQUEST_LIMIT     the byte limit for the request sent to the summariser (SPEC §7)
//
// It parses INPUT into a loopcompact::Input (the handle is freed by its destructor), prints the
// size of the request fitted under REQUEST_LIMIT, then validates RESULT against the input and
// prints the summary that would replace the old history. Each step prints one line
//   STEP: STATUS_NAME REASON MESSAGE      (REASON "-" when empty)
// and the summary follows the last line on success. A rejection is followed by the diagnosis
// loopcompact::Error carries, on two more lines:
//   where: CLASS; line L, column C, section S, ..., rule R    (the parts that are known)
//   retry: THE MESSAGE FOR THE SUMMARISER                      (newlines shown as spaces)
//
// Exit status: 0 when the reply is accepted, 1 when a document is rejected, 2 for a usage or I/O
// error (reported on standard error).
//
// Build (see README.md), as one command line:
//   c++ -std=c++17 -Wall -Wextra -Werror -pedantic -I include examples/cpp/roundtrip.cpp
//       -L target/release -lloopcompact -Wl,-rpath,"$PWD/target/release" -o roundtrip
// Try:
//   ./roundtrip examples/data/input_valid.json examples/data/result_valid.json 812 4096 1400

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "loopcompact.hpp"

namespace {

enum { kAccepted = 0, kRejected = 1, kUsageOrIo = 2 };

struct Fatal : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::vector<std::uint8_t> read_file(const std::string &path)
{
    if (path == "-") {
        return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Fatal("cannot open " + path);
    }
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) {
        throw Fatal("cannot read " + path);
    }
    return bytes;
}

std::uint64_t parse_u64(const char *text, const char *what)
{
    char *end = nullptr;
    errno = 0;
    unsigned long long value = std::strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno == ERANGE) {
        throw Fatal(std::string(what) + " must be an unsigned 64-bit integer");
    }
    return static_cast<std::uint64_t>(value);
}

void print_verdict(const char *step, lc_status status)
{
    const char *reason = loopcompact::status_reason(status);
    std::cout << step << ": " << loopcompact::status_name(status) << ' ' << (reason[0] != '\0' ? reason : "-") << ' '
              << loopcompact::status_message(status) << '\n';
}

// The diagnosis of a rejection: where and why, and what to tell the summariser.
void print_diagnosis(const loopcompact::Error &e)
{
    const std::string where = e.diagnostic().where();
    std::cout << "where: class " << loopcompact::class_name(e.status_class()) << (where.empty() ? "" : "; ") << where
              << '\n';
    std::string retry = e.retry_message();
    std::replace(retry.begin(), retry.end(), '\n', ' ');
    std::cout << "retry: " << retry << '\n';
}

int run(int argc, char **argv)
{
    if (argc != 6) {
        throw Fatal("usage: roundtrip INPUT RESULT OUTPUT_TOKENS MAX_OUTPUT_BYTES REQUEST_LIMIT");
    }
    if (!loopcompact::abi_matches()) {
        throw Fatal("the loaded libloopcompact has another C ABI version than loopcompact.h");
    }
    const std::vector<std::uint8_t> wire = read_file(argv[1]);
    const std::vector<std::uint8_t> reply = read_file(argv[2]);
    const std::uint64_t output_tokens = parse_u64(argv[3], "OUTPUT_TOKENS");
    const std::uint64_t max_output_bytes = parse_u64(argv[4], "MAX_OUTPUT_BYTES");
    const std::uint64_t request_limit = parse_u64(argv[5], "REQUEST_LIMIT");

    const char *step = "input";
    try {
        const loopcompact::Input input = loopcompact::Input::parse(wire);
        print_verdict(step, LC_OK);

        step = "request";
        const std::vector<std::uint8_t> request = input.encode_within(request_limit);
        print_verdict(step, LC_OK);
        std::cout << "request bytes: " << request.size() << '\n';

        step = "result";
        const std::string summary = input.validate_output(reply, output_tokens, max_output_bytes);
        print_verdict(step, LC_OK);
        std::cout << summary << '\n';
        return kAccepted;
    } catch (const loopcompact::Error &e) {
        print_verdict(step, e.status());
        print_diagnosis(e);
        return kRejected;
    }
}

}  // namespace

int main(int argc, char **argv)
{
    try {
        return run(argc, argv);
    } catch (const Fatal &e) {
        std::cerr << "roundtrip: " << e.what() << '\n';
        return kUsageOrIo;
    } catch (const std::exception &e) {
        std::cerr << "roundtrip: " << e.what() << '\n';
        return kUsageOrIo;
    }
}
