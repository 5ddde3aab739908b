// othello-zero solve: exact endgame scores of positions given as a board string or an
// .obf file (one "board side[; move:score ...]" per line). Prints, per position, a best
// move, the score, nodes and seconds, then totals.
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/notation.h"
#include "core/obf.h"
#include "core/solver.h"

namespace othello::cli {
namespace {

struct SolveOptions {
  std::string input;
  bool wld = false;
  bool anti = false;
  bool disc_count = false;
  std::size_t hash_mb = 64;
  int threads = 1;
  std::uint64_t max_nodes = 0;
  double max_seconds = 0;
};

struct Task {
  int line = 0;  // 0 for a position given on the command line
  core::Position position;
  std::optional<int> expected;  // the best move score listed in an .obf line
};

// Reads the positions; bad lines are reported on stderr and counted.
std::vector<Task> ReadTasks(const std::string& input, int* bad_lines) {
  std::vector<Task> tasks;
  std::ifstream file(input);
  if (!file) {
    auto pos = core::ParseBoardString(input);
    if (!pos) {
      throw CliError("'" + input + "' is neither a readable file nor a board string: " +
                     pos.error());
    }
    tasks.push_back({0, *pos, std::nullopt});
    return tasks;
  }
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    auto entry = core::ParseObfLine(line);
    if (!entry) {
      std::fprintf(stderr, "error: %s line %d: %s\n", input.c_str(), number, entry.error().c_str());
      ++*bad_lines;
      continue;
    }
    if (*entry) tasks.push_back({number, (*entry)->position, (*entry)->BestScore()});
  }
  return tasks;
}

std::string ScoreText(const core::SolveResult& r, bool wld) {
  if (!r.exact()) return core::SolveStatusName(r.status);
  if (wld) return r.score > 0 ? "win" : r.score < 0 ? "loss" : "draw";
  return (r.score > 0 ? "+" : "") + std::to_string(r.score);
}

void RunSolve(const SolveOptions& opt) {
  int bad_lines = 0;
  const std::vector<Task> tasks = ReadTasks(opt.input, &bad_lines);
  core::Rules rules;
  rules.anti = opt.anti;
  rules.empties_to_winner = !opt.disc_count;
  core::Solver solver(opt.hash_mb);
  solver.SetThreads(opt.threads);
  const core::SolveLimits limits{opt.max_nodes, opt.max_seconds, nullptr};

  std::printf("%-6s %-7s %4s %-6s %7s %14s %9s %12s\n", "line", "empties", "move", "score",
              "expect", "nodes", "seconds", "nodes/s");
  std::uint64_t total_nodes = 0;
  double total_seconds = 0;
  int mismatches = 0, unfinished = 0;
  for (const Task& task : tasks) {
    const core::SolveResult r = opt.wld ? solver.SolveWld(task.position, rules, limits)
                                        : solver.Solve(task.position, rules, limits);
    total_nodes += r.nodes;
    total_seconds += r.seconds;
    const bool checkable = task.expected && r.exact() && !opt.anti && !opt.disc_count;
    const int expected = task.expected.value_or(0);
    const int expected_wld = (expected > 0) - (expected < 0);
    const bool mismatch = checkable && (opt.wld ? expected_wld != r.score : expected != r.score);
    mismatches += mismatch;
    unfinished += !r.exact();
    const std::string move = r.best_move == core::SolveResult::kNoMove
                                 ? "-"
                                 : core::SquareName(r.best_move, task.position.size());
    std::printf("%-6d %-7d %4s %-6s %7s %14llu %9.3f %12.0f%s\n", task.line,
                task.position.EmptyCount(), move.c_str(), ScoreText(r, opt.wld).c_str(),
                task.expected ? std::to_string(expected).c_str() : "-",
                static_cast<unsigned long long>(r.nodes), r.seconds,
                r.seconds > 0 ? r.nodes / r.seconds : 0.0, mismatch ? "  MISMATCH" : "");
    std::fflush(stdout);
  }
  std::printf("total: %zu positions, %llu nodes, %.3f seconds, %.0f nodes/s\n", tasks.size(),
              static_cast<unsigned long long>(total_nodes), total_seconds,
              total_seconds > 0 ? total_nodes / total_seconds : 0.0);
  if (bad_lines) throw CliError(std::to_string(bad_lines) + " bad input line(s), see above");
  if (mismatches) throw CliError(std::to_string(mismatches) + " score(s) differ from the file");
  if (unfinished) throw CliError(std::to_string(unfinished) + " position(s) hit a limit");
}

}  // namespace

void RegisterSolve(CLI::App& app) {
  auto opt = std::make_shared<SolveOptions>();
  CLI::App* cmd = app.add_subcommand(
      "solve", "Solve endgame positions exactly: best move, final disc difference for the "
               "side to move (empties to the winner), nodes and seconds");
  cmd->add_option("input", opt->input,
                  "An .obf file (one position per line) or a board string \"<N*N X/O/-> <X|O>\"")
      ->required();
  cmd->add_flag("--wld", opt->wld, "Only win/draw/loss (faster)");
  cmd->add_flag("--anti", opt->anti, "Anti-Othello: fewest discs wins");
  cmd->add_flag("--disc-count", opt->disc_count,
                "Plain disc count (empty squares are not given to the winner)");
  cmd->add_option("--hash-mb", opt->hash_mb, "Transposition table size in MiB")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  cmd->add_option("--threads", opt->threads,
                  "Threads solving each position together (positions of 16+ empties)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--max-nodes", opt->max_nodes, "Stop a position after this many nodes (0: no limit)");
  cmd->add_option("--max-seconds", opt->max_seconds, "Stop a position after this long (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([opt] { RunSolve(*opt); });
}

}  // namespace othello::cli
