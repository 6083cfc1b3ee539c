// pairing: the transcript safety that never blocks compaction (docs/SPEC.md §16.9) from C++17:
// every violation, the safe cut with and without a pending tail, and the repair plan.
//
// Usage: pairing INPUT KEEP_LAST
//
//   INPUT      the compaction input wire document (JSON, SPEC §5)
//   KEEP_LAST  the number of recent messages to keep at least
//
// Prints, one per line:
//   violation: message M[, block B]: STATUS     (each S14.3 violation, G16.14)
//   safe cut: C                                   (pending tail kept, G16.13) or the Error's status
//   safe cut (S14.4): C                           (no pending tail: §14's verdict) or the status
//   repair plan: JSON                             (G16.15) or the Error's status
//   repaired: JSON                                (the transcript with the plan applied)
//
// Exit status: 0, or 2 for a usage or I/O error or an input that does not parse.
// Build like roundtrip.cpp (README.md, "Host guide: C++"). Try:
//   ./pairing examples/data/input_unpaired.json 1

#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "loopcompact.hpp"

namespace lc = loopcompact;

namespace {

std::string name(lc_status status) { return lc_status_name(status); }

template <typename F>
std::string outcome(F f)
{
    try {
        return f();
    } catch (const lc::Error &e) {
        return name(e.status());
    }
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::cerr << "usage: pairing INPUT KEEP_LAST\n";
        return 2;
    }
    std::ifstream file(argv[1], std::ios::binary);
    if (!file) {
        std::cerr << "pairing: cannot read " << argv[1] << "\n";
        return 2;
    }
    const std::vector<std::uint8_t> wire((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const std::uint64_t keep_last = std::stoull(argv[2]);
    try {
        const lc::Input input = lc::Input::parse(wire);
        std::cout << "messages: " << input.message_count() << ", leading systems: " << input.leading_systems()
                  << ", max_summary_tokens: " << input.max_summary_tokens() << "\n";
        for (const lc::Violation &v : input.pairing_violations()) {
            std::cout << "violation: message " << v.message;
            if (v.block) {
                std::cout << ", block " << *v.block;
            }
            std::cout << ": " << name(v.status) << "\n";
        }
        std::cout << "safe cut: " << outcome([&] { return std::to_string(input.safe_cut(keep_last, lc::CutOptions{})); })
                  << "\n";
        lc::CutOptions strict;
        strict.pending_tail = false;
        std::cout << "safe cut (S14.4): "
                  << outcome([&] { return std::to_string(input.safe_cut(keep_last, strict)); }) << "\n";
        std::cout << "repair plan: " << outcome([&] { return input.repair_plan(); }) << "\n";
        std::cout << "repaired: " << outcome([&] {
            const std::vector<std::uint8_t> repaired = input.repair();
            return std::string(repaired.begin(), repaired.end());
        }) << "\n";
    } catch (const lc::Error &e) {
        std::cerr << "pairing: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
