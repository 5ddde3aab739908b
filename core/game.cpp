#include "core/game.h"

#include "core/notation.h"

namespace othello::core {

Game::Game(const Rules& rules, std::uint64_t seed) : Game(rules, StartPosition(rules, seed)) {}

Game::Game(const Rules& rules, const Position& start)
    : rules_(rules), start_(start), history_{start} {}

std::optional<Error> Game::Play(Square move) {
  const Position& pos = position();
  if (!pos.IsLegal(move)) {
    const std::string name = move == kPass || (move >= 0 && move < pos.squares())
                                 ? SquareName(move, pos.size())
                                 : "square " + std::to_string(move);
    std::string why = pos.IsGameOver()         ? "the game is over"
                      : move == kPass          ? "a legal move exists"
                      : pos.MustPass()         ? "the side to move must pass"
                                               : "it flanks no disc or the square is taken";
    return Error{"move " + std::to_string(moves_.size() + 1) + " (" + name + ") is illegal for " +
                 std::string(ColorName(pos.side_to_move())) + ": " + why};
  }
  history_.push_back(pos.Play(move));
  moves_.push_back(move);
  return std::nullopt;
}

std::optional<Error> Game::PlayTranscript(std::string_view transcript) {
  auto plies = ParseTranscript(transcript, position());
  if (!plies) return Error{plies.error()};
  for (Square sq : *plies) {
    history_.push_back(position().Play(sq));
    moves_.push_back(sq);
  }
  return std::nullopt;
}

bool Game::Undo() {
  if (moves_.empty()) return false;
  moves_.pop_back();
  history_.pop_back();
  return true;
}

}  // namespace othello::core
