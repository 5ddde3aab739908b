#pragma once
// Play's budgets and limits, each declared once (as lc0's OptionId): the name front ends
// know it by (an arena player's KEY=V and the web API's JSON field; the CLI's --flag),
// its range, its default and one line of help. The play commands' flags (cli/play_model.h
// AddSetting), the arena's player specs (arena/player_spec.h) and the web API
// (play/web_api.h) read these rows and copy no range. Front ends may choose different
// defaults on purpose (a hint costs less than a move), each a row of its own here with
// its reason; the limits are the same everywhere.
// Thread safety: constants.
#include <cstdint>
#include <string>
#include <vector>

#include "mcts/search.h"

namespace othello::play {

template <typename T>
struct Setting {
  const char* name;  // "move_visits": its row in docs/play.md's table of limits
  const char* key;   // "visits": an arena player's key, the web API's field
  const char* flag;  // "--visits": the play commands' option
  T low;
  T high;
  T value;           // the default
  const char* help;
  bool Contains(T v) const { return v >= low && v <= high; }
};

// The most playouts any search of play may be asked for: a tree for that many (24 nodes
// a playout, 112 bytes a node) takes 2.7 GB.
inline constexpr std::uint64_t kMaxVisits = 1'000'000;

// A move's playouts: the play commands' default (gtp, nboard, play, serve's levels
// aside). 0 leaves the move to its time limit, which must then be given.
inline constexpr Setting<std::uint64_t> kMoveVisits{
    "move_visits", "visits", "--visits", 0, kMaxVisits, 400,
    "Playouts per move (0: no playout limit, give --seconds)"};
// A hint's playouts: fewer than a move's, as a person waits for the hint while they
// think.
inline constexpr Setting<std::uint64_t> kHintVisits{
    "hint_visits", "visits", "--hint-visits", 1, kMaxVisits, 300, "Playouts of a hint's search"};
// The playouts of each position of a game's analysis: it searches every position of the
// game, so half a move's.
inline constexpr Setting<std::uint64_t> kAnalysisVisits{
    "analysis_visits", "visits", "--visits", 1, kMaxVisits, 200, "Playouts per searched position"};
// The arena's model players by default: the strength benchmark's budget
// (docs/evaluation.md), so that a bare model:PATH plays as the benchmarks did.
inline constexpr Setting<std::uint64_t> kArenaVisits{
    "arena_visits", "visits", "--visits", 0, kMaxVisits, 200,
    "Default playouts per move of model players (0: no playout limit, give time=SECONDS)"};
// A move's time.
inline constexpr Setting<double> kMoveSeconds{"move_seconds", "time", "--seconds", 0, 1e6, 0,
                                              "Seconds per move (0: no time limit)"};
// Play solves the root exactly from this many empties, inside the move's limits
// (play/root_solve.h). The default 0 leaves the root to the search, whose leaf solver
// proves a root of at most kPlaySolverEmpties empties.
inline constexpr Setting<int> kRootSolve{
    "root_solve", "rootsolve", "--root-solve", 0, mcts::kMaxSolverEmpties, 0,
    "Empties from which the exact solver plays the move, inside the move's time (0: off)"};
// Analysis solves a position exactly from this many empties (core/solver.h, not inside a
// playout: a whole position may take the solver a while).
inline constexpr Setting<int> kExactEmpties{
    "exact_empties", "exact_empties", "--exact-empties", 0, 24, 14,
    "Positions with at most this many empty squares are solved exactly"};
// Strength levels for people (StrengthForLevel); 0 (the default) is no level.
inline constexpr Setting<int> kLevel{
    "level", "level", "--level", 1, 10, 0,
    "Strength level 1 (weakest) to 10; overrides --visits and --seconds"};

// A setting as docs/play.md's table of limits writes it (tests/play/play_test.cpp checks
// the page against these rows): its name, flag, key, default, range and help.
struct SettingText {
  std::string name, flag, key, default_text, range, help;
};
std::vector<SettingText> PlaySettingsText();

// The web page's first level (`serve --level`): 64 playouts a move, an answer at once on
// any CPU, and a game a beginner can win.
inline constexpr int kServeLevel = 6;

// Whether a move of `visits` playouts and `seconds` has a limit at all.
inline bool HasLimit(std::uint64_t visits, double seconds) { return visits > 0 || seconds > 0; }

}  // namespace othello::play
