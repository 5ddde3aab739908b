#pragma once
// Elo ratings from game results: the Bradley-Terry model, P(i beats j) =
// 1 / (1 + 10^((R_j - R_i) / 400)), fitted by maximum likelihood with Newton's method
// (Eigen), draws counting half a win each way. One player is anchored at 0. A prior of
// `prior_draws` virtual draws between every pair that met keeps a player with only wins
// finite. Confidence intervals come from the inverse of the observed information
// (normal approximation, relative to the anchor).
// Thread safety: pure functions.
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
  double prior_draws = 1.0;
};

// Ratings, best first. Throws core::InputError when there are no games, the anchor is
// unknown, or some players are not connected to the anchor by games.
std::vector<Rating> FitElo(const std::vector<ScoredGame>& games, const EloOptions& options = {});

// The games of GGF records (unfinished games, without a result, are skipped).
std::vector<ScoredGame> ScoredGames(const std::vector<core::GgfRecord>& records);

// Every game in the *.ggf files under each path (a file or a directory, searched
// recursively). Throws core::InputError naming the file and the game on a bad record.
std::vector<core::GgfRecord> ReadGgfGames(const std::vector<std::string>& paths);

std::string FormatLadder(const std::vector<Rating>& ratings);
std::string LadderCsv(const std::vector<Rating>& ratings);

}  // namespace othello::arena
