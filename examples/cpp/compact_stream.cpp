// compact_stream: the compaction round with a streaming summariser (docs/SPEC.md T17.6) from
// C++17: loopcompact::compact with a call_model that returns a SummaryReplyStream, against a
// scripted model that streams each reply from a file in fixed-size chunks.
//
// Usage: compact_stream [OPTIONS] INPUT KEEP_LAST CHUNK_BYTES REPLY...
//        compact_stream --differential INPUT KEEP_LAST FILE...
//
//   REPLY  FILE:OUTPUT_TOKENS:STOP[:FAIL], the reply's text in FILE, STOP end, length or unknown;
//          FAIL `next@K` (the K-th call of next() throws std::runtime_error) or `usage` (usage()
//          throws), as a provider's SDK does on a network error.
//
// Options: --attempts N, --max-reply-bytes N, --no-trim, --no-unfence, --reshow,
// --keep-history-on-error (CompactOptions).
//
// One line per attempt (on_attempt), then the outcome:
//   attempt N: STATUS (class C), stop S, R bytes[, aborted][, at line L, column C][, limit L, actual A]
//              [, removed ...]; stream: read K of C chunks, released|held, usage asked U
//   retry: THE RETRY MESSAGE                     (a rejected attempt; newlines as spaces)
//   compacted: cut C, summary S bytes, replacement R bytes, verify LC_OK
//   kept history: STATUS: REASON
//   then for each reply the model streamed: reply N: read K of C chunks, released|held, usage asked U
//
// --differential: each FILE, bare and wrapped as models wrap replies (a fence led by White_Space,
// an ideographic space before and prose after, a tilde fence), under the four trim/unfence
// settings and with both and a 300-byte limit, streamed in chunks of every size from 1 to 64
// bytes: a reply the round reads to the end must get exactly the attempt and result of the same
// reply returned whole, and a reply it aborts must be one the whole round rejects (one over the
// byte limit aborted at the chunk that passes it, unless it died before). Prints the number of
// rounds and exits 0 when all agree (and both kinds occurred), else prints the first
// disagreement and exits 1.
//
// Exit status: 0 compacted (or all agree), 1 history kept (or a disagreement), 2 usage or I/O
// error or an exception out of compact().

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
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

std::string one_line(std::string text)
{
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

// What the model's streamed reply saw of the round: chunks read, whether the round released the
// stream (its functions destroyed), usage() calls.
struct Seen {
    std::size_t chunks = 0;
    std::size_t read = 0;
    bool released = false;
    unsigned usage_calls = 0;
};

// Marks the stream released when the last copy of the functions that hold it is destroyed: what
// closes a provider's HTTP stream held the same way.
struct Release {
    std::shared_ptr<Seen> seen;
    ~Release() { seen->released = true; }
};

// One scripted streamed reply.
struct Script {
    std::string text;
    loopcompact::SummaryUsage usage;
    std::size_t fail_next = 0;  // the call of next() that throws (1-based); 0: none
    bool fail_usage = false;
};

// The reply streamed in `chunk` bytes at a time, tracked in `seen`.
loopcompact::SummaryReplyStream stream_of(const Script &script, std::size_t chunk, const std::shared_ptr<Seen> &seen)
{
    std::vector<std::string> chunks;
    for (std::size_t at = 0; at < script.text.size(); at += chunk) {
        chunks.push_back(script.text.substr(at, chunk));
    }
    seen->chunks = chunks.size();
    auto release = std::make_shared<Release>();
    release->seen = seen;
    auto calls = std::make_shared<std::size_t>(0);
    loopcompact::SummaryReplyStream out;
    out.next = [release, calls, chunks, fail = script.fail_next]() -> std::optional<std::string> {
        const std::size_t call = ++*calls;
        if (call == fail) {
            throw std::runtime_error("SECRET: connection reset by peer");
        }
        if (call > chunks.size()) {
            return std::nullopt;
        }
        release->seen->read = call;
        return chunks[call - 1];
    };
    out.usage = [release, usage = script.usage, fail = script.fail_usage]() {
        ++release->seen->usage_calls;
        if (fail) {
            throw std::runtime_error("SECRET: the stream ended without usage");
        }
        return usage;
    };
    return out;
}

std::string stream_state(const Seen &seen)
{
    return "read " + std::to_string(seen.read) + " of " + std::to_string(seen.chunks) + " chunks, " +
           (seen.released ? "released" : "held") + ", usage asked " + std::to_string(seen.usage_calls);
}

Script parse_reply(const std::string &spec)
{
    std::vector<std::string> parts;
    std::size_t from = 0;
    for (std::size_t colon; (colon = spec.find(':', from)) != std::string::npos; from = colon + 1) {
        parts.push_back(spec.substr(from, colon - from));
    }
    parts.push_back(spec.substr(from));
    if (parts.size() != 3 && parts.size() != 4) {
        throw Fatal("a REPLY is FILE:OUTPUT_TOKENS:STOP[:FAIL]");
    }
    Script script;
    script.text = read_file(parts[0]);
    script.usage.output_tokens = parse_u64(parts[1], "OUTPUT_TOKENS");
    if (parts[2] == "end") {
        script.usage.stop = LC_STOP_END;
    } else if (parts[2] == "length") {
        script.usage.stop = LC_STOP_LENGTH;
    } else if (parts[2] != "unknown") {
        throw Fatal("STOP must be end, length or unknown");
    }
    if (parts.size() == 4) {
        if (parts[3] == "usage") {
            script.fail_usage = true;
        } else if (parts[3].rfind("next@", 0) == 0) {
            script.fail_next = static_cast<std::size_t>(parse_u64(parts[3].substr(5), "K"));
        } else {
            throw Fatal("FAIL must be next@K or usage");
        }
    }
    return script;
}

// Every field of an attempt but its request, and its diagnosis, as one line to compare.
std::string describe(const loopcompact::Attempt &a)
{
    const loopcompact::Diagnostic &d = a.diagnosis;
    const auto opt = [](const std::optional<std::uint64_t> &v) { return v ? std::to_string(*v) : std::string("-"); };
    std::ostringstream out;
    out << loopcompact::status_name(a.status) << " class " << a.status_class << " stop " << a.stop << " bytes "
        << a.reply_bytes << " | " << d.status << ' ' << d.status_class << ' ' << d.section << ' ' << opt(d.offset) << ' '
        << opt(d.line) << ' ' << opt(d.column) << ' ' << opt(d.limit) << ' ' << opt(d.actual) << ' ' << d.rule << ' '
        << d.expected << ' ' << d.location << ' ' << d.removed << ' ' << d.removed_before << ' ' << d.removed_after
        << " | " << one_line(a.retry_message);
    return out.str();
}

// The attempts of a result, and its summary and replacement when compacted.
std::string describe(const loopcompact::CompactResult &result)
{
    if (const auto *kept = std::get_if<loopcompact::KeepHistory>(&result)) {
        return std::string("kept ") + loopcompact::status_name(kept->status) + " " + kept->reason;
    }
    const auto &done = std::get<loopcompact::Compacted>(result);
    return "compacted " + std::to_string(done.cut) + " " + done.summary + " " +
           std::string(done.replacement.begin(), done.replacement.end());
}

const std::vector<loopcompact::Attempt> &attempts_of(const loopcompact::CompactResult &result)
{
    if (const auto *kept = std::get_if<loopcompact::KeepHistory>(&result)) {
        return kept->attempts;
    }
    return std::get<loopcompact::Compacted>(result).attempts;
}

// The byte limit of the differential's fifth setting.
constexpr std::size_t kSmallLimit = 300;

int differential(const loopcompact::Input &input, std::uint64_t keep_last, const std::vector<std::string> &files)
{
    const std::vector<std::pair<std::string, std::string>> wraps = {
        {"", ""}, {" \n```xml\n", "\n```\n"}, {"\xe3\x80\x80", "\nDone."}, {"~~~\n\n", ""}};
    std::size_t rounds = 0, aborted = 0, accepted = 0;
    for (const std::string &file : files) {
        const std::string body = read_file(file);
        for (std::size_t w = 0; w < wraps.size(); ++w) {
            Script script;
            script.text = wraps[w].first + body + wraps[w].second;
            script.usage = {100, LC_STOP_END};
            for (int setting = 0; setting < 5; ++setting) {
                loopcompact::CompactOptions options;
                options.keep_last = keep_last;
                options.attempts = 1;
                options.trim = (setting & 1) == 0;
                options.unfence = (setting & 2) == 0;
                if (setting == 4) {
                    options.max_reply_bytes = kSmallLimit;  // trim and unfence, and a limit some replies pass
                }
                const loopcompact::CompactResult whole = loopcompact::compact(
                    input, [&](const loopcompact::SummaryRequest &) { return loopcompact::SummaryReply{script.text, 100, LC_STOP_END}; },
                    options);
                const loopcompact::Attempt &w_attempt = attempts_of(whole).at(0);
                accepted += w_attempt.status == LC_OK ? 1 : 0;
                for (std::size_t size = 1; size <= 64; ++size) {
                    ++rounds;
                    auto seen = std::make_shared<Seen>();
                    const loopcompact::CompactResult streamed = loopcompact::compact(
                        input, [&](const loopcompact::SummaryRequest &) { return stream_of(script, size, seen); }, options);
                    const loopcompact::Attempt &s_attempt = attempts_of(streamed).at(0);
                    const std::string where = file + " wrap " + std::to_string(w) + " setting " + std::to_string(setting) +
                                              " chunk " + std::to_string(size) + ": ";
                    if (!s_attempt.aborted) {
                        if (w_attempt.status == LC_SUMMARY_BYTE_LIMIT ||describe(s_attempt) != describe(w_attempt) || describe(streamed) != describe(whole) ||
                            seen->read != seen->chunks || !seen->released || seen->usage_calls != 1) {
                            std::cout << where << "streamed\n  " << describe(s_attempt) << "\nwhole\n  " << describe(w_attempt)
                                      << "\nstream: " << stream_state(*seen) << '\n';
                            return 1;
                        }
                        continue;
                    }
                    ++aborted;
                    const bool limit = s_attempt.status == LC_SUMMARY_BYTE_LIMIT;
                    // A reply over the limit stops at the chunk that passes it, unless it died
                    // before: R15.3 step 2 first.
                    const std::size_t passes = std::min(script.text.size(), (kSmallLimit / size + 1) * size);
                    if (limit ? s_attempt.reply_bytes != passes
                              : w_attempt.status == LC_SUMMARY_BYTE_LIMIT && s_attempt.reply_bytes > kSmallLimit) {
                        std::cout << where << "the byte limit\n  " << describe(s_attempt) << '\n';
                        return 1;
                    }
                    if (w_attempt.status == LC_OK || (limit && w_attempt.status != LC_SUMMARY_BYTE_LIMIT) ||
                        s_attempt.reply_bytes != std::min(script.text.size(), seen->read * size) || !seen->released ||
                        seen->usage_calls != 0 || seen->read == 0 || (!limit && s_attempt.diagnosis.location != "summary")) {
                        std::cout << where << "aborted\n  " << describe(s_attempt) << "\nwhole\n  " << describe(w_attempt)
                                  << "\nstream: " << stream_state(*seen) << '\n';
                        return 1;
                    }
                }
            }
        }
    }
    if (aborted == 0 || accepted == 0) {
        std::cout << "differential: " << aborted << " aborted streams, " << accepted << " accepted replies\n";
        return 1;
    }
    std::cout << "differential: " << rounds << " rounds, every streamed verdict agrees with the whole reply's\n";
    return 0;
}

int run(int argc, char **argv)
{
    loopcompact::CompactOptions options;
    bool diff = false;
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
        } else if (arg == "--max-reply-bytes") {
            options.max_reply_bytes = value("--max-reply-bytes");
        } else if (arg == "--no-trim") {
            options.trim = false;
        } else if (arg == "--no-unfence") {
            options.unfence = false;
        } else if (arg == "--reshow") {
            options.reshow_rejected = true;
        } else if (arg == "--keep-history-on-error") {
            options.on_error = loopcompact::OnError::keep_history;
        } else if (arg == "--differential") {
            diff = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw Fatal("unknown option " + arg);
        } else {
            positional.push_back(arg);
        }
    }
    if (positional.size() < 3 || (!diff && positional.size() < 4)) {
        throw Fatal("usage: compact_stream [OPTIONS] INPUT KEEP_LAST CHUNK_BYTES REPLY... | --differential INPUT KEEP_LAST FILE...");
    }
    if (!loopcompact::abi_matches()) {
        throw Fatal("the loaded libloopcompact has another C ABI version than loopcompact.h");
    }
    const loopcompact::Input input = loopcompact::Input::parse(read_file(positional[0]));
    options.keep_last = parse_u64(positional[1], "KEEP_LAST");
    if (diff) {
        return differential(input, options.keep_last, std::vector<std::string>(positional.begin() + 2, positional.end()));
    }
    const std::uint64_t chunk = parse_u64(positional[2], "CHUNK_BYTES");
    if (chunk == 0) {
        throw Fatal("CHUNK_BYTES must be at least 1");
    }
    std::vector<Script> scripts;
    for (std::size_t i = 3; i < positional.size(); ++i) {
        scripts.push_back(parse_reply(positional[i]));
    }

    // The scripted model: the next reply for each request, streamed (a real one opens its
    // provider's stream here and returns functions that read it; see README.md, "Host guide: C++").
    std::vector<std::shared_ptr<Seen>> seen;
    auto call_model = [&](const loopcompact::SummaryRequest &) {
        if (seen.size() == scripts.size()) {
            throw Fatal("the model was asked more often than the script has replies");
        }
        seen.push_back(std::make_shared<Seen>());
        return stream_of(scripts[seen.size() - 1], static_cast<std::size_t>(chunk), seen.back());
    };
    options.on_attempt = [&seen](const loopcompact::Attempt &a) {
        const loopcompact::Diagnostic &d = a.diagnosis;
        std::cout << "attempt " << a.number << ": " << loopcompact::status_name(a.status) << " (class "
                  << loopcompact::class_name(a.status_class) << "), stop "
                  << (a.stop == LC_STOP_END ? "end" : a.stop == LC_STOP_LENGTH ? "length" : "unknown") << ", "
                  << a.reply_bytes << " bytes";
        if (a.aborted) {
            std::cout << ", aborted";
        }
        if (d.line && d.column) {
            std::cout << ", at line " << *d.line << ", column " << *d.column;
        }
        if (d.limit && d.actual) {
            std::cout << ", limit " << *d.limit << ", actual " << *d.actual;
        }
        if (d.removed != 0) {
            std::cout << ", removed " << d.removed_names() << " (" << d.removed_before << " before, " << d.removed_after
                      << " after)";
        }
        if (a.request.messages.size() > 1) {
            const std::string &shown = a.request.messages[a.request.messages.size() - 2].content;
            std::cout << (shown == loopcompact::withheld_reply ? ", last reply withheld" : ", last reply reshown: " + one_line(shown));
        }
        std::cout << "; stream: " << stream_state(*seen.back()) << '\n';
        if (!a.retry_message.empty()) {
            std::cout << "retry: " << one_line(a.retry_message) << '\n';
        }
    };

    int status = kCompacted;
    try {
        const loopcompact::CompactResult result = loopcompact::compact(input, call_model, options);
        if (const auto *kept = std::get_if<loopcompact::KeepHistory>(&result)) {
            std::cout << "kept history: " << loopcompact::status_name(kept->status) << ": " << kept->reason << '\n';
            status = kKept;
        } else {
            const auto &done = std::get<loopcompact::Compacted>(result);
            input.verify_replacement(done.cut, done.replacement);  // throws if it did not hold
            std::cout << "compacted: cut " << done.cut << ", summary " << done.summary.size() << " bytes, replacement "
                      << done.replacement.size() << " bytes, verify LC_OK\n";
        }
    } catch (const std::runtime_error &e) {
        if (dynamic_cast<const Fatal *>(&e) != nullptr || dynamic_cast<const loopcompact::Error *>(&e) != nullptr) {
            throw;
        }
        std::cout << "compact threw std::runtime_error\n";  // the model's exception, not its text
        status = kUsageOrIo;
    }
    for (std::size_t i = 0; i < seen.size(); ++i) {
        std::cout << "reply " << i + 1 << ": " << stream_state(*seen[i]) << '\n';
    }
    return status;
}

}  // namespace

int main(int argc, char **argv)
{
    try {
        return run(argc, argv);
    } catch (const Fatal &e) {
        std::cerr << "compact_stream: " << e.what() << '\n';
        return kUsageOrIo;
    } catch (const loopcompact::Error &e) {
        std::cerr << "compact_stream: " << e.what() << '\n';
        return kUsageOrIo;
    } catch (const std::exception &e) {
        std::cerr << "compact_stream: an exception out of the round: " << e.what() << '\n';
        return kUsageOrIo;
    }
}
