/*
 * loopcompact.hpp: a header-only C++17 wrapper over the C ABI of loopcompact (loopcompact.h).
 *
 * Everything here is an inline call of one or two C functions; there is nothing to link but
 * libloopcompact itself (pkg-config --cflags --libs loopcompact, or find_package(loopcompact) with
 * the target loopcompact::loopcompact). It adds three things to the C ABI:
 *
 *   - loopcompact::Input owns an lc_compaction_input handle (move-only; the destructor frees it).
 *     Its const member functions may be called from several threads at once, like the C handle's.
 *   - Inputs are loopcompact::bytes_view, a borrowed (pointer, size) view that converts implicitly
 *     from std::string_view, std::string, std::vector<std::uint8_t>, std::vector<char>,
 *     std::array<std::uint8_t, N> and a NUL-terminated C string (C++17 has no std::span).
 *     Outputs are std::string (text), std::vector<std::uint8_t> (wire bytes) or small values.
 *   - Every rejection throws loopcompact::Error, a std::runtime_error that carries the full
 *     diagnosis (SPEC §13): status, name, reason, message, class, offset, line, column, section,
 *     rule, expected, location, limit, actual, and the retry message for the summariser
 *     (lc_retry_message). Where the C ABI has a _diagnose sibling, the wrapper calls it, so every
 *     Error says where and why; the functions without one (fitting, cuts, limits, the loop guard)
 *     give the status alone, and their pairing failures are diagnosed by lc_transcript_pairing_check.
 *
 * Nothing in an Error comes from the input (SPEC C13.1): what() and the retry message are built
 * from static strings, numbers and layout names only, so they are safe to log.
 *
 * Every C function has its wrapper; the plain validators (lc_summary_xml_validate,
 * lc_compaction_input_validate, ...) are reached through their _diagnose siblings, which return
 * the same status for every input. In the order a host calls them (SPEC §2):
 *   meta          version, abi_version, abi_matches, status_name/reason/message/class, class_name,
 *                 section_name, summary_instructions, retry_message
 *   summary (§4)  validate_summary, summary_sections, summary_section_text
 *   grammars      summary_grammar, summary_json_schema, render_summary (§17.1, §17.2)
 *   input (§5,§7) Input::parse, validate_input, Input::encode_within, Input::encoded_size_within,
 *                 Input::message_count, max_summary_tokens, leading_systems
 *   output (§6)   Input::validate_output
 *   policies (§8) validate_compaction_policy, validate_observation_policy, validate_context_config
 *   limits (§9)   resolve_limits, occupancy_basis_points, pressure_level, check_replacement
 *   fingerprint   request_fingerprint, to_hex
 *   safety (§14)  Input::check_pairing, Input::safe_cut, Input::check_cut, check_progress,
 *                 check_threshold
 *   never blocking (§16.9) Input::safe_cut and check_cut with CutOptions,
 *                 Input::pairing_violations, repair_plan, repair; CompactOptions::pending_tail
 *   streaming (§17.3) SummaryStream: feed, finish, dead_offset
 *   convert (§16) Conversion::convert, Conversion::transcript, source_index, cut_allowed, losses
 *                 (Loss::name), source_len, source_cut, input
 *   round (§15)   Input::encode_head_within, Input::validate_reply (and diagnose_reply, which returns
 *                 the verdict of any class instead of throwing), Input::build_replacement,
 *                 Input::verify_replacement; compact(input, call_model, options), the whole round of
 *                 R15.12 over any callable, returning std::variant<Compacted, KeepHistory>; a
 *                 call_model returning a SummaryReplyStream (next, usage) is read chunk by chunk
 *                 and abandoned at the first dead chunk (T17.6, Attempt::aborted)
 */

#ifndef LOOPCOMPACT_HPP
#define LOOPCOMPACT_HPP

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#if defined(__has_include)
#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#define LOOPCOMPACT_HPP_DEMANGLE 1
#endif
#endif

#include "loopcompact.h"

namespace loopcompact {

/* ---- bytes_view: the (pointer, length) of every C input ------------------------------------- */

// A borrowed, read-only byte buffer. It never owns memory: the viewed bytes must outlive the call
// it is passed to (the library reads them during the call only). An empty view may have a null
// data(): (NULL, 0) is the empty buffer of the C ABI.
class bytes_view {
public:
    constexpr bytes_view() noexcept = default;
    constexpr bytes_view(const std::uint8_t *data, std::size_t size) noexcept : data_(data), size_(size) {}
    bytes_view(const char *data, std::size_t size) noexcept
        : data_(reinterpret_cast<const std::uint8_t *>(data)), size_(size)
    {
    }
    // A NUL-terminated C string, without its NUL.
    bytes_view(const char *c_string) noexcept : bytes_view(c_string, c_string != nullptr ? std::strlen(c_string) : 0) {}
    bytes_view(std::string_view text) noexcept : bytes_view(text.data(), text.size()) {}
    bytes_view(const std::string &text) noexcept : bytes_view(text.data(), text.size()) {}

    // Any contiguous container of one-byte elements with data() and size() (std::vector<uint8_t>,
    // std::vector<char>, std::array<uint8_t, N>, ...). Not C arrays: a string literal's array
    // would bring its NUL along; it takes the C-string constructor instead.
    template <typename Container,
              typename Element = std::remove_pointer_t<decltype(std::data(std::declval<const Container &>()))>,
              typename = std::enable_if_t<!std::is_array_v<Container> && sizeof(Element) == 1 &&
                                          (std::is_integral_v<Element> || std::is_same_v<std::remove_cv_t<Element>, std::byte>)>>
    bytes_view(const Container &bytes) noexcept
        : data_(reinterpret_cast<const std::uint8_t *>(std::data(bytes))), size_(std::size(bytes))
    {
    }

    constexpr const std::uint8_t *data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr bool empty() const noexcept { return size_ == 0; }

private:
    const std::uint8_t *data_ = nullptr;
    std::size_t size_ = 0;
};

/* ---- meta ----------------------------------------------------------------------------------- */

// The library's version, e.g. "0.1.0" (lc_version).
inline const char *version() noexcept { return lc_version(); }

// The loaded library's C ABI version (lc_abi_version).
inline std::uint32_t abi_version() noexcept { return lc_abi_version(); }

// Whether the loaded library has the ABI of this header: check once at start-up.
inline bool abi_matches() noexcept { return lc_abi_version() == LC_ABI_VERSION; }

inline const char *status_name(lc_status status) noexcept { return lc_status_name(status); }
inline const char *status_reason(lc_status status) noexcept { return lc_status_reason(status); }
inline const char *status_message(lc_status status) noexcept { return lc_status_message(status); }

// LC_CLASS_*: what a host does next about `status` (SPEC C13.3).
inline std::int32_t status_class(lc_status status) noexcept { return lc_status_class(status); }

// "ok", "retry", "discard", "host", "bug" for LC_CLASS_*; "unknown" otherwise.
inline const char *class_name(std::int32_t status_class) noexcept
{
    switch (status_class) {
    case LC_CLASS_OK: return "ok";
    case LC_CLASS_RETRY: return "retry";
    case LC_CLASS_DISCARD: return "discard";
    case LC_CLASS_HOST: return "host";
    case LC_CLASS_BUG: return "bug";
    default: return "unknown";
    }
}

// The element name of LC_SECTION_* ("goal" ... "open_items", "conversation_summary" for the root);
// "" for LC_SECTION_NONE and unknown values.
inline const char *section_name(std::int32_t section) noexcept
{
    switch (section) {
    case LC_SECTION_GOAL: return "goal";
    case LC_SECTION_CONSTRAINTS: return "constraints";
    case LC_SECTION_DECISIONS: return "decisions";
    case LC_SECTION_STATE: return "state";
    case LC_SECTION_OPEN_ITEMS: return "open_items";
    case LC_SECTION_ROOT: return "conversation_summary";
    default: return "";
    }
}

// The instructions for the summariser, the system prompt sent with the input (SPEC C13.6).
inline std::string_view summary_instructions() noexcept { return lc_summary_instructions(); }

// The message to send the summariser with its next attempt, for a diagnosis filled by a
// _diagnose function (SPEC C13.5): where, what was expected and the rules broken; for a status
// that is not LC_CLASS_RETRY, that no retry is useful. Throws std::runtime_error only if the
// library refuses the call (it never does for a diagnosis it filled).
inline std::string retry_message(const lc_diagnostic &diag)
{
    std::size_t len = 0;
    lc_status status = lc_retry_message(&diag, nullptr, 0, &len);
    std::string text;
    if (status == LC_ERR_BUFFER_TOO_SMALL) {
        text.resize(len);
        status = lc_retry_message(&diag, reinterpret_cast<std::uint8_t *>(text.data()), text.size(), &len);
    }
    if (status != LC_OK) {
        throw std::runtime_error(std::string("lc_retry_message: ") + lc_status_name(status));
    }
    text.resize(len);
    return text;
}

/* ---- Diagnostic and Error ------------------------------------------------------------------- */

// Where and what of a failure (SPEC C13.2), as values: the fields of lc_diagnostic, with the
// "unknown" sentinels (LC_OFFSET_UNKNOWN, LC_LIMIT_UNKNOWN, line and column 0) as empty optionals.
struct Diagnostic {
    lc_status status = LC_OK;
    std::int32_t status_class = LC_CLASS_OK;  // LC_CLASS_*
    std::int32_t section = LC_SECTION_NONE;   // LC_SECTION_*
    std::optional<std::uint64_t> offset;      // bytes into the checked buffer
    std::optional<std::uint64_t> line;        // 1-based, lines end at LF
    std::optional<std::uint64_t> column;      // 1-based, in Unicode scalar values
    std::optional<std::uint64_t> limit;       // byte and token limits: the limit
    std::optional<std::uint64_t> actual;      // byte and token limits: the measured value
    std::string rule;                         // SPEC rule id, e.g. "X4.18"; "" when none
    std::string expected;                     // e.g. "<constraints>"; "" when none
    std::string location;                     // e.g. "transcript[3].blocks[0].type", "summary"
    // What cleanup removed around a bare reply (SPEC R15.7; Input::diagnose_reply, on LC_OK too):
    // the LC_REPLY_* flags of the cleanups that removed something, and the bytes before and after
    // the summary. 0 for every other check.
    std::uint32_t removed = 0;
    std::uint64_t removed_before = 0;
    std::uint64_t removed_after = 0;

    const char *name() const noexcept { return lc_status_name(status); }
    const char *reason() const noexcept { return lc_status_reason(status); }
    const char *message() const noexcept { return lc_status_message(status); }
    const char *class_name() const noexcept { return loopcompact::class_name(status_class); }
    const char *section_name() const noexcept { return loopcompact::section_name(section); }

    static Diagnostic from_c(const lc_diagnostic &d)
    {
        Diagnostic out;
        out.status = d.status;
        out.status_class = d.status_class;
        out.section = d.section;
        if (d.offset != LC_OFFSET_UNKNOWN) {
            out.offset = d.offset;
        }
        if (d.line != 0) {
            out.line = d.line;
        }
        if (d.column != 0) {
            out.column = d.column;
        }
        if (d.limit != LC_LIMIT_UNKNOWN) {
            out.limit = d.limit;
        }
        if (d.actual != LC_LIMIT_UNKNOWN) {
            out.actual = d.actual;
        }
        out.rule = d.rule != nullptr ? d.rule : "";
        out.expected = d.expected != nullptr ? d.expected : "";
        // NUL-terminated within LC_LOCATION_CAP; bounded anyway.
        const void *nul = std::memchr(d.location, '\0', sizeof d.location);
        out.location.assign(d.location, nul != nullptr ? static_cast<std::size_t>(static_cast<const char *>(nul) - d.location)
                                                       : sizeof d.location);
        out.removed = d.removed;
        out.removed_before = d.removed_before;
        out.removed_after = d.removed_after;
        return out;
    }

    // "trim", "unfence", "trim|unfence" for the flags in `removed`; "" for none.
    std::string removed_names() const
    {
        std::string out;
        if ((removed & LC_REPLY_TRIM) != 0) {
            out += "trim";
        }
        if ((removed & LC_REPLY_UNFENCE) != 0) {
            out += out.empty() ? "unfence" : "|unfence";
        }
        return out;
    }

    // "line 3, column 1, section constraints, location summary, offset 42, expected <constraints>,
    // rule X4.18": the parts that are known, "" when none is.
    std::string where() const
    {
        std::string out;
        auto add = [&out](const std::string &part) {
            if (!out.empty()) {
                out += ", ";
            }
            out += part;
        };
        if (line) {
            add("line " + std::to_string(*line));
        }
        if (column) {
            add("column " + std::to_string(*column));
        }
        if (section != LC_SECTION_NONE) {
            add(std::string("section ") + section_name());
        }
        if (!location.empty()) {
            add("location " + location);
        }
        if (offset) {
            add("offset " + std::to_string(*offset));
        }
        if (limit) {
            add("limit " + std::to_string(*limit));
        }
        if (actual) {
            add("actual " + std::to_string(*actual));
        }
        if (!expected.empty()) {
            add("expected " + expected);
        }
        if (!rule.empty()) {
            add("rule " + rule);
        }
        if (removed != 0) {
            add("removed " + removed_names() + " (" + std::to_string(removed_before) + " bytes before, " +
                std::to_string(removed_after) + " after)");
        }
        return out;
    }
};

namespace detail {

// An lc_diagnostic ready for a _diagnose call: zeroed, struct_size set.
inline lc_diagnostic blank_diagnostic() noexcept
{
    lc_diagnostic diag{};
    diag.struct_size = sizeof diag;
    diag.offset = LC_OFFSET_UNKNOWN;
    diag.limit = LC_LIMIT_UNKNOWN;
    diag.actual = LC_LIMIT_UNKNOWN;
    return diag;
}

// A first buffer for the canonical encoding of a document of about `size` bytes, at most `max`.
// The encoding is rarely longer (E7.6 writes <, > and & in six bytes, but drops whitespace and
// writes the \u escapes of other characters as UTF-8): a little room.
inline std::size_t output_guess(std::size_t size, std::uint64_t max) noexcept
{
    const std::size_t guess = size + size / 128 + 4096;
    return static_cast<std::uint64_t>(guess) > max ? static_cast<std::size_t>(max) : guess;
}

// The two-call pattern of call(buf, cap, &len) for an encoding: the first call gets `guess` bytes,
// which saves the size query when the bytes fit (for an encoding the query costs about half the
// call); an output that is longer gets the exact size on a second call (A3.6). `out` holds the
// bytes on LC_OK and is empty otherwise.
template <class Call>
lc_status encoded(std::size_t guess, std::vector<std::uint8_t> &out, Call call)
{
    out.assign(guess, 0);
    std::size_t needed = 0;
    lc_status status = call(out.data(), out.size(), &needed);
    if (status == LC_ERR_BUFFER_TOO_SMALL && needed > guess) {
        std::vector<std::uint8_t>().swap(out);  // the first buffer goes before the second comes
        out.assign(needed, 0);
        status = call(out.data(), out.size(), &needed);
    }
    if (status == LC_OK) {
        out.resize(needed);
    } else {
        std::vector<std::uint8_t>().swap(out);
    }
    return status;
}

// The diagnosis of a status that has no _diagnose function: status and class only.
inline lc_diagnostic status_only(lc_status status) noexcept
{
    lc_diagnostic diag = blank_diagnostic();
    diag.status = status;
    diag.status_class = lc_status_class(status);
    return diag;
}

inline std::string what_text(const Diagnostic &d)
{
    const char *reason = d.reason();
    std::string text = std::string(d.name()) + " (" + (reason[0] != '\0' ? std::string(reason) + ", " : "") +
                       "class " + d.class_name() + "): " + d.message();
    const std::string where = d.where();
    if (!where.empty()) {
        text += " [" + where + "]";
    }
    return text;
}

}  // namespace detail

// A rejection: a status other than LC_OK with its diagnosis and retry message. what() is
// "NAME (reason, class C): message [where]", free of input bytes.
class Error : public std::runtime_error {
public:
    // `diag` as a _diagnose function filled it for the status `status` it returned.
    Error(lc_status status, lc_diagnostic diag) : Error(normalise(status, diag)) {}
    // A status with no diagnosis (status and class only).
    explicit Error(lc_status status) : Error(detail::status_only(status)) {}

    lc_status status() const noexcept { return diagnostic_.status; }
    const char *name() const noexcept { return diagnostic_.name(); }
    const char *reason() const noexcept { return diagnostic_.reason(); }
    const char *message() const noexcept { return diagnostic_.message(); }
    std::int32_t status_class() const noexcept { return diagnostic_.status_class; }
    // LC_CLASS_RETRY: a new attempt by the summariser, given retry_message(), can fix it.
    bool retryable() const noexcept { return diagnostic_.status_class == LC_CLASS_RETRY; }
    const Diagnostic &diagnostic() const noexcept { return diagnostic_; }
    // lc_retry_message for this diagnosis: the text to send the summariser with its next try.
    const std::string &retry_message() const noexcept { return retry_message_; }

private:
    explicit Error(const lc_diagnostic &diag)
        : Error(Diagnostic::from_c(diag), loopcompact::retry_message(diag))
    {
    }
    Error(Diagnostic diagnostic, std::string retry)
        : std::runtime_error(detail::what_text(diagnostic)), diagnostic_(std::move(diagnostic)),
          retry_message_(std::move(retry))
    {
    }

    // The returned status is the truth; a diagnosis the library did not fill (a boundary error
    // before it got there) says so.
    static lc_diagnostic normalise(lc_status status, lc_diagnostic diag) noexcept
    {
        if (diag.status != status) {
            return detail::status_only(status);
        }
        diag.location[sizeof diag.location - 1] = '\0';
        return diag;
    }

    Diagnostic diagnostic_;
    std::string retry_message_;
};

namespace detail {

inline void check(lc_status status)
{
    if (status != LC_OK) {
        throw Error(status);
    }
}

inline void check(lc_status status, const lc_diagnostic &diag)
{
    if (status != LC_OK) {
        throw Error(status, diag);
    }
}

// The status of a summary function without a diagnosis (sections, section text): a grammar
// failure is diagnosed by lc_summary_xml_diagnose on the same summary, to say where.
inline void check_summary(lc_status status, bytes_view xml)
{
    if (status >= LC_SUMMARY_XML_SYNTAX && status <= LC_SUMMARY_XML_CONTENT) {
        lc_diagnostic diag = blank_diagnostic();
        if (lc_summary_xml_diagnose(xml.data(), xml.size(), &diag) == status) {
            throw Error(status, diag);
        }
    }
    check(status);
}

}  // namespace detail

/* ---- summary (SPEC §4, C13.7, C13.8) -------------------------------------------------------- */

// Validates a summary against the XML grammar (lc_summary_xml_diagnose); throws Error.
inline void validate_summary(bytes_view xml)
{
    lc_diagnostic diag = detail::blank_diagnostic();
    detail::check(lc_summary_xml_diagnose(xml.data(), xml.size(), &diag), diag);
}

// Index of each section in summary_sections' result: goal 0 ... open_items 4.
inline constexpr std::size_t section_index(std::int32_t section) noexcept
{
    return static_cast<std::size_t>(section - LC_SECTION_GOAL);
}

// The byte span of each section's raw (escaped) content of a valid summary, goal first
// (lc_summary_sections); throws Error for an invalid summary.
inline std::array<lc_span, 5> summary_sections(bytes_view xml)
{
    std::array<lc_span, 5> spans{};
    detail::check_summary(lc_summary_sections(xml.data(), xml.size(), spans.data()), xml);
    return spans;
}

// One section's text with references resolved (lc_summary_section_text); `section` is
// LC_SECTION_GOAL ... LC_SECTION_OPEN_ITEMS. Throws Error (LC_ERR_INVALID_ARGUMENT for another
// section value, the validation status for an invalid summary).
inline std::string summary_section_text(bytes_view xml, std::int32_t section)
{
    std::size_t len = 0;
    lc_status status = lc_summary_section_text(xml.data(), xml.size(), section, nullptr, 0, &len);
    std::string text;
    if (status == LC_ERR_BUFFER_TOO_SMALL) {
        text.resize(len);
        status = lc_summary_section_text(xml.data(), xml.size(), section,
                                         reinterpret_cast<std::uint8_t *>(text.data()), text.size(), &len);
    }
    detail::check_summary(status, xml);
    text.resize(len);
    return text;
}

/* ---- streaming validation (SPEC §17.3) ------------------------------------------------------- */

// The summariser's reply validated chunk by chunk as it streams (lc_summary_stream_*). feed()
// throws Error at the first chunk after which no continuation can make the reply a valid summary
// (T17.3), with the diagnosis known then, and the same Error for every later chunk; finish()
// throws exactly as validate_summary of everything fed (T17.4). Fixed memory, no text kept. Not
// for concurrent use: one thread at a time. Move-only; the destructor frees the handle.
class SummaryStream {
public:
    // lc_summary_stream_new; throws Error for a status other than LC_OK (a library failure).
    SummaryStream()
    {
        lc_summary_stream *handle = nullptr;
        detail::check(lc_summary_stream_new(&handle));
        handle_.reset(handle);
    }

    SummaryStream(SummaryStream &&) noexcept = default;
    SummaryStream &operator=(SummaryStream &&) noexcept = default;
    SummaryStream(const SummaryStream &) = delete;
    SummaryStream &operator=(const SummaryStream &) = delete;
    ~SummaryStream() = default;  // the deleter calls lc_summary_stream_free

    // The C handle, for calls the wrapper does not cover; owned by this stream.
    lc_summary_stream *get() const noexcept { return handle_.get(); }

    // Reads the next chunk (any size, cut anywhere: T17.2); throws Error once the reply is dead.
    void feed(bytes_view chunk)
    {
        lc_diagnostic diag = detail::blank_diagnostic();
        detail::check(lc_summary_stream_feed_diagnose(handle_.get(), chunk.data(), chunk.size(), &diag), diag);
    }

    // The whole-document verdict of everything fed so far; throws Error as validate_summary does.
    // More chunks may be fed after it.
    void finish() const
    {
        lc_diagnostic diag = detail::blank_diagnostic();
        detail::check(lc_summary_stream_finish_diagnose(handle_.get(), &diag), diag);
    }

    // The offset from the start of the reply of the byte at which it died; nullopt while viable.
    std::optional<std::uint64_t> dead_offset() const noexcept
    {
        const std::uint64_t offset = lc_summary_stream_dead_offset(handle_.get());
        return offset == LC_OFFSET_UNKNOWN ? std::nullopt : std::optional<std::uint64_t>(offset);
    }

private:
    struct Free {
        void operator()(lc_summary_stream *handle) const noexcept { lc_summary_stream_free(handle); }
    };

    std::unique_ptr<lc_summary_stream, Free> handle_;
};

/* ---- grammars and structured output (SPEC §17.1, §17.2) ------------------------------------- */

// The language of summary_grammar's text (LC_GRAMMAR_*).
enum class GrammarKind : std::int32_t {
    regex = LC_GRAMMAR_REGEX,  // one regular expression, matched against the whole reply (G17.4)
    lark = LC_GRAMMAR_LARK,    // a Lark grammar, start rule `start` (G17.5)
    gbnf = LC_GRAMMAR_GBNF,    // a GBNF grammar for llama.cpp, start rule `root` (G17.6)
};

// The summary language as a grammar for constrained decoding (SPEC G17.1, lc_summary_grammar):
// every string it matches passes validate_summary. Static text. Throws Error
// (LC_ERR_INVALID_ARGUMENT) for a value that is not a GrammarKind.
inline std::string_view summary_grammar(GrammarKind kind)
{
    const char *text = lc_summary_grammar(static_cast<std::int32_t>(kind));
    if (text == nullptr) {
        throw Error(LC_ERR_INVALID_ARGUMENT);
    }
    return text;
}

// The JSON Schema of the summary's structured-output form (SPEC G17.7, lc_summary_json_schema):
// an object of five required strings goal, constraints, decisions, state, open_items, and no other
// property. render_summary turns a filled object into the summary. Static text.
inline std::string_view summary_json_schema() noexcept { return lc_summary_json_schema(); }

// The five sections' texts (UTF-8), borrowed for the call: what render_summary takes.
struct Sections {
    bytes_view goal;
    bytes_view constraints;
    bytes_view decisions;
    bytes_view state;
    bytes_view open_items;
};

// The summary XML built from the five texts (SPEC G17.8, lc_summary_render): &, <, > and CR
// escaped, an empty optional section self-closed; validate_summary accepts it and
// summary_section_text gives each text back. Throws Error (G17.9) for the first refusal in section
// order: LC_SUMMARY_XML_SYNTAX (not UTF-8, or a character XML cannot carry such as U+0000),
// LC_SUMMARY_XML_CONTENT (a blank goal or state). The C function returns the status alone, so the
// Error has no section or offset.
inline std::string render_summary(const Sections &sections)
{
    const auto call = [&sections](std::uint8_t *buf, std::size_t cap, std::size_t *len) {
        return lc_summary_render(sections.goal.data(), sections.goal.size(), sections.constraints.data(),
                                 sections.constraints.size(), sections.decisions.data(), sections.decisions.size(),
                                 sections.state.data(), sections.state.size(), sections.open_items.data(),
                                 sections.open_items.size(), buf, cap, len);
    };
    std::size_t len = 0;
    lc_status status = call(nullptr, 0, &len);
    std::string xml;
    if (status == LC_ERR_BUFFER_TOO_SMALL) {
        xml.resize(len);
        status = call(reinterpret_cast<std::uint8_t *>(xml.data()), xml.size(), &len);
    }
    detail::check(status);
    xml.resize(len);
    return xml;
}

/* ---- compaction input, output, transcript safety (SPEC §5, §6, §7, §14) --------------------- */

// Validates a compaction input wire document without keeping it (lc_compaction_input_diagnose).
inline void validate_input(bytes_view wire)
{
    lc_diagnostic diag = detail::blank_diagnostic();
    detail::check(lc_compaction_input_diagnose(wire.data(), wire.size(), &diag), diag);
}

// How Input::validate_reply checks the summariser's reply as it arrived (SPEC R15.1).
struct ReplyOptions {
    std::uint64_t output_tokens = 0;      // the output usage the provider reported (0: none)
    std::int32_t stop = LC_STOP_UNKNOWN;  // LC_STOP_*: how the provider's call ended
    std::uint64_t max_reply_bytes = 0;    // the reply's byte limit (below LC_SMALLEST_SUMMARY_LEN: host error)
    bool trim = false;                    // LC_REPLY_TRIM: White_Space at both ends
    bool unfence = false;                 // LC_REPLY_UNFENCE: one Markdown code fence around it all

    // The LC_REPLY_* flags of trim and unfence.
    std::uint32_t flags() const noexcept
    {
        return (trim ? std::uint32_t{LC_REPLY_TRIM} : 0u) | (unfence ? std::uint32_t{LC_REPLY_UNFENCE} : 0u);
    }
};

// How Input::safe_cut and check_cut treat a pending tail and a converter's source boundaries
// (SPEC G16.13, G16.16). The default cuts before a pending tail.
struct CutOptions {
    bool pending_tail = true;           // LC_CUT_PENDING_TAIL
    std::vector<std::uint8_t> allowed;  // n + 1 flags (0 or 1); empty: every cut the input allows

    std::uint32_t flags() const noexcept { return pending_tail ? LC_CUT_PENDING_TAIL : 0; }
};

// One S14.3 violation (SPEC G16.14): where it is and which rule, never the id.
struct Violation {
    lc_status status = LC_OK;              // LC_PAIRING_UNANSWERED_CALL ... _DUPLICATE_RESULT
    std::uint64_t message = 0;             // the message
    std::optional<std::uint64_t> block;    // its top-level block; none: a tool message's own id
    std::uint64_t offset = 0;              // of the id's string body in the input document
};

// The verdict on a reply with its diagnosis, for a status of any class (Input::diagnose_reply).
struct ReplyVerdict {
    lc_status status = LC_OK;
    std::string summary;        // LC_OK: the reply without what cleanup removed
    Diagnostic diagnostic;      // where and why; on LC_OK too, for what cleanup removed
    std::string retry_message;  // lc_retry_message of the diagnosis; "" on LC_OK

    bool ok() const noexcept { return status == LC_OK; }
};

// A validated compaction input: owns its lc_compaction_input handle (unique, move-only). The
// handle is immutable, so the const member functions may be called from several threads at once.
// A moved-from Input holds no handle; its member functions throw Error(LC_ERR_NULL_ARGUMENT).
class Input {
public:
    // lc_compaction_input_parse; throws Error (LC_INPUT_*) with the diagnosis of
    // lc_compaction_input_diagnose for an invalid document. The handle keeps its own copy of the
    // bytes: `wire` may go away afterwards.
    static Input parse(bytes_view wire)
    {
        lc_compaction_input *handle = nullptr;
        const lc_status status = lc_compaction_input_parse(wire.data(), wire.size(), &handle);
        if (status != LC_OK) {
            lc_diagnostic diag = detail::blank_diagnostic();
            const lc_status again = lc_compaction_input_diagnose(wire.data(), wire.size(), &diag);
            if (again == status) {
                throw Error(status, diag);
            }
            throw Error(status);
        }
        return Input(handle, wire.size());
    }

    Input(Input &&) noexcept = default;
    Input &operator=(Input &&) noexcept = default;
    Input(const Input &) = delete;
    Input &operator=(const Input &) = delete;
    ~Input() = default;  // the deleter calls lc_compaction_input_free

    // The C handle, for calls the wrapper does not cover; owned by this Input.
    const lc_compaction_input *get() const noexcept { return handle_.get(); }
    explicit operator bool() const noexcept { return handle_ != nullptr; }

    // The length of the bytes encode_within(max_bytes) returns, without building them (the size
    // query of lc_compaction_input_encode_within). Throws Error(LC_INPUT_TOO_LARGE) when nothing
    // fits under max_bytes.
    std::size_t encoded_size_within(std::uint64_t max_bytes) const
    {
        std::size_t needed = 0;
        const lc_status status = lc_compaction_input_encode_within(handle_.get(), max_bytes, nullptr, 0, &needed);
        if (status != LC_ERR_BUFFER_TOO_SMALL) {
            detail::check(status);
        }
        return needed;
    }

    // The exact request bytes for the summariser, fitted under max_bytes, old tool results stubbed
    // oldest first when needed (SPEC §7; two-call pattern). Throws Error(LC_INPUT_TOO_LARGE).
    std::vector<std::uint8_t> encode_within(std::uint64_t max_bytes) const
    {
        std::vector<std::uint8_t> out;
        detail::check(detail::encoded(detail::output_guess(size_, max_bytes), out,
                                      [&](std::uint8_t *buf, std::size_t cap, std::size_t *len) {
                                          return lc_compaction_input_encode_within(handle_.get(), max_bytes, buf, cap, len);
                                      }));
        return out;
    }

    // Validates the summariser's reply against this input (lc_compaction_output_diagnose) and
    // returns the summary XML, the exact text of the replacement user message. `output_tokens` is
    // the output usage the provider reported (0: none), `max_output_bytes` the reply's byte limit.
    // Throws Error; retryable() tells whether a new attempt with retry_message() can fix it.
    std::string validate_output(bytes_view reply, std::uint64_t output_tokens, std::uint64_t max_output_bytes) const
    {
        // The summary is never longer than the reply (O6.4): one call suffices.
        std::string summary(reply.size(), '\0');
        std::size_t written = 0;
        lc_diagnostic diag = detail::blank_diagnostic();
        detail::check(lc_compaction_output_diagnose(handle_.get(), reply.data(), reply.size(), output_tokens,
                                                    max_output_bytes, reinterpret_cast<std::uint8_t *>(summary.data()),
                                                    summary.size(), &written, &diag),
                      diag);
        summary.resize(written);
        return summary;
    }

    // Checks the tool-call pairing of the transcript (SPEC S14.3, lc_transcript_pairing_check);
    // throws Error (LC_PAIRING_*) with the location of the first violation.
    void check_pairing() const
    {
        lc_diagnostic diag = detail::blank_diagnostic();
        detail::check(lc_transcript_pairing_check(handle_.get(), &diag), diag);
    }

    // The largest safe cut keeping at least the last `keep_last` messages (SPEC S14.4,
    // lc_transcript_safe_cut): summarise messages [0, cut), keep [cut, n). 0 means nothing can be
    // summarised while keeping that tail. Throws Error for a transcript that fails the pairing check.
    std::uint64_t safe_cut(std::uint64_t keep_last) const
    {
        std::uint64_t cut = 0;
        check_with_pairing(lc_transcript_safe_cut(handle_.get(), keep_last, &cut));
        return cut;
    }

    // Checks that summarising [0, cut) and keeping [cut, n) splits no tool call from its result
    // (lc_transcript_cut_check); throws Error (LC_CUT_UNSAFE, LC_ERR_INVALID_ARGUMENT for a cut
    // above the message count, or the pairing check's status).
    void check_cut(std::uint64_t cut) const { check_with_pairing(lc_transcript_cut_check(handle_.get(), cut)); }

    // SPEC G16.13-G16.16, the cut that never blocks compaction: the largest safe cut keeping at
    // least the last `keep_last` messages (lc_transcript_safe_cut_with). With options.pending_tail
    // (the default) a last assistant turn whose calls wait for their results stays on the kept
    // side instead of failing the pairing check; options.allowed (n + 1 flags, empty: no
    // restriction) limits the cut to a converter's source boundaries. Throws Error as safe_cut.
    std::uint64_t safe_cut(std::uint64_t keep_last, const CutOptions &options) const
    {
        std::uint64_t cut = 0;
        check_with_pairing(lc_transcript_safe_cut_with(handle_.get(), keep_last, options.flags(),
                                                        options.allowed.empty() ? nullptr : options.allowed.data(),
                                                        options.allowed.size(), &cut));
        return cut;
    }

    // check_cut with the pending tail and allowed cuts of `options` (lc_transcript_cut_check_with).
    void check_cut(std::uint64_t cut, const CutOptions &options) const
    {
        check_with_pairing(lc_transcript_cut_check_with(handle_.get(), cut, options.flags(),
                                                        options.allowed.empty() ? nullptr : options.allowed.data(),
                                                        options.allowed.size()));
    }

    // Every S14.3 violation, in transcript order (SPEC G16.14, lc_transcript_pairing_violations):
    // message and block indices and the status of each, never the id. Empty when the transcript
    // pairs.
    std::vector<Violation> pairing_violations() const
    {
        std::size_t needed = 0;
        lc_status status = lc_transcript_pairing_violations(handle_.get(), nullptr, 0, &needed);
        if (status != LC_ERR_BUFFER_TOO_SMALL) {
            detail::check(status);
        }
        std::vector<lc_violation> raw(needed);
        std::size_t written = 0;
        detail::check(lc_transcript_pairing_violations(handle_.get(), raw.data(), raw.size(), &written));
        std::vector<Violation> out;
        out.reserve(written);
        for (std::size_t i = 0; i < written; i++) {
            const lc_violation &v = raw[i];
            std::optional<std::uint64_t> block;
            if (v.block != LC_NO_BLOCK) {
                block = v.block;
            }
            out.push_back(Violation{v.status, v.message, block, v.offset});
        }
        return out;
    }

    // The repair plan of SPEC G16.15 as JSON (lc_transcript_repair_plan): drop an orphan result,
    // add a synthetic error result "[no result was recorded for this tool call]" for a call whose
    // result was lost; "[]" when the transcript pairs. With pending_tail, a pending tail's calls
    // get no result. Throws Error (LC_PAIRING_DUPLICATE_ID: no repair without changing an
    // assistant message).
    std::string repair_plan(bool pending_tail = true) const
    {
        return written_text([&](std::uint8_t *buf, std::size_t cap, std::size_t *len) {
            return lc_transcript_repair_plan(handle_.get(), pending_tail ? LC_CUT_PENDING_TAIL : 0, buf, cap, len);
        });
    }

    // The transcript with the repair plan applied (lc_transcript_repair): a JSON array of wire
    // messages in canonical bytes, to be put back into an input and checked again. Throws Error
    // as repair_plan.
    std::vector<std::uint8_t> repair(bool pending_tail = true) const
    {
        const std::string text = written_text([&](std::uint8_t *buf, std::size_t cap, std::size_t *len) {
            return lc_transcript_repair(handle_.get(), pending_tail ? LC_CUT_PENDING_TAIL : 0, buf, cap, len);
        });
        return std::vector<std::uint8_t>(text.begin(), text.end());
    }

    // The summariser's reply as it arrived, the bare XML text with no JSON envelope (SPEC
    // R15.1-R15.7, lc_compaction_reply_diagnose): returns the summary, the reply without what
    // cleanup removed, the exact text of the replacement user message. Throws Error
    // (LC_REPLY_BYTE_LIMIT_UNREACHABLE, LC_SUMMARY_BYTE_LIMIT, _TOKEN_USAGE, _TOKEN_LIMIT, _WIRE for
    // bytes that are not UTF-8, _XML_*, LC_REPLY_TRUNCATED, LC_ERR_INVALID_ARGUMENT for another
    // stop); its diagnostic() counts bytes of the reply as it arrived and says what cleanup removed.
    std::string validate_reply(bytes_view reply, const ReplyOptions &options) const
    {
        lc_diagnostic diag = detail::blank_diagnostic();
        ReplyVerdict verdict = reply_verdict(reply, options, diag);
        if (!verdict.ok()) {
            throw Error(verdict.status, diag);
        }
        return std::move(verdict.summary);
    }

    // validate_reply without the exception: the verdict of any class with its diagnosis, on LC_OK
    // too (what cleanup removed). One call of lc_compaction_reply_diagnose.
    ReplyVerdict diagnose_reply(bytes_view reply, const ReplyOptions &options) const
    {
        lc_diagnostic diag = detail::blank_diagnostic();
        return reply_verdict(reply, options, diag);
    }

    // What the summariser is sent for a cut (SPEC R15.8, lc_compaction_input_encode_head_within):
    // the input with messages [0, cut) as its transcript, in canonical bytes, fitted under
    // max_bytes as encode_within fits a whole input. Throws Error (LC_ERR_INVALID_ARGUMENT for a
    // cut above the message count, LC_REPLACEMENT_EMPTY_HEAD, LC_INPUT_TOO_LARGE).
    std::vector<std::uint8_t> encode_head_within(std::uint64_t cut, std::uint64_t max_bytes) const
    {
        std::vector<std::uint8_t> out;
        detail::check(detail::encoded(detail::output_guess(size_, max_bytes), out,
                                      [&](std::uint8_t *buf, std::size_t cap, std::size_t *len) {
                                          return lc_compaction_input_encode_head_within(handle_.get(), cut, max_bytes,
                                                                                        buf, cap, len);
                                      }));
        return out;
    }

    // The transcript that replaces the history once `summary` was accepted (SPEC R15.9,
    // lc_replacement_build): a JSON array of wire messages in canonical bytes, the leading system
    // messages, the summary message, then messages [cut, n) unchanged (a kept user message's blocks
    // join the summary message). Throws Error, in this order (R15.10): LC_ERR_INVALID_ARGUMENT,
    // LC_REPLACEMENT_EMPTY_HEAD, a pairing status (diagnosed) or LC_CUT_UNSAFE,
    // LC_REPLACEMENT_SUMMARY (with the summary's grammar diagnosis, location "summary").
    std::vector<std::uint8_t> build_replacement(std::uint64_t cut, bytes_view summary) const
    {
        // The replacement is at most the kept messages and the summary, escaped (up to six bytes per
        // character of the summary's markup, E7.6).
        std::vector<std::uint8_t> out;
        const lc_status status = detail::encoded(
            detail::output_guess(size_ + 6 * summary.size(), UINT64_MAX), out,
            [&](std::uint8_t *buf, std::size_t cap, std::size_t *len) {
                return lc_replacement_build(handle_.get(), cut, summary.data(), summary.size(), buf, cap, len);
            });
        if (status == LC_REPLACEMENT_SUMMARY) {
            lc_diagnostic diag = detail::blank_diagnostic();
            if (lc_summary_xml_diagnose(summary.data(), summary.size(), &diag) != LC_OK) {
                diag.status = status;
                diag.status_class = lc_status_class(status);
                std::memcpy(diag.location, "summary", sizeof "summary");
                throw Error(status, diag);
            }
        }
        check_with_pairing(status);
        return out;
    }

    // The number of transcript messages n: cuts run from 0 to n (lc_compaction_input_message_count).
    std::uint64_t message_count() const { return count(lc_compaction_input_message_count); }

    // The input's max_summary_tokens: the summariser's output budget
    // (lc_compaction_input_max_summary_tokens).
    std::uint64_t max_summary_tokens() const { return count(lc_compaction_input_max_summary_tokens); }

    // The number of system messages the transcript starts with: kept by a replacement, never
    // summarised (R15.9, lc_compaction_input_leading_systems).
    std::uint64_t leading_systems() const { return count(lc_compaction_input_leading_systems); }

    // Checks a transcript the host rebuilt itself (any key order, whitespace and spelling) against
    // the rule of build_replacement for `cut` (SPEC R15.11, lc_replacement_verify). Throws Error
    // (the cut's own status, LC_REPLACEMENT_WIRE, _PREFIX_CHANGED, _SUMMARY, _ADJACENT_USER,
    // _TAIL_CHANGED) whose location names the first differing message and block of `rebuilt`
    // ("transcript[2].blocks[0]"), never their bytes.
    void verify_replacement(std::uint64_t cut, bytes_view rebuilt) const
    {
        lc_diagnostic diag = detail::blank_diagnostic();
        detail::check(lc_replacement_verify(handle_.get(), cut, rebuilt.data(), rebuilt.size(), &diag), diag);
    }

private:
    struct Free {
        void operator()(lc_compaction_input *handle) const noexcept { lc_compaction_input_free(handle); }
    };

    std::uint64_t count(lc_status (*read)(const lc_compaction_input *, std::uint64_t *)) const
    {
        std::uint64_t value = 0;
        detail::check(read(handle_.get(), &value));
        return value;
    }

    friend class Conversion;  // Conversion::input adopts the handle of lc_conversion_input

    Input(lc_compaction_input *handle, std::size_t size) noexcept : handle_(handle), size_(size) {}

    // One lc_compaction_reply_diagnose call; `diag` (blank on entry) keeps the raw diagnosis.
    ReplyVerdict reply_verdict(bytes_view reply, const ReplyOptions &options, lc_diagnostic &diag) const
    {
        ReplyVerdict verdict;
        // The summary is never longer than the reply (R15.6): one call suffices.
        verdict.summary.assign(reply.size(), '\0');
        std::size_t written = 0;
        verdict.status = lc_compaction_reply_diagnose(handle_.get(), reply.data(), reply.size(), options.output_tokens,
                                                      options.stop, options.max_reply_bytes, options.flags(),
                                                      reinterpret_cast<std::uint8_t *>(verdict.summary.data()),
                                                      verdict.summary.size(), &written, &diag);
        if (diag.status != verdict.status) {
            diag = detail::status_only(verdict.status);  // a boundary error: nothing was diagnosed
        }
        diag.location[sizeof diag.location - 1] = '\0';
        verdict.diagnostic = Diagnostic::from_c(diag);
        if (verdict.ok()) {
            verdict.summary.resize(written);
        } else {
            verdict.summary.clear();
            verdict.retry_message = loopcompact::retry_message(diag);
        }
        return verdict;
    }

    // A pairing status from the cut functions: the pairing check says where.
    // The two-call pattern (SPEC A3.2) of `call(buf, cap, &len)`, as text.
    template <typename Call>
    static std::string written_text(Call call)
    {
        std::size_t needed = 0;
        lc_status status = call(nullptr, 0, &needed);
        if (status != LC_ERR_BUFFER_TOO_SMALL) {
            detail::check(status);
        }
        std::string out(needed, '\0');
        std::size_t written = 0;
        detail::check(call(reinterpret_cast<std::uint8_t *>(out.data()), out.size(), &written));
        out.resize(written);
        return out;
    }

    void check_with_pairing(lc_status status) const
    {
        if (status >= LC_PAIRING_UNANSWERED_CALL && status <= LC_PAIRING_DUPLICATE_RESULT) {
            check_pairing();
        }
        detail::check(status);
    }

    std::unique_ptr<lc_compaction_input, Free> handle_;
    // About the length of the input's encoding (its wire document's or transcript's): the first
    // buffer of an encoding (detail::encoded).
    std::size_t size_ = 0;
};

/* ---- converters (SPEC §16) ------------------------------------------------------------------- */

// One loss of a conversion (SPEC G16.8): the source message (or item) it was in, std::nullopt for
// the system parameter (LC_SOURCE_SYSTEM), and its LC_LOSS_* code.
struct Loss {
    std::optional<std::uint64_t> source_index;
    std::int32_t code = 0;

    // The code's stable name, e.g. "dropped_cache_control"; "" for a value that is not one.
    const char *name() const noexcept { return lc_loss_name(code); }
};

// A converted transcript (lc_conversion): owns its handle (unique, move-only; the destructor frees
// it). Made by Conversion::convert from a provider's message list; immutable, so the const member
// functions may be called from several threads at once. A moved-from Conversion holds no handle;
// its member functions throw Error(LC_ERR_NULL_ARGUMENT).
class Conversion {
public:
    // lc_transcript_convert: `format` is LC_FORMAT_*, `source` the document the format reads (the
    // Chat, LangChain or AI SDK messages array; {"input": ..., "instructions": ...};
    // {"system": ..., "messages": [...]}; {"contents": [...], "system_instruction": ...}), `flags`
    // 0 or LC_CONVERT_STRICT. Throws Error: LC_CONVERT_WIRE, LC_CONVERT_SHAPE (location such as
    // "messages[3].tool_calls[0].function.arguments", offset into `source`), LC_CONVERT_LOSS,
    // LC_ERR_INVALID_ARGUMENT. The handle keeps what it needs: `source` may go away afterwards.
    static Conversion convert(std::int32_t format, bytes_view source, std::uint32_t flags = 0)
    {
        lc_conversion *handle = nullptr;
        lc_diagnostic diag = detail::blank_diagnostic();
        const lc_status status = lc_transcript_convert(format, source.data(), source.size(), flags, &handle, &diag);
        if (status != LC_OK) {
            if (diag.status != status) {
                diag = detail::status_only(status);  // a boundary error: nothing was diagnosed
            }
            diag.location[sizeof diag.location - 1] = '\0';
            detail::check(status, diag);
        }
        return Conversion(handle);
    }

    Conversion(Conversion &&) noexcept = default;
    Conversion &operator=(Conversion &&) noexcept = default;
    Conversion(const Conversion &) = delete;
    Conversion &operator=(const Conversion &) = delete;
    ~Conversion() = default;  // the deleter calls lc_conversion_free

    // The C handle, for calls the wrapper does not cover; owned by this Conversion.
    const lc_conversion *get() const noexcept { return handle_.get(); }
    explicit operator bool() const noexcept { return handle_ != nullptr; }

    // The wire transcript: a JSON array of wire messages in canonical bytes (SPEC §5, E7).
    std::vector<std::uint8_t> transcript() const
    {
        return elements<std::uint8_t>([this](std::uint8_t *out, std::size_t cap, std::size_t *len) {
            return lc_conversion_transcript(handle_.get(), out, cap, len);
        });
    }

    // For each wire message, the index of the source message (or item) it came from; std::nullopt
    // for a message made from the system parameter (SPEC G16.2).
    std::vector<std::optional<std::uint64_t>> source_index() const
    {
        const std::vector<std::uint64_t> raw = elements<std::uint64_t>(
            [this](std::uint64_t *out, std::size_t cap, std::size_t *len) {
                return lc_conversion_source_index(handle_.get(), out, cap, len);
            });
        std::vector<std::optional<std::uint64_t>> out;
        out.reserve(raw.size());
        for (const std::uint64_t i : raw) {
            out.push_back(i == LC_SOURCE_SYSTEM ? std::nullopt : std::optional<std::uint64_t>(i));
        }
        return out;
    }

    // For each wire cut c in 0..n (n wire messages): whether summarising wire messages [0, c)
    // splits no source message (and passes no compaction item): n + 1 entries.
    std::vector<bool> cut_allowed() const
    {
        const std::vector<std::uint8_t> raw = elements<std::uint8_t>(
            [this](std::uint8_t *out, std::size_t cap, std::size_t *len) {
                return lc_conversion_cut_allowed(handle_.get(), out, cap, len);
            });
        return std::vector<bool>(raw.begin(), raw.end());
    }

    // What the wire could not carry, in source order (SPEC G16.8); empty for a lossless conversion.
    std::vector<Loss> losses() const
    {
        const std::vector<lc_loss> raw = elements<lc_loss>([this](lc_loss *out, std::size_t cap, std::size_t *len) {
            return lc_conversion_losses(handle_.get(), out, cap, len);
        });
        std::vector<Loss> out;
        out.reserve(raw.size());
        for (const lc_loss &l : raw) {
            Loss loss;
            if (l.source_index != LC_SOURCE_SYSTEM) {
                loss.source_index = l.source_index;
            }
            loss.code = l.code;
            out.push_back(loss);
        }
        return out;
    }

    // The number of messages (or items) in the source list, the system parameter not counted
    // (lc_conversion_source_len).
    std::uint64_t source_len() const
    {
        std::uint64_t out = 0;
        detail::check(lc_conversion_source_len(handle_.get(), &out));
        return out;
    }

    // The source cut of an allowed wire cut (SPEC G16.2, lc_conversion_source_cut): summarising
    // wire messages [0, wire_cut) summarises source messages [0, result). Throws
    // Error(LC_CUT_UNSAFE) for a cut that is not allowed, Error(LC_ERR_INVALID_ARGUMENT) for one
    // past the last wire message.
    std::uint64_t source_cut(std::uint64_t wire_cut) const
    {
        std::uint64_t out = 0;
        detail::check(lc_conversion_source_cut(handle_.get(), wire_cut, &out));
        return out;
    }

    // A compaction input around the transcript (SPEC G16.10, lc_conversion_input): `revision` is
    // the basis revision (your compaction count plus one), the basis event id is minted from the
    // transcript, and `fingerprint` (32 bytes) is the request fingerprint, or nullptr to mint it
    // from the provider, model and transcript. The input cuts only at the source's boundaries.
    // Throws Error with the statuses of Input::parse for what was given (LC_INPUT_MODEL,
    // LC_INPUT_BASIS, LC_INPUT_MAX_SUMMARY_TOKENS, LC_INPUT_REQUEST_FINGERPRINT,
    // LC_INPUT_TRANSCRIPT), or LC_ERR_INVALID_ARGUMENT for text that is not UTF-8.
    Input input(std::string_view provider, std::string_view model, std::uint64_t max_summary_tokens,
                std::uint64_t revision, const std::array<std::uint8_t, LC_FINGERPRINT_LEN> *fingerprint = nullptr) const
    {
        lc_compaction_input *out = nullptr;
        const bytes_view p(provider);
        const bytes_view m(model);
        detail::check(lc_conversion_input(handle_.get(), p.data(), p.size(), m.data(), m.size(), max_summary_tokens,
                                          revision, fingerprint != nullptr ? fingerprint->data() : nullptr, &out));
        std::size_t transcript_len = 0;
        (void)lc_conversion_transcript(handle_.get(), nullptr, 0, &transcript_len);
        return Input(out, transcript_len);
    }

private:
    struct Free {
        void operator()(lc_conversion *handle) const noexcept { lc_conversion_free(handle); }
    };

    explicit Conversion(lc_conversion *handle) noexcept : handle_(handle) {}

    // The two-call pattern over an array accessor: the size query, then the elements.
    template <typename T, typename Call>
    static std::vector<T> elements(Call call)
    {
        std::size_t needed = 0;
        lc_status status = call(nullptr, 0, &needed);
        std::vector<T> out;
        if (status == LC_ERR_BUFFER_TOO_SMALL) {
            out.resize(needed);
            status = call(out.data(), out.size(), &needed);
            out.resize(needed);
        }
        detail::check(status);
        return out;
    }

    std::unique_ptr<lc_conversion, Free> handle_;
};

/* ---- the round (SPEC §15, R15.12) ------------------------------------------------------------ */

// One chat turn of a SummaryRequest: role "user" or "assistant", and its text.
struct ChatMessage {
    std::string role;
    std::string content;
};

inline bool operator==(const ChatMessage &a, const ChatMessage &b) noexcept
{
    return a.role == b.role && a.content == b.content;
}
inline bool operator!=(const ChatMessage &a, const ChatMessage &b) noexcept { return !(a == b); }

// What call_model sends the summariser for one attempt.
struct SummaryRequest {
    std::string system;                 // the instructions: summary_instructions()
    std::vector<ChatMessage> messages;  // the head (user), then per rejected attempt: assistant, user (retry)
    std::uint64_t max_tokens = 0;       // the output token budget to ask the provider for
    unsigned attempt = 0;               // 1-based
    // With CompactOptions::structured, the JSON Schema of the reply (summary_json_schema(), SPEC
    // G17.10) to hand the provider's structured output; "" otherwise.
    std::string json_schema{};
};

inline bool operator==(const SummaryRequest &a, const SummaryRequest &b) noexcept
{
    return a.system == b.system && a.messages == b.messages && a.max_tokens == b.max_tokens && a.attempt == b.attempt &&
           a.json_schema == b.json_schema;
}
inline bool operator!=(const SummaryRequest &a, const SummaryRequest &b) noexcept { return !(a == b); }

// What call_model returns: the text as it arrived, the output usage the provider reported (0:
// none) and how the call ended (LC_STOP_END: OpenAI "stop", Anthropic "end_turn"; LC_STOP_LENGTH:
// "length", "max_tokens"; LC_STOP_UNKNOWN).
//
// `sections`, when set, is the summary as the five sections' texts (a structured output the
// adapter decoded itself): compact() renders them (render_summary) and checks the rendered summary
// as it checks a text; `text` is then not read (SPEC G17.10). With CompactOptions::structured, a
// reply without sections has the JSON object of summary_json_schema() as its text.
struct SummarySections {
    std::string goal;
    std::string constraints;
    std::string decisions;
    std::string state;
    std::string open_items;
};

struct SummaryReply {
    std::string text;
    std::uint64_t output_tokens = 0;
    std::int32_t stop = LC_STOP_UNKNOWN;
    std::optional<SummarySections> sections = std::nullopt;  // an initializer: {text, tokens, stop} stays warning-free
};

// What a streamed reply reports once its last chunk was read: the output usage the provider
// reported (0: none) and how the call ended (LC_STOP_*), as in SummaryReply.
struct SummaryUsage {
    std::uint64_t output_tokens = 0;
    std::int32_t stop = LC_STOP_UNKNOWN;
};

// What a streaming call_model returns instead of a SummaryReply (SPEC T17.6): the reply as it
// arrives, and its usage.
//
// `next` returns the reply's next chunk of text (any size, cut anywhere, even inside a UTF-8
// sequence), or std::nullopt at its end; compact() calls it until then or until the reply cannot
// pass, and then no more. `usage` is called once after `next` returned std::nullopt, never when the
// round stopped reading early: return what the provider reported at the end of its stream. An
// exception from either is one of call_model (CompactOptions::on_error).
//
// compact() destroys the SummaryReplyStream, and with it whatever its two functions capture, as
// soon as it stops reading (at the end, at the first dead chunk, or at an exception of `next` or
// `usage`) and before on_attempt sees the attempt: a capture that owns the provider's stream (a
// std::shared_ptr to the HTTP response whose destructor closes it) closes it there.
struct SummaryReplyStream {
    std::function<std::optional<std::string>()> next;
    std::function<SummaryUsage()> usage;
};

// The assistant turn that stands for a rejected reply unless CompactOptions::reshow_rejected.
inline constexpr std::string_view withheld_reply = "[previous summary withheld: it was rejected]";

// What follows the instructions and every retry message with CompactOptions::structured (SPEC
// G17.10): the reply is the JSON object of summary_json_schema(), its texts plain (the renderer
// escapes them).
inline constexpr std::string_view structured_note =
    "Structured output: instead of the XML document, reply with one JSON object of the given schema: the keys goal, "
    "constraints, decisions, state and open_items, each a string holding that section's plain text, without XML tags "
    "and without XML escapes (write &, < and > as they are); goal and state must not be blank.";

// One attempt of a round: what was sent, what came back, the verdict.
struct Attempt {
    unsigned number = 0;                       // 1-based
    SummaryRequest request;                    // the request sent
    std::size_t reply_bytes = 0;               // the reply's length; with sections, the rendered summary's (0: refused)
    std::int32_t stop = LC_STOP_UNKNOWN;       // the reply's stop
    lc_status status = LC_OK;                  // the verdict
    std::int32_t status_class = LC_CLASS_OK;   // LC_CLASS_*: what the round did about it
    Diagnostic diagnosis;                      // where and why; on LC_OK, what cleanup removed
    std::string retry_message;                 // lc_retry_message (the next user turn if RETRY); "" on LC_OK
    // A streamed reply the round stopped reading at the first chunk after which it could not pass
    // (SPEC T17.6): reply_bytes counts the bytes read, stop is LC_STOP_UNKNOWN (the usage was never
    // asked) and the verdict is the one known when the reply died.
    bool aborted = false;
};

// A round that produced a valid summary: replace the history with `replacement`.
struct Compacted {
    std::string summary;                    // the accepted summary (validate_reply's)
    std::uint64_t cut = 0;                  // messages [0, cut) are replaced, [cut, n) kept
    std::vector<std::uint8_t> replacement;  // build_replacement(cut, summary): wire messages, JSON
    std::vector<Attempt> attempts;          // in order, the accepted one last
    std::vector<Diagnostic> diagnoses;      // each attempt's
};

// A round that ended without a summary: the history stays as it was (a result, not an error).
struct KeepHistory {
    std::string reason;                 // a short sentence: static text, numbers, type names only
    lc_status status = LC_OK;           // what ended the round; LC_OK only when model_error is set
    Diagnostic diagnosis;               // that status's diagnosis
    std::exception_ptr model_error;     // call_model's exception, with OnError::keep_history
    std::vector<Attempt> attempts;      // empty when the model was not called
    std::vector<Diagnostic> diagnoses;  // each attempt's
};

// The outcome of compact(): std::get_if<loopcompact::Compacted>(&result) or std::visit. Only
// Compacted has a summary and a replacement, so a kept history cannot be committed by mistake.
using CompactResult = std::variant<Compacted, KeepHistory>;

// What an exception from call_model does.
enum class OnError {
    raise,         // it propagates out of compact()
    keep_history,  // compact() returns KeepHistory naming its type (never its what())
};

// How compact() runs the round; the defaults are SPEC R15.12's.
struct CompactOptions {
    std::uint64_t keep_last = 0;                   // the cut is safe_cut(keep_last, {pending_tail})
    bool pending_tail = true;                      // a pending tail stays kept (G16.13); false: §14
    unsigned attempts = 3;                         // at least 1
    std::optional<std::uint64_t> max_input_bytes;  // the head's byte budget; none: no limit
    std::optional<std::uint64_t> max_reply_bytes;  // none: 16 * max_summary_tokens, at least 114; below 114: no request
    std::optional<std::uint64_t> max_tokens;       // the first request's; none: max_summary_tokens
    bool trim = true;                              // cleanup of every reply (reported per attempt)
    bool unfence = true;
    bool reshow_rejected = false;                  // send rejected replies back instead of withheld_reply
    std::function<void(const Attempt &)> on_attempt;  // every attempt, before the round decides
    OnError on_error = OnError::raise;
    // Structured output (SPEC G17.10): each request carries the summary's JSON Schema
    // (SummaryRequest::json_schema) and the instructions end with structured_note; a reply's text
    // is read as that JSON object (not JSON: LC_SUMMARY_WIRE; another shape:
    // LC_SUMMARY_OUTPUT_SHAPE; either stopped by length: LC_REPLY_TRUNCATED), rendered, then
    // checked as a text reply is. A reply with sections is rendered with or without it.
    bool structured = false;
};

namespace detail {

// a * b, at most 2^64 - 1.
inline std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) noexcept
{
    return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b ? std::numeric_limits<std::uint64_t>::max()
                                                                        : a * b;
}

// The dynamic type of an exception, demangled where the compiler can ("std::runtime_error").
inline std::string exception_type(const std::exception &e)
{
#if defined(__GXX_RTTI) || defined(_CPPRTTI) || defined(__cpp_rtti)
    const char *name = typeid(e).name();
#if defined(LOOPCOMPACT_HPP_DEMANGLE)
    int status = 0;
    char *demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (demangled != nullptr) {
        std::string out = status == 0 ? demangled : name;
        std::free(demangled);
        return out;
    }
#endif
    return name;
#else
    static_cast<void>(e);
    return "std::exception";
#endif
}

inline KeepHistory keep_history(const Diagnostic &diagnosis, std::string reason, std::vector<Attempt> attempts)
{
    KeepHistory out;
    out.reason = std::move(reason);
    out.status = diagnosis.status;
    out.diagnosis = diagnosis;
    out.attempts = std::move(attempts);
    for (const Attempt &a : out.attempts) {
        out.diagnoses.push_back(a.diagnosis);
    }
    return out;
}

// The reason of a round ended at once by an attempt's verdict (a class other than RETRY).
inline std::string stop_reason(const Attempt &a)
{
    std::string out = "attempt " + std::to_string(a.number) + ": " + lc_status_name(a.status) + " (class " +
                      loopcompact::class_name(a.status_class) + "): ";
    if (a.status == LC_SUMMARY_TOKEN_USAGE) {
        return out + "the provider reported no output token usage; turn usage reporting on";
    }
    if (a.status_class == LC_CLASS_DISCARD) {
        return out + "this reply can never be used and retrying will not help";
    }
    if (a.status_class == LC_CLASS_BUG) {
        return out + "the library failed internally; please report it";
    }
    return out + "the host's limits or input must change; retrying will not help";
}

// Reads a structured reply's text as the schema's JSON object (SPEC G17.10 step 3): RFC 8259 over
// UTF-8, any value skipped but checked, nesting up to 512 levels. LC_SUMMARY_WIRE when it is not
// UTF-8 or not JSON, LC_SUMMARY_OUTPUT_SHAPE when it is not an object whose members are the five
// keys (a key given twice counts with its last value), each a string. A \u escape of a lone
// surrogate is written as its three-byte encoding, which is not UTF-8, so that render_summary
// refuses it in its place.
class SectionsReader {
public:
    explicit SectionsReader(std::string_view text) noexcept : text_(text) {}

    lc_status read(std::array<std::string, 5> &out)
    {
        if (!utf8(text_)) {
            return LC_SUMMARY_WIRE;
        }
        space();
        bool object = at_ < text_.size() && text_[at_] == '{';
        if (!(object ? members() : value(0))) {
            return LC_SUMMARY_WIRE;
        }
        space();
        if (at_ != text_.size()) {
            return LC_SUMMARY_WIRE;
        }
        if (!object || other_key_) {
            return LC_SUMMARY_OUTPUT_SHAPE;
        }
        for (std::size_t i = 0; i < 5; ++i) {
            if (kind_[i] != 's') {
                return LC_SUMMARY_OUTPUT_SHAPE;
            }
            out[i] = std::move(texts_[i]);
        }
        return LC_OK;
    }

private:
    static constexpr std::array<std::string_view, 5> keys{"goal", "constraints", "decisions", "state", "open_items"};

    static bool utf8(std::string_view s) noexcept
    {
        for (std::size_t i = 0; i < s.size();) {
            const auto c = static_cast<unsigned char>(s[i]);
            std::size_t n = 0;
            std::uint32_t cp = 0;
            if (c < 0x80) {
                ++i;
                continue;
            } else if (c >= 0xC2 && c <= 0xDF) {
                n = 1, cp = c & 0x1F;
            } else if (c >= 0xE0 && c <= 0xEF) {
                n = 2, cp = c & 0x0F;
            } else if (c >= 0xF0 && c <= 0xF4) {
                n = 3, cp = c & 0x07;
            } else {
                return false;
            }
            if (i + n >= s.size()) {  // the sequence runs past the end
                return false;
            }
            for (std::size_t k = 1; k <= n; ++k) {
                const auto d = static_cast<unsigned char>(s[i + k]);
                if ((d & 0xC0) != 0x80) {
                    return false;
                }
                cp = cp << 6 | (d & 0x3F);
            }
            if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF))) {
                return false;
            }
            i += n + 1;
        }
        return true;
    }

    void space() noexcept
    {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
            ++at_;
        }
    }

    bool eat(char c) noexcept
    {
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }

    static void put(std::string &out, std::uint32_t cp)
    {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | cp >> 6);
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {  // a lone surrogate too: three bytes that are not UTF-8
            out += static_cast<char>(0xE0 | cp >> 12);
            out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | cp >> 18);
            out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
            out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    bool hex4(std::uint32_t &cp) noexcept
    {
        if (text_.size() - at_ < 4) {
            return false;
        }
        cp = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = text_[at_++];
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) {
                return false;
            }
            cp = cp << 4 | static_cast<std::uint32_t>(d);
        }
        return true;
    }

    // A string at at_ (its opening quote), decoded into *out when out is not null.
    bool string(std::string *out)
    {
        if (!eat('"')) {
            return false;
        }
        while (at_ < text_.size()) {
            const char c = text_[at_++];
            if (c == '"') {
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20) {
                return false;
            }
            if (c != '\\') {
                if (out != nullptr) {
                    *out += c;
                }
                continue;
            }
            if (at_ == text_.size()) {
                return false;
            }
            const char e = text_[at_++];
            std::uint32_t cp = 0;
            switch (e) {
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u': {
                if (!hex4(cp)) {
                    return false;
                }
                std::uint32_t low = 0;
                const std::size_t mark = at_;
                if (cp >= 0xD800 && cp <= 0xDBFF && eat('\\') && eat('u') && hex4(low) && low >= 0xDC00 && low <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else if (cp >= 0xD800 && cp <= 0xDBFF) {
                    at_ = mark;  // not a pair: the next escape is read on its own
                }
                break;
            }
            default: return false;
            }
            if (out != nullptr) {
                put(*out, cp);
            }
        }
        return false;
    }

    bool digits() noexcept
    {
        const std::size_t from = at_;
        while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
            ++at_;
        }
        return at_ > from;
    }

    bool number() noexcept
    {
        eat('-');
        if (!eat('0') && !(at_ < text_.size() && text_[at_] >= '1' && text_[at_] <= '9' && digits())) {
            return false;
        }
        if (eat('.') && !digits()) {
            return false;
        }
        if (eat('e') || eat('E')) {
            if (!eat('+')) {
                eat('-');
            }
            return digits();
        }
        return true;
    }

    bool literal(std::string_view word) noexcept
    {
        if (text_.substr(at_, word.size()) != word) {
            return false;
        }
        at_ += word.size();
        return true;
    }

    // Any value at at_, checked and skipped.
    bool value(unsigned depth)
    {
        if (at_ >= text_.size() || depth > 512) {
            return false;
        }
        switch (text_[at_]) {
        case '"': return string(nullptr);
        case 't': return literal("true");
        case 'f': return literal("false");
        case 'n': return literal("null");
        case '[':
        case '{': {
            const char close = text_[at_] == '[' ? ']' : '}';
            const bool object = close == '}';
            ++at_;
            space();
            if (eat(close)) {
                return true;
            }
            for (;;) {
                if (object) {
                    if (!string(nullptr)) {
                        return false;
                    }
                    space();
                    if (!eat(':')) {
                        return false;
                    }
                    space();
                }
                if (!value(depth + 1)) {
                    return false;
                }
                space();
                if (eat(close)) {
                    return true;
                }
                if (!eat(',')) {
                    return false;
                }
                space();
            }
        }
        default: return number();
        }
    }

    // The top-level object: its members, the five keys' values kept.
    bool members()
    {
        ++at_;  // '{'
        space();
        if (eat('}')) {
            return true;
        }
        for (;;) {
            std::string key;
            if (!string(&key)) {
                return false;
            }
            space();
            if (!eat(':')) {
                return false;
            }
            space();
            const auto found = std::find(keys.begin(), keys.end(), key);
            if (found == keys.end()) {
                other_key_ = true;
                if (!value(1)) {
                    return false;
                }
            } else {
                const auto i = static_cast<std::size_t>(found - keys.begin());
                if (at_ < text_.size() && text_[at_] == '"') {
                    texts_[i].clear();
                    if (!string(&texts_[i])) {
                        return false;
                    }
                    kind_[i] = 's';
                } else {
                    if (!value(1)) {
                        return false;
                    }
                    kind_[i] = 'v';
                }
            }
            space();
            if (eat('}')) {
                return true;
            }
            if (!eat(',')) {
                return false;
            }
            space();
        }
    }

    std::string_view text_;
    std::size_t at_ = 0;
    std::array<std::string, 5> texts_;
    std::array<char, 5> kind_{};  // 0 missing, 's' a string, 'v' another value
    bool other_key_ = false;
};

// A diagnosis the round makes itself (SPEC G17.10): static rule and expected text, location
// "summary".
inline lc_diagnostic made_diagnosis(lc_status status, const char *rule, std::int32_t section = LC_SECTION_NONE,
                                    const char *expected = "")
{
    lc_diagnostic diag = status_only(status);
    diag.section = section;
    diag.rule = rule;
    diag.expected = expected;
    std::memcpy(diag.location, "summary", sizeof "summary");
    return diag;
}

// The verdict on a reply with sections, or on a structured reply's text (SPEC G17.10 steps 2-5):
// rendered, then checked as Input::diagnose_reply checks a text. `reply_bytes` is the attempt's.
inline ReplyVerdict structured_verdict(const Input &input, const SummaryReply &reply, const ReplyOptions &options,
                                       std::uint64_t max_summary, std::size_t &reply_bytes)
{
    std::array<std::string, 5> texts;
    const bool from_text = !reply.sections.has_value();
    if (from_text) {
        reply_bytes = reply.text.size();
        const lc_status read = SectionsReader(reply.text).read(texts);
        if (read != LC_OK) {
            lc_diagnostic diag = made_diagnosis(read, "G17.10");
            if (reply.stop == LC_STOP_LENGTH) {
                diag = made_diagnosis(LC_REPLY_TRUNCATED, "R15.4");
                diag.limit = max_summary;
                diag.actual = reply.output_tokens == std::numeric_limits<std::uint64_t>::max() ? reply.output_tokens - 1
                                                                                                : reply.output_tokens;
            }
            ReplyVerdict verdict;
            verdict.status = diag.status;
            verdict.diagnostic = Diagnostic::from_c(diag);
            verdict.retry_message = loopcompact::retry_message(diag);
            return verdict;
        }
    } else {
        const SummarySections &s = *reply.sections;
        texts = {s.goal, s.constraints, s.decisions, s.state, s.open_items};
    }
    const auto render = [](const std::array<std::string, 5> &t) {
        return render_summary(Sections{t[0], t[1], t[2], t[3], t[4]});
    };
    std::string rendered;
    try {
        rendered = render(texts);
    } catch (const Error &refused) {
        // The first section whose text alone (the others "." for goal and state, "" for the rest)
        // the renderer refuses with the same status.
        std::int32_t section = LC_SECTION_NONE;
        for (std::size_t i = 0; i < 5 && section == LC_SECTION_NONE; ++i) {
            std::array<std::string, 5> alone{".", "", "", ".", ""};
            alone[i] = texts[i];
            try {
                render(alone);
            } catch (const Error &e) {
                if (e.status() == refused.status()) {
                    section = static_cast<std::int32_t>(LC_SECTION_GOAL + i);
                }
            }
        }
        const lc_diagnostic diag = made_diagnosis(refused.status(), "G17.9", section,
                                                  refused.status() == LC_SUMMARY_XML_CONTENT ? "non-blank text" : "");
        ReplyVerdict verdict;
        verdict.status = diag.status;
        verdict.diagnostic = Diagnostic::from_c(diag);
        verdict.retry_message = loopcompact::retry_message(diag);
        if (!from_text) {
            reply_bytes = 0;
        }
        return verdict;
    }
    if (!from_text) {
        reply_bytes = rendered.size();
    }
    return input.diagnose_reply(rendered, options);
}

// The code point of the UTF-8 sequence at `pos` of `data` and its length; length 0 when the
// bytes end inside a sequence that may still complete, -1 when no valid sequence starts there.
inline std::pair<std::uint32_t, int> char_at(std::string_view data, std::size_t pos) noexcept
{
    const auto byte = [&data](std::size_t i) { return static_cast<unsigned char>(data[i]); };
    const unsigned lead = byte(pos);
    if (lead < 0x80) {
        return {lead, 1};
    }
    int need = 0;
    unsigned low = 0x80, high = 0xBF;  // the second byte's range (X4.2: no overlong, no surrogate)
    if (lead >= 0xC2 && lead <= 0xDF) {
        need = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        need = 3;
        low = lead == 0xE0 ? 0xA0 : 0x80;
        high = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        need = 4;
        low = lead == 0xF0 ? 0x90 : 0x80;
        high = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
        return {0, -1};
    }
    std::uint32_t code = lead & (0xFFu >> (need + 1));
    for (int i = 1; i < need; ++i) {
        if (pos + static_cast<std::size_t>(i) >= data.size()) {
            return {0, 0};
        }
        const unsigned b = byte(pos + static_cast<std::size_t>(i));
        if (i == 1 ? (b < low || b > high) : (b < 0x80 || b > 0xBF)) {
            return {0, -1};
        }
        code = code << 6 | (b & 0x3F);
    }
    return {code, need};
}

// The characters with the Unicode White_Space property (SPEC X4.21, R15.5).
inline bool white_space(std::uint32_t c) noexcept
{
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// Reads one streamed reply (SPEC T17.6): keeps its bytes, skips what cleanup (R15.5) would remove
// before the summary (leading White_Space with trim; with unfence an opening fence line, then
// White_Space again), feeds the rest to a summary stream and gives the verdict at the first chunk
// after which the reply cannot pass. After a complete summary it stops feeding: what follows can
// only be removed by cleanup or fail, which the whole reply's check decides. With structured
// replies the bytes are only gathered (the byte limit counts the rendered summary, G17.10).
class StreamCheck {
public:
    StreamCheck(const Input &input, const ReplyOptions &options, bool structured)
        : input_(input), options_(options), structured_(structured)
    {
        phase_ = options.trim ? Phase::trim : options.unfence ? Phase::fence : Phase::body;
        if (!structured) {
            stream_.emplace();
        }
    }

    std::string received;

    // Reads one chunk: the verdict once the reply cannot pass, else nullopt.
    std::optional<ReplyVerdict> add(std::string_view chunk)
    {
        received.append(chunk);
        if (structured_) {
            return std::nullopt;
        }
        if (received.size() > options_.max_reply_bytes) {
            // R15.3 step 2 comes first whatever follows: the library's own verdict of it.
            ReplyOptions limit;
            limit.max_reply_bytes = options_.max_reply_bytes;
            return input_.diagnose_reply(received, limit);
        }
        if (!started_) {
            lead();
            if (!started_) {
                return std::nullopt;
            }
        }
        if (tail_) {
            return std::nullopt;
        }
        lc_diagnostic diag = blank_diagnostic();
        const std::string_view rest = std::string_view(received).substr(fed_);
        const lc_status status = lc_summary_stream_feed_diagnose(
            stream_->get(), reinterpret_cast<const std::uint8_t *>(rest.data()), rest.size(), &diag);
        fed_ = received.size();
        if (status == LC_OK) {
            return std::nullopt;
        }
        if (status < LC_SUMMARY_WIRE || diag.status != status) {
            throw Error(status, diag);  // a boundary error: the library failed, not the reply
        }
        return died(diag);
    }

private:
    enum class Phase { trim, fence, trim_again, body };

    // Moves past what cleanup would remove before the summary, as far as the bytes go.
    void lead()
    {
        std::size_t pos = fed_;
        for (;;) {
            if (pos >= received.size()) {
                fed_ = pos;
                return;
            }
            if (phase_ == Phase::trim || phase_ == Phase::trim_again) {
                const auto [code, size] = char_at(received, pos);
                if (size == 0) {
                    fed_ = pos;  // a character cut by the end of what arrived: wait
                    return;
                }
                if (size > 0 && white_space(code)) {
                    pos += static_cast<std::size_t>(size);
                    removed_ |= LC_REPLY_TRIM;
                    continue;
                }
                // Not White_Space, or a byte that starts no valid UTF-8 sequence: the trim ends.
                phase_ = phase_ == Phase::trim && options_.unfence ? Phase::fence : Phase::body;
            } else if (phase_ == Phase::fence) {
                const std::optional<bool> fence = fence_line(pos);
                if (!fence) {
                    fed_ = pos;  // not known yet
                    return;
                }
                if (*fence) {
                    pos = received.find('\n', pos) + 1;
                    removed_ |= LC_REPLY_UNFENCE;
                    phase_ = options_.trim ? Phase::trim_again : Phase::body;
                } else {
                    phase_ = Phase::body;
                }
            } else {
                start_ = fed_ = pos;
                started_ = true;
                return;
            }
        }
    }

    // Whether an opening fence line (R15.5) starts at `pos`: nullopt until its LF arrived (or a
    // byte shows it cannot be one).
    std::optional<bool> fence_line(std::size_t pos) const
    {
        const char mark = received[pos];
        if (mark != '`' && mark != '~') {
            return false;
        }
        std::size_t run = pos;
        while (run < received.size() && received[run] == mark) {
            ++run;
        }
        if (run - pos < 3 && run < received.size()) {
            return false;
        }
        const std::size_t end = received.find('\n', run);
        const std::string_view info =
            std::string_view(received).substr(run, end == std::string::npos ? std::string::npos : end - run);
        if (mark == '`' && info.find('`') != std::string_view::npos) {
            return false;
        }
        if (end == std::string::npos) {
            return std::nullopt;
        }
        return run - pos >= 3;
    }

    // The verdict of a reply whose stream died with `diag`, or nullopt when it died at the byte
    // after a complete summary and cleanup may remove what follows.
    std::optional<ReplyVerdict> died(lc_diagnostic diag)
    {
        const std::uint64_t dead = lc_summary_stream_dead_offset(stream_->get());
        if ((options_.trim || options_.unfence) && dead != LC_OFFSET_UNKNOWN &&
            lc_summary_xml_validate(reinterpret_cast<const std::uint8_t *>(received.data()) + start_,
                                    static_cast<std::size_t>(dead)) == LC_OK) {
            tail_ = true;
            return std::nullopt;
        }
        // Offsets, lines and columns of the reply as it arrived (R15.7, C13.2: lines end at LF,
        // columns count characters).
        const std::size_t offset = start_ + (diag.offset == LC_OFFSET_UNKNOWN ? 0 : static_cast<std::size_t>(diag.offset));
        const std::string_view before = std::string_view(received).substr(0, offset);
        const std::size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
        std::uint64_t column = 1;
        for (const char c : before.substr(line_start)) {
            column += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
        }
        diag.offset = offset;
        diag.line = static_cast<std::uint64_t>(std::count(before.begin(), before.end(), '\n')) + 1;
        diag.column = column;
        std::memset(diag.location, 0, sizeof diag.location);
        std::memcpy(diag.location, "summary", sizeof "summary");
        diag.removed = removed_;
        diag.removed_before = start_;
        diag.removed_after = 0;
        ReplyVerdict verdict;
        verdict.status = diag.status;
        verdict.diagnostic = Diagnostic::from_c(diag);
        verdict.retry_message = loopcompact::retry_message(diag);
        return verdict;
    }

    const Input &input_;
    ReplyOptions options_;
    bool structured_;
    std::optional<SummaryStream> stream_;  // none for structured replies
    Phase phase_;
    bool started_ = false;  // past the lead: the summary starts at start_
    std::size_t start_ = 0;
    std::size_t fed_ = 0;  // where feeding has reached (in the lead: where the lead was read to)
    std::uint32_t removed_ = 0;
    bool tail_ = false;  // the summary was complete: nothing more is fed
};

// What reading a streamed reply gave: the whole reply with its usage, or the verdict of the chunk
// after which it could not pass (`reply.text` the bytes read), or the exception of its `next` or
// `usage`.
struct StreamRead {
    SummaryReply reply;
    std::optional<ReplyVerdict> aborted;
    std::exception_ptr failed;
    std::string failed_type;  // the exception's type, for KeepHistory's reason
};

// Reads `stream` (taken, so destroyed when reading stops) into a StreamCheck (SPEC T17.6).
inline StreamRead read_stream(const Input &input, SummaryReplyStream stream, const ReplyOptions &options, bool structured)
{
    StreamRead out;
    if (!stream.next || !stream.usage) {
        throw std::invalid_argument("loopcompact::compact: call_model returned a SummaryReplyStream without next or usage");
    }
    StreamCheck check(input, options, structured);
    const auto caller = [&out](auto &&call) {
        try {
            call();
            return true;
        } catch (const std::exception &e) {
            out.failed = std::current_exception();
            out.failed_type = exception_type(e);
        } catch (...) {
            out.failed = std::current_exception();
            out.failed_type = "an exception that is not a std::exception";
        }
        return false;
    };
    for (;;) {
        std::optional<std::string> chunk;
        if (!caller([&] { chunk = stream.next(); })) {
            return out;
        }
        if (!chunk) {
            break;
        }
        out.aborted = check.add(*chunk);
        if (out.aborted) {
            stream = SummaryReplyStream{};  // stop reading: release the provider's stream now
            out.reply.text = std::move(check.received);
            return out;
        }
    }
    SummaryUsage usage;
    if (!caller([&] { usage = stream.usage(); })) {
        return out;
    }
    out.reply.text = std::move(check.received);
    out.reply.output_tokens = usage.output_tokens;
    out.reply.stop = usage.stop;
    return out;
}

}  // namespace detail

// Runs one compaction round (SPEC R15.12) with the caller's model: `call_model` is any callable
// taking a const SummaryRequest & and returning a SummaryReply, or a SummaryReplyStream for a
// streaming summariser (checked at compile time: nothing else can pass for a reply).
//
//  1. The cut is input.safe_cut(keep_last, {pending_tail}): a pending tail stays on the kept side
//     (G16.13). A cut that leaves nothing to summarise, a transcript whose tool calls are not
//     paired otherwise, or a head over max_input_bytes ends the round at once with
//     KeepHistory; the model is not called.
//  2. Each attempt sends a SummaryRequest and checks the reply with diagnose_reply (trim and
//     unfence on by default); on_attempt sees it.
//  3. LC_OK gives Compacted: the summary, the cut and build_replacement(cut, summary).
//  4. A RETRY verdict leads to the next attempt while attempts remain, with one more pair of turns
//     (so no two requests are equal); a truncated reply first doubles max_tokens (up to
//     max_summary_tokens), then shrinks the head's budget to 3/4 of the head last sent (the head
//     stays when nothing smaller fits).
//  5. Any other verdict, or running out of attempts, gives KeepHistory with that status.
//
// Throws loopcompact::Error for a failing library call of the host's (a moved-from Input),
// std::invalid_argument for options it cannot run with (attempts 0, max_tokens above
// max_summary_tokens) or a reply whose stop is not LC_STOP_*, and whatever call_model or
// on_attempt throw, unless on_error is OnError::keep_history (call_model's only).
template <typename CallModel>
CompactResult compact(const Input &input, CallModel &&call_model, const CompactOptions &options = {})
{
    static_assert(std::is_invocable_r_v<SummaryReply, CallModel &, const SummaryRequest &> ||
                      std::is_invocable_r_v<SummaryReplyStream, CallModel &, const SummaryRequest &>,
                  "call_model must be callable with a const loopcompact::SummaryRequest & and return a "
                  "loopcompact::SummaryReply or a loopcompact::SummaryReplyStream");
    // A streaming summariser (SPEC T17.6): the reply read chunk by chunk, stopped at its first
    // dead chunk.
    constexpr bool streamed = std::is_invocable_r_v<SummaryReplyStream, CallModel &, const SummaryRequest &> &&
                              !std::is_invocable_r_v<SummaryReply, CallModel &, const SummaryRequest &>;
    if (options.attempts == 0) {
        throw std::invalid_argument("loopcompact::compact: attempts must be at least 1");
    }
    // An option no input can run with is refused before step 1, as Python and JS refuse it.
    if (options.max_tokens == std::optional<std::uint64_t>{0}) {
        throw std::invalid_argument("loopcompact::compact: max_tokens must be at least 1");
    }

    // Step 1: the cut and the head.
    std::uint64_t cut = 0;
    try {
        CutOptions cut_options;
        cut_options.pending_tail = options.pending_tail;
        cut = input.safe_cut(options.keep_last, cut_options);
    } catch (const Error &e) {
        if (e.status() >= LC_PAIRING_UNANSWERED_CALL && e.status() <= LC_PAIRING_DUPLICATE_RESULT) {
            return detail::keep_history(
                e.diagnostic(), "the transcript's tool calls and results are not paired (SPEC S14.3), so no cut is safe", {});
        }
        throw;
    }
    std::uint64_t budget = options.max_input_bytes.value_or(std::numeric_limits<std::uint64_t>::max());
    std::vector<std::uint8_t> head;
    try {
        head = input.encode_head_within(cut, budget);
    } catch (const Error &e) {
        if (e.status() == LC_REPLACEMENT_EMPTY_HEAD) {
            return detail::keep_history(e.diagnostic(), "nothing to summarise: only leading system messages come before the cut", {});
        }
        if (e.status() == LC_INPUT_TOO_LARGE) {
            return detail::keep_history(e.diagnostic(),
                                        "the head does not fit under max_input_bytes, even with old tool results omitted", {});
        }
        throw;
    }
    const std::uint64_t max_summary = input.max_summary_tokens();
    std::uint64_t max_tokens = options.max_tokens.value_or(max_summary);
    if (max_tokens > max_summary) {
        throw std::invalid_argument("loopcompact::compact: max_tokens must be between 1 and the input's max_summary_tokens");
    }
    ReplyOptions reply_options;
    reply_options.trim = options.trim;
    reply_options.unfence = options.unfence;
    reply_options.max_reply_bytes = options.max_reply_bytes.value_or(
        std::max<std::uint64_t>(LC_SMALLEST_SUMMARY_LEN, detail::saturating_mul(16, max_summary)));
    if (reply_options.max_reply_bytes < LC_SMALLEST_SUMMARY_LEN) {
        // Step 1 with R15.2: no reply can meet the limit, so no request is sent. The diagnosis is
        // the reply check's own (R15.3 step 1 holds whatever the reply).
        ReplyVerdict unreachable = input.diagnose_reply(bytes_view{}, reply_options);
        if (!unreachable.ok()) {
            return detail::keep_history(
                unreachable.diagnostic,
                "max_reply_bytes is below the smallest valid summary, so no reply can meet it; no request was sent", {});
        }
    }

    std::string system(summary_instructions());
    std::string json_schema{};
    if (options.structured) {
        system += "\n\n";
        system += structured_note;
        json_schema = summary_json_schema();
    }
    std::string head_text(head.begin(), head.end());
    std::vector<ChatMessage> turns;  // the rejected attempts' pairs of turns, in order
    std::vector<Attempt> attempts;
    std::vector<Diagnostic> diagnoses;
    for (unsigned n = 1;; ++n) {
        // Step 2: the request, with its own copy of the turns.
        SummaryRequest request;
        request.system = system;
        request.messages.reserve(1 + turns.size());
        request.messages.push_back(ChatMessage{"user", head_text});
        request.messages.insert(request.messages.end(), turns.begin(), turns.end());
        request.max_tokens = max_tokens;
        request.attempt = n;
        request.json_schema = json_schema;
        SummaryReply reply;
        std::optional<ReplyVerdict> aborted;
        const auto with_model_error = [&attempts](std::string reason, std::exception_ptr error) {
            KeepHistory out = detail::keep_history(Diagnostic{}, std::move(reason), std::move(attempts));
            out.model_error = std::move(error);
            return out;
        };
        const auto call = [&] {
            if constexpr (streamed) {
                detail::StreamRead read = detail::read_stream(
                    input, call_model(static_cast<const SummaryRequest &>(request)), reply_options, options.structured);
                if (read.failed) {
                    if (options.on_error == OnError::raise) {
                        std::rethrow_exception(read.failed);
                    }
                    return std::optional<KeepHistory>(with_model_error(
                        "attempt " + std::to_string(n) + ": the reply stream threw " + read.failed_type, read.failed));
                }
                reply = std::move(read.reply);
                aborted = std::move(read.aborted);
            } else {
                reply = call_model(static_cast<const SummaryRequest &>(request));
            }
            return std::optional<KeepHistory>();
        };
        if (options.on_error == OnError::keep_history) {
            std::optional<KeepHistory> failed;
            try {
                failed = call();
            } catch (const std::exception &e) {
                KeepHistory out = detail::keep_history(Diagnostic{}, "attempt " + std::to_string(n) +
                                                                         ": call_model threw " + detail::exception_type(e),
                                                       std::move(attempts));
                out.model_error = std::current_exception();
                return out;
            } catch (...) {
                KeepHistory out = detail::keep_history(
                    Diagnostic{}, "attempt " + std::to_string(n) + ": call_model threw an exception that is not a std::exception",
                    std::move(attempts));
                out.model_error = std::current_exception();
                return out;
            }
            if (failed) {
                return std::move(*failed);
            }
        } else {
            call();
        }
        if (reply.stop != LC_STOP_UNKNOWN && reply.stop != LC_STOP_END && reply.stop != LC_STOP_LENGTH) {
            throw std::invalid_argument("loopcompact::compact: call_model returned a reply whose stop is not LC_STOP_*");
        }

        // Step 3: the verdict, with its diagnosis (what cleanup removed, on LC_OK too).
        reply_options.output_tokens = reply.output_tokens;
        reply_options.stop = reply.stop;
        std::size_t reply_bytes = reply.text.size();
        ReplyVerdict verdict = aborted                                  ? std::move(*aborted)
                               : reply.sections || options.structured ? detail::structured_verdict(
                                                                            input, reply, reply_options, max_summary, reply_bytes)
                                                                      : input.diagnose_reply(reply.text, reply_options);
        Attempt attempt;
        attempt.number = n;
        attempt.request = std::move(request);
        attempt.reply_bytes = reply_bytes;
        attempt.stop = reply.stop;
        attempt.status = verdict.status;
        attempt.status_class = verdict.diagnostic.status_class;
        attempt.diagnosis = verdict.diagnostic;
        attempt.retry_message = verdict.retry_message;
        attempt.aborted = aborted.has_value();
        attempts.push_back(attempt);
        diagnoses.push_back(attempt.diagnosis);
        if (options.on_attempt) {
            options.on_attempt(attempts.back());
        }

        if (attempt.status == LC_OK) {
            Compacted out;
            out.replacement = input.build_replacement(cut, verdict.summary);
            out.summary = std::move(verdict.summary);
            out.cut = cut;
            out.attempts = std::move(attempts);
            out.diagnoses = std::move(diagnoses);
            return out;
        }
        if (attempt.status_class != LC_CLASS_RETRY) {
            return detail::keep_history(attempt.diagnosis, detail::stop_reason(attempt), std::move(attempts));
        }
        if (n == options.attempts) {
            return detail::keep_history(attempt.diagnosis,
                                        "all " + std::to_string(n) + " attempts were rejected, the last with " +
                                            lc_status_name(attempt.status),
                                        std::move(attempts));
        }

        // Step 4: escalation of a truncated reply, then the pair of turns for the next request.
        if (attempt.status == LC_REPLY_TRUNCATED) {
            if (max_tokens < max_summary) {
                max_tokens = std::min(detail::saturating_mul(2, max_tokens), max_summary);
            } else {
                const auto len = static_cast<std::uint64_t>(head.size());
                budget = len / 4 * 3 + len % 4 * 3 / 4;  // floor(3/4 * len) without overflow
                try {
                    head = input.encode_head_within(cut, budget);
                    head_text.assign(head.begin(), head.end());
                } catch (const Error &e) {
                    if (e.status() != LC_INPUT_TOO_LARGE) {
                        throw;
                    }
                }
            }
        }
        const bool shown = options.reshow_rejected && (!reply.sections || !reply.text.empty());
        turns.push_back(ChatMessage{"assistant", shown ? reply.text : std::string(withheld_reply)});
        turns.push_back(ChatMessage{"user", options.structured ? attempt.retry_message + "\n\n" + std::string(structured_note)
                                                               : attempt.retry_message});
    }
}

/* ---- policies (SPEC §8) --------------------------------------------------------------------- */

// Validates a compaction policy for a counter of quality `counter_quality` (LC_COUNTER_QUALITY_*;
// lc_compaction_policy_diagnose); throws Error (LC_POLICY_*).
inline void validate_compaction_policy(bytes_view json, std::int32_t counter_quality)
{
    lc_diagnostic diag = detail::blank_diagnostic();
    detail::check(lc_compaction_policy_diagnose(json.data(), json.size(), counter_quality, &diag), diag);
}

// Validates a context observation policy (lc_context_observation_diagnose); throws Error.
inline void validate_observation_policy(bytes_view json, std::int32_t counter_quality)
{
    lc_diagnostic diag = detail::blank_diagnostic();
    detail::check(lc_context_observation_diagnose(json.data(), json.size(), counter_quality, &diag), diag);
}

// Validates a context configuration (lc_context_config_diagnose); throws Error (LC_CONTEXT_*, or
// the nested policy's code).
inline void validate_context_config(bytes_view json)
{
    lc_diagnostic diag = detail::blank_diagnostic();
    detail::check(lc_context_config_diagnose(json.data(), json.size(), &diag), diag);
}

/* ---- limits (SPEC §9) ----------------------------------------------------------------------- */

// The input limit of a model for a policy's reservation and margin (lc_context_limits_resolve);
// throws Error(LC_LIMITS_UNKNOWN).
inline lc_resolved_limits resolve_limits(const lc_context_limits &limits, std::uint64_t reserved_output,
                                         std::uint64_t safety_margin)
{
    lc_resolved_limits out{};
    detail::check(lc_context_limits_resolve(limits, reserved_output, safety_margin, &out));
    return out;
}

// floor(used * 10000 / limit), at most 10000 (lc_occupancy_basis_points); throws
// Error(LC_OCCUPANCY_ZERO_LIMIT).
inline std::uint16_t occupancy_basis_points(std::uint64_t used, std::uint64_t limit)
{
    std::uint16_t out = 0;
    detail::check(lc_occupancy_basis_points(used, limit, &out));
    return out;
}

// LC_PRESSURE_* for an occupancy (lc_pressure_level); pass the previous result as `previous_level`.
inline std::int32_t pressure_level(std::int32_t previous_level, std::uint16_t occupancy, bool automatic,
                                   std::uint16_t compact_at, std::uint16_t rearm_below) noexcept
{
    return lc_pressure_level(previous_level, occupancy, automatic, compact_at, rearm_below);
}

// The rebuilt request must stay below its input limit (lc_replacement_check); throws
// Error(LC_SUMMARY_TOO_LARGE).
inline void check_replacement(std::uint64_t input_tokens, std::uint64_t input_limit)
{
    detail::check(lc_replacement_check(input_tokens, input_limit));
}

/* ---- request fingerprint (SPEC §10) --------------------------------------------------------- */

using Fingerprint = std::array<std::uint8_t, LC_FINGERPRINT_LEN>;

// SHA-256 of the canonical request document (lc_request_fingerprint_diagnose); throws Error
// (LC_FINGERPRINT_*) with the failing field as location.
inline Fingerprint request_fingerprint(bytes_view json)
{
    Fingerprint out{};
    lc_diagnostic diag = detail::blank_diagnostic();
    detail::check(lc_request_fingerprint_diagnose(json.data(), json.size(), out.data(), &diag), diag);
    return out;
}

// 64 lower-case hex characters, as the input wire's request_fingerprint.
inline std::string to_hex(const Fingerprint &fingerprint)
{
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * fingerprint.size());
    for (const std::uint8_t byte : fingerprint) {
        out += digits[byte >> 4];
        out += digits[byte & 0x0f];
    }
    return out;
}

/* ---- the loop guard (SPEC S14.5, S14.6) ------------------------------------------------------ */

// After the replacement the occupancy must be below the policy's RearmBelow
// (lc_compaction_progress_check); throws Error(LC_COMPACTION_NO_PROGRESS, LC_OCCUPANCY_ZERO_LIMIT).
inline void check_progress(std::uint64_t post_input_tokens, std::uint64_t input_limit, std::uint16_t rearm_below)
{
    detail::check(lc_compaction_progress_check(post_input_tokens, input_limit, rearm_below));
}

// Even an empty history (fixed_tokens + MaxSummaryTokens) must stay below RearmBelow
// (lc_compaction_threshold_check); throws Error(LC_COMPACTION_THRESHOLD_UNREACHABLE, ...).
inline void check_threshold(bytes_view policy_json, std::uint64_t input_limit, std::uint64_t fixed_tokens)
{
    detail::check(lc_compaction_threshold_check(policy_json.data(), policy_json.size(), input_limit, fixed_tokens));
}

}  // namespace loopcompact

#endif /* LOOPCOMPACT_HPP */
