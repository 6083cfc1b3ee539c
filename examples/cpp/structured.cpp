// structured: the round with structured output (SPEC G17.10) from C++17, with
// include/loopcompact.hpp. A scripted model answers with the five sections (SummaryReply::sections)
// or with the JSON object as text (CompactOptions::structured); compact() renders what the model
// filled and checks the rendered summary as it checks a text reply.
//
// Usage: structured INPUT
//
// INPUT is a compaction input wire document (examples/data/input_valid.json). Each step prints one
// line, "name: what happened", and checks it against what SPEC G17.10 says; the last line is
//   structured: every step as expected
// (exit 0), or names the steps that were not (exit 1). Exit 2 for a usage or I/O error.
//
// Build (see README.md), as one command line:
//   c++ -std=c++17 -Wall -Wextra -Werror -pedantic -I include examples/cpp/structured.cpp
//       -L target/release -lloopcompact -Wl,-rpath,"$PWD/target/release" -o structured

#include <array>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "loopcompact.hpp"

namespace lc = loopcompact;

namespace {

// SPEC G17.10 step 1, verbatim.
constexpr std::string_view kNote =
    "Structured output: instead of the XML document, reply with one JSON object of the given schema: the keys goal, "
    "constraints, decisions, state and open_items, each a string holding that section's plain text, without XML tags "
    "and without XML escapes (write &, < and > as they are); goal and state must not be blank.";

// G17.8 by hand: one LF between elements, &, < and > escaped, empty optional sections self-closed.
constexpr std::string_view kRendered =
    "<conversation_summary>\n<goal>Fix the nightly build &amp; keep it green.</goal>\n<constraints/>\n"
    "<decisions>Use &lt;timeout&gt; of 30s.</decisions>\n<state>The cause was found.</state>\n<open_items/>\n"
    "</conversation_summary>";

const lc::SummarySections kSections{"Fix the nightly build & keep it green.", "", "Use <timeout> of 30s.",
                                    "The cause was found.", ""};
const std::string kJson = "{\"goal\":\"Fix the nightly build & keep it green.\",\"constraints\":\"\","
                          "\"decisions\":\"Use <timeout> of 30s.\",\"state\":\"The cause was found.\",\"open_items\":\"\"}";

lc::SummaryReply sections_reply(lc::SummarySections sections, std::uint64_t tokens = 80)
{
    lc::SummaryReply reply;
    reply.sections = std::move(sections);
    reply.output_tokens = tokens;
    reply.stop = LC_STOP_END;
    return reply;
}

lc::SummaryReply text_reply(std::string text, std::uint64_t tokens = 80, std::int32_t stop = LC_STOP_END)
{
    lc::SummaryReply reply;
    reply.text = std::move(text);
    reply.output_tokens = tokens;
    reply.stop = stop;
    return reply;
}

// The JSON object with one member's value replaced by raw JSON text.
std::string json_with(std::string_view key, std::string_view raw_value)
{
    std::string out = "{";
    const std::array<std::pair<std::string_view, std::string_view>, 5> members{{{"goal", "\"Fix it.\""},
                                                                               {"constraints", "\"\""},
                                                                               {"decisions", "\"\""},
                                                                               {"state", "\"Done.\""},
                                                                               {"open_items", "\"\""}}};
    for (const auto &[name, value] : members) {
        out += (out.size() > 1 ? ",\"" : "\"") + std::string(name) + "\":" + std::string(name == key ? raw_value : value);
    }
    return out + "}";
}

struct Run {
    lc::CompactResult result;
    std::vector<lc::SummaryRequest> requests;
};

Run run(const lc::Input &input, std::vector<lc::SummaryReply> replies, lc::CompactOptions options = {})
{
    Run out;
    std::size_t next = 0;
    out.result = lc::compact(
        input,
        [&](const lc::SummaryRequest &request) {
            out.requests.push_back(request);
            return next < replies.size() ? replies[next++] : text_reply("");
        },
        options);
    return out;
}

const lc::Compacted *compacted(const Run &r) { return std::get_if<lc::Compacted>(&r.result); }
const lc::KeepHistory *kept(const Run &r) { return std::get_if<lc::KeepHistory>(&r.result); }

bool ends_with(std::string_view text, std::string_view end)
{
    return text.size() >= end.size() && text.substr(text.size() - end.size()) == end;
}

std::vector<std::string> failed;

void step(const std::string &name, bool as_expected, const std::string &what)
{
    std::cout << name << ": " << what << '\n';
    if (!as_expected) {
        failed.push_back(name);
    }
}

// "LC_... section goal" of a kept round's first attempt.
std::string first_verdict(const Run &r)
{
    const lc::KeepHistory *k = kept(r);
    const lc::Compacted *c = compacted(r);
    const lc::Attempt &a = k != nullptr ? k->attempts.at(0) : c->attempts.at(0);
    std::string out = a.diagnosis.name();
    if (a.diagnosis.section != LC_SECTION_NONE) {
        out += std::string(" section ") + a.diagnosis.section_name();
    }
    return out + " (class " + lc::class_name(a.status_class) + ")";
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: structured INPUT\n";
        return 2;
    }
    std::ifstream file(argv[1], std::ios::binary);
    if (!file) {
        std::cerr << "structured: cannot read " << argv[1] << '\n';
        return 2;
    }
    const std::string wire((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    try {
        const lc::Input input = lc::Input::parse(wire);
        lc::CompactOptions structured;
        structured.structured = true;

        {
            const Run r = run(input, {sections_reply(kSections)}, structured);
            const lc::Compacted *c = compacted(r);
            const lc::SummaryRequest &q = r.requests.at(0);
            step("sections", c != nullptr && c->summary == kRendered && c->attempts[0].reply_bytes == kRendered.size() &&
                                 q.json_schema == lc::summary_json_schema() &&
                                 q.system == std::string(lc::summary_instructions()) + "\n\n" + std::string(kNote) &&
                                 lc::structured_note == kNote,
                 c != nullptr ? "compacted, " + std::to_string(c->summary.size()) + " bytes" : "kept");
        }
        {
            const Run r = run(input, {text_reply(kRendered.data())});
            step("plain", compacted(r) != nullptr && r.requests[0].json_schema.empty() &&
                              r.requests[0].system == lc::summary_instructions(),
                 "a round without structured sends no schema");
        }
        {
            const std::string body = "\r\n " + kJson + "\t";
            const Run r = run(input, {text_reply(body)}, structured);
            const lc::Compacted *c = compacted(r);
            step("json text", c != nullptr && c->summary == kRendered && c->attempts[0].reply_bytes == body.size(),
                 c != nullptr ? "compacted, the same summary" : first_verdict(r));
        }
        {
            lc::SummarySections blank = kSections;
            blank.goal = " \n\xe3\x80\x80";  // SP, LF, U+3000: White_Space only
            const Run r = run(input, {sections_reply(blank), text_reply(kJson)}, structured);
            const lc::Compacted *c = compacted(r);
            bool ok = c != nullptr && c->summary == kRendered && r.requests.size() == 2;
            if (ok) {
                const lc::Attempt &a = c->attempts[0];
                const auto &turns = r.requests[1].messages;
                ok = a.status == LC_SUMMARY_XML_CONTENT && a.status_class == LC_CLASS_RETRY &&
                     a.diagnosis.section == LC_SECTION_GOAL && a.diagnosis.rule == "G17.9" &&
                     a.diagnosis.expected == "non-blank text" && a.reply_bytes == 0 && turns.size() == 3 &&
                     turns[1].content == lc::withheld_reply &&
                     turns[2].content.find("in the goal section") != std::string::npos &&
                     ends_with(turns[2].content, std::string("\n\n") + std::string(kNote));
            }
            step("blank goal", ok, c != nullptr ? first_verdict(r) + ", then compacted" : "kept");
        }
        {
            // A lone surrogate escape is a character XML cannot carry; a pair is one character.
            const Run lone = run(input, {text_reply(json_with("constraints", "\"a\\ud800\""))}, [&] {
                lc::CompactOptions o = structured;
                o.attempts = 1;
                return o;
            }());
            const Run pair = run(input, {text_reply(json_with("decisions", "\"\\ud83d\\ude00 \\u00e9\\n\""))}, structured);
            const lc::Compacted *c = compacted(pair);
            const bool ok = kept(lone) != nullptr && kept(lone)->status == LC_SUMMARY_XML_SYNTAX &&
                            kept(lone)->attempts[0].diagnosis.section == LC_SECTION_CONSTRAINTS && c != nullptr &&
                            lc::summary_section_text(c->summary, LC_SECTION_DECISIONS) == "\xf0\x9f\x98\x80 \xc3\xa9\n";
            step("surrogates", ok, first_verdict(lone) + "; a pair reads back");
        }
        {
            const std::array<std::pair<std::string, lc_status>, 10> shapes{{
                {"<conversation_summary/>", LC_SUMMARY_WIRE},
                {"```json\n" + kJson + "\n```", LC_SUMMARY_WIRE},
                {"{\"goal\": \"g\",", LC_SUMMARY_WIRE},
                {std::string(600, '[') + std::string(600, ']'), LC_SUMMARY_WIRE},  // deeper than 512
                {kJson + "\xff", LC_SUMMARY_WIRE},
                {"[" + kJson + "]", LC_SUMMARY_OUTPUT_SHAPE},
                {json_with("state", "7"), LC_SUMMARY_OUTPUT_SHAPE},
                {json_with("constraints", "null"), LC_SUMMARY_OUTPUT_SHAPE},
                {kJson.substr(0, kJson.size() - 1) + ",\"notes\":[1,{\"a\":true}]}", LC_SUMMARY_OUTPUT_SHAPE},
                {"{\"goal\":\"g\",\"constraints\":\"\",\"decisions\":\"\",\"state\":\"s\"}", LC_SUMMARY_OUTPUT_SHAPE},
            }};
            bool ok = true;
            std::string seen;
            for (const auto &[text, status] : shapes) {
                const Run r = run(input, {text_reply(text), text_reply(kRendered.data())}, structured);
                const lc::KeepHistory *k = kept(r);
                ok = ok && k != nullptr && k->status == status && k->attempts[0].status_class == LC_CLASS_DISCARD &&
                     k->attempts[0].diagnosis.rule == "G17.10" && k->attempts[0].diagnosis.location == "summary" &&
                     r.requests.size() == 1;
                seen += seen.empty() ? "" : ", ";
                seen += k != nullptr ? lc_status_reason(k->status) : "compacted";
            }
            // A key given twice counts once, with its last value.
            const Run twice = run(input, {text_reply(kJson.substr(0, kJson.size() - 1) + ",\"goal\":\"Second goal.\"}")}, structured);
            ok = ok && compacted(twice) != nullptr &&
                 compacted(twice)->summary.find("<goal>Second goal.</goal>") != std::string::npos;
            step("not the object", ok, seen);
        }
        {
            lc::CompactOptions options = structured;
            options.max_tokens = 1000;
            const Run r = run(input, {text_reply(kJson.substr(0, 50), 2048, LC_STOP_LENGTH), text_reply(kJson, 70)}, options);
            const lc::Compacted *c = compacted(r);
            const bool ok = c != nullptr && c->attempts[0].status == LC_REPLY_TRUNCATED &&
                            c->attempts[0].diagnosis.rule == "R15.4" && c->attempts[0].diagnosis.limit == 2048u &&
                            c->attempts[0].diagnosis.actual == 2048u && r.requests[0].max_tokens == 1000 &&
                            r.requests[1].max_tokens == 2000;
            step("truncated", ok, first_verdict(r) + ", max_tokens doubled, then compacted");
        }
        {
            lc::CompactOptions options;
            options.max_reply_bytes = kRendered.size() - 1;
            options.attempts = 1;
            const Run limit = run(input, {sections_reply(kSections)}, options);
            const Run usage = run(input, {sections_reply(kSections, 0)}, structured);
            const bool ok = kept(limit) != nullptr && kept(limit)->status == LC_SUMMARY_BYTE_LIMIT &&
                            kept(limit)->attempts[0].diagnosis.actual == kRendered.size() && kept(usage) != nullptr &&
                            kept(usage)->status == LC_SUMMARY_TOKEN_USAGE;
            step("text verdicts", ok, first_verdict(limit) + "; " + first_verdict(usage));
        }
        {
            lc::SummarySections blank = kSections;
            blank.state = "";
            const Run r = run(input, {sections_reply(blank), sections_reply(blank), sections_reply(blank)}, structured);
            const lc::KeepHistory *k = kept(r);
            step("never unvalidated", k != nullptr && k->status == LC_SUMMARY_XML_CONTENT && k->attempts.size() == 3,
                 k != nullptr ? "kept after " + std::to_string(k->attempts.size()) + " attempts: " + first_verdict(r) : "compacted");
        }
    } catch (const std::exception &e) {
        std::cerr << "structured: " << e.what() << '\n';
        return 2;
    }
    if (!failed.empty()) {
        std::cout << "structured: not as expected:";
        for (const std::string &name : failed) {
            std::cout << ' ' << name;
        }
        std::cout << '\n';
        return 1;
    }
    std::cout << "structured: every step as expected\n";
    return 0;
}
