// Per-move analysis of a game (game_analysis.h): every position from the start
// forwards is evaluated once (solved in the endgame, searched before it), and each ply
// is judged by the values of the positions before and after it. A forced pass takes
// its value from the position after it (negated), so the pass costs nothing and the
// evaluation graph does not jump there.
#include "play/game_analysis.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/notation.h"
#include "core/solver.h"
#include "mcts/search.h"
#include "play/game_session.h"
#include "play/search_player.h"

namespace othello::play {
namespace {

bool Stopped(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

int Sign(double x) { return (x > 0) - (x < 0); }

double WinProbabilityOf(double discs) { return discs > 0 ? 1.0 : discs < 0 ? 0.0 : 0.5; }

PositionValue ExactValue(double discs, core::Square best) {
  PositionValue value;
  value.discs = discs;
  value.win_probability = WinProbabilityOf(discs);
  value.exact = true;
  value.best = best;
  if (best != core::kPass) value.pv = {best};
  return value;
}

PositionValue FinalValue(const core::Position& position, const core::Rules& rules) {
  return ExactValue(core::Score(position, rules).MarginFor(position.side_to_move()), core::kPass);
}

std::optional<PositionValue> SolvedValue(const core::Position& position, const core::Rules& rules,
                                         const std::atomic<bool>* stop) {
  core::SolveLimits limits;
  limits.stop = stop;
  const core::SolveResult result = core::SolveExact(position, rules, limits);
  if (!result.exact()) return std::nullopt;
  const bool has_move = result.best_move >= 0;
  return ExactValue(result.score, has_move ? result.best_move : core::kPass);
}

// A fresh tree search of `visits` playouts, with play's settings (PlaySearch).
std::optional<PositionValue> SearchedValue(mcts::Evaluator& evaluator,
                                           const core::Position& position,
                                           const core::Rules& rules, std::uint64_t visits,
                                           std::uint64_t seed, const std::atomic<bool>* stop) {
  visits = std::max<std::uint64_t>(visits, 1);
  mcts::Tree tree(position, TreeNodesFor(visits, /*seconds=*/0));
  mcts::SearchParams params = PlaySearch(visits).params;
  params.rules = rules;
  mcts::SearchLimits limits;
  limits.playouts = visits;
  limits.stop = stop;
  mcts::TreeSearch search(tree, evaluator, params, seed);
  const mcts::SearchResult result = mcts::RunSearch(search, evaluator, limits);
  if (Stopped(stop)) return std::nullopt;
  const MoveEvaluation best = SearchedMove(result, result.move, position.squares());
  PositionValue value;
  value.best = result.move;
  value.pv = result.pv;
  value.discs = best.discs;
  value.win_probability = best.win_probability;
  value.exact = best.exact;
  if (value.pv.empty()) value.pv = {value.best};
  return value;
}

// The value of a forced pass's position from the value of the position after it.
PositionValue PassValue(const PositionValue& after) {
  PositionValue value = after;
  value.discs = -after.discs;
  value.win_probability = 1 - after.win_probability;
  value.best = core::kPass;
  value.pv.insert(value.pv.begin(), core::kPass);
  return value;
}

// nullopt when stopped.
std::optional<PositionValue> TryEvaluate(mcts::Evaluator& evaluator,
                                         const core::Position& position,
                                         const core::Rules& rules, const AnalysisOptions& options,
                                         std::uint64_t seed, const std::atomic<bool>* stop) {
  if (position.IsGameOver()) return FinalValue(position, rules);
  if (position.MustPass()) {
    auto after = TryEvaluate(evaluator, position.Play(core::kPass), rules, options, seed, stop);
    if (!after) return std::nullopt;
    return PassValue(*after);
  }
  if (position.EmptyCount() <= options.exact_empties) return SolvedValue(position, rules, stop);
  return SearchedValue(evaluator, position, rules, options.visits, seed, stop);
}

// Ply `i` of `game`, judged by the values of the positions before and after it.
PlyAnalysis JudgePly(const core::Game& game, std::size_t i, const PositionValue& before,
                     const PositionValue& after) {
  PlyAnalysis ply;
  ply.ply = static_cast<int>(i);
  ply.color = game.position_at(i).side_to_move();
  ply.played = game.moves()[i];
  ply.pass = ply.played == core::kPass;
  ply.best = before.best;
  ply.pv = before.pv;
  ply.best_discs = before.discs;
  ply.played_discs = -after.discs;
  ply.exact = before.exact && after.exact;
  if (!ply.pass && ply.played != ply.best) {
    ply.loss = std::max(0.0, ply.best_discs - ply.played_discs);
  }
  const bool outcome_worse = ply.exact && Sign(ply.played_discs) < Sign(ply.best_discs);
  ply.mark = ply.pass ? MoveMark::kNone
                      : MarkFor(ply.loss, game.start().squares(), outcome_worse);
  const bool black_next = game.position_at(i + 1).side_to_move() == core::Color::kBlack;
  ply.black_discs = black_next ? after.discs : -after.discs;
  ply.black_win = black_next ? after.win_probability : 1 - after.win_probability;
  ply.black_exact = after.exact;
  return ply;
}

// Records the value of the next position, the ply it completes, and reports progress.
void AddValue(const core::Game& game, PositionValue value, std::vector<PositionValue>& values,
              GameAnalysis& analysis, const AnalysisProgress& progress) {
  values.push_back(std::move(value));
  analysis.positions_done = static_cast<int>(values.size());
  const std::size_t n = values.size();
  if (n >= 2) analysis.plies.push_back(JudgePly(game, n - 2, values[n - 2], values[n - 1]));
  if (progress) progress(analysis);
}

}  // namespace

const char* MoveMarkName(MoveMark mark) {
  switch (mark) {
    case MoveMark::kInaccuracy: return "inaccuracy";
    case MoveMark::kMistake: return "mistake";
    case MoveMark::kBlunder: return "blunder";
    case MoveMark::kNone: break;
  }
  return "";
}

MoveMark MarkFor(double loss, int squares, bool outcome_worse) {
  const auto threshold = [squares](double discs) {
    return std::max(1.0, std::round(discs * squares / 64.0));
  };
  if (outcome_worse || loss >= threshold(8)) return MoveMark::kBlunder;
  if (loss >= threshold(4)) return MoveMark::kMistake;
  if (loss >= threshold(2)) return MoveMark::kInaccuracy;
  return MoveMark::kNone;
}

PositionValue EvaluatePosition(mcts::Evaluator& evaluator, const core::Position& position,
                               const core::Rules& rules, const AnalysisOptions& options,
                               std::uint64_t seed, const std::atomic<bool>* stop) {
  return TryEvaluate(evaluator, position, rules, options, seed, stop).value_or(PositionValue{});
}

GameAnalysis AnalyzeGame(mcts::Evaluator& evaluator, const core::Game& game,
                         const AnalysisOptions& options, const AnalysisProgress& progress,
                         const std::atomic<bool>* stop) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<core::Square>& moves = game.moves();
  GameAnalysis analysis;
  analysis.positions_total = static_cast<int>(moves.size()) + 1;
  std::vector<PositionValue> values;
  while (values.size() <= moves.size() && !Stopped(stop)) {
    const std::size_t i = values.size();
    const core::Position& position = game.position_at(i);
    // A forced pass in the game: evaluate the position after it, and derive both.
    const bool pass = position.MustPass() && i < moves.size();
    const std::size_t at = pass ? i + 1 : i;
    auto value =
        TryEvaluate(evaluator, game.position_at(at), game.rules(), options, at + 1, stop);
    if (!value) break;
    if (pass) AddValue(game, PassValue(*value), values, analysis, progress);
    AddValue(game, std::move(*value), values, analysis, progress);
  }
  analysis.complete = values.size() == moves.size() + 1;
  analysis.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return analysis;
}

// ------------------------------------------------------------------------- the table

namespace {

std::string Counted(int count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string TableRow(const PlyAnalysis& ply, int size) {
  const std::string loss = ply.pass ? "-" : [&] {
    char text[16];
    std::snprintf(text, sizeof text, "%.1f", ply.loss);
    return std::string(text);
  }();
  const std::string best = ply.pass ? "-" : core::SquareName(ply.best, size);
  // (A margin that rounds to zero is shown as +0.0, not -0.0.)
  const double black = std::abs(ply.black_discs) < 0.05 ? 0.0 : ply.black_discs;
  const std::string eval = FormatDiscs(black) + (ply.black_exact ? " (exact)" : "");
  char row[160];
  std::snprintf(row, sizeof row, "%4d.  %-5s  %-6s  %-4s  %5s  %-13s  %s", ply.ply + 1,
                std::string(core::ColorName(ply.color)).c_str(),
                core::SquareName(ply.played, size).c_str(), best.c_str(), loss.c_str(),
                eval.c_str(), MoveMarkName(ply.mark));
  std::string line = row;
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

std::string SideSummary(const GameAnalysis& analysis, core::Color color) {
  double loss = 0;
  int marks[4] = {0, 0, 0, 0};
  for (const PlyAnalysis& ply : analysis.plies) {
    if (ply.color != color) continue;
    loss += ply.loss;
    ++marks[static_cast<int>(ply.mark)];
  }
  char total[32];
  std::snprintf(total, sizeof total, "%.1f", loss);
  return std::string(core::ColorName(color)) + ": total loss " + total + " discs, " +
         Counted(marks[1], "inaccuracy", "inaccuracies") + ", " +
         Counted(marks[2], "mistake", "mistakes") + ", " +
         Counted(marks[3], "blunder", "blunders") + "\n";
}

}  // namespace

std::string FormatAnalysisTable(const core::Game& game, const GameAnalysis& analysis) {
  const int size = game.start().size();
  std::string text = " ply  side   played  best   loss  eval after     mark\n";
  for (const PlyAnalysis& ply : analysis.plies) text += TableRow(ply, size);
  text += "(loss: discs given away by the move played; eval after: black's final disc margin"
          " after the move, exact where solved)\n";
  text += SideSummary(analysis, core::Color::kBlack);
  text += SideSummary(analysis, core::Color::kWhite);
  if (!analysis.complete) {
    text += "analysis stopped after " + std::to_string(analysis.positions_done) + " of " +
            std::to_string(analysis.positions_total) + " positions\n";
  }
  return text;
}

}  // namespace othello::play
