#pragma once
// Game variants: board size, start position and scoring rule.
//
// Starts: standard; reversi (empty board, the first four moves fill the centre);
// random opening (N random legal moves from the standard start, seeded); handicap
// (1-4 corner discs added for one side to the standard start, in the order a1, h8,
// h1, a8 on 8x8, i.e. the two main-diagonal corners first).
// Scoring: disc count, with empty squares going to the winner under the tournament
// rule (the default); anti-Othello inverts the goal (fewest discs wins).
// Thread safety: value types and pure functions.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/hash.h"
#include "core/position.h"
#include "core/rng.h"

namespace othello::core {

enum class StartKind { kStandard, kReversi, kRandom, kHandicap };

struct Rules {
  int size = 8;
  StartKind start = StartKind::kStandard;
  int random_moves = 0;  // kRandom: plies played at random from the standard start
  int handicap = 0;      // kHandicap: corner discs given (1..4)
  Color handicap_side = Color::kBlack;
  bool anti = false;               // anti-Othello: fewest discs wins
  bool empties_to_winner = true;   // tournament rule; false: plain disc count

  friend bool operator==(const Rules& a, const Rules& b) {
    return a.size == b.size && a.start == b.start && a.random_moves == b.random_moves &&
           a.handicap == b.handicap && a.handicap_side == b.handicap_side &&
           a.anti == b.anti && a.empties_to_winner == b.empties_to_winner;
  }
};

// An error naming the offending field, or nullopt when the rules are usable.
std::optional<Error> ValidateRules(const Rules& rules);

// A legal move drawn uniformly at random, or kPass when the side to move must pass
// (precondition: the game is not over).
Square RandomLegalMove(const Position& position, Rng& rng);

// The start position; `seed` only matters for the random opening. A random opening
// stops early if the game ends before `random_moves` plies.
Position StartPosition(const Rules& rules, std::uint64_t seed = 0);

// "8x8", "6x6 anti-Othello", ... for messages.
std::string DescribeRules(const Rules& rules);

// Why a model (or a run) trained under `trained` cannot play under `wanted`: another
// board size or the other goal (anti-Othello). The start and the empties rule may
// differ (every start leads to positions the model knows). nullopt when they agree.
std::optional<std::string> RulesMismatch(const Rules& trained, const Rules& wanted);

std::string_view StartName(StartKind start);
Result<StartKind> ParseStartKind(std::string_view name);

// The result of a finished game.
struct Outcome {
  // Final disc difference for black after the scoring rule: positive when black
  // wins (under anti-Othello too), with empty squares added to the winner's side
  // under the tournament rule.
  int black_margin = 0;
  int black_discs = 0;
  int white_discs = 0;

  std::optional<Color> winner() const {
    if (black_margin == 0) return std::nullopt;
    return black_margin > 0 ? Color::kBlack : Color::kWhite;
  }
  // Margin from `c`'s point of view.
  int MarginFor(Color c) const { return c == Color::kBlack ? black_margin : -black_margin; }
};

// Scores a position as if the game ended there (normally a finished game).
Outcome Score(const Position& position, const Rules& rules);

}  // namespace othello::core
