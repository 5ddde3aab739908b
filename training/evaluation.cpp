#include "training/evaluation.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "arena/player_spec.h"
#include "nn/checkpoint.h"
#include "nn/evaluator.h"
#include "nn/model_loader.h"
#include "training/trainer.h"

namespace othello::training {

namespace fs = std::filesystem;

play::SearchPlayerOptions EvaluationSearch(const TrainingConfig& config, int visits) {
  play::SearchPlayerOptions options =
      play::PlaySearch(static_cast<std::uint64_t>(std::max(1, visits)));
  options.params.rules = config.rules;
  return options;
}

std::vector<std::string> LadderOpponents(int board_size, const std::string& grhino) {
  if (board_size != 8) return {"random", "greedy", "ab:2", "ab:4"};
  std::vector<std::string> players = {"ab:2", "ab:4", "ab:6"};
  if (!grhino.empty()) {
    for (int level = 1; level <= 3; ++level) {
      const std::string n = std::to_string(level);
      players.push_back("rhino" + n + "@gtp:" + grhino + " -l " + n);
    }
  }
  return players;
}

std::vector<std::string> EvaluationOpponents(const TrainingConfig& config) {
  const std::string grhino = fs::exists(kGRhinoPath) ? kGRhinoPath : "";
  std::vector<std::string> opponents;
  for (const std::string& spec : config.eval_opponents) {
    if (spec != "ladder") {
      opponents.push_back(spec);
      continue;
    }
    for (const std::string& player : LadderOpponents(config.rules.size, grhino)) {
      opponents.push_back(player);
    }
  }
  return opponents;
}

bool EvaluationBudget::Allows(double run_seconds) {
  if (share_ <= 0) return true;
  const double game = games_ > 0 ? seconds_ / games_ : 0;
  const double allowance = Allowance(run_seconds);
  if (allowance > 0 && allowance >= game) return true;
  ++skipped_;
  return false;
}

double EvaluationBudget::Allowance(double run_seconds) const {
  if (share_ <= 0) return 0;
  return std::max(0.0, share_ * run_seconds - seconds_);
}

void EvaluationBudget::Spent(double seconds, int games) {
  seconds_ += seconds;
  games_ += games;
}

namespace {

// Earlier evaluated checkpoints of the run (step-N.ckpt with N < step whose model
// played in earlier evaluations: a player step-N in `records`), the latest `count`:
// the chain of games between successive evaluations connects the ratings over the
// whole run. (Not merely the previous checkpoint: with evaluations skipped for the
// time budget, that one is a few hundred steps older and nearly the same model.)
std::vector<std::pair<std::int64_t, fs::path>> EarlierCheckpoints(
    const fs::path& dir, std::int64_t step, int count, const std::vector<core::GgfRecord>& records) {
  std::set<std::string> evaluated;
  for (const core::GgfRecord& r : records) {
    evaluated.insert(r.black_name);
    evaluated.insert(r.white_name);
  }
  std::vector<std::pair<std::int64_t, fs::path>> found;
  for (const auto& [n, path] : StepCheckpoints(dir.string())) {
    if (n < step && evaluated.count(StepName(n))) found.emplace_back(n, path);
  }
  if (static_cast<int>(found.size()) > count) found.erase(found.begin(), found.end() - count);
  return found;
}

}  // namespace

CheckpointEvaluation::CheckpointEvaluation(const TrainingConfig& config, const RunDir& run)
    : config_(config), run_(run) {
  if (!config.eval_ladder.empty()) {
    try {
      ladder_ = arena::ReadLadderCsv(config.eval_ladder);
    } catch (const core::InputError& e) {
      throw core::InputError(std::string("eval.ladder: ") + e.what());
    }
  }
  arena::PlayerDefaults defaults;
  defaults.load_model = nn::LoadModel;  // eval.opponents may name checkpoints
  for (const std::string& spec : EvaluationOpponents(config)) {
    try {
      fixed_.push_back(arena::MakeArenaPlayer(spec, defaults));
    } catch (const core::InputError& e) {
      throw core::InputError(std::string("eval.opponents: ") + e.what());
    }
    if (fixed_.back().trained) {
      if (auto mismatch = core::RulesMismatch(*fixed_.back().trained, config.rules)) {
        throw core::InputError("eval.opponents: player '" + spec + "': " + *mismatch);
      }
    }
  }
}

EvaluationReport CheckpointEvaluation::Evaluate(nn::OthelloNet& candidate, std::int64_t step,
                                                std::shared_ptr<mcts::Evaluator> current,
                                                std::int64_t current_step,
                                                double deadline_seconds) {
  const std::vector<arena::ArenaPlayer> players = Players(candidate, step, current, current_step);
  arena::ArenaOptions options = MatchOptions(step);
  options.deadline_seconds = deadline_seconds;
  std::ostringstream game_log;  // one line per game: not for the training log
  const arena::ArenaSummary summary = arena::RunArena(players, options, game_log);
  EvaluationReport report = Scores(summary, step, current_step);
  report.games = static_cast<int>(summary.games.size());
  report.json["games"] = report.games;
  if (summary.unplayed > 0) {
    report.json["games_unplayed"] = summary.unplayed;
    report.text += " | " + std::to_string(report.games) + " of " +
                   std::to_string(report.games + summary.unplayed) +
                   " games (the rest past eval.max_share)";
  }
  arena::EloOptions elo;
  elo.fixed = ladder_;  // empty: anchored on random
  AddRatings(arena::FitElo(arena::ScoredGames(arena::ReadGgfGames({options.out_dir})), elo),
             StepName(step), report);
  return report;
}

std::vector<arena::ArenaPlayer> CheckpointEvaluation::Players(
    nn::OthelloNet& candidate, std::int64_t step, std::shared_ptr<mcts::Evaluator> current,
    std::int64_t current_step) const {
  nn::EvaluatorOptions inference = config_.inference;
  inference.cache_entries = 0;  // each game's search keeps its own tree: no result cache
  const play::SearchPlayerOptions search = EvaluationSearch(config_, config_.eval_visits);
  std::vector<arena::ArenaPlayer> players = {arena::SearchArenaPlayer(
      StepName(step), nn::MakeEvaluator(candidate, config_.rules, step, inference), search)};
  players.insert(players.end(), fixed_.begin(), fixed_.end());
  bool current_included = false;
  const fs::path eval_dir = run_.eval();
  const std::vector<core::GgfRecord> records =
      fs::exists(eval_dir) ? arena::ReadGgfGames({eval_dir.string()})
                           : std::vector<core::GgfRecord>{};
  for (const auto& [earlier, path] :
       EarlierCheckpoints(run_.checkpoints(), step, config_.eval_previous, records)) {
    nn::Checkpoint checkpoint = LoadRunCheckpoint(config_, path.string());
    players.push_back(arena::SearchArenaPlayer(
        StepName(earlier), nn::MakeEvaluator(checkpoint.net, config_.rules, earlier, inference),
        search));
    current_included |= earlier == current_step;
  }
  if (Gating() && !current_included && current_step != step) {
    players.push_back(arena::SearchArenaPlayer(StepName(current_step), current, search));
  }
  return players;
}

arena::ArenaOptions CheckpointEvaluation::MatchOptions(std::int64_t step) const {
  arena::ArenaOptions options;
  options.rules = config_.rules;
  options.games = config_.eval_games;
  options.openings = "random:4";
  options.gauntlet = true;
  options.out_dir = run_.eval();
  options.seed = config_.seed * 7919 + static_cast<std::uint64_t>(step);
  return options;
}

EvaluationReport CheckpointEvaluation::Scores(const arena::ArenaSummary& summary,
                                              std::int64_t step, std::int64_t current_step) const {
  EvaluationReport report;
  nlohmann::json vs = nlohmann::json::object();
  report.text = "step " + std::to_string(step) + " scores";
  for (const arena::PairResult& p : summary.pairs) {
    const std::string& opponent = summary.players[p.b];
    vs[opponent] = {{"score", p.Score()}, {"wins", p.wins}, {"draws", p.draws},
                    {"losses", p.losses}, {"mean_margin", p.MeanMargin()}};
    char part[128];
    std::snprintf(part, sizeof part, " | %s %.0f%% (%d-%d-%d)", opponent.c_str(), 100 * p.Score(),
                  p.wins, p.draws, p.losses);
    report.text += part;
    if (Gating() && opponent == StepName(current_step)) {
      report.gate_passed = p.Score() >= config_.eval_gate;
      report.json["gate"] = {{"against", opponent}, {"score", p.Score()},
                             {"passed", report.gate_passed}};
      report.text += report.gate_passed ? " (gate passed)" : " (gate failed)";
    }
  }
  report.json["step"] = step;
  report.json["vs"] = vs;
  return report;
}

void CheckpointEvaluation::AddRatings(const std::vector<arena::Rating>& ratings,
                                      const std::string& candidate,
                                      EvaluationReport& report) const {
  nlohmann::json elo = nlohmann::json::object();
  for (const arena::Rating& r : ratings) {
    elo[r.name] = r.elo;
    if (r.name == candidate) {
      report.json["elo"] = r.elo;
      report.json["elo_ci95"] = r.ci95;
      // The scale: the fixed ladder's ratings (scripts/ladder/ladder.csv) held, or, without
      // a ladder, this run's evaluation games alone; random plays at 0 on both.
      const bool ladder = !ladder_.empty();
      report.json["elo_scale"] = ladder ? "ladder" : "run";
      char part[128];
      std::snprintf(part, sizeof part, " | Elo %.0f +- %.0f (%s)", r.elo, r.ci95,
                    ladder ? "ladder scale, random = 0" : "this run's games, random = 0");
      report.text += part;
    }
  }
  report.json["ratings"] = elo;
}

}  // namespace othello::training
