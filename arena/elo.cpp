#include "arena/elo.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace othello::arena {

namespace fs = std::filesystem;

namespace {

constexpr double kEloPerNat = 400.0 / 2.302585092994046;  // 400 / ln(10)

struct Tally {
  std::vector<std::string> names;
  std::map<std::string, int> index;
  Eigen::MatrixXd score;  // score(i, j): points i took from j
  Eigen::MatrixXd count;  // games between i and j

  int Id(const std::string& name) {
    auto [it, inserted] = index.emplace(name, static_cast<int>(names.size()));
    if (inserted) names.push_back(name);
    return it->second;
  }
};

Tally Count(const std::vector<ScoredGame>& games) {
  Tally t;
  for (const ScoredGame& g : games) t.Id(g.black), t.Id(g.white);
  const int n = static_cast<int>(t.names.size());
  t.score = Eigen::MatrixXd::Zero(n, n);
  t.count = Eigen::MatrixXd::Zero(n, n);
  for (const ScoredGame& g : games) {
    const int b = t.index[g.black], w = t.index[g.white];
    if (b == w) continue;
    t.score(b, w) += g.black_score;
    t.score(w, b) += 1 - g.black_score;
    t.count(b, w) += 1;
    t.count(w, b) += 1;
  }
  return t;
}

// Every player must be linked by games to one of `roots` (the anchor, or the players
// whose ratings are fixed).
void CheckConnected(const Tally& t, const std::vector<int>& roots, const std::string& what) {
  const int n = static_cast<int>(t.names.size());
  std::vector<bool> seen(n, false);
  std::vector<int> stack = roots;
  for (const int root : roots) seen[root] = true;
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    for (int j = 0; j < n; ++j) {
      if (!seen[j] && t.count(i, j) > 0) seen[j] = true, stack.push_back(j);
    }
  }
  std::string missing;
  for (int i = 0; i < n; ++i) {
    if (!seen[i]) missing += (missing.empty() ? "" : ", ") + t.names[i];
  }
  if (!missing.empty()) {
    throw core::InputError("cannot rate " + missing + ": no games connect them to " + what);
  }
}

// The players held at a rating (in nats): the fixed ones that played, or the anchor at 0.
std::map<int, double> HeldRatings(Tally& t, const EloOptions& options) {
  std::map<int, double> held;
  if (!options.fixed.empty()) {
    std::vector<int> roots;
    for (const auto& [name, elo] : options.fixed) {
      const auto it = t.index.find(name);
      if (it != t.index.end()) held[it->second] = elo / kEloPerNat, roots.push_back(it->second);
    }
    if (roots.empty()) throw core::InputError("no game against a player of the fixed ladder");
    CheckConnected(t, roots, "the fixed ladder");
    return held;
  }
  int anchor = 0;
  if (!options.anchor.empty()) {
    auto it = t.index.find(options.anchor);
    if (it == t.index.end()) {
      throw core::InputError("anchor '" + options.anchor + "' played no game");
    }
    anchor = it->second;
  } else if (t.index.count("random")) {
    anchor = t.index["random"];
  }
  CheckConnected(t, {anchor}, "the anchor '" + t.names[anchor] + "'");
  held[anchor] = 0;
  return held;
}

}  // namespace

std::vector<Rating> FitElo(const std::vector<ScoredGame>& games, const EloOptions& options) {
  if (games.empty()) throw core::InputError("no finished games to rate");
  Tally t = Count(games);
  const Tally raw = t;  // the games themselves, before the prior
  const int n = static_cast<int>(t.names.size());
  const std::map<int, double> held = HeldRatings(t, options);
  // The prior: virtual draws between every pair that met.
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j && t.count(i, j) > 0) {
        t.score(i, j) += options.prior_draws / 2;
        t.count(i, j) += options.prior_draws;
      }
    }
  }
  // Free parameters: every player not held (ratings in nats).
  std::vector<int> free;
  Eigen::VectorXd r = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; ++i) {
    const auto it = held.find(i);
    if (it == held.end()) {
      free.push_back(i);
    } else {
      r(i) = it->second;
    }
  }
  const int m = static_cast<int>(free.size());
  Eigen::MatrixXd information = Eigen::MatrixXd::Zero(m, m);
  for (int iter = 0; iter < 100 && m > 0; ++iter) {
    Eigen::VectorXd gradient = Eigen::VectorXd::Zero(m);
    information.setZero();
    for (int a = 0; a < m; ++a) {
      const int i = free[a];
      for (int j = 0; j < n; ++j) {
        if (j == i || t.count(i, j) == 0) continue;
        const double p = 1 / (1 + std::exp(r(j) - r(i)));
        gradient(a) += t.score(i, j) - t.count(i, j) * p;
        const double w = t.count(i, j) * p * (1 - p);
        information(a, a) += w;
        const auto jt = std::find(free.begin(), free.end(), j);
        if (jt != free.end()) information(a, jt - free.begin()) -= w;
      }
    }
    Eigen::VectorXd step = information.ldlt().solve(gradient);
    const double largest = step.cwiseAbs().maxCoeff();
    if (largest > 2) step *= 2 / largest;  // damped: at most 2 nats (~870 Elo) a step
    for (int a = 0; a < m; ++a) r(free[a]) += step(a);
    if (largest < 1e-10) break;
  }
  const Eigen::MatrixXd covariance =
      m > 0 ? Eigen::MatrixXd(information.ldlt().solve(Eigen::MatrixXd::Identity(m, m)))
            : Eigen::MatrixXd();
  std::vector<Rating> ratings(n);
  for (int i = 0; i < n; ++i) {
    Rating& rating = ratings[i];
    rating.name = t.names[i];
    rating.elo = r(i) * kEloPerNat;
    rating.games = static_cast<int>(raw.count.row(i).sum());
    rating.score = rating.games ? raw.score.row(i).sum() / rating.games : 0;
  }
  for (int a = 0; a < m; ++a) {
    ratings[free[a]].ci95 = 1.96 * std::sqrt(std::max(0.0, covariance(a, a))) * kEloPerNat;
  }
  std::stable_sort(ratings.begin(), ratings.end(),
                   [](const Rating& x, const Rating& y) { return x.elo > y.elo; });
  return ratings;
}

std::vector<ScoredGame> ScoredGames(const std::vector<core::GgfRecord>& records) {
  std::vector<ScoredGame> games;
  for (const core::GgfRecord& rec : records) {
    if (!rec.result) continue;
    const double score = *rec.result > 0 ? 1.0 : *rec.result < 0 ? 0.0 : 0.5;
    games.push_back({rec.black_name, rec.white_name, score});
  }
  return games;
}

std::vector<core::GgfRecord> ReadGgfGames(const std::vector<std::string>& paths) {
  std::vector<fs::path> files;
  for (const std::string& path : paths) {
    if (fs::is_directory(path)) {
      for (const auto& entry : fs::recursive_directory_iterator(path)) {
        if (entry.is_regular_file() && entry.path().extension() == ".ggf") files.push_back(entry);
      }
    } else if (fs::is_regular_file(path)) {
      files.push_back(path);
    } else {
      throw core::InputError(path + ": no such file or directory");
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<core::GgfRecord> records;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto games = core::ParseGgfFile(text.str());
    if (!games) throw core::InputError(file.string() + ": " + games.error());
    records.insert(records.end(), games->begin(), games->end());
  }
  return records;
}

std::string FormatLadder(const std::vector<Rating>& ratings) {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line, "%4s  %-32s %8s %7s %6s %7s\n", "rank", "player", "elo", "+-95%",
                "games", "score");
  out << line;
  for (std::size_t i = 0; i < ratings.size(); ++i) {
    const Rating& r = ratings[i];
    std::snprintf(line, sizeof line, "%4zu  %-32s %8.1f %7.1f %6d %6.1f%%\n", i + 1,
                  r.name.c_str(), r.elo, r.ci95, r.games, 100 * r.score);
    out << line;
  }
  return out.str();
}

std::map<std::string, double> ReadLadderCsv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw core::InputError("ladder " + path + ": cannot be read");
  std::map<std::string, double> ladder;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1 || line.empty() || line[0] == '#') continue;  // the header, comments
    const auto fail = [&](const std::string& why) {
      throw core::InputError("ladder " + path + " line " + std::to_string(number) + ": " + why);
    };
    std::string name;
    std::size_t at = 0;
    if (line[0] == '"') {  // a quoted name, "" for a quote
      for (at = 1; at < line.size(); ++at) {
        if (line[at] == '"' && at + 1 < line.size() && line[at + 1] == '"') {
          name += '"', ++at;
        } else if (line[at] == '"') {
          break;
        } else {
          name += line[at];
        }
      }
      if (at >= line.size()) fail("unterminated quoted name");
      ++at;
    } else {
      at = line.find(',');
      name = line.substr(0, at);
    }
    if (at >= line.size() || line[at] != ',') fail("expected player,elo,...");
    const std::string rest = line.substr(at + 1);
    char* end = nullptr;
    const double elo = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str() || (*end && *end != ',') || !std::isfinite(elo) ||
        std::abs(elo) > 1e5) {
      fail("the rating of '" + name + "' is not a number");
    }
    if (name.empty()) fail("a player without a name");
    if (!ladder.emplace(name, elo).second) fail("player '" + name + "' is listed twice");
  }
  if (ladder.empty()) throw core::InputError("ladder " + path + ": no players in it");
  return ladder;
}

std::string LadderCsv(const std::vector<Rating>& ratings) {
  std::ostringstream out;
  out << "player,elo,ci95,games,score\n";
  for (const Rating& r : ratings) {
    std::string name = r.name;
    if (name.find_first_of(",\"") != std::string::npos) {
      std::string quoted = "\"";
      for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      name = quoted + "\"";
    }
    out << name << ',' << r.elo << ',' << r.ci95 << ',' << r.games << ',' << r.score << "\n";
  }
  return out.str();
}

}  // namespace othello::arena
