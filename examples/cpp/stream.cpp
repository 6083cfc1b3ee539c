// stream: the streaming validator of SPEC §17.3 from C++17, with include/loopcompact.hpp. A host
// receives the summariser's reply in chunks and wants to stop the call at the first chunk after
// which the reply can no longer become a valid summary.
//
// Usage: stream CHUNK_BYTES FILE
//
// Feeds FILE to a loopcompact::SummaryStream in chunks of CHUNK_BYTES bytes and prints one line:
//   valid: N bytes in K chunks
// (exit 0) when every chunk was viable and finish() accepts the whole; or
//   dead in chunk K: byte D killed it; NAME at offset O (line L, column C); U of N bytes never fed
// (exit 1) at the first dead chunk; or
//   invalid at the end: NAME at offset O
// (exit 1) when every chunk was viable but the reply is incomplete. Exit 2 for a usage error or a
// file that cannot be read.
//
// Build (see README.md), as one command line:
//   c++ -std=c++17 -Wall -Wextra -Werror -pedantic -I include examples/cpp/stream.cpp
//       -L target/release -lloopcompact -Wl,-rpath,"$PWD/target/release" -o stream
// Try:
//   ./stream 16 examples/data/reply_fenced.txt

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "loopcompact.hpp"

namespace lc = loopcompact;

namespace {

enum { kValid = 0, kInvalid = 1, kUsage = 2 };

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::cerr << "usage: stream CHUNK_BYTES FILE\n";
        return kUsage;
    }
    char *end = nullptr;
    const unsigned long chunk = std::strtoul(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || chunk == 0) {
        std::cerr << "stream: CHUNK_BYTES must be a positive number\n";
        return kUsage;
    }
    std::ifstream file(argv[2], std::ios::binary);
    if (!file) {
        std::cerr << "stream: cannot read the file\n";
        return kUsage;
    }
    const std::vector<char> reply((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());

    lc::SummaryStream stream;
    std::size_t fed = 0;
    std::size_t chunks = 0;
    while (fed < reply.size()) {
        const std::size_t n = std::min<std::size_t>(chunk, reply.size() - fed);
        ++chunks;
        try {
            stream.feed(lc::bytes_view(reply.data() + fed, n));
        } catch (const lc::Error &e) {
            const lc::Diagnostic &d = e.diagnostic();
            std::cout << "dead in chunk " << chunks << ": byte " << stream.dead_offset().value_or(0) << " killed it; "
                      << e.name() << " at offset " << d.offset.value_or(0) << " (line " << d.line.value_or(0) << ", column "
                      << d.column.value_or(0) << "); " << reply.size() - fed - n << " of " << reply.size()
                      << " bytes never fed\n";
            return kInvalid;
        }
        fed += n;
    }
    try {
        stream.finish();
    } catch (const lc::Error &e) {
        std::cout << "invalid at the end: " << e.name() << " at offset " << e.diagnostic().offset.value_or(0) << "\n";
        return kInvalid;
    }
    std::cout << "valid: " << reply.size() << " bytes in " << chunks << " chunks\n";
    return kValid;
}
