#pragma once
// A match game: one game between two players, refereed: forced passes are played for the players,
// every move is checked, and with a time control each player's bank (plus increment)
// is measured around GenMove() and enforced. A player that fails (PlayerError), plays
// an illegal move or runs out of time loses; the record says why (GGF RE[] flag ":t"
// for time, ":r" for a forfeit, and a C[] comment with the reason) and gives the winner
// the whole board as margin.
// Thread safety: one call per thread; the players belong to the call.
#include <optional>
#include <string>
#include <vector>

#include "core/ggf.h"
#include "play/player.h"

namespace othello::play {

struct MatchSetup {
  core::Rules rules;
  std::optional<core::Position> start;  // default: core::StartPosition(rules, seed)
  std::uint64_t seed = 0;
  std::vector<core::Square> opening;    // plies played for both players first (recorded)
  std::optional<TimeControl> time;
  std::string place = "othello-zero";
};

enum class MatchEnd { kNormal, kTime, kForfeit };

struct MatchResult {
  core::GgfRecord record;     // complete, with the result (and flag)
  int black_margin = 0;       // the result for black (the whole board on time/forfeit)
  MatchEnd end = MatchEnd::kNormal;
  std::string reason;         // why the game ended early (kTime, kForfeit)
  double seconds[2] = {0, 0}; // thinking time used by black and white
};

// Plays a game. Throws core::InputError when the setup itself is bad (an illegal
// opening move); player failures only end the game.
MatchResult PlayMatch(Player& black, Player& white, const MatchSetup& setup);

}  // namespace othello::play
