#pragma once
// The perfect-play check: does a player keep the game's value with every move it plays,
// as either colour, against any reply? (6x6 Othello is solved: white wins 20-16; a
// model that learned it must never let a won game go.)
//
// The start: the first ply of the player's own game (it against itself from the start
// position) whose position the exact solver proves, win/draw/loss, within
// `prove_seconds` (or a given ply). From the start position every position the player
// can face as colour C is then walked (every legal reply of the other side, the
// player's own move at its turns; a position reached twice is walked once), and each
// of its moves at or after the start's number of empties is checked with the solver:
// its value for C after the move must equal the value before (the best a move can
// keep). A position the solver cannot prove within `prove_seconds` is counted as
// unproven, not as checked; `max_positions` bounds the player's positions per colour
// (the walk is then incomplete, and the report says so).
//
// With `optimal_replies` the other side plays, from the start's number of empties on, only
// the replies that keep its own value (every perfect opponent's moves, not every move):
// the check is then "keeps the value against any perfect opponent", a far smaller walk
// than every reply (a 6x6 model's did not end within 100,000 positions). A reply
// position the solver cannot prove in time counts as unproven and all its replies are
// walked.
//
// With `exact_score` the values are the solver's exact final disc margins instead of
// win/draw/loss: each move must keep the best margin (6x6: white wins by 4, 20-16), and
// the optimal replies are those keeping the other side's best margin. That is the check
// the losing side cannot pass trivially (by win/draw/loss every move of a lost position
// keeps it), and it makes the losing side's perfect replies few: by win/draw/loss every
// reply of a lost side is "perfect", so walking the winner against them is the whole
// every-reply walk again.
//
// Thread safety: one thread; the player is asked one move at a time.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "arena/arena.h"
#include "core/rules.h"

namespace othello::arena {

struct PerfectPlayOptions {
  core::Rules rules;                        // the board and the scoring
  double prove_seconds = 10;                // per solver call
  std::optional<int> start_ply;             // default: the first proven ply
  std::uint64_t max_positions = 1000000;    // the player's positions per colour
  bool optimal_replies = false;             // the other side's value-keeping replies only
  bool exact_score = false;                 // values: exact disc margins, not win/draw/loss
  std::size_t solver_megabytes = 256;
  std::uint64_t seed = 1;                   // the player's seed
};

struct PerfectPlayMistake {
  core::Color colour = core::Color::kBlack;  // the player's
  std::string transcript;                    // the moves from the start to the position
  std::string move;                          // the player's
  int before = 0, after = 0;  // its win/draw/loss (+1/0/-1), or margin, before and after
};

struct PerfectPlayColour {
  core::Color colour = core::Color::kBlack;
  std::uint64_t checked = 0;   // the player's moves checked
  std::uint64_t unproven = 0;  // positions the solver did not prove in time
  std::uint64_t mistakes = 0;
  bool complete = true;        // false: stopped at max_positions
};

struct PerfectPlayReport {
  int start_ply = 0;
  int start_empties = 0;
  std::string start_line;  // the player's own moves to the start
  int start_value = 0;     // black's win/draw/loss (or exact margin) at the start on that line
  double start_seconds = 0;
  bool optimal_replies = false;              // walked against perfect replies only
  bool exact_score = false;                  // values were exact margins
  std::vector<PerfectPlayColour> colours;    // black, then white
  std::vector<PerfectPlayMistake> mistakes;  // the first 20
  bool Perfect() const;  // every walk complete, every move checked and kept the value
};

// Throws core::InputError when no ply of the player's game is proven in time (or the
// given start ply is past the game's end); play::PlayerError when the player fails.
// `progress`, if given, gets a line for each ply tried as the start, the start, each
// mistake as it is found, each colour's end, and the walk's count every 10,000 positions
// or a minute.
PerfectPlayReport CheckPerfectPlay(const ArenaPlayer& player, const PerfectPlayOptions& options,
                                   std::ostream* progress = nullptr);

std::string FormatPerfectPlay(const PerfectPlayReport& report);

}  // namespace othello::arena
