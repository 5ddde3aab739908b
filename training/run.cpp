#include "training/run.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "nn/checkpoint.h"
#include "training/evaluation.h"
#include "training/replay_buffer.h"
#include "training/self_play.h"
#include "training/trainer.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Running means of the loss terms between two reports.
struct LossMeans {
  double total = 0, policy = 0, value = 0, ownership = 0, disc = 0;
  int count = 0;
  void Add(const nn::LossTerms& t) {
    total += t.total.item<double>();
    policy += t.policy.item<double>();
    value += t.value.item<double>();
    ownership += t.ownership.item<double>();
    disc += t.disc_difference.item<double>();
    ++count;
  }
  nlohmann::json Json() const {
    const double n = std::max(count, 1);
    return {{"total", total / n}, {"policy", policy / n}, {"value", value / n},
            {"ownership", ownership / n}, {"disc_difference", disc / n}};
  }
};

class Run {
 public:
  Run(const TrainingConfig& config, const std::string& dir, std::ostream& log, bool interactive)
      : config_(config), dir_(dir), log_(log), interactive_(interactive) {}

  RunSummary Execute(const std::atomic<bool>& stop);

 private:
  void SaveCheckpoint(Trainer& trainer, ReplayBuffer& buffer);
  core::Rng rng_;  // the trainer's sampling generator, saved in every checkpoint
  // Evaluates a new checkpoint and publishes it to self-play (with gating: if it passes).
  void Evaluate(Trainer& trainer, ModelSource& models);
  std::unique_ptr<CheckpointEvaluation> evaluation_;
  int checkpoints_ = 0;
  void Report(const Trainer& trainer, const ReplayBuffer& buffer, const SelfPlayStats& stats,
              const LossMeans& losses, bool final_line);

  const TrainingConfig config_;
  const fs::path dir_;
  std::ostream& log_;
  const bool interactive_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_checkpoint_ = Clock::now();
  double last_report_time_ = 0;
  std::uint64_t last_positions_ = 0, last_evaluations_ = 0;
};

void Run::SaveCheckpoint(Trainer& trainer, ReplayBuffer& buffer) {
  buffer.Flush();
  const fs::path latest = dir_ / "checkpoints" / "latest.ckpt";
  const std::uint64_t* state = rng_.state();
  // The trainer's random state (for an exact resume) and the rules (for export).
  const nlohmann::json extra = {
      {"rng", {state[0], state[1], state[2], state[3]}},
      {"rules",
       {{"size", config_.rules.size},
        {"start", std::string(core::StartName(config_.rules.start))},
        {"anti", config_.rules.anti},
        {"empties_to_winner", config_.rules.empties_to_winner}}}};
  nn::SaveCheckpoint(latest.string(), trainer.net(), trainer.step(), &trainer.optimizer(),
                     extra.dump());
  const fs::path copy = dir_ / "checkpoints" / (StepName(trainer.step()) + ".ckpt");
  const fs::path tmp = copy.string() + ".tmp";
  fs::copy_file(latest, tmp, fs::copy_options::overwrite_existing);
  fs::rename(tmp, copy);
  last_checkpoint_ = Clock::now();
}

void Run::Evaluate(Trainer& trainer, ModelSource& models) {
  const std::int64_t step = trainer.step();
  const bool gating = config_.eval_gate > 0;
  if (config_.eval_every_checkpoints == 0 || ++checkpoints_ % config_.eval_every_checkpoints) {
    if (!gating) models.Publish(trainer.net(), step);
    return;
  }
  std::int64_t current_step = 0;
  std::shared_ptr<nn::NetEvaluator> current = models.Current(&current_step);
  const EvaluationReport report = evaluation_->Evaluate(trainer.net(), step, current, current_step);
  if (!gating || report.gate_passed) {
    models.Publish(trainer.net(), step);
    if (gating) {  // self-play resumes from the model that passed the gate
      const fs::path best = dir_ / "checkpoints" / "best.ckpt";
      fs::copy_file(dir_ / "checkpoints" / (StepName(step) + ".ckpt"), best.string() + ".tmp",
                    fs::copy_options::overwrite_existing);
      fs::rename(best.string() + ".tmp", best);
    }
  }
  nlohmann::json line = report.json;
  line["seconds"] = Since(start_);
  std::ofstream(dir_ / "metrics.jsonl", std::ios::app) << nlohmann::json{{"eval", line}}.dump() << "\n";
  const std::string text =
      "[" + std::to_string(static_cast<long long>(Since(start_))) + "s] " + report.text;
  log_ << (interactive_ ? "\r" + text + "\033[K\n" : text + "\n") << std::flush;
}

void Run::Report(const Trainer& trainer, const ReplayBuffer& buffer, const SelfPlayStats& stats,
                 const LossMeans& losses, bool final_line) {
  const double now = Since(start_);
  const double dt = std::max(1e-9, now - last_report_time_);
  const std::uint64_t positions = stats.positions.load(), playouts = stats.playouts.load();
  const double positions_rate = (positions - last_positions_) / dt;
  const double playout_rate = (playouts - last_evaluations_) / dt;
  last_report_time_ = now;
  last_positions_ = positions;
  last_evaluations_ = playouts;
  const double to_checkpoint = std::max(
      0.0, config_.checkpoint_every - static_cast<double>(trainer.step() % config_.checkpoint_every));
  nlohmann::json line = {
      {"seconds", now},          {"step", trainer.step()},
      {"games", buffer.games()}, {"positions", buffer.seen()},
      {"buffer", buffer.size()}, {"window", buffer.WindowSize()},
      {"positions_per_second", positions_rate}, {"playouts_per_second", playout_rate},
      {"learning_rate", trainer.LearningRate()},
      {"resigned", stats.resigned.load()},
      {"resign_checks", stats.resign_checks.load()},
      {"resign_false_positives", stats.resign_false_positives.load()}};
  if (losses.count > 0) line["loss"] = losses.Json();
  std::ofstream(dir_ / "metrics.jsonl", std::ios::app) << line.dump() << "\n";
  char loss_text[96] = "no training steps";
  if (losses.count > 0) {
    const nlohmann::json mean = losses.Json();
    std::snprintf(loss_text, sizeof loss_text, "loss %.3f (policy %.3f value %.3f)",
                  mean["total"].get<double>(), mean["policy"].get<double>(),
                  mean["value"].get<double>());
  }
  char text[320];
  std::snprintf(text, sizeof text,
                "[%6.0fs] step %lld | games %llu | positions %llu (%.0f/s) | playouts %.0f/s | "
                "%s | checkpoint in %.0f steps",
                now, static_cast<long long>(trainer.step()),
                static_cast<unsigned long long>(buffer.games()),
                static_cast<unsigned long long>(buffer.seen()), positions_rate, playout_rate,
                loss_text, to_checkpoint);
  if (interactive_ && !final_line) {
    log_ << "\r" << text << "\033[K" << std::flush;
  } else {
    log_ << (interactive_ ? "\r" : "") << text << "\n" << std::flush;
  }
}

RunSummary Run::Execute(const std::atomic<bool>& stop) {
  fs::create_directories(dir_ / "checkpoints");
  const fs::path latest = dir_ / "checkpoints" / "latest.ckpt";
  nn::Checkpoint checkpoint;
  if (fs::exists(latest)) {
    checkpoint = nn::LoadCheckpoint(latest.string(), config_.net);
    log_ << "resuming " << dir_.string() << " from step " << checkpoint.step << "\n";
  }
  Trainer trainer(config_, checkpoint, latest.string());
  rng_ = core::Rng(config_.seed);
  if (!checkpoint.extra.empty()) {  // resume the trainer's random stream exactly
    try {
      const auto saved = nlohmann::json::parse(checkpoint.extra).at("rng").get<std::vector<std::uint64_t>>();
      if (saved.size() == 4) rng_.set_state(saved.data());
    } catch (const nlohmann::json::exception& e) {
      throw core::InputError("checkpoint " + latest.string() + ": bad run state: " + e.what());
    }
  }
  WindowConfig window;
  window.growing = config_.window == "growing";
  window.min = config_.window_min;
  window.max = config_.window_max;
  window.exponent = config_.window_exponent;
  window.shard_positions = config_.shard_positions;
  ReplayBuffer buffer((dir_ / "replay").string(), window);
  if (!checkpoint.net) SaveCheckpoint(trainer, buffer);

  evaluation_ = std::make_unique<CheckpointEvaluation>(config_, dir_.string());
  ModelSource models(config_.inference);
  const fs::path best = dir_ / "checkpoints" / "best.ckpt";
  if (config_.eval_gate > 0 && fs::exists(best)) {  // gating: self-play's model passed the gate
    nn::Checkpoint gated = nn::LoadCheckpoint(best.string(), config_.net);
    models.Publish(gated.net, gated.step);
  } else {
    models.Publish(trainer.net(), trainer.step());
  }
  SelfPlayStats stats;
  std::atomic<bool> stop_selfplay{false};
  std::vector<std::thread> workers;
  std::vector<std::exception_ptr> errors(config_.selfplay_threads);
  for (int t = 0; t < config_.selfplay_threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        SelfPlayWorker worker(config_, models, buffer, stats,
                              core::Mix64(config_.seed * 1000003 + trainer.step() * 31 + t));
        worker.Run(stop_selfplay);
      } catch (...) {
        errors[t] = std::current_exception();
        stop_selfplay.store(true);
      }
    });
  }

  LossMeans losses;
  double trained = static_cast<double>(trainer.step()) * config_.batch_size;
  const auto time_up = [&] {
    return (config_.minutes > 0 && Since(start_) >= config_.minutes * 60) ||
           (config_.steps > 0 && trainer.step() >= config_.steps);
  };
  while (!stop.load() && !stop_selfplay.load() && !time_up()) {
    const double allowed = config_.samples_per_position * buffer.seen();
    if (buffer.size() < static_cast<std::size_t>(config_.min_positions) ||
        trained + config_.batch_size > allowed) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } else {
      losses.Add(trainer.Step(buffer.Draw(config_.batch_size, rng_)));
      trained += config_.batch_size;
      const bool checkpoint = trainer.step() % config_.checkpoint_every == 0;
      if (checkpoint) {
        SaveCheckpoint(trainer, buffer);
        Evaluate(trainer, models);
      } else if (trainer.step() % config_.publish_every == 0 && config_.eval_gate == 0) {
        models.Publish(trainer.net(), trainer.step());
      }
    }
    if (Since(start_) - last_report_time_ >= (interactive_ ? 1.0 : 10.0)) {
      Report(trainer, buffer, stats, losses, false);
      losses = LossMeans{};
    }
  }
  stop_selfplay.store(true);
  for (auto& w : workers) w.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  SaveCheckpoint(trainer, buffer);
  Report(trainer, buffer, stats, losses, true);
  return RunSummary{trainer.step(), buffer.games(), buffer.seen(), Since(start_)};
}

}  // namespace

RunSummary RunTraining(const TrainingConfig& config, const std::string& run_dir,
                       const std::atomic<bool>& stop, std::ostream& log, bool interactive) {
  Run run(config, run_dir, log, interactive);
  return run.Execute(stop);
}

}  // namespace othello::training
