#include "training/run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "nn/checkpoint.h"
#include "nn/rules_json.h"
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

// Runs `action`; a failure becomes one error that says what was being done.
template <typename Action>
void Attempt(const std::string& what, Action&& action) {
  try {
    action();
  } catch (const std::exception& e) {
    throw std::runtime_error(what + " failed: " + e.what());
  }
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

// The self-play threads. Stop() (also run by the destructor, so that an error
// unwinding through the run never meets a joinable thread) sets the stop flag and joins
// them; a thread that fails records its error and stops the others.
class SelfPlayThreads {
 public:
  SelfPlayThreads(const TrainingConfig& config, ModelSource& models, ReplayBuffer& buffer,
                  SelfPlayStats& stats, std::int64_t step)
      : errors_(config.selfplay_threads) {
    for (int t = 0; t < config.selfplay_threads; ++t) {
      threads_.emplace_back([&, t, step] {
        try {
          SelfPlayWorker worker(config, models, buffer, stats,
                                core::Mix64(config.seed * 1000003 + step * 31 + t));
          worker.Run(stop_);
        } catch (...) {
          errors_[t] = std::current_exception();  // read only after the join
          stop_.store(true);
        }
      });
    }
  }
  SelfPlayThreads(const SelfPlayThreads&) = delete;
  SelfPlayThreads& operator=(const SelfPlayThreads&) = delete;
  ~SelfPlayThreads() { Stop(); }

  bool stopped() const { return stop_.load(); }
  void Stop() {
    stop_.store(true);
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  // After Stop(): throws the first thread's error, naming the thread.
  void RethrowError() const {
    for (std::size_t t = 0; t < errors_.size(); ++t) {
      if (errors_[t]) {
        Attempt("self-play thread " + std::to_string(t), [&] { std::rethrow_exception(errors_[t]); });
      }
    }
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::exception_ptr> errors_;  // one per thread, written by it before it ends
  std::vector<std::thread> threads_;
};

class Run {
 public:
  Run(const TrainingConfig& config, const std::string& dir, std::ostream& log, bool interactive)
      : config_(config), dir_(dir), log_(log), interactive_(interactive) {}

  RunSummary Execute(const std::atomic<bool>& stop);

 private:
  // The steps of Execute, in order.
  nn::Checkpoint Resume();
  void TrainUntilStopped(Trainer& trainer, ReplayBuffer& buffer, ModelSource& models,
                         const SelfPlayStats& stats, const SelfPlayThreads& selfplay,
                         const std::atomic<bool>& stop);

  void SaveCheckpoint(Trainer& trainer, ReplayBuffer& buffer);
  // Evaluates a new checkpoint and publishes it to self-play (with gating: if it passes).
  void Evaluate(Trainer& trainer, ModelSource& models);
  void Report(const Trainer& trainer, const ReplayBuffer& buffer, const SelfPlayStats& stats,
              const LossMeans& losses, bool final_line);
  void AppendMetrics(const nlohmann::json& line);
  fs::path CheckpointPath(const std::string& name) const { return dir_ / "checkpoints" / name; }

  const TrainingConfig config_;
  const fs::path dir_;
  std::ostream& log_;
  const bool interactive_;
  core::Rng rng_;  // the trainer's sampling generator, saved in every checkpoint
  std::unique_ptr<CheckpointEvaluation> evaluation_;
  int checkpoints_ = 0;
  LossMeans losses_;  // since the last report
  std::int64_t saved_step_ = -1;  // the step of the last checkpoint written or resumed
  Clock::time_point start_ = Clock::now();
  double last_report_time_ = 0;
  std::uint64_t last_positions_ = 0, last_evaluations_ = 0;
};

void Run::AppendMetrics(const nlohmann::json& line) {
  core::AppendToFile((dir_ / "metrics.jsonl").string(), line.dump() + "\n", "metrics");
}

void Run::SaveCheckpoint(Trainer& trainer, ReplayBuffer& buffer) {
  const std::int64_t step = trainer.step();
  if (step == saved_step_) return;  // e.g. the last step was a checkpoint step
  Attempt("checkpoint at step " + std::to_string(step), [&] {
    buffer.Flush();
    const std::uint64_t* state = rng_.state();
    // The trainer's random state, for an exact resume.
    const nlohmann::json metadata = {{"rng", {state[0], state[1], state[2], state[3]}}};
    const std::string bytes = nn::SerializeCheckpoint(trainer.net(), step, &trainer.optimizer(),
                                                      config_.rules, metadata);
    // The step's own copy first: latest.ckpt never names a step whose file is missing.
    core::WriteFileAtomically(CheckpointPath(StepName(step) + ".ckpt").string(), bytes,
                              "checkpoint");
    core::WriteFileAtomically(CheckpointPath("latest.ckpt").string(), bytes, "checkpoint");
  });
  saved_step_ = step;
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
  EvaluationReport report;
  Attempt("evaluation of step " + std::to_string(step), [&] {
    report = evaluation_->Evaluate(trainer.net(), step, current, current_step);
  });
  if (!gating || report.gate_passed) {
    models.Publish(trainer.net(), step);
    if (gating) {  // self-play resumes from the model that passed the gate
      const fs::path from = CheckpointPath(StepName(step) + ".ckpt");
      core::WriteFileAtomically(CheckpointPath("best.ckpt").string(),
                                core::ReadFile(from.string(), "checkpoint"), "checkpoint");
    }
  }
  nlohmann::json line = report.json;
  line["seconds"] = Since(start_);
  AppendMetrics({{"eval", line}});
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
  AppendMetrics(line);
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

// The checkpoint to resume from (a null net on a new run) and the trainer's random
// state; also mends a metrics file cut short by a kill.
nn::Checkpoint Run::Resume() {
  fs::create_directories(dir_ / "checkpoints");
  if (const std::uint64_t cut = core::RepairTornTail((dir_ / "metrics.jsonl").string(), "metrics")) {
    log_ << "metrics.jsonl: removed an unfinished last line (" << cut << " bytes)\n";
  }
  rng_ = core::Rng(config_.seed);
  const fs::path latest = CheckpointPath("latest.ckpt");
  if (!fs::exists(latest)) return {};
  nn::Checkpoint checkpoint = nn::LoadCheckpoint(latest.string(), config_.net);
  if (checkpoint.rules) {
    if (auto mismatch = core::RulesMismatch(*checkpoint.rules, config_.rules)) {
      throw core::InputError("checkpoint " + latest.string() + ": " + *mismatch +
                             " (the config's game.* differs from the run's)");
    }
  }
  const auto rng = checkpoint.metadata.find("rng");
  if (rng != checkpoint.metadata.end()) {  // resume the trainer's random stream exactly
    if (!rng->is_array() || rng->size() != 4 ||
        !std::all_of(rng->begin(), rng->end(), [](const auto& v) { return v.is_number_unsigned(); })) {
      throw core::InputError("checkpoint " + latest.string() +
                             ": bad run state: rng must be 4 unsigned integers");
    }
    const auto state = rng->get<std::vector<std::uint64_t>>();
    rng_.set_state(state.data());
  }
  saved_step_ = checkpoint.step;
  log_ << "resuming " << dir_.string() << " from step " << checkpoint.step << "\n";
  return checkpoint;
}

void Run::TrainUntilStopped(Trainer& trainer, ReplayBuffer& buffer, ModelSource& models,
                            const SelfPlayStats& stats, const SelfPlayThreads& selfplay,
                            const std::atomic<bool>& stop) {
  double trained = static_cast<double>(trainer.step()) * config_.batch_size;
  const auto time_up = [&] {
    return (config_.minutes > 0 && Since(start_) >= config_.minutes * 60) ||
           (config_.steps > 0 && trainer.step() >= config_.steps);
  };
  while (!stop.load() && !selfplay.stopped() && !time_up()) {
    const double allowed = config_.samples_per_position * buffer.seen();
    if (buffer.size() < static_cast<std::size_t>(config_.min_positions) ||
        trained + config_.batch_size > allowed) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } else {
      Attempt("training step " + std::to_string(trainer.step() + 1), [&] {
        losses_.Add(trainer.Step(buffer.Draw(config_.batch_size, rng_)));
      });
      trained += config_.batch_size;
      if (trainer.step() % config_.checkpoint_every == 0) {
        SaveCheckpoint(trainer, buffer);
        Evaluate(trainer, models);
      } else if (trainer.step() % config_.publish_every == 0 && config_.eval_gate == 0) {
        models.Publish(trainer.net(), trainer.step());
      }
    }
    if (Since(start_) - last_report_time_ >= (interactive_ ? 1.0 : 10.0)) {
      Report(trainer, buffer, stats, losses_, false);
      losses_ = LossMeans{};
    }
  }
}

RunSummary Run::Execute(const std::atomic<bool>& stop) {
  const nn::Checkpoint checkpoint = Resume();
  Trainer trainer(config_, checkpoint, CheckpointPath("latest.ckpt").string());
  WindowConfig window;
  window.growing = config_.window == "growing";
  window.min = config_.window_min;
  window.max = config_.window_max;
  window.exponent = config_.window_exponent;
  window.shard_positions = config_.shard_positions;
  ReplayBuffer buffer((dir_ / "replay").string(), window, config_.rules.size);
  if (checkpoint.net) {
    log_ << "replay: " << buffer.games() << " games, " << buffer.seen() << " positions ("
         << buffer.size() << " in the window)\n";
  } else {
    SaveCheckpoint(trainer, buffer);
  }

  evaluation_ = std::make_unique<CheckpointEvaluation>(config_, dir_.string());
  ModelSource models(config_.inference);
  const fs::path best = CheckpointPath("best.ckpt");
  if (config_.eval_gate > 0 && fs::exists(best)) {  // gating: self-play's model passed the gate
    nn::Checkpoint gated = nn::LoadCheckpoint(best.string(), config_.net);
    models.Publish(gated.net, gated.step);
  } else {
    models.Publish(trainer.net(), trainer.step());
  }
  SelfPlayStats stats;
  // Declared after what the threads use, so that they are joined before it goes.
  SelfPlayThreads selfplay(config_, models, buffer, stats, trainer.step());
  TrainUntilStopped(trainer, buffer, models, stats, selfplay, stop);
  selfplay.Stop();
  selfplay.RethrowError();
  SaveCheckpoint(trainer, buffer);
  Report(trainer, buffer, stats, losses_, true);
  return RunSummary{trainer.step(), buffer.games(), buffer.seen(), Since(start_)};
}

}  // namespace

RunSummary RunTraining(const TrainingConfig& config, const std::string& run_dir,
                       const std::atomic<bool>& stop, std::ostream& log, bool interactive) {
  Run run(config, run_dir, log, interactive);
  return run.Execute(stop);
}

}  // namespace othello::training
