#pragma once
// Elo ratings from game results: the Bradley-Terry model, P(i beats j) =
// 1 / (1 + 10^((R_j - R_i) / 400)), fitted by maximum likelihood with Newton's method
// (Eigen), draws counting half a win each way. One player is anchored at 0, or the
// players of a fixed ladder are held at their stored ratings (so that a new player is
// placed on that scale with few games, and only its rating is fitted). A prior of
// `prior_draws` virtual draws between every pair that met keeps a player with only wins
// finite. Confidence intervals come from the inverse of the observed information
// (normal approximation, relative to the anchor).
// Thread safety: pure functions.
#include <map>
#include <string>
#include <vector>

#include "core/ggf.h"

namespace othello::arena {

struct ScoredGame {
  std::string black, white;
  double black_score = 0.5;  // 1 win, 0.5 draw, 0 loss
};

struct Rating {
  std::string name;
  double elo = 0;
  double ci95 = 0;  // half-width of the 95% interval
  int games = 0;
  double score = 0;  // mean score
};

struct EloOptions {
  std::string anchor;       // default: "random" when present, else the first player seen
  // Players held at these ratings (those that played; no anchor then).
  std::map<std::string, double> fixed;
  double prior_draws = 1.0;
};

// Ratings, best first (held players with a 0 interval). Throws core::InputError when
// there are no games, the anchor is unknown, no fixed player played, or some players
// are not connected to the anchor (the fixed players) by games.
std::vector<Rating> FitElo(const std::vector<ScoredGame>& games, const EloOptions& options = {});

// The games of GGF records (unfinished games, without a result, are skipped).
std::vector<ScoredGame> ScoredGames(const std::vector<core::GgfRecord>& records);

// Every game in the *.ggf files under each path (a file or a directory, searched
// recursively). Throws core::InputError naming the file and the game on a bad record.
std::vector<core::GgfRecord> ReadGgfGames(const std::vector<std::string>& paths);

std::string FormatLadder(const std::vector<Rating>& ratings);
// CSV: player,elo,ci95,games,score with a header line (names quoted where needed).
std::string LadderCsv(const std::vector<Rating>& ratings);
// The ratings of a ladder CSV (LadderCsv's form; lines starting with '#' are comments).
// Throws core::InputError naming the file and the line.
std::map<std::string, double> ReadLadderCsv(const std::string& path);

}  // namespace othello::arena
