#pragma once
// Strength checks during training (config eval.*): after checkpoints, the new model (a
// search of eval.visits playouts, without self-play's noise) plays a gauntlet in the
// arena against fixed opponents (player specs) and earlier checkpoints. Its games are
// appended to RUN/eval/games.ggf, Elo ratings are fitted to every game recorded there
// (with eval.ladder, its players held at the ladder's ratings; otherwise anchored on
// "random" when it plays), and with gating the new model must score at
// least eval.gate against the model self-play is using before self-play takes it.
// Thread safety: one thread (the trainer's) calls Evaluate.
#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "arena/arena.h"
#include "arena/elo.h"
#include "mcts/evaluator.h"
#include "nn/model.h"
#include "play/search_player.h"
#include "training/config.h"
#include "training/run_dir.h"

namespace othello::training {

// The search settings of evaluation games: play's (play::PlaySearch, as the exported
// model plays) for `visits` playouts, with the config's rules; one visit is the raw policy.
play::SearchPlayerOptions EvaluationSearch(const TrainingConfig& config, int visits);

// eval.opponents' "ladder": the fixed ladder's players that a training evaluation plays
// (scripts/ladder/: alpha-beta at 2, 4 and 6 plies, and GRhino levels 1-3 with
// `grhino`, the gtp-rhino program's path; "" where it is not installed) on 8x8; on other
// boards, which GRhino does not play and the ladder does not rate, random, greedy and
// alpha-beta at 2 and 4 plies.
std::vector<std::string> LadderOpponents(int board_size, const std::string& grhino);
// Where Debian's grhino package installs its GTP engine.
inline constexpr const char* kGRhinoPath = "/usr/games/gtp-rhino";
// The fixed opponents of eval.opponents with "ladder" expanded on this machine (GRhino
// where kGRhinoPath exists).
std::vector<std::string> EvaluationOpponents(const TrainingConfig& config);

// The time budget of evaluations (eval.max_share), kept from the first checkpoint on: an
// evaluation may take what the evaluations have not yet used of `share` of the run's
// time (Allowance; its games stop starting then, arena::ArenaOptions::deadline_seconds),
// and starts only when that is at least one evaluation game's mean duration so far (any
// time left, before the first game). Share 0: no limit.
class EvaluationBudget {
 public:
  explicit EvaluationBudget(double share) : share_(share) {}
  bool Allows(double run_seconds);  // counts a refusal
  // Seconds the next evaluation may take at `run_seconds` (0: no limit, with share 0).
  double Allowance(double run_seconds) const;
  void Spent(double seconds, int games);
  double seconds() const { return seconds_; }
  double Share(double run_seconds) const { return seconds_ / std::max(1e-9, run_seconds); }
  int skipped() const { return skipped_; }

 private:
  double share_;
  double seconds_ = 0;
  int games_ = 0;
  int skipped_ = 0;
};

struct EvaluationReport {
  nlohmann::json json;  // step, per-opponent results, ratings, gate
  std::string text;     // one line for the log
  bool gate_passed = true;
  int games = 0;        // played
};

class CheckpointEvaluation {
 public:
  // Parses the fixed opponents; throws core::InputError naming eval.opponents.
  CheckpointEvaluation(const TrainingConfig& config, const RunDir& run);

  // Plays `candidate` (at `step`) against the opponents, the last eval.previous
  // checkpoints and, with gating, the self-play model (`current` at `current_step`),
  // starting no game after `deadline_seconds` (0: no limit; EvaluationBudget::Allowance).
  EvaluationReport Evaluate(nn::OthelloNet& candidate, std::int64_t step,
                            std::shared_ptr<mcts::Evaluator> current, std::int64_t current_step,
                            double deadline_seconds = 0);

 private:
  // The steps of Evaluate: the gauntlet's players (the candidate first), the match
  // settings, the scores (and the gate), the ratings of every recorded game.
  std::vector<arena::ArenaPlayer> Players(nn::OthelloNet& candidate, std::int64_t step,
                                          std::shared_ptr<mcts::Evaluator> current,
                                          std::int64_t current_step) const;
  arena::ArenaOptions MatchOptions(std::int64_t step) const;
  EvaluationReport Scores(const arena::ArenaSummary& summary, std::int64_t step,
                          std::int64_t current_step) const;
  void AddRatings(const std::vector<arena::Rating>& ratings, const std::string& candidate,
                  EvaluationReport& report) const;
  bool Gating() const { return config_.eval_gate > 0; }

  const TrainingConfig& config_;
  const RunDir run_;
  std::vector<arena::ArenaPlayer> fixed_;
  std::map<std::string, double> ladder_;  // eval.ladder's held ratings (may be empty)
};

}  // namespace othello::training
