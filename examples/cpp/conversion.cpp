// conversion: an OpenAI Chat message list and an Anthropic request converted into loopcompact's wire
// transcript from C++17 (SPEC §16), with loopcompact::Conversion of include/loopcompact.hpp: the
// cut map, the loss report, and the source messages a compaction keeping the last message would
// summarise.
//
// Usage: conversion CHAT_FILE ANTHROPIC_FILE
//
//   CHAT_FILE       an OpenAI Chat Completions messages array (JSON)
//   ANTHROPIC_FILE  an Anthropic {"system": ..., "messages": [...]} document (JSON)
//
// For each file it prints
//   FORMAT: N wire messages from S source messages
//   FORMAT: source_index I0 I1 ...       ("system" for the system parameter)
//   FORMAT: cut_allowed A0 A1 ... An     (1 where a cut falls on a source message boundary)
//   FORMAT: loss I NAME                  (one line per loss)
//   FORMAT: keeping the last message, summarise wire [0, C) = source [0, S)
// and a refused file as
//   FORMAT: refused STATUS_NAME; WHERE   (the diagnosis: location, offset, rule; never its bytes)
//
// Exit status: 0 when both convert, 1 when one is refused, 2 for a usage or I/O error.
//
// Build (see README.md), as one command line:
//   c++ -std=c++17 -Wall -Wextra -Werror -pedantic -I include examples/cpp/conversion.cpp
//       -L target/release -lloopcompact -Wl,-rpath,"$PWD/target/release" -o conversion
// Try:
//   ./conversion examples/data/convert_chat.json examples/data/convert_anthropic.json

#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "loopcompact.hpp"

namespace {

enum { kConverted = 0, kRefused = 1, kUsageOrIo = 2 };

struct Fatal : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::vector<std::uint8_t> read_file(const std::string &path)
{
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

std::string index_text(const std::optional<std::uint64_t> &index)
{
    return index ? std::to_string(*index) : std::string("system");
}

// Converts one source and prints its report; false when the source is refused.
bool report(const char *name, std::int32_t format, const std::vector<std::uint8_t> &source)
{
    try {
        const loopcompact::Conversion conversion = loopcompact::Conversion::convert(format, source);
        const std::vector<std::optional<std::uint64_t>> index = conversion.source_index();
        std::cout << name << ": " << index.size() << " wire messages from " << conversion.source_len()
                  << " source messages\n";
        std::cout << name << ": source_index";
        for (const auto &i : index) {
            std::cout << ' ' << index_text(i);
        }
        std::cout << '\n' << name << ": cut_allowed";
        for (const bool allowed : conversion.cut_allowed()) {
            std::cout << ' ' << (allowed ? 1 : 0);
        }
        std::cout << '\n';
        for (const loopcompact::Loss &loss : conversion.losses()) {
            std::cout << name << ": loss " << index_text(loss.source_index) << ' ' << loss.name() << '\n';
        }
        // The input around the transcript cuts only where a source message begins.
        const loopcompact::Input input = conversion.input("example", "example-model", 1000, 1);
        const std::uint64_t cut = input.safe_cut(1);
        std::cout << name << ": keeping the last message, summarise wire [0, " << cut << ") = source [0, "
                  << conversion.source_cut(cut) << ")\n";
        return true;
    } catch (const loopcompact::Error &e) {
        std::cout << name << ": refused " << e.name() << "; " << e.diagnostic().where() << '\n';
        return false;
    }
}

int run(int argc, char **argv)
{
    if (argc != 3) {
        throw Fatal("usage: conversion CHAT_FILE ANTHROPIC_FILE");
    }
    if (!loopcompact::abi_matches()) {
        throw Fatal("the loaded libloopcompact has another C ABI version than loopcompact.h");
    }
    const std::vector<std::uint8_t> chat = read_file(argv[1]);
    const std::vector<std::uint8_t> anthropic = read_file(argv[2]);
    const bool chat_ok = report("openai_chat", LC_FORMAT_OPENAI_CHAT, chat);
    const bool anthropic_ok = report("anthropic", LC_FORMAT_ANTHROPIC, anthropic);
    return chat_ok && anthropic_ok ? kConverted : kRefused;
}

}  // namespace

int main(int argc, char **argv)
{
    try {
        return run(argc, argv);
    } catch (const std::exception &e) {
        std::cerr << "conversion: " << e.what() << '\n';
        return kUsageOrIo;
    }
}
