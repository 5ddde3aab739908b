#pragma once
// Per-move analysis of a whole game, as Othello programs give it ("where did I lose
// it"): every position of the game is evaluated with a fixed budget, and each ply gets
// the move played, the best move, the loss in discs of the move played and a mark for
// big mistakes. Used by the web page (POST /api/analysis, in a background thread), the
// terminal (`analyse` in `othello-zero play`) and `othello-zero analyse GAME`.
//
// Evaluation of a position (all values are final disc margins):
// - at most `exact_empties` empty squares: the exact solver (core/solver.h): the
//   margin under perfect play and a move achieving it; exact;
// - otherwise a tree search of `visits` playouts over the evaluator (play's search,
//   PlaySearch): the move it chooses and its expected margin (the search's mean of the
//   network's disc-difference head, or q * squares / 2 without one; exact where the
//   search's solver proved it);
// - the end of the game: its final margin.
// The loss of a ply is the mover's value of the position before it minus the mover's
// value of the position after it (from the next position's evaluation), never below 0,
// and 0 when the move played is the best one found. Where both positions were solved,
// the loss is exact: the discs the move gives away under perfect play.
//
// Marks (thresholds for 8x8, scaled by squares / 64 on other boards, rounded, at
// least 1): inaccuracy >= 2 discs, mistake >= 4, blunder >= 8, and a blunder too when
// exact values show the move turns a win into a draw or a loss, or a draw into a loss.
//
// Thread safety: AnalyzeGame() runs on the calling thread (its searches too) and may run
// in several threads at once over one thread-safe evaluator. The progress callback is
// called on that thread; `stop` may be set from any thread.
// Lifetime: the evaluator is borrowed for the call.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/game.h"
#include "mcts/evaluator.h"
#include "play/play_settings.h"

namespace othello::play {

struct AnalysisOptions {
  std::uint64_t visits = kAnalysisVisits.value;  // playouts per searched position (>= 1)
  int exact_empties = kExactEmpties.value;  // solved from this many empties (0: none)
};

enum class MoveMark { kNone, kInaccuracy, kMistake, kBlunder };
// "", "inaccuracy", "mistake", "blunder".
const char* MoveMarkName(MoveMark mark);
// The mark of a ply of `loss` discs on a board of `squares` squares; `outcome_worse`:
// exact values show the move turned a win into a draw or loss, or a draw into a loss.
MoveMark MarkFor(double loss, int squares, bool outcome_worse);

// One position's evaluation, from the side to move there.
struct PositionValue {
  double discs = 0;            // margin under the best play found
  double win_probability = 0.5;
  bool exact = false;          // proven by the solver (or the game is over)
  core::Square best = core::kPass;  // kPass: a forced pass, or the game is over
  std::vector<core::Square> pv;     // best line found (may be just the best move)
};

struct PlyAnalysis {
  int ply = 0;                      // index into the game's moves (passes counted)
  core::Color color = core::Color::kBlack;  // the side that played it
  core::Square played = core::kPass;
  bool pass = false;                // a forced pass: no choice, no loss, no mark
  core::Square best = core::kPass;  // best move found in the position before the ply
  std::vector<core::Square> pv;     // best line from that position
  double best_discs = 0;            // the mover's value with the best move
  double played_discs = 0;          // the mover's value after the move played
  double loss = 0;                  // discs given away (>= 0)
  bool exact = false;               // both values exact: the loss is proven
  MoveMark mark = MoveMark::kNone;
  // The evaluation after this ply, from black's side (the game graph): disc margin
  // and win probability.
  double black_discs = 0;
  double black_win = 0.5;
  bool black_exact = false;         // that evaluation is exact (solved, or the game is over)
};

struct GameAnalysis {
  std::vector<PlyAnalysis> plies;   // ply 0 first; fewer than the game's when stopped
  int positions_done = 0;           // positions evaluated (of moves + 1)
  int positions_total = 0;
  bool complete = false;            // every ply analysed (not stopped)
  double seconds = 0;
};

// Called after each position is evaluated with the analysis so far (plies whose two
// positions are both done).
using AnalysisProgress = std::function<void(const GameAnalysis& so_far)>;

// Analyses every ply of `game` (its start and moves; the position it is at does not
// matter). Positions are evaluated from the start forwards. Setting `stop` ends the
// analysis after the current position with complete == false.
GameAnalysis AnalyzeGame(mcts::Evaluator& evaluator, const core::Game& game,
                         const AnalysisOptions& options, const AnalysisProgress& progress = {},
                         const std::atomic<bool>* stop = nullptr);

// Evaluates one position as AnalyzeGame() does (`seed` seeds its search). When `stop`
// ends it early the value is meaningless (a default PositionValue).
PositionValue EvaluatePosition(mcts::Evaluator& evaluator, const core::Position& position,
                               const core::Rules& rules, const AnalysisOptions& options,
                               std::uint64_t seed = 1, const std::atomic<bool>* stop = nullptr);

// The analysis as a text table for the terminal: ply, side, move played, best move,
// loss, evaluation after the move (black's view), mark; then each side's total loss
// and its counts of marks.
std::string FormatAnalysisTable(const core::Game& game, const GameAnalysis& analysis);

}  // namespace othello::play
