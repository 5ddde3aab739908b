#pragma once
// The arena: round-robin matches between players (or a gauntlet: the first player
// against each of the others, who do not meet). Every pair plays `games` games
// (rounded up to an even number): each opening is played twice, once with each player
// as black. Openings are random (K random plies from the standard start, distinct
// where possible, the same list for every pair) or read from a file of transcripts.
// Games run `parallel` at a time, each with fresh players from the factories (so each
// engine game has its own process); every finished game is appended to
// OUT/games.ggf at once, one line per game (a killed arena keeps what it played; an
// unfinished last line left by a kill is cut when the next arena opens the file).
// Thread safety: RunArena owns its threads; factories are called from them and must be
// thread-safe (shared evaluators are).
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/rules.h"
#include "play/match.h"
#include "play/player.h"

namespace othello::arena {

struct ArenaPlayer {
  std::string name;
  // For a model: the rules it was trained for (the arena refuses games of another
  // size or goal).
  std::optional<core::Rules> trained;
  // A fresh player for one game; `seed` differs game by game.
  std::function<std::unique_ptr<play::Player>(std::uint64_t seed)> make;
};

struct ArenaOptions {
  core::Rules rules;                  // size, start and scoring (a random start: the standard
                                      // one, the openings are random anyway)
  int games = 2;                      // per pair
  std::string openings = "random:4";  // random:K or a file of transcripts, one per line
  int parallel = 1;
  bool gauntlet = false;              // only the first player against each other one
  std::optional<play::TimeControl> time;
  std::string out_dir;                // GamesFile(out_dir) goes here ("" : nowhere)
  std::uint64_t seed = 1;
  // Start no game this many seconds after the match began (0: no limit); games under way
  // finish. With a limit the games go opening by opening across the pairs, so that a
  // match cut short has played every pair alike (training's evaluations keep to their
  // share of the run this way).
  double deadline_seconds = 0;
};

// Results of a against b (from a's side).
struct PairResult {
  int a = 0, b = 0;                   // indices into ArenaSummary::players
  int wins = 0, draws = 0, losses = 0;
  double margin_sum = 0;              // a's disc margins
  int time_losses[2] = {0, 0};        // by a, by b
  int forfeits[2] = {0, 0};
  int games() const { return wins + draws + losses; }
  double Score() const { return games() ? (wins + 0.5 * draws) / games() : 0; }
  double ScoreCi95() const;           // half-width, normal approximation
  double MeanMargin() const { return games() ? margin_sum / games() : 0; }
};

struct ArenaSummary {
  std::vector<std::string> players;
  std::vector<PairResult> pairs;
  std::vector<play::MatchResult> games;  // in the order they finished
  int unplayed = 0;                      // games not started: the deadline had passed
};

// The position every arena game starts from before its opening moves.
core::Position ArenaStart(const core::Rules& rules);

// The openings (move lists from `start`): `count` of them. Throws core::InputError
// naming the spec, or the file and line.
std::vector<std::vector<core::Square>> ArenaOpenings(const std::string& spec,
                                                     const core::Position& start, int count,
                                                     std::uint64_t seed);

// OUT/games.ggf: the file RunArena appends the games to in the output folder `out_dir`.
std::string GamesFile(const std::string& out_dir);

// Plays the round robin; logs one line per game to `log`. Throws core::InputError on
// bad options (a model player trained for other rules included), and rethrows the
// first unexpected error of a game thread (a failed write of games.ggf included).
ArenaSummary RunArena(const std::vector<ArenaPlayer>& players, const ArenaOptions& options,
                      std::ostream& log);

std::string FormatArenaTable(const ArenaSummary& summary);
std::string ArenaJson(const ArenaSummary& summary, const ArenaOptions& options);

}  // namespace othello::arena
