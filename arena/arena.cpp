#include "arena/arena.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "arena/run_layout.h"
#include "core/file_io.h"
#include "core/notation.h"
#include "core/rng.h"
#include "core/stopwatch.h"
#include "core/thread_annotations.h"

namespace othello::arena {

namespace fs = std::filesystem;

double PairResult::ScoreCi95() const {
  const int n = games();
  if (n < 2) return 0.5;
  const double mean = Score();
  const double squares = wins + 0.25 * draws;  // the sum of the squared game scores
  const double variance = std::max(0.0, (squares - n * mean * mean) / (n - 1));
  return 1.96 * std::sqrt(variance / n);
}

std::string GamesFile(const std::string& out_dir) {
  return (fs::path(out_dir) / run_layout::kGames).string();
}

namespace {

std::vector<std::vector<core::Square>> RandomOpenings(int plies, const core::Position& start,
                                                      int count, std::uint64_t seed) {
  std::vector<std::vector<core::Square>> openings;
  std::set<std::vector<core::Square>> seen;
  core::Rng rng(seed);
  for (int tries = 0; static_cast<int>(openings.size()) < count; ++tries) {
    std::vector<core::Square> moves;
    core::Position pos = start;
    for (int i = 0; i < plies && !pos.IsGameOver(); ++i) {
      moves.push_back(core::RandomLegalMove(pos, rng));
      pos = pos.Play(moves.back());
    }
    // Distinct openings while there are enough of them.
    if (seen.insert(moves).second || tries > 100 * count) openings.push_back(moves);
  }
  return openings;
}

std::vector<std::vector<core::Square>> FileOpenings(const std::string& path,
                                                    const core::Position& start) {
  std::ifstream in(path);
  if (!in) throw core::InputError("openings file " + path + ": cannot be read");
  std::vector<std::vector<core::Square>> openings;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto moves = core::ParseTranscript(line, start);
    if (!moves) {
      throw core::InputError("openings file " + path + " line " + std::to_string(number) + ": " +
                             moves.error());
    }
    openings.push_back(*moves);
  }
  if (openings.empty()) throw core::InputError("openings file " + path + ": no openings in it");
  return openings;
}

struct Job {
  int pair;
  int opening;
  bool swapped;  // b plays black
};

}  // namespace

core::Position ArenaStart(const core::Rules& rules) {
  core::Rules fixed = rules;
  if (fixed.start == core::StartKind::kRandom) fixed.start = core::StartKind::kStandard;
  return core::StartPosition(fixed);
}

std::vector<std::vector<core::Square>> ArenaOpenings(const std::string& spec,
                                                     const core::Position& start, int count,
                                                     std::uint64_t seed) {
  const int size = start.size();
  if (spec.rfind("random:", 0) == 0) {
    const std::string k = spec.substr(7);
    char* end = nullptr;
    const long plies = std::strtol(k.c_str(), &end, 10);
    if (k.empty() || *end || plies < 0 || plies > size * size) {
      throw core::InputError("openings '" + spec + "': K in random:K must be a number of plies 0.." +
                             std::to_string(size * size));
    }
    return RandomOpenings(static_cast<int>(plies), start, count, seed);
  }
  std::vector<std::vector<core::Square>> all = FileOpenings(spec, start);
  std::vector<std::vector<core::Square>> openings;
  for (int i = 0; i < count; ++i) openings.push_back(all[i % all.size()]);
  return openings;
}

namespace {

void CheckOptions(const std::vector<ArenaPlayer>& players, const ArenaOptions& options) {
  if (players.size() < 2) throw core::InputError("the arena needs at least two players");
  if (options.games < 1) throw core::InputError("--games must be at least 1");
  if (options.parallel < 1) throw core::InputError("--parallel must be at least 1");
  if (auto error = core::ValidateRules(options.rules)) throw core::InputError(error->message);
}

// A model trained for other rules (size, goal) cannot play these games.
void CheckTrainedRules(const std::vector<ArenaPlayer>& players, const core::Rules& rules) {
  for (const ArenaPlayer& player : players) {
    if (!player.trained) continue;
    if (auto mismatch = core::RulesMismatch(*player.trained, rules)) {
      throw core::InputError("player " + player.name + ": " + *mismatch);
    }
  }
}

// The pairs (every pair, or the first player's in a gauntlet) and their games: each
// opening once with each colour.
std::vector<Job> Schedule(const std::vector<ArenaPlayer>& players, bool gauntlet,
                          int openings_per_pair, ArenaSummary& summary) {
  std::vector<Job> jobs;
  for (std::size_t a = 0; a < players.size(); ++a) {
    summary.players.push_back(players[a].name);
    for (std::size_t b = a + 1; b < players.size() && (a == 0 || !gauntlet); ++b) {
      PairResult pair;
      pair.a = static_cast<int>(a), pair.b = static_cast<int>(b);
      for (int o = 0; o < openings_per_pair; ++o) {
        jobs.push_back({static_cast<int>(summary.pairs.size()), o, false});
        jobs.push_back({static_cast<int>(summary.pairs.size()), o, true});
      }
      summary.pairs.push_back(pair);
    }
  }
  return jobs;
}

// OUT/games.ggf with a torn last line cut, or "" without an output directory.
std::string OpenGameFile(const std::string& out_dir) {
  if (out_dir.empty()) return "";
  fs::create_directories(out_dir);
  const std::string ggf = GamesFile(out_dir);
  core::RepairTornTail(ggf, "game file");
  return ggf;
}

// Plays the scheduled games on `parallel` threads, each taking the next game.
class ArenaRunner {
 public:
  ArenaRunner(const std::vector<ArenaPlayer>& players, const ArenaOptions& options,
              std::ostream& log)
      : players_(players), options_(options), log_(log), start_(ArenaStart(options.rules)) {}

  ArenaSummary Run() EXCLUDES(mutex_) {
    const int openings_per_pair = (options_.games + 1) / 2;
    openings_ = ArenaOpenings(options_.openings, start_, openings_per_pair, options_.seed);
    {
      core::MutexLock lock(mutex_);  // uncontended: no thread runs yet
      jobs_ = Schedule(players_, options_.gauntlet, openings_per_pair, summary_);
    }
    if (options_.deadline_seconds > 0) {  // opening by opening, each pair in turn
      std::stable_sort(jobs_.begin(), jobs_.end(), [](const Job& x, const Job& y) {
        return std::make_pair(x.opening, x.swapped) < std::make_pair(y.opening, y.swapped);
      });
    }
    began_ = core::SteadyClock::now();
    CheckTrainedRules(players_, options_.rules);
    ggf_ = OpenGameFile(options_.out_dir);
    std::vector<std::thread> threads;
    const int n = std::min<int>(options_.parallel, static_cast<int>(jobs_.size()));
    for (int t = 0; t < n; ++t) threads.emplace_back([this] { Work(); });
    for (std::thread& t : threads) t.join();
    core::MutexLock lock(mutex_);  // uncontended: every thread is joined
    if (first_error_) std::rethrow_exception(first_error_);
    summary_.unplayed = static_cast<int>(jobs_.size() - summary_.games.size());
    return std::move(summary_);
  }

 private:
  void Work() EXCLUDES(mutex_) {
    for (std::size_t j; (j = next_++) < jobs_.size();) {
      if (options_.deadline_seconds > 0 &&
          core::SecondsSince(began_) >= options_.deadline_seconds) {
        return;
      }
      try {
        Record(jobs_[j], Play(j));
      } catch (...) {
        core::MutexLock lock(mutex_);
        if (!first_error_) first_error_ = std::current_exception();
        next_ = jobs_.size();  // stop handing out games
      }
    }
  }

  // Game j with fresh players (pair and opening fixed by the schedule; no lock held).
  play::MatchResult Play(std::size_t j) const {
    const Job& job = jobs_[j];
    const PairResult& pair = PairOf(job);
    const std::uint64_t seed = options_.seed * 1000003 + j * 2;
    std::unique_ptr<play::Player> a = players_[pair.a].make(seed);
    std::unique_ptr<play::Player> b = players_[pair.b].make(seed + 1);
    play::MatchSetup setup;
    setup.rules = options_.rules;
    setup.start = start_;
    setup.opening = openings_[job.opening];
    setup.time = options_.time;
    return job.swapped ? play::PlayMatch(*b, *a, setup) : play::PlayMatch(*a, *b, setup);
  }

  // The pair of `job`, for its players only. Read without mutex_: a pair's players are
  // set before the threads start and never change (Record changes only its counts).
  const PairResult& PairOf(const Job& job) const NO_THREAD_SAFETY_ANALYSIS {
    return summary_.pairs[job.pair];
  }

  // Counts the game for its pair, appends it to the game file and logs it.
  void Record(const Job& job, play::MatchResult game) EXCLUDES(mutex_) {
    core::MutexLock lock(mutex_);
    PairResult& pair = summary_.pairs[job.pair];
    const int margin_a = job.swapped ? -game.black_margin : game.black_margin;
    (margin_a > 0 ? pair.wins : margin_a < 0 ? pair.losses : pair.draws)++;
    pair.margin_sum += margin_a;
    if (game.end != play::MatchEnd::kNormal) {
      const bool a_lost = margin_a < 0;
      (game.end == play::MatchEnd::kTime ? pair.time_losses : pair.forfeits)[a_lost ? 0 : 1]++;
    }
    if (!ggf_.empty()) core::AppendToFile(ggf_, core::WriteGgf(game.record) + "\n", "game file");
    log_ << "game " << ++finished_ << "/" << jobs_.size() << ": " << game.record.black_name
         << " (black) - " << game.record.white_name << " (white) " << std::showpos
         << game.black_margin << std::noshowpos
         << (game.reason.empty() ? "" : "  [" + game.reason + "]") << "\n"
         << std::flush;
    summary_.games.push_back(std::move(game));
  }

  // Set before the threads start, then only read.
  const std::vector<ArenaPlayer>& players_;
  const ArenaOptions& options_;
  std::ostream& log_;
  const core::Position start_;
  std::vector<std::vector<core::Square>> openings_;
  std::vector<Job> jobs_;
  std::string ggf_;
  core::SteadyClock::time_point began_;

  std::atomic<std::size_t> next_{0};  // the next job to hand out
  // Guards the rest, and the writes to the game file and log_ (unchecked).
  core::Mutex mutex_;
  ArenaSummary summary_ GUARDED_BY(mutex_);  // its pairs' counts and games
  int finished_ GUARDED_BY(mutex_) = 0;
  std::exception_ptr first_error_ GUARDED_BY(mutex_);
};

}  // namespace

ArenaSummary RunArena(const std::vector<ArenaPlayer>& players, const ArenaOptions& options,
                      std::ostream& log) {
  CheckOptions(players, options);
  return ArenaRunner(players, options, log).Run();
}

std::string FormatArenaTable(const ArenaSummary& summary) {
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-28s %-28s %5s %5s %5s %6s %8s %14s %6s\n", "player",
                "opponent", "wins", "draws", "loss", "games", "margin", "score (95%)", "elo");
  out << line;
  for (const PairResult& p : summary.pairs) {
    const double s = p.Score();
    const double clamped = std::min(std::max(s, 0.001), 0.999);
    const double elo = -400 * std::log10(1 / clamped - 1);
    std::snprintf(line, sizeof line, "%-28s %-28s %5d %5d %5d %6d %+8.2f %6.1f%% +-%4.1f %+6.0f\n",
                  summary.players[p.a].c_str(), summary.players[p.b].c_str(), p.wins, p.draws,
                  p.losses, p.games(), p.MeanMargin(), 100 * s, 100 * p.ScoreCi95(), elo);
    out << line;
    if (p.time_losses[0] + p.time_losses[1] + p.forfeits[0] + p.forfeits[1] > 0) {
      std::snprintf(line, sizeof line, "    lost on time %d / %d, forfeits %d / %d\n",
                    p.time_losses[0], p.time_losses[1], p.forfeits[0], p.forfeits[1]);
      out << line;
    }
  }
  return out.str();
}

std::string ArenaJson(const ArenaSummary& summary, const ArenaOptions& options) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const PairResult& p : summary.pairs) {
    pairs.push_back({{"player", summary.players[p.a]},
                     {"opponent", summary.players[p.b]},
                     {"wins", p.wins},
                     {"draws", p.draws},
                     {"losses", p.losses},
                     {"games", p.games()},
                     {"mean_margin", p.MeanMargin()},
                     {"score", p.Score()},
                     {"score_ci95", p.ScoreCi95()},
                     {"time_losses", {p.time_losses[0], p.time_losses[1]}},
                     {"forfeits", {p.forfeits[0], p.forfeits[1]}}});
  }
  nlohmann::json json = {{"players", summary.players},
                         {"size", options.rules.size},
                         {"games_per_pair", (options.games + 1) / 2 * 2},
                         {"openings", options.openings},
                         {"pairs", pairs}};
  if (options.time) json["time"] = options.time->ToString();
  return json.dump(2);
}

}  // namespace othello::arena
