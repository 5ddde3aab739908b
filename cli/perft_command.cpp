// othello-zero perft: leaf counts of the game tree, one line per depth:
//   depth leaves seconds leaves_per_second (a header goes to stderr)
#include <chrono>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "core/notation.h"
#include "core/perft.h"
#include "core/rules.h"

namespace othello::cli {
namespace {

struct PerftOptions {
  int depth = 9;
  int size = 8;
  std::string start = "standard";
  std::string board;
};

core::Position StartFor(const PerftOptions& opt) {
  if (!opt.board.empty()) {
    auto pos = core::ParseBoardString(opt.board);
    if (!pos) throw CliError("--board: " + pos.error());
    return *pos;
  }
  auto start = core::ParseStartKind(opt.start);
  if (!start || (*start != core::StartKind::kStandard && *start != core::StartKind::kReversi)) {
    throw CliError("--start: '" + opt.start + "' is not standard or reversi");
  }
  core::Rules rules;
  rules.size = opt.size;
  rules.start = *start;
  if (auto err = core::ValidateRules(rules)) throw CliError("--size: " + err->message);
  return core::StartPosition(rules);
}

void RunPerft(const PerftOptions& opt) {
  const core::Position start = StartFor(opt);
  // The header goes to stderr so that stdout holds only the per-depth lines.
  std::fprintf(stderr, "perft from %s\ndepth leaves seconds leaves/s\n",
               core::FormatBoardString(start).c_str());
  for (int depth = 1; depth <= opt.depth; ++depth) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t leaves = core::Perft(start, depth);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%d %llu %.3f %.0f\n", depth, static_cast<unsigned long long>(leaves), secs,
                secs > 0 ? leaves / secs : 0.0);
    std::fflush(stdout);
  }
}

}  // namespace

void RegisterPerft(CLI::App& app) {
  auto opt = std::make_shared<PerftOptions>();
  CLI::App* cmd = app.add_subcommand(
      "perft", "Count the leaves of the game tree at depths 1..D (passes are plies; a "
               "finished game is one leaf at every remaining depth)");
  cmd->add_option("--depth,-d", opt->depth, "Deepest depth to count")
      ->check(CLI::Range(1, 60))
      ->capture_default_str();
  cmd->add_option("--size", opt->size, "Board size (even, 4..10)")
      ->check(CLI::IsMember({4, 6, 8, 10}))
      ->capture_default_str();
  cmd->add_option("--start", opt->start, "Start position: standard or reversi")
      ->check(CLI::IsMember({"standard", "reversi"}))
      ->capture_default_str();
  cmd->add_option("--board", opt->board,
                  "Count from this board string instead (\"<N*N of X/O/-> <X|O>\")");
  cmd->callback([opt] { RunPerft(*opt); });
}

}  // namespace othello::cli
