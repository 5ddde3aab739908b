#pragma once
// What the benches that report one JSON object share (bench selfplay, bench train): the
// report printed as one block of `name value` lines or as the object itself, and the
// check of a --seconds/--warmup option.
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace othello::cli {

// Prints `title` then one `name value` line per key (numbers rounded to their size), or
// the object on one line when `json`.
void PrintBenchReport(const std::string& title, const nlohmann::ordered_json& report, bool json);

// A CLI check: a number of seconds above 0 (at least 0 when `zero`).
CLI::Validator SecondsCheck(bool zero);

}  // namespace othello::cli
