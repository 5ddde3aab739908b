#include "training/actor.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <random>
#include <thread>

#include "core/error.h"
#include "core/hash.h"
#include "core/stopwatch.h"
#include "nn/checkpoint.h"
#include "training/actor_protocol.h"
#include "training/model_publish.h"
#include "training/self_play.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// One actor process: Execute waits for a model, starts the self-play threads, then
// polls for models and reports until stopped.
class Actor {
 public:
  Actor(const TrainingConfig& config, const RunDir& run, std::ostream& log,
        const ActorOptions& options)
      : config_(SizedForMachine(config, ThisMachine(config.inference.device), /*trains=*/false)),
        run_(run),
        log_(log),
        options_(options),
        id_(NewActorId()),
        writer_(run, id_),
        models_(config_.inference, config_.rules) {}

  ActorSummary Execute(const std::atomic<bool>& stop);

 private:
  // Publishes the newest model if it is newer than the one in use; true if one is in use.
  // A model that does not fit the configuration throws core::InputError.
  bool PollModel();
  // The newest published model if newer than the one in use (its file in `path`); a
  // failed read is reported once and nullopt returned, to be tried again.
  std::optional<nn::Checkpoint> LoadNewer(std::string* path);
  // Writes DIR/actors/ACTOR.json: the counters, and the rates since the last report.
  void Report(bool stopped);
  void Log();  // a progress line: the rates since the last one

  const TrainingConfig config_;
  const RunDir run_;
  std::ostream& log_;
  const ActorOptions options_;
  const std::string id_;
  IncomingWriter writer_;
  ModelSource models_;
  SelfPlayStats stats_;
  std::int64_t model_step_ = -1;
  std::string last_warning_;  // a failed model load is reported once
  const Clock::time_point start_ = Clock::now();
  double last_report_ = 0, last_log_ = 0;
  std::uint64_t last_games_ = 0, last_positions_ = 0, last_playouts_ = 0;
  std::uint64_t logged_positions_ = 0, logged_playouts_ = 0;
};

ActorSummary Actor::Execute(const std::atomic<bool>& stop) {
  log_ << "actor " << id_ << ": " << config_.selfplay_threads << " self-play threads x "
       << config_.games_per_thread << " games, writing to " << run_.incoming() << "\n";
  bool waiting_said = false;
  while (!stop.load() && !PollModel()) {
    if (!waiting_said) {
      log_ << "waiting for the learner's first model in " << run_.models() << "\n";
      waiting_said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (model_step_ >= 0) {
    IncomingWriter& writer = writer_;
    SelfPlayThreads threads(
        config_, models_, [&writer](const std::vector<Sample>& game) { writer.Write(game); },
        stats_, config_.seed * 1000003 + std::random_device{}());
    Report(/*stopped=*/false);  // the learner counts this actor from now on
    double last_poll = core::SecondsSince(start_);
    while (!stop.load() && !threads.stopped()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (core::SecondsSince(start_) - last_poll >= options_.model_poll_seconds) {
        PollModel();
        last_poll = core::SecondsSince(start_);
      }
      if (core::SecondsSince(start_) - last_report_ >= options_.report_seconds) {
        Report(/*stopped=*/false);
      }
      if (core::SecondsSince(start_) - last_log_ >= options_.log_seconds) Log();
    }
    threads.Stop();
    Report(/*stopped=*/true);
    Log();
    threads.RethrowError();
  }
  return ActorSummary{id_, stats_.games.load(), stats_.positions.load(), model_step_};
}

bool Actor::PollModel() {
  std::string path;
  std::optional<nn::Checkpoint> model = LoadNewer(&path);
  if (!model) return model_step_ >= 0;
  // A configuration that does not fit the run's models cannot get better by waiting.
  if (!IsRunNet(config_, model->net->config())) {
    throw core::InputError("model " + path +
                           ": its network is not the one of this actor's configuration "
                           "(network.*); an actor needs the run's configuration");
  }
  if (model->rules) {
    if (auto mismatch = core::RulesMismatch(*model->rules, config_.rules)) {
      throw core::InputError("model " + path + ": " + *mismatch +
                             " (the actor's game.* differs from the run's)");
    }
  }
  models_.Publish(model->net, model->step);
  model_step_ = model->step;
  log_ << "actor " << id_ << ": playing with the model of step " << model_step_ << "\n";
  return true;
}

std::optional<nn::Checkpoint> Actor::LoadNewer(std::string* path) {
  try {
    const std::optional<PublishedModel> newest = NewestModel(run_);
    if (!newest || newest->step <= model_step_) return std::nullopt;
    *path = newest->path;
    std::error_code error;
    if (!fs::exists(newest->path, error)) return std::nullopt;  // replaced meanwhile
    return nn::LoadCheckpoint(newest->path);
  } catch (const core::InputError& e) {
    if (e.what() != last_warning_) {
      log_ << "warning: " << e.what() << " (keeping "
           << (model_step_ >= 0 ? "the model of step " + std::to_string(model_step_)
                                : std::string("waiting"))
           << "; trying again)\n";
      last_warning_ = e.what();
    }
    return std::nullopt;
  }
}

void Actor::Report(bool stopped) {
  const double now = core::SecondsSince(start_);
  const double dt = std::max(1e-9, now - last_report_);
  ActorReport report;
  report.actor = id_;
  report.threads = config_.selfplay_threads;
  report.model_step = model_step_;
  report.games = stats_.games.load();
  report.positions = stats_.positions.load();
  report.playouts = stats_.playouts.load();
  report.games_per_second = (report.games - last_games_) / dt;
  report.positions_per_second = (report.positions - last_positions_) / dt;
  report.playouts_per_second = (report.playouts - last_playouts_) / dt;
  report.updated = UnixNow();
  report.stopped = stopped;
  last_report_ = now;
  last_games_ = report.games;
  last_positions_ = report.positions;
  last_playouts_ = report.playouts;
  try {
    WriteActorReport(run_, report);
  } catch (const core::InputError& e) {
    log_ << "warning: " << e.what() << "\n";  // the games matter, the report can wait
  }
}

void Actor::Log() {
  const double now = core::SecondsSince(start_);
  const double dt = std::max(1e-9, now - last_log_);
  const std::uint64_t positions = stats_.positions.load(), playouts = stats_.playouts.load();
  char line[200];
  std::snprintf(line, sizeof line,
                "[%6.0fs] games %llu | positions %llu (%.0f/s) | playouts %.0f/s | model step %lld",
                now, static_cast<unsigned long long>(stats_.games.load()),
                static_cast<unsigned long long>(positions), (positions - logged_positions_) / dt,
                (playouts - logged_playouts_) / dt, static_cast<long long>(model_step_));
  log_ << line << "\n" << std::flush;
  last_log_ = now;
  logged_positions_ = positions;
  logged_playouts_ = playouts;
}

}  // namespace

ActorSummary RunActor(const TrainingConfig& config, const RunDir& run,
                      const std::atomic<bool>& stop, std::ostream& log,
                      const ActorOptions& options) {
  Actor actor(config, run, log, options);
  return actor.Execute(stop);
}

}  // namespace othello::training
