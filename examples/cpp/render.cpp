// render: the structured-output path of SPEC §17.2 from C++17, with include/loopcompact.hpp. A model
// filled the five strings of loopcompact::summary_json_schema(); the host renders them into the
// summary, validates it, and reads each section back.
//
// Usage: render GOAL CONSTRAINTS DECISIONS STATE OPEN_ITEMS
//        render --grammar regex|lark|gbnf
//        render --schema
//
// The first form prints the rendered summary, then one line
//   valid: N bytes, every section reads back
// (exit 0), or, when the renderer refuses the texts (G17.9),
//   refused: STATUS_NAME REASON (class CLASS)
// (exit 1). --grammar prints the grammar of that kind for constrained decoding (G17.1) and
// --schema the JSON Schema (G17.7), each followed by a newline. Exit 2 for a usage error.
//
// Build (see README.md), as one command line:
//   c++ -std=c++17 -Wall -Wextra -Werror -pedantic -I include examples/cpp/render.cpp
//       -L target/release -lloopcompact -Wl,-rpath,"$PWD/target/release" -o render
// Try:
//   ./render "Ship 1.2" "no API change" "" "tests <pass> & CI green" ""

#include <array>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>

#include "loopcompact.hpp"

namespace lc = loopcompact;

namespace {

enum { kValid = 0, kRefused = 1, kUsage = 2 };

int usage()
{
    std::cerr << "usage: render GOAL CONSTRAINTS DECISIONS STATE OPEN_ITEMS\n"
                 "       render --grammar regex|lark|gbnf\n"
                 "       render --schema\n";
    return kUsage;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc == 3 && std::string_view(argv[1]) == "--grammar") {
        const std::string_view kind = argv[2];
        lc::GrammarKind which{};
        if (kind == "regex") {
            which = lc::GrammarKind::regex;
        } else if (kind == "lark") {
            which = lc::GrammarKind::lark;
        } else if (kind == "gbnf") {
            which = lc::GrammarKind::gbnf;
        } else {
            return usage();
        }
        std::cout << lc::summary_grammar(which) << '\n';
        return kValid;
    }
    if (argc == 2 && std::string_view(argv[1]) == "--schema") {
        std::cout << lc::summary_json_schema() << '\n';
        return kValid;
    }
    if (argc != 6) {
        return usage();
    }
    const std::array<std::string_view, 5> texts = {argv[1], argv[2], argv[3], argv[4], argv[5]};
    std::string xml;
    try {
        xml = lc::render_summary(lc::Sections{texts[0], texts[1], texts[2], texts[3], texts[4]});
    } catch (const lc::Error &e) {
        const lc::Diagnostic &d = e.diagnostic();
        std::cout << "refused: " << d.name() << ' ' << d.reason() << " (class " << d.class_name() << ")\n";
        return kRefused;
    }
    std::cout << xml << '\n';
    // What the renderer promises (G17.8): the summary is valid and gives every text back. A broken
    // promise is a bug: it throws out of main.
    lc::validate_summary(xml);
    const std::array<std::int32_t, 5> sections = {LC_SECTION_GOAL, LC_SECTION_CONSTRAINTS, LC_SECTION_DECISIONS,
                                                  LC_SECTION_STATE, LC_SECTION_OPEN_ITEMS};
    for (std::size_t i = 0; i < sections.size(); ++i) {
        if (lc::summary_section_text(xml, sections[i]) != texts[i]) {
            std::cout << "section " << lc::section_name(sections[i]) << " reads back differently\n";
            return kRefused;
        }
    }
    std::cout << "valid: " << xml.size() << " bytes, every section reads back\n";
    return kValid;
}
