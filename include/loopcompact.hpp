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
 *   input (§5,§7) Input::parse, validate_input, Input::encode_within, Input::encoded_size_within
 *   output (§6)   Input::validate_output
 *   policies (§8) validate_compaction_policy, validate_observation_policy, validate_context_config
 *   limits (§9)   resolve_limits, occupancy_basis_points, pressure_level, check_replacement
 *   fingerprint   request_fingerprint, to_hex
 *   safety (§14)  Input::check_pairing, Input::safe_cut, Input::check_cut, check_progress,
 *                 check_threshold
 */

#ifndef LOOPCOMPACT_HPP
#define LOOPCOMPACT_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

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

/* ---- compaction input, output, transcript safety (SPEC §5, §6, §7, §14) --------------------- */

// Validates a compaction input wire document without keeping it (lc_compaction_input_diagnose).
inline void validate_input(bytes_view wire)
{
    lc_diagnostic diag = detail::blank_diagnostic();
    detail::check(lc_compaction_input_diagnose(wire.data(), wire.size(), &diag), diag);
}

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
        return Input(handle);
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
        std::vector<std::uint8_t> out(encoded_size_within(max_bytes));
        std::size_t written = 0;
        detail::check(lc_compaction_input_encode_within(handle_.get(), max_bytes, out.data(), out.size(), &written));
        out.resize(written);
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

private:
    struct Free {
        void operator()(lc_compaction_input *handle) const noexcept { lc_compaction_input_free(handle); }
    };

    explicit Input(lc_compaction_input *handle) noexcept : handle_(handle) {}

    // A pairing status from the cut functions: the pairing check says where.
    void check_with_pairing(lc_status status) const
    {
        if (status >= LC_PAIRING_UNANSWERED_CALL && status <= LC_PAIRING_DUPLICATE_RESULT) {
            check_pairing();
        }
        detail::check(status);
    }

    std::unique_ptr<lc_compaction_input, Free> handle_;
};

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
