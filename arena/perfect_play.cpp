#include "arena/perfect_play.h"

#include <chrono>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/game.h"
#include "core/notation.h"
#include "core/solver.h"
#include "play/player.h"

namespace othello::arena {
namespace {

constexpr std::size_t kMistakesKept = 20;

struct PositionHash {
  std::size_t operator()(const core::Position& p) const {
    return static_cast<std::size_t>(p.Hash() ^ (p.side_to_move() == core::Color::kWhite
                                                    ? 0x9e3779b97f4a7c15ULL
                                                    : 0));
  }
};

// "a win", "a loss by 4", ...: a win/draw/loss, or an exact margin.
std::string ValueName(int value, bool exact) {
  const std::string name = value > 0 ? "a win" : value < 0 ? "a loss" : "a draw";
  if (!exact || value == 0) return name;
  return name + " by " + std::to_string(value > 0 ? value : -value);
}

// "start: ply 4 (28 empties) of the player's own game e4c5b4e3, proven in 3.214 s: a loss by 4
// for black"
std::string StartLine(const PerfectPlayReport& report) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(3);
  out << "start: ply " << report.start_ply << " (" << report.start_empties
      << " empties) of the player's own game"
      << (report.start_line.empty() ? "" : " " + report.start_line) << ", proven in "
      << report.start_seconds << " s: " << ValueName(report.start_value, report.exact_score)
      << " for black";
  return out.str();
}

std::string MistakeLine(const PerfectPlayMistake& m, bool exact) {
  return "mistake as " + std::string(core::ColorName(m.colour)) + " after '" + m.transcript +
         "': " + m.move + " turns " + ValueName(m.before, exact) + " into " +
         ValueName(m.after, exact);
}

std::string ColourLine(const PerfectPlayColour& c, bool optimal_replies) {
  std::ostringstream out;
  out << core::ColorName(c.colour) << ": " << c.checked << " moves checked, " << c.mistakes
      << " mistakes, " << c.unproven << " unproven, "
      << (!c.complete        ? "stopped at --max-positions"
          : optimal_replies ? "every perfect reply walked"
                            : "every reply walked");
  return out.str();
}

constexpr std::chrono::seconds kProgressEvery{60};

class Checker {
 public:
  Checker(const ArenaPlayer& player, const PerfectPlayOptions& options, std::ostream* progress)
      : options_(options),
        name_(player.name),
        player_(player.make(options.seed)),
        solver_(options.solver_megabytes),
        progress_(progress) {}

  PerfectPlayReport Run() {
    PerfectPlayReport report;
    report.optimal_replies = options_.optimal_replies;
    report.exact_score = options_.exact_score;
    FindStart(report);
    start_empties_ = report.start_empties;
    Report(StartLine(report));
    for (const core::Color colour : {core::Color::kBlack, core::Color::kWhite}) {
      PerfectPlayColour stats;
      stats.colour = colour;
      visited_.clear();
      positions_ = 0;
      stopped_ = false;
      core::Game game(options_.rules);
      Walk(game, stats, report);
      report.colours.push_back(stats);
      Report(ColourLine(stats, options_.optimal_replies));
    }
    return report;
  }

 private:
  // Plays the player against itself until a position is proven (or the given ply).
  void FindStart(PerfectPlayReport& report) {
    core::Game line(options_.rules);
    for (int ply = 0;; ++ply) {
      const core::Position& position = line.position();
      if (options_.start_ply ? ply == *options_.start_ply : !position.IsGameOver()) {
        Report("proving ply " + std::to_string(ply) + " of the player's own game (" +
               std::to_string(position.EmptyCount()) + " empties, at most " + Seconds() + ")");
        const auto began = std::chrono::steady_clock::now();
        const std::optional<int> value = ValueFor(position, core::Color::kBlack);
        if (value) {
          report.start_ply = ply;
          report.start_empties = position.EmptyCount();
          report.start_line = core::FormatTranscript(line.moves(), options_.rules.size);
          report.start_value = *value;
          report.start_seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
          return;
        }
        if (options_.start_ply) {
          throw core::InputError("the position at ply " + std::to_string(ply) +
                                 " of the player's own game was not proven within " +
                                 Seconds() + " (raise --prove-seconds)");
        }
      }
      if (position.IsGameOver()) {
        throw core::InputError(
            options_.start_ply
                ? "the player's own game ends before ply " + std::to_string(*options_.start_ply)
                : "no position of the player's own game was proven within " + Seconds() +
                      " (raise --prove-seconds)");
      }
      Play(line, position.MustPass() ? core::kPass : Move(line));
    }
  }

  // Every position the player can face as stats.colour from `game`, depth first.
  void Walk(core::Game& game, PerfectPlayColour& stats, PerfectPlayReport& report) {
    const core::Position position = game.position();
    if (stopped_ || position.IsGameOver() || !visited_.insert(position).second) return;
    if (position.MustPass()) {
      Play(game, core::kPass);
      Walk(game, stats, report);
      game.Undo();
      return;
    }
    if (position.side_to_move() != stats.colour) {
      const core::Color other = position.side_to_move();
      std::optional<int> keep;  // with optimal replies: the other side's value to keep
      if (options_.optimal_replies && position.EmptyCount() <= start_empties_) {
        keep = ValueFor(position, other);
        if (!keep) ++stats.unproven;
      }
      core::Bitboard moves = position.LegalMoves();
      while (moves && !stopped_) {
        const core::Square reply = core::LowestSquare(moves);
        moves &= moves - 1;
        if (keep) {
          const std::optional<int> value = ValueFor(position.Play(reply), other);
          if (!value) ++stats.unproven;
          if (value && *value < *keep) continue;  // a perfect opponent never plays it
        }
        Play(game, reply);
        Walk(game, stats, report);
        game.Undo();
      }
      return;
    }
    if (positions_ >= options_.max_positions) {
      stats.complete = false;
      stopped_ = true;
      return;
    }
    ++positions_;
    if (progress_ && (positions_ % 10000 == 0 ||
                      std::chrono::steady_clock::now() - last_report_ >= kProgressEvery)) {
      Report(std::string(core::ColorName(stats.colour)) + ": " + std::to_string(positions_) +
             " positions, " + std::to_string(stats.checked) + " moves checked, " +
             std::to_string(stats.mistakes) + " mistakes so far");
    }
    const core::Square move = Move(game);
    if (position.EmptyCount() <= start_empties_) Check(game, move, stats, report);
    Play(game, move);
    Walk(game, stats, report);
    game.Undo();
  }

  void Check(const core::Game& game, core::Square move, PerfectPlayColour& stats,
             PerfectPlayReport& report) {
    const core::Position& position = game.position();
    const std::optional<int> before = ValueFor(position, stats.colour);
    const std::optional<int> after = before ? ValueFor(position.Play(move), stats.colour)
                                            : std::nullopt;
    if (!before || !after) {
      ++stats.unproven;
      return;
    }
    ++stats.checked;
    if (*after >= *before) return;
    ++stats.mistakes;
    const PerfectPlayMistake mistake{stats.colour,
                                     core::FormatTranscript(game.moves(), options_.rules.size),
                                     core::SquareName(move, options_.rules.size), *before,
                                     *after};
    Report(MistakeLine(mistake, options_.exact_score));
    if (report.mistakes.size() < kMistakesKept) report.mistakes.push_back(mistake);
  }

  // A line of progress, with the minutes since the check began.
  void Report(const std::string& line) {
    if (!progress_) return;
    const auto now = std::chrono::steady_clock::now();
    last_report_ = now;
    const double minutes = std::chrono::duration<double>(now - began_).count() / 60;
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(1);
    out << "[" << minutes << " min] " << line << "\n";
    *progress_ << out.str() << std::flush;
  }

  // The player's move at the game's position, asked once per position.
  core::Square Move(const core::Game& game) {
    const auto known = moves_.find(game.position());
    if (known != moves_.end()) return known->second;
    const core::Game start(options_.rules, game.start());
    player_->NewGame(start, std::nullopt);
    const core::Square move = player_->GenMove(game, play::MoveClock{}).square;
    if (!game.position().IsLegal(move)) {
      throw play::PlayerError("player '" + name_ + "' played an illegal move (" +
                              core::SquareName(move, options_.rules.size) + ") after '" +
                              core::FormatTranscript(game.moves(), options_.rules.size) + "'");
    }
    moves_.emplace(game.position(), move);
    return move;
  }

  static void Play(core::Game& game, core::Square move) {
    if (auto error = game.Play(move)) throw core::InputError(error->message);
  }

  // Win (+1), draw (0) or loss (-1) for `colour`, or with exact_score its final margin;
  // nothing when not proven in time.
  std::optional<int> ValueFor(const core::Position& position, core::Color colour) {
    int value = 0;  // for the side to move
    if (position.IsGameOver()) {
      const int margin = core::Score(position, options_.rules).MarginFor(position.side_to_move());
      value = options_.exact_score ? margin : (margin > 0) - (margin < 0);
    } else {
      const auto known = values_.find(position);
      if (known != values_.end()) {
        if (!known->second) return std::nullopt;
        value = *known->second;
      } else {
        core::SolveLimits limits;
        limits.max_seconds = options_.prove_seconds;
        const core::SolveResult solved =
            options_.exact_score ? solver_.Solve(position, options_.rules, limits)
                                 : solver_.SolveWld(position, options_.rules, limits);
        values_.emplace(position, solved.exact() ? std::optional<int>(solved.score) : std::nullopt);
        if (!solved.exact()) return std::nullopt;
        value = solved.score;
      }
    }
    return position.side_to_move() == colour ? value : -value;
  }

  std::string Seconds() const {
    std::ostringstream text;
    text << options_.prove_seconds << " s";
    return text.str();
  }

  const PerfectPlayOptions& options_;
  const std::string name_;
  std::unique_ptr<play::Player> player_;
  core::Solver solver_;
  std::ostream* progress_;
  const std::chrono::steady_clock::time_point began_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_report_ = began_;
  int start_empties_ = 0;
  std::unordered_map<core::Position, core::Square, PositionHash> moves_;
  std::unordered_map<core::Position, std::optional<int>, PositionHash> values_;
  std::unordered_set<core::Position, PositionHash> visited_;  // this colour's walk
  std::uint64_t positions_ = 0;                                // the player's, this walk
  bool stopped_ = false;
};

}  // namespace

bool PerfectPlayReport::Perfect() const {
  for (const PerfectPlayColour& c : colours) {
    if (!c.complete || c.unproven > 0 || c.mistakes > 0) return false;
  }
  return !colours.empty();
}

PerfectPlayReport CheckPerfectPlay(const ArenaPlayer& player, const PerfectPlayOptions& options,
                                   std::ostream* progress) {
  return Checker(player, options, progress).Run();
}

std::string FormatPerfectPlay(const PerfectPlayReport& report) {
  std::ostringstream out;
  out << StartLine(report) << "\n";
  for (const PerfectPlayColour& c : report.colours) {
    out << ColourLine(c, report.optimal_replies) << "\n";
  }
  for (const PerfectPlayMistake& m : report.mistakes) {
    out << MistakeLine(m, report.exact_score) << "\n";
  }
  out << (report.Perfect() ? "perfect play from ply " + std::to_string(report.start_ply) +
                                 " as both colours against every " +
                                 (report.optimal_replies ? "perfect reply" : "reply") +
                                 (report.exact_score ? ", keeping the exact margin" : "")
                           : std::string("not shown perfect")) << "\n";
  return out.str();
}

}  // namespace othello::arena
