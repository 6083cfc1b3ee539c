// compact: one compaction round (docs/SPEC.md R15.12) from C++17 with loopcompact::compact, against
// a scripted model whose replies come from files.
//
// Usage: compact [OPTIONS] INPUT KEEP_LAST REPLY...
//
//   INPUT      the compaction input wire document (JSON, SPEC §5)
//   KEEP_LAST  the number of recent messages to keep at least (the cut is safe_cut(KEEP_LAST))
//   REPLY      the model's answer to the next request: FILE:OUTPUT_TOKENS:STOP, with the reply's
//              text in FILE as a provider would return it and STOP end, length or unknown; or
//              "throw": the model throws std::runtime_error, as an SDK does on a network error
//
// Options: --attempts N, --max-tokens N, --max-reply-bytes N, --max-input-bytes N (CompactOptions),
// --reshow (reshow_rejected), --keep-history-on-error (on_error = OnError::keep_history).
//
// One line per attempt (on_attempt), then the outcome:
//   attempt N: max_tokens M, T turns, head H bytes, STATUS (class C), stop S, R bytes[, removed ...]
//   retry: THE RETRY MESSAGE                           (a rejected attempt; newlines as spaces)
//   compacted: cut C, summary S bytes, replacement R bytes, verify LC_OK, requests distinct
//   kept history: STATUS: REASON
//
// Exit status: 0 compacted, 1 history kept, 2 usage or I/O error or an exception out of compact().
//
// Build like roundtrip.cpp (README.md, "Host guide: C++"). Try (one command line):
//   ./compact --max-tokens 1024 examples/data/input_valid.json 1
//       examples/data/reply_truncated.txt:1024:length examples/data/reply_fenced.txt:700:end

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "loopcompact.hpp"

namespace {

enum { kCompacted = 0, kKept = 1, kUsageOrIo = 2 };

struct Fatal : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string read_file(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Fatal("cannot open " + path);
    }
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) {
        throw Fatal("cannot read " + path);
    }
    return bytes;
}

std::uint64_t parse_u64(const std::string &text, const char *what)
{
    char *end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || text[0] < '0' || text[0] > '9' || *end != '\0' || errno == ERANGE) {
        throw Fatal(std::string(what) + " must be an unsigned 64-bit integer");
    }
    return static_cast<std::uint64_t>(value);
}

// One scripted answer: a reply, or an exception.
struct Answer {
    bool throws = false;
    loopcompact::SummaryReply reply;
};

Answer parse_answer(const std::string &spec)
{
    Answer answer;
    if (spec == "throw") {
        answer.throws = true;
        return answer;
    }
    const std::size_t stop_at = spec.rfind(':');
    const std::size_t tokens_at = stop_at == std::string::npos || stop_at == 0 ? std::string::npos : spec.rfind(':', stop_at - 1);
    if (tokens_at == std::string::npos) {
        throw Fatal("a REPLY is FILE:OUTPUT_TOKENS:STOP or throw");
    }
    const std::string stop = spec.substr(stop_at + 1);
    if (stop == "end") {
        answer.reply.stop = LC_STOP_END;
    } else if (stop == "length") {
        answer.reply.stop = LC_STOP_LENGTH;
    } else if (stop == "unknown") {
        answer.reply.stop = LC_STOP_UNKNOWN;
    } else {
        throw Fatal("STOP must be end, length or unknown");
    }
    answer.reply.output_tokens = parse_u64(spec.substr(tokens_at + 1, stop_at - tokens_at - 1), "OUTPUT_TOKENS");
    answer.reply.text = read_file(spec.substr(0, tokens_at));
    return answer;
}

std::string one_line(std::string text)
{
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

int run(int argc, char **argv)
{
    loopcompact::CompactOptions options;
    std::vector<std::string> positional;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](const char *what) {
            if (i + 1 >= argc) {
                throw Fatal(std::string(what) + " needs a value");
            }
            return parse_u64(argv[++i], what);
        };
        if (arg == "--attempts") {
            options.attempts = static_cast<unsigned>(std::min<std::uint64_t>(value("--attempts"), 1000));
        } else if (arg == "--max-tokens") {
            options.max_tokens = value("--max-tokens");
        } else if (arg == "--max-reply-bytes") {
            options.max_reply_bytes = value("--max-reply-bytes");
        } else if (arg == "--max-input-bytes") {
            options.max_input_bytes = value("--max-input-bytes");
        } else if (arg == "--reshow") {
            options.reshow_rejected = true;
        } else if (arg == "--keep-history-on-error") {
            options.on_error = loopcompact::OnError::keep_history;
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw Fatal("unknown option " + arg);
        } else {
            positional.push_back(arg);
        }
    }
    if (positional.size() < 3) {
        throw Fatal("usage: compact [OPTIONS] INPUT KEEP_LAST REPLY...");
    }
    if (!loopcompact::abi_matches()) {
        throw Fatal("the loaded libloopcompact has another C ABI version than loopcompact.h");
    }
    const std::string wire = read_file(positional[0]);
    options.keep_last = parse_u64(positional[1], "KEEP_LAST");
    std::vector<Answer> answers;
    for (std::size_t i = 2; i < positional.size(); ++i) {
        answers.push_back(parse_answer(positional[i]));
    }

    const loopcompact::Input input = loopcompact::Input::parse(wire);
    // The scripted model: the next answer for each request (a real one sends request.system,
    // request.messages and request.max_tokens to its provider and maps the response).
    std::size_t next = 0;
    auto call_model = [&](const loopcompact::SummaryRequest &) {
        if (next == answers.size()) {
            throw Fatal("the model was asked more often than the script has answers");
        }
        const Answer &answer = answers[next++];
        if (answer.throws) {
            throw std::runtime_error("SECRET: connection reset by peer");
        }
        return answer.reply;
    };
    options.on_attempt = [](const loopcompact::Attempt &a) {
        std::cout << "attempt " << a.number << ": max_tokens " << a.request.max_tokens << ", " << a.request.messages.size()
                  << " turns, head " << a.request.messages.front().content.size() << " bytes, "
                  << loopcompact::status_name(a.status) << " (class " << loopcompact::class_name(a.status_class)
                  << "), stop " << (a.stop == LC_STOP_END ? "end" : a.stop == LC_STOP_LENGTH ? "length" : "unknown") << ", "
                  << a.reply_bytes << " bytes";
        if (a.diagnosis.removed != 0) {
            std::cout << ", removed " << a.diagnosis.removed_names() << " (" << a.diagnosis.removed_before << " before, "
                      << a.diagnosis.removed_after << " after)";
        }
        if (a.request.messages.size() > 1) {
            const std::string &shown = a.request.messages[a.request.messages.size() - 2].content;
            std::cout << (shown == loopcompact::withheld_reply ? ", last reply withheld" : ", last reply reshown");
        }
        std::cout << '\n';
        if (!a.retry_message.empty()) {
            std::cout << "retry: " << one_line(a.retry_message) << '\n';
        }
    };

    const loopcompact::CompactResult result = loopcompact::compact(input, call_model, options);
    if (const auto *kept = std::get_if<loopcompact::KeepHistory>(&result)) {
        std::cout << "kept history: " << loopcompact::status_name(kept->status) << ": " << kept->reason << '\n';
        return kKept;
    }
    const auto &done = std::get<loopcompact::Compacted>(result);
    input.verify_replacement(done.cut, done.replacement);  // throws if it did not hold
    bool distinct = true;
    for (std::size_t i = 0; i < done.attempts.size(); ++i) {
        for (std::size_t j = i + 1; j < done.attempts.size(); ++j) {
            loopcompact::SummaryRequest a = done.attempts[i].request, b = done.attempts[j].request;
            a.attempt = b.attempt = 0;  // what the provider sees
            distinct = distinct && a != b;
        }
    }
    std::cout << "compacted: cut " << done.cut << ", summary " << done.summary.size() << " bytes, replacement "
              << done.replacement.size() << " bytes, verify LC_OK, requests " << (distinct ? "distinct" : "REPEATED")
              << '\n';
    return kCompacted;
}

}  // namespace

int main(int argc, char **argv)
{
    try {
        return run(argc, argv);
    } catch (const Fatal &e) {
        std::cerr << "compact: " << e.what() << '\n';
        return kUsageOrIo;
    } catch (const loopcompact::Error &e) {
        std::cerr << "compact: " << e.what() << '\n';
        return kUsageOrIo;
    } catch (const std::exception &e) {
        std::cerr << "compact: an exception out of the round: " << e.what() << '\n';
        return kUsageOrIo;
    }
}
