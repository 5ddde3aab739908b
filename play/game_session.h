#pragma once
// One game with the AI, for the engines and the interactive front ends (GTP, NBoard,
// terminal, web): the game with undo/redo, setting a whole game at once, and the AI's
// analysis of the current position (its move, an evaluation, evaluations of every legal
// move) from the tree search over a borrowed evaluator. For a person against the AI
// (the terminal and the web page, which only translate input and output), the session
// also runs the game loop: whose turn it is, the AI's turns and forced passes, the
// person's moves, hints, undo/redo by whole turns, and the result.
//
// Evaluations are from the side to move: a win probability ((Q + 1) / 2, draws half)
// and a disc margin, exact when the endgame solver proved it, otherwise the search's
// expected margin (SearchedMove).
// Strength: playouts and/or seconds per move; levels 1-10 for people (StrengthForLevel:
// more playouts per level; levels 1-3 sample moves in proportion to
// (visits + prior * playouts)^(1/T), so they mostly follow the network's policy).
// Thread safety: none. Calls must not overlap: one thread drives a session, or its
// callers serialise them (WebApi holds its mutex around every call). Each search runs on
// the calling thread.
// Lifetime: the evaluator is borrowed and must outlive the session; it may be shared with
// other threads (mcts::Evaluator is thread-safe).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ggf.h"
#include "core/rng.h"
#include "play/search_player.h"

namespace othello::play {

struct Strength {
  std::uint64_t visits = kMoveVisits.value;  // playouts per move (0: only the time limit)
  double seconds = 0;          // per move (0: only the playout limit)
  float temperature = 0;       // > 0: sample moves by visits^(1/T) (weaker, varied)
  int root_solve_empties = kRootSolve.value;  // solve the root from this many empties
  std::string Describe() const;
};
// Level 1 (weakest) .. 10; throws core::InputError outside that range.
Strength StrengthForLevel(int level);

struct MoveEvaluation {
  core::Square move = core::kPass;
  double win_probability = 0.5;  // for the side to move
  double discs = 0;              // margin for the side to move (exact or estimated)
  bool exact = false;
  std::uint32_t visits = 0;
};

// A searched move's evaluation from the search's result, the one conversion that play
// and analysis share: the move's value q as a win probability (q + 1) / 2 and its
// expected disc margin (the search's mean of the network's disc-difference head;
// q * squares / 2 with an evaluator that has no such head); the exact score where the
// search proved the root and `move` is its move (win probability 1, 0.5 or 0); the
// root's value for a move the search has no child for (a forced pass).
MoveEvaluation SearchedMove(const mcts::SearchResult& result, core::Square move, int squares);

struct Analysis {
  MoveEvaluation best;                 // the move the AI plays, with its evaluation
  std::vector<MoveEvaluation> moves;   // every legal move searched, most visited first
  std::vector<core::Square> pv;
  std::uint64_t playouts = 0;
  double seconds = 0;
};

// A ply the session played by itself in a game against a person (PlayAiTurns).
struct AutoPly {
  core::Color color = core::Color::kBlack;  // the side that played it
  bool pass = false;                        // a forced pass (`analysis` is then empty)
  Analysis analysis;                        // the AI's search; it played analysis.best.move
  std::string PassNote() const;             // "black has no move and passes"
};

class GameSession {
 public:
  // `rules`: the first game's. `trained`: the rules of the model behind `evaluator`,
  // when it has one; games of another size or goal are then refused (NewGame, SetGame;
  // here, core::InputError).
  GameSession(mcts::Evaluator& evaluator, const core::Rules& rules, Strength strength,
              std::uint64_t seed = 1, std::optional<core::Rules> trained = std::nullopt);

  const core::Game& game() const { return game_; }
  const core::Rules& rules() const { return game_.rules(); }
  const std::optional<core::Rules>& trained() const { return trained_; }
  const Strength& strength() const { return strength_; }
  void set_strength(const Strength& strength) { strength_ = strength; }
  bool can_redo() const { return !redo_.empty(); }

  // A new game under `rules` (validated: an error names the problem).
  std::optional<core::Error> NewGame(const core::Rules& rules);
  // Replaces the game with a recorded one (its rules, start and moves).
  std::optional<core::Error> SetGame(const core::GgfRecord& record);
  // Plays a move for the side to move (kPass only when forced); clears redo.
  std::optional<core::Error> Play(core::Square move);
  bool Undo();  // one ply (a forced pass before it too); false at the start
  bool Redo();
  // The line: the plies played, then those undone (what Redo() would replay).
  std::vector<core::Square> Line() const;
  // The whole line as a game (its start and every ply of Line()).
  core::Game LineGame() const;
  // Undoes or redoes along the line to `ply` plies (to the nearest ply a forced pass
  // lets it reach); false when `ply` is beyond the line.
  bool GoTo(std::size_t ply);
  // Where the side to move must pass (as Undo() and GoTo() may leave it), plays the
  // pass: the line's own when it continues, keeping the rest of the line. True if so.
  bool SkipForcedPass();

  // The AI's analysis of the current position (not finished, with a legal move);
  // `extra_seconds` > 0 caps the time (a clock's budget).
  Analysis Analyze(double extra_seconds = 0);
  // Analyze() and play its move.
  Analysis PlayAi(double extra_seconds = 0);

  // ---- People and the AI (the terminal and the web page) ----
  // Each colour is played by a person or by the AI: a person against the AI (black
  // until set_human()), two people (hints on request), or the AI against itself.
  core::Color human() const { return human_; }
  void set_human(core::Color color);                // that colour a person, the other the AI
  void set_players(bool black_ai, bool white_ai);
  bool IsAi(core::Color color) const { return ai_[static_cast<int>(color)]; }
  // The game is not over and a person is to move (after PlayAiTurns(), with a legal
  // move: forced passes have been played).
  bool IsHumanTurn() const;
  // The game is not over and the AI is to move (it may have to pass).
  bool IsAiTurn() const;
  // Why the person cannot move now ("the game is over", "it is not your turn"), if so.
  std::optional<core::Error> HumanCannotMove() const;
  // The person's move: refused as above, or when illegal; clears redo.
  std::optional<core::Error> PlayHuman(core::Square move);
  // Plays forced passes (either side's) and the AI's moves until the person is to move
  // or the game is over, telling `observer` of each ply once it is played.
  void PlayAiTurns(const std::function<void(const AutoPly&)>& observer);
  // Plays the forced passes of the position (either side's), telling `observer`.
  void PlayForcedPasses(const std::function<void(const AutoPly&)>& observer);
  // Takes back plies to a person's previous turn (one ply, with a forced pass before
  // it, when the AI plays both sides); false when there is none to take. When the AI
  // opened the game this goes back to the start, with the AI to move: call
  // PlayAiTurns() after it.
  bool UndoToHumanTurn();
  // Replays undone plies up to a person's next turn or the end; false when none.
  bool RedoToHumanTurn();
  // Evaluations of every legal move of the side to move (the game not over, a legal
  // move): a search of exactly `playouts` playouts (the hint budget, not the playing
  // level's), no time limit and no random move choice. The strength is unchanged.
  Analysis Hints(std::uint64_t playouts = 300);
  // The result once the game is over: "You win by N" / "The AI wins by N" when a person
  // plays the AI, otherwise "Black wins by N" / "White wins by N"; or "Draw"; nullopt
  // while it goes on.
  std::optional<std::string> HumanResult() const;

 private:
  // The rules `trained_` allows (an error naming the mismatch otherwise).
  std::optional<core::Error> Allowed(const core::Rules& rules) const;

  mcts::Evaluator& evaluator_;
  const std::optional<core::Rules> trained_;
  core::Game game_;
  Strength strength_;
  std::vector<core::Square> redo_;
  core::Color human_ = core::Color::kBlack;  // the person's colour against the AI
  bool ai_[2] = {false, true};                // who plays each colour (black, white)
  std::uint64_t seed_;
  GameTree tree_;  // follows the game, so a move's search builds on the last one
  std::unique_ptr<core::Solver> root_solver_;  // made by the first root solve
  core::Rng rng_;  // the weaker levels' move sampling

  core::Square SampleMove(const mcts::SearchResult& result);
};

// A disc margin for texts: "+12.0", "-3.5".
std::string FormatDiscs(double discs);

}  // namespace othello::play
