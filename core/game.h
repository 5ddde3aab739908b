#pragma once
// A game in progress: the rules, the start position and every ply played (passes
// included), with undo. Play() takes untrusted moves and says why one is refused.
// Thread safety: a value type; not synchronised.
#include <optional>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/position.h"
#include "core/rules.h"

namespace othello::core {

class Game {
 public:
  // A new game from the rules' start (the seed picks the random opening).
  explicit Game(const Rules& rules = {}, std::uint64_t seed = 0);
  // A game from a given start position of rules.size (e.g. from a GGF BO[] board).
  Game(const Rules& rules, const Position& start);

  const Rules& rules() const { return rules_; }
  const Position& start() const { return start_; }
  const Position& position() const { return history_.back(); }
  // Every ply so far, kPass included.
  const std::vector<Square>& moves() const { return moves_; }
  // Position before ply i (0-based); position_at(moves().size()) is the current one.
  const Position& position_at(std::size_t ply) const { return history_.at(ply); }

  // Plays a legal move, or kPass when the side to move has none; otherwise an error
  // naming the move and the reason, and the game is unchanged.
  std::optional<Error> Play(Square move);
  // Plays a transcript ("f5d6c3", implicit passes); all or nothing.
  std::optional<Error> PlayTranscript(std::string_view transcript);
  // Takes back the last ply; false at the start.
  bool Undo();

  bool IsOver() const { return position().IsGameOver(); }
  Outcome FinalOutcome() const { return Score(position(), rules_); }

 private:
  Rules rules_;
  Position start_;
  std::vector<Square> moves_;
  std::vector<Position> history_;  // history_[i] is the position before ply i
};

}  // namespace othello::core
