// roundtrip: one compaction round trip through loopcompact from C++17, with a small RAII wrapper
// over the C ABI (include/loopcompact.h).
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
// and the summary follows the last line on success.
//
// Exit status: 0 when the reply is accepted, 1 when a document is rejected, 2 for a usage or I/O
// error (reported on standard error).
//
// Build (see README.md), as one command line:
//   c++ -std=c++17 -Wall -Wextra -Werror -pedantic -I include examples/cpp/roundtrip.cpp
//       -L target/release -lloopcompact -Wl,-rpath,"$PWD/target/release" -o roundtrip
// Try:
//   ./roundtrip examples/data/input_valid.json examples/data/result_valid.json 812 4096 1400

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

#include "loopcompact.h"

namespace loopcompact {

// A status other than LC_OK, with the static strings of the status table.
class Error : public std::runtime_error {
public:
    explicit Error(lc_status status)
        : std::runtime_error(std::string(lc_status_name(status)) + ": " + lc_status_message(status)),
          status_(status)
    {
    }

    lc_status status() const noexcept { return status_; }
    const char *name() const noexcept { return lc_status_name(status_); }
    const char *reason() const noexcept { return lc_status_reason(status_); }
    const char *message() const noexcept { return lc_status_message(status_); }

private:
    lc_status status_;
};

inline void check(lc_status status)
{
    if (status != LC_OK) {
        throw Error(status);
    }
}

using Bytes = std::vector<std::uint8_t>;

// A validated compaction input: owns its lc_compaction_input handle (unique, move-only). The
// handle is immutable, so the const member functions may be called from several threads at once.
class Input {
public:
    // lc_compaction_input_parse; throws Error (LC_INPUT_*) for an invalid document.
    static Input parse(const Bytes &wire)
    {
        lc_compaction_input *handle = nullptr;
        // An empty vector's data() may be NULL: (NULL, 0) is the empty buffer, as intended.
        check(lc_compaction_input_parse(wire.data(), wire.size(), &handle));
        return Input(handle);
    }

    Input(Input &&) noexcept = default;
    Input &operator=(Input &&) noexcept = default;
    Input(const Input &) = delete;
    Input &operator=(const Input &) = delete;
    ~Input() = default;  // the deleter calls lc_compaction_input_free

    // The exact request bytes for the summariser, fitted under max_bytes (two-call pattern).
    Bytes encode_within(std::uint64_t max_bytes) const
    {
        std::size_t needed = 0;
        lc_status status = lc_compaction_input_encode_within(handle_.get(), max_bytes, nullptr, 0, &needed);
        if (status != LC_ERR_BUFFER_TOO_SMALL) {
            check(status);
        }
        Bytes out(needed);
        check(lc_compaction_input_encode_within(handle_.get(), max_bytes, out.data(), out.size(), &needed));
        out.resize(needed);
        return out;
    }

    // Validates the summariser's reply against this input and returns the summary XML, the exact
    // text of the replacement user message. A buffer of the reply's size always suffices (O6.4).
    std::string validate_output(const Bytes &reply, std::uint64_t output_tokens, std::uint64_t max_output_bytes) const
    {
        std::string summary(reply.size(), '\0');
        std::size_t written = 0;
        check(lc_compaction_output_validate(handle_.get(), reply.data(), reply.size(), output_tokens,
                                            max_output_bytes, reinterpret_cast<std::uint8_t *>(&summary[0]),
                                            summary.size(), &written));
        summary.resize(written);
        return summary;
    }

private:
    struct Free {
        void operator()(lc_compaction_input *handle) const noexcept { lc_compaction_input_free(handle); }
    };

    explicit Input(lc_compaction_input *handle) noexcept : handle_(handle) {}

    std::unique_ptr<lc_compaction_input, Free> handle_;
};

}  // namespace loopcompact

namespace {

enum { kAccepted = 0, kRejected = 1, kUsageOrIo = 2 };

struct Fatal : std::runtime_error {
    using std::runtime_error::runtime_error;
};

loopcompact::Bytes read_file(const std::string &path)
{
    if (path == "-") {
        return loopcompact::Bytes(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Fatal("cannot open " + path);
    }
    loopcompact::Bytes bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
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
    const char *reason = lc_status_reason(status);
    std::cout << step << ": " << lc_status_name(status) << ' ' << (reason[0] != '\0' ? reason : "-") << ' '
              << lc_status_message(status) << '\n';
}

int run(int argc, char **argv)
{
    if (argc != 6) {
        throw Fatal("usage: roundtrip INPUT RESULT OUTPUT_TOKENS MAX_OUTPUT_BYTES REQUEST_LIMIT");
    }
    if (lc_abi_version() != LC_ABI_VERSION) {
        throw Fatal("the loaded libloopcompact has another C ABI version than loopcompact.h");
    }
    const loopcompact::Bytes wire = read_file(argv[1]);
    const loopcompact::Bytes reply = read_file(argv[2]);
    const std::uint64_t output_tokens = parse_u64(argv[3], "OUTPUT_TOKENS");
    const std::uint64_t max_output_bytes = parse_u64(argv[4], "MAX_OUTPUT_BYTES");
    const std::uint64_t request_limit = parse_u64(argv[5], "REQUEST_LIMIT");

    const char *step = "input";
    try {
        const loopcompact::Input input = loopcompact::Input::parse(wire);
        print_verdict(step, LC_OK);

        step = "request";
        const loopcompact::Bytes request = input.encode_within(request_limit);
        print_verdict(step, LC_OK);
        std::cout << "request bytes: " << request.size() << '\n';

        step = "result";
        const std::string summary = input.validate_output(reply, output_tokens, max_output_bytes);
        print_verdict(step, LC_OK);
        std::cout << summary << '\n';
        return kAccepted;
    } catch (const loopcompact::Error &e) {
        print_verdict(step, e.status());
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
