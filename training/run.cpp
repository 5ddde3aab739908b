#include "training/run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "core/rng.h"
#include "core/stopwatch.h"
#include "nn/checkpoint.h"
#include "nn/device_stream.h"
#include "nn/inference.h"
#include "nn/rules_json.h"
#include "training/actor_protocol.h"
#include "training/distributed.h"
#include "training/evaluation.h"
#include "training/model_publish.h"
#include "training/progress_line.h"
#include "training/replay_buffer.h"
#include "training/run_dir.h"
#include "training/self_play.h"
#include "training/trainer.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// How long ranks other than 0 wait for rank 0 to checkpoint and evaluate (rank 0's
// death ends the wait at once: the store's connection closes).
constexpr double kCheckpointWaitSeconds = 6 * 3600;

// "45s", "12m30s", "2h05m".
std::string DurationText(double seconds) {
  const long long s = std::max(0LL, static_cast<long long>(seconds + 0.5));
  char text[32];
  if (s < 60) {
    std::snprintf(text, sizeof text, "%llds", s);
  } else if (s < 3600) {
    std::snprintf(text, sizeof text, "%lldm%02llds", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%lldh%02lldm", s / 3600, (s / 60) % 60);
  }
  return text;
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

// The loss means of a report, as metrics.jsonl's "loss" object.
nlohmann::json LossJson(const LossSums::Means& m) {
  return {{"total", m.total}, {"policy", m.policy}, {"value", m.value},
          {"ownership", m.ownership}, {"disc_difference", m.disc_difference},
          {"auxiliary", m.auxiliary}};
}

// The configuration a rank runs: ranks other than 0 play no self-play (rank 0 and the
// actors feed the shared replay), so the trainer gets their cores.
TrainingConfig ForRank(TrainingConfig config, const DistributedOptions& distributed) {
  if (distributed.rank != 0) config.selfplay_threads = 0;
  return SizedForMachine(config, ThisMachine(config.inference.device));
}

// One training run, on the calling thread (self-play has threads of its own).
// Execute joins the data-parallel group when there is one, then runs one of two roles:
//   Lead    the single process, or rank 0 of a data-parallel group: it alone owns the
//           replay buffer, plays self-play, ingests actors' games, writes checkpoints,
//           metrics and models, and evaluates. Every iteration it decides whether to
//           train a step, wait or stop, and tells the other ranks (one small broadcast).
//   Follow  a rank other than 0 (data-parallel, distributed.h): does what rank 0 says,
//           drawing its batches from rank 0's replay on the shared file system; while
//           rank 0 checkpoints and evaluates it waits at a store barrier that has no
//           collective's timeout. It writes nothing.
// In data-parallel training the ranks' gradients are averaged in every step (the
// trainer's gradient hook).
class Run {
 public:
  Run(const TrainingConfig& config, const RunDir& dir, std::ostream& log, bool interactive,
      const DistributedOptions& distributed)
      : config_(ForRank(config, distributed)),
        distributed_(distributed),
        dir_(dir),
        log_(log),
        interactive_(interactive),
        rng_(config_.seed),
        stream_(nn::ResolveDevice(config_.inference.device)),
        models_(config_.inference, config_.rules) {}

  RunSummary Execute(const std::atomic<bool>& stop);

 private:
  enum class Action { kWait = 0, kStep = 1, kStop = 2 };
  bool leader() const { return distributed_.rank == 0; }

  // ---- The two roles, each from start to end.
  // Resumes (latest.ckpt, or a new run checkpointed at once) and the replay buffer,
  // starts self-play, trains until stopped, then joins self-play (throwing a thread's
  // error) and writes the last checkpoint and report.
  void Lead(const std::atomic<bool>& stop);
  void LeadUntilStopped(const std::atomic<bool>& stop);
  // What every rank does next (sent to the others with the run fraction and the replay
  // size); `trained`: samples drawn so far.
  Action Decide(const std::atomic<bool>& stop, double trained);
  // One step, then a checkpoint (and its publication) or a new model when due.
  void LeaderStep();
  // Resumes from rank 0's checkpoint and follows rank 0's replay until rank 0 stops.
  void Follow(const std::atomic<bool>& stop);
  Action HearLeader();  // rank 0's decision, run fraction and replay size
  // One step, then the wait for rank 0's checkpoint when it is a checkpoint step.
  void FollowerStep();
  // Reads the positions rank 0 has written since, when behind.
  void FollowReplay();

  // ---- Starting, shared by both roles.
  void LogThreads();
  // Rendezvous with the other ranks (before anything is read or written).
  void JoinGroup();
  nn::Checkpoint LoadLatest();  // a null net on a new run
  void RestoreRunState(const nn::Checkpoint& checkpoint, const fs::path& path);
  nlohmann::json RunState() const;
  // The trainer from `checkpoint`; data-parallel: synchronised with the other ranks.
  void StartTrainer(const nn::Checkpoint& checkpoint);
  // Every rank resumed from the same step; rank 0's weights copied to all; the
  // gradient hook installed.
  void SyncRanks(std::int64_t step);
  void LogDevice();

  // ---- Starting, the leader's.
  void PrepareDirectory();  // makes checkpoints/, cuts a metrics line torn by a kill
  // The replay buffer and the actors' games; a new run is checkpointed at once.
  void OpenReplay(const nn::Checkpoint& checkpoint);
  // Self-play takes the trainer's model or, with gating, the last one that passed.
  void StartSelfPlay();
  void PublishFirstModel();
  // To this process's self-play and to actors (DIR/models/, model_publish.h).
  void PublishModel(nn::OthelloNet& net, std::int64_t step);
  // Takes the actors' finished games (DIR/replay/incoming/) into the replay buffer.
  void Ingest();

  // ---- Training, shared by both roles (the leader decides with TimeUp and CanTrain).
  bool TimeUp() const;
  // This run's time, with what earlier sessions of it trained (their checkpoints say).
  double TrainedSeconds() const { return earlier_seconds_ + core::SecondsSince(start_); }
  bool CanTrain(double trained) const;  // `trained`: samples drawn so far
  void TrainOneStep();  // one optimizer step on a batch from the replay buffer
  bool ReportDue() const;

  // ---- Checkpoints and evaluations, the leader's.
  void SaveCheckpoint(bool final = false);  // final: at the end of the session
  // Grows the trainer's network once network.grow_at of the run is trained.
  void MaybeGrow();
  // Publishes the checkpoint just saved to self-play and actors: without gating at once
  // (after its evaluation when one is due); with gating only when it is evaluated and
  // passes.
  void PublishCheckpoint();
  bool EvaluationDue();  // counts the checkpoint
  EvaluationReport PlayEvaluation(std::int64_t step);
  void AdoptModel(std::int64_t step);
  void LogEvaluation(const EvaluationReport& report);

  // ---- Reports, shared by both roles (the leader's also go to metrics.jsonl).
  struct Rates {
    double games = 0, positions = 0, playouts = 0;  // per second, this process's self-play
    std::vector<ActorReport> actors;                // the live actors' last reports
  };
  void Report(bool final_line);
  Rates TakeRates(double now);  // since the last report; starts the next interval
  struct Totals {
    double games = 0, positions = 0, playouts = 0;
  };
  static Totals TotalRates(const Rates& rates);
  nlohmann::json MetricsLine(const Rates& rates, const LossSums::Means& losses) const;
  // The progress line's fields in the order they matter: the time left (or when training
  // starts), the step, positions a second, then the rest.
  std::vector<std::string> ProgressFields(const Rates& rates,
                                          const LossSums::Means& losses) const;
  // "loss 5.240 = policy 3.900 + value 1.094 + other 0.246": the parts weighted as in
  // train.loss, so that they add up to the total; "other" is the ownership, disc-difference
  // and auxiliary heads' share.
  std::string LossText(const LossSums::Means& losses) const;
  // Before training starts: the positions still to generate and when training starts;
  // then the run's time or steps left ("" without a limit).
  std::string Outlook(double positions_per_second) const;
  void AppendMetrics(const nlohmann::json& line);

  const TrainingConfig config_;
  const DistributedOptions distributed_;
  const RunDir dir_;
  std::ostream& log_;
  const bool interactive_;
  const Clock::time_point start_ = Clock::now();
  core::Rng rng_;  // the trainer's sampling generator, saved in every checkpoint
  std::int64_t saved_step_ = -1;  // the step of the last checkpoint written or resumed
  double earlier_seconds_ = 0;    // trained by earlier sessions of this run
  int checkpoints_ = 0;           // since the start, for eval.every_checkpoints
  EvaluationBudget budget_{config_.eval_max_share};  // since the start
  LossSums losses_;               // since the last report
  // The training thread's stream (CUDA): its steps, loss sums, checkpoints and the
  // copies of the weights it publishes (to self-play and to evaluations) run there in
  // order, and self-play's batches, on streams of their own, do not wait behind them
  // (nn/device_stream.h).
  const nn::DeviceStream stream_;
  double last_report_time_ = 0;
  std::uint64_t last_games_ = 0, last_positions_ = 0, last_playouts_ = 0;
  double last_ingest_time_ = -1;
  double run_fraction_ = 0;      // of run.minutes, the leader's (sent to every rank)
  double leader_seen_ = 0;       // positions in the leader's replay (other ranks)
  double last_follow_time_ = -1;

  // The run's parts, made by Execute's steps in this order and destroyed in reverse:
  // the self-play threads are joined before what they use goes.
  std::unique_ptr<DataParallel> group_;  // data-parallel only
  std::optional<Trainer> trainer_;
  std::optional<ReplayBuffer> buffer_;
  std::optional<CheckpointEvaluation> evaluation_;
  std::optional<Ingester> ingester_;
  ModelSource models_;
  SelfPlayStats stats_;
  std::optional<SelfPlayThreads> selfplay_;
};

RunSummary Run::Execute(const std::atomic<bool>& stop) {
  const nn::StreamScope on_stream(stream_);
  LogThreads();
  if (distributed_.enabled()) JoinGroup();
  if (leader()) {
    Lead(stop);
  } else {
    Follow(stop);
  }
  return RunSummary{trainer_->step(), buffer_->games(), buffer_->seen(),
                    core::SecondsSince(start_)};
}

void Run::Lead(const std::atomic<bool>& stop) {
  PrepareDirectory();
  const nn::Checkpoint checkpoint = LoadLatest();
  StartTrainer(checkpoint);
  OpenReplay(checkpoint);
  LogDevice();
  evaluation_.emplace(config_, dir_);
  StartSelfPlay();
  LeadUntilStopped(stop);
  selfplay_->Stop();
  selfplay_->RethrowError();
  SaveCheckpoint(/*final=*/true);
  Report(/*final_line=*/true);
}

void Run::LeadUntilStopped(const std::atomic<bool>& stop) {
  const double per_step = static_cast<double>(config_.batch_size) * distributed_.world_size;
  double trained = static_cast<double>(trainer_->step()) * per_step;
  for (;;) {
    const Action action = Decide(stop, trained);
    if (action == Action::kStop) break;
    if (action == Action::kStep) {
      LeaderStep();
      trained += per_step;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (core::SecondsSince(start_) - last_ingest_time_ >= 1.0) Ingest();
    if (ReportDue()) Report(/*final_line=*/false);
  }
}

Run::Action Run::Decide(const std::atomic<bool>& stop, double trained) {
  if (config_.minutes > 0) run_fraction_ = TrainedSeconds() / (60 * config_.minutes);
  Action action = Action::kWait;
  if (stop.load() || (selfplay_ && selfplay_->stopped()) || TimeUp()) {
    action = Action::kStop;
  } else if (CanTrain(trained)) {
    action = Action::kStep;
  }
  if (group_) {
    group_->BroadcastValues(
        {static_cast<double>(action), run_fraction_, static_cast<double>(buffer_->seen())});
  }
  return action;
}

void Run::LeaderStep() {
  if (config_.minutes > 0) trainer_->SetRunFraction(run_fraction_);
  MaybeGrow();
  TrainOneStep();
  const std::int64_t step = trainer_->step();
  if (step % config_.checkpoint_every == 0) {
    SaveCheckpoint();
    PublishCheckpoint();
    if (group_) group_->Release("checkpoint");
  } else if (step % config_.publish_every == 0 && config_.eval_gate == 0) {
    PublishModel(trainer_->published_net(), step);
  }
}

void Run::MaybeGrow() {
  if (config_.grow_blocks == 0 || run_fraction_ < config_.grow_at) return;
  const int blocks = GrownNet(config_).blocks;
  if (trainer_->net()->config().blocks >= blocks) return;
  trainer_->Grow(blocks);
  log_ << (interactive_ ? "\r" : "") << "step " << trainer_->step() << ": the network grew to "
       << blocks << " blocks (network.grow_blocks, at " << config_.grow_at << " of the run)"
       << (interactive_ ? "\033[K\n" : "\n");
}

void Run::Follow(const std::atomic<bool>& stop) {
  const nn::Checkpoint checkpoint = LoadLatest();
  StartTrainer(checkpoint);
  // Its own batches: a stream of its own, not rank 0's restored one.
  rng_ = core::Rng(core::Mix64(config_.seed * 1000003 + distributed_.rank * 7919 +
                               static_cast<std::uint64_t>(checkpoint.step)));
  buffer_.emplace(dir_, config_.replay, config_.rules.size, ReplayBuffer::Access::kFollower);
  LogDevice();
  bool stop_said = false;
  for (;;) {
    if (stop.load() && !stop_said) {
      log_ << "rank " << distributed_.rank << ": stopping when rank 0 stops (signal rank 0, "
           << "or every rank, to stop the run)\n";
      stop_said = true;
    }
    const Action action = HearLeader();
    if (action == Action::kStop) break;
    if (action == Action::kStep) FollowerStep();
    if (ReportDue()) Report(/*final_line=*/false);
  }
  Report(/*final_line=*/true);
}

Run::Action Run::HearLeader() {
  const std::vector<double> decided = group_->BroadcastValues({0, 0, 0});
  run_fraction_ = decided[1];
  leader_seen_ = decided[2];
  return static_cast<Action>(static_cast<int>(decided[0]));
}

void Run::FollowerStep() {
  if (config_.minutes > 0) trainer_->SetRunFraction(run_fraction_);
  MaybeGrow();
  FollowReplay();
  TrainOneStep();
  // Rank 0 checkpoints and may evaluate for minutes: wait without a collective.
  if (trainer_->step() % config_.checkpoint_every == 0) {
    group_->Await("checkpoint", kCheckpointWaitSeconds);
  }
}

void Run::FollowReplay() {
  const bool behind = static_cast<double>(buffer_->seen()) < leader_seen_;
  if (buffer_->size() == 0 ||
      (behind && core::SecondsSince(start_) - last_follow_time_ >= 1.0)) {
    last_follow_time_ = core::SecondsSince(start_);
    Attempt("reading rank 0's replay", [&] { buffer_->Refresh(); });
  }
  if (buffer_->size() == 0) {
    throw std::runtime_error("distributed training: rank " + std::to_string(distributed_.rank) +
                             " finds no positions in " + dir_.replay() +
                             ", where rank 0 has " +
                             std::to_string(static_cast<long long>(leader_seen_)) +
                             ": every rank needs the run directory on a shared file system");
  }
}

void Run::LogThreads() {
  const bool blas = nn::SetBlasThreads(config_.train_threads);
  log_ << "threads: " << config_.selfplay_threads << " self-play x " << config_.inference.threads
       << " for its network, " << config_.train_threads << " training"
       << (blas ? " (OpenBLAS: " + std::to_string(config_.train_threads) + ")" : "") << "\n";
}

void Run::JoinGroup() {
  if (config_.grow_blocks > 0) {
    throw core::InputError(
        "network.grow_blocks: growing the network is not supported in data-parallel training");
  }
  log_ << "data-parallel rank " << distributed_.rank << " of " << distributed_.world_size
       << ": joining at " << distributed_.master_addr << ":" << distributed_.master_port << "\n";
  group_ = std::make_unique<DataParallel>(distributed_,
                                          nn::ResolveDevice(config_.inference.device));
  log_ << "joined: " << distributed_.world_size << " ranks, " << group_->backend() << "\n";
}

void Run::StartTrainer(const nn::Checkpoint& checkpoint) {
  trainer_.emplace(config_, checkpoint, dir_.latest_checkpoint());
  if (group_) SyncRanks(checkpoint.step);
}

void Run::LogDevice() {
  log_ << "training on " << trainer_->device().str() << " in "
       << nn::PrecisionName(trainer_->precision()) << "\n";
}

void Run::OpenReplay(const nn::Checkpoint& checkpoint) {
  buffer_.emplace(dir_, config_.replay, config_.rules.size);
  // Before anything can write a shard: incoming games already journaled by a learner
  // that was killed before removing their files are recognised by their sources now.
  ingester_.emplace(dir_, *buffer_, config_.rules.size);
  Ingest();
  if (checkpoint.net) {
    log_ << "replay: " << buffer_->games() << " games, " << buffer_->seen() << " positions ("
         << buffer_->size() << " in the window)\n";
  } else {
    SaveCheckpoint();
  }
}

void Run::SyncRanks(std::int64_t step) {
  const std::vector<double> leader = group_->BroadcastValues({static_cast<double>(step)});
  if (leader[0] != static_cast<double>(step)) {
    throw std::runtime_error(
        "distributed training: rank " + std::to_string(distributed_.rank) + " resumed from step " +
        std::to_string(step) + ", rank 0 from step " + std::to_string(static_cast<long long>(leader[0])) +
        ": every rank needs the same run directory (a shared file system)");
  }
  nn::OthelloNet& net = trainer_->net();
  std::vector<torch::Tensor> state = net->parameters();
  std::vector<torch::Tensor> buffers = net->buffers();
  if (nn::AuxHeads* aux = trainer_->aux_heads()) {  // fresh heads differ across ranks too
    const std::vector<torch::Tensor> aux_parameters = (*aux)->parameters();
    const std::vector<torch::Tensor> aux_buffers = (*aux)->buffers();
    state.insert(state.end(), aux_parameters.begin(), aux_parameters.end());
    buffers.insert(buffers.end(), aux_buffers.begin(), aux_buffers.end());
  }
  state.insert(state.end(), buffers.begin(), buffers.end());
  {
    torch::NoGradGuard no_grad;
    group_->Broadcast(state);
  }
  DataParallel& group = *group_;
  trainer_->SetGradientHook([&group, buffers](const std::vector<torch::Tensor>& parameters) {
    group.AverageGradients(parameters, buffers);
  });
}

void Run::PrepareDirectory() {
  fs::create_directories(dir_.checkpoints());
  if (const std::uint64_t cut = core::RepairTornTail(dir_.metrics(), "metrics")) {
    log_ << "metrics.jsonl: removed an unfinished last line (" << cut << " bytes)\n";
  }
}

nn::Checkpoint Run::LoadLatest() {
  const fs::path latest = dir_.latest_checkpoint();
  if (!fs::exists(latest)) return {};
  nn::Checkpoint checkpoint = LoadRunCheckpoint(config_, latest.string());
  if (checkpoint.rules) {
    if (auto mismatch = core::RulesMismatch(*checkpoint.rules, config_.rules)) {
      throw core::InputError("checkpoint " + latest.string() + ": " + *mismatch +
                             " (the config's game.* differs from the run's)");
    }
  }
  RestoreRunState(checkpoint, latest);
  saved_step_ = checkpoint.step;
  log_ << "resuming " << dir_.root() << " from step " << checkpoint.step << "\n";
  if (config_.minutes > 0 && earlier_seconds_ >= config_.minutes * 60) {
    log_ << "the run has trained its run.minutes (" << config_.minutes
         << "); raise run.minutes (--set run.minutes=N) to train it further\n";
  }
  return checkpoint;
}

// The trainer's random state, for an exact resume (RestoreRunState reads it back).
nlohmann::json Run::RunState() const {
  const std::uint64_t* state = rng_.state();
  return {{"rng", {state[0], state[1], state[2], state[3]}}, {"seconds", TrainedSeconds()}};
}

void Run::RestoreRunState(const nn::Checkpoint& checkpoint, const fs::path& path) {
  const auto seconds = checkpoint.metadata.find("seconds");
  if (seconds != checkpoint.metadata.end()) {
    if (!seconds->is_number() || !(seconds->get<double>() >= 0)) {
      throw core::InputError("checkpoint " + path.string() +
                             ": bad run state: seconds must be a number >= 0");
    }
    earlier_seconds_ = seconds->get<double>();
  }
  const auto rng = checkpoint.metadata.find("rng");
  if (rng == checkpoint.metadata.end()) return;  // an older checkpoint: the seed's stream
  const auto is_unsigned = [](const auto& v) { return v.is_number_unsigned(); };
  if (!rng->is_array() || rng->size() != 4 || !std::all_of(rng->begin(), rng->end(), is_unsigned)) {
    throw core::InputError("checkpoint " + path.string() +
                           ": bad run state: rng must be 4 unsigned integers");
  }
  const auto state = rng->get<std::vector<std::uint64_t>>();
  rng_.set_state(state.data());
}

void Run::StartSelfPlay() {
  PublishFirstModel();
  ReplayBuffer& buffer = *buffer_;
  selfplay_.emplace(config_, models_, [&buffer](const std::vector<Sample>& game) { buffer.Add(game); },
                    stats_, config_.seed * 1000003 + trainer_->step() * 31);
}

void Run::PublishFirstModel() {
  const fs::path best = dir_.best_checkpoint();
  if (config_.eval_gate > 0 && fs::exists(best)) {
    nn::Checkpoint gated = LoadRunCheckpoint(config_, best.string());
    PublishModel(gated.net, gated.step);
  } else {
    PublishModel(trainer_->published_net(), trainer_->step());
  }
}

void Run::PublishModel(nn::OthelloNet& net, std::int64_t step) {
  models_.Publish(net, step);
  Attempt("publishing the model of step " + std::to_string(step),
          [&] { training::PublishModel(dir_, net, step, config_.rules); });
}

void Run::Ingest() {
  last_ingest_time_ = core::SecondsSince(start_);
  Ingester::Pass pass;
  Attempt("taking in the actors' games", [&] { pass = ingester_->RunOnce(); });
  for (const std::string& warning : pass.warnings) {
    log_ << (interactive_ ? "\r" : "") << "warning: " << warning << (interactive_ ? "\033[K\n" : "\n");
  }
}

bool Run::TimeUp() const {
  return (config_.minutes > 0 && TrainedSeconds() >= config_.minutes * 60) ||
         (config_.steps > 0 && trainer_->step() >= config_.steps);
}

// Enough positions in the buffer, and the samples drawn stay within
// samples_per_position per position generated.
bool Run::CanTrain(double trained) const {
  const double allowed = config_.samples_per_position * buffer_->seen();
  return buffer_->size() >= static_cast<std::size_t>(config_.min_positions) &&
         trained + config_.batch_size <= allowed;
}

void Run::TrainOneStep() {
  Attempt("training step " + std::to_string(trainer_->step() + 1), [&] {
    losses_.Add(trainer_->Step(buffer_->Draw(config_.batch_size, rng_)));
  });
}

bool Run::ReportDue() const {
  return core::SecondsSince(start_) - last_report_time_ >= (interactive_ ? 1.0 : 10.0);
}

void Run::SaveCheckpoint(bool final) {
  const std::int64_t step = trainer_->step();
  // The step was saved already (e.g. the last step was a checkpoint step): at the end,
  // latest.ckpt is still written again for the run's time since (run.minutes).
  const bool again = step == saved_step_;
  if (again && !final) return;
  Attempt("checkpoint at step " + std::to_string(step), [&] {
    buffer_->Flush();
    const std::string bytes =
        nn::SerializeCheckpoint(trainer_->published_net(), step, &trainer_->optimizer(),
                                config_.rules, RunState(), trainer_->trained_net(),
                                trainer_->aux_heads());
    // The step's own copy first: latest.ckpt never names a step whose file is missing.
    if (!again) {
      core::WriteFileAtomically(dir_.checkpoint(step), bytes, "checkpoint");
    }
    core::WriteFileAtomically(dir_.latest_checkpoint(), bytes, "checkpoint");
  });
  saved_step_ = step;
}

void Run::PublishCheckpoint() {
  const std::int64_t step = trainer_->step();
  const bool gating = config_.eval_gate > 0;
  if (!EvaluationDue()) {
    if (!gating) PublishModel(trainer_->published_net(), step);
    return;
  }
  const EvaluationReport report = PlayEvaluation(step);
  if (!gating || report.gate_passed) AdoptModel(step);
  LogEvaluation(report);
}

bool Run::EvaluationDue() {
  if (config_.eval_every_checkpoints == 0 ||
      ++checkpoints_ % config_.eval_every_checkpoints != 0) {
    return false;
  }
  return budget_.Allows(core::SecondsSince(start_));
}

EvaluationReport Run::PlayEvaluation(std::int64_t step) {
  std::int64_t current_step = 0;
  std::shared_ptr<mcts::Evaluator> current = models_.Current(&current_step);
  EvaluationReport report;
  const double began = core::SecondsSince(start_);
  const double allowance = budget_.Allowance(began);
  Attempt("evaluation of step " + std::to_string(step), [&] {
    report = evaluation_->Evaluate(trainer_->published_net(), step, current, current_step,
                                   allowance);
  });
  const double took = core::SecondsSince(start_) - began;
  budget_.Spent(took, report.games);
  const double share = budget_.Share(core::SecondsSince(start_));
  report.json["eval_seconds"] = took;
  report.json["eval_share"] = share;
  report.json["evals_skipped"] = budget_.skipped();
  char cost[96];
  std::snprintf(cost, sizeof cost, " | took %.0f s (evaluations: %.1f%% of the run)", took,
                100 * share);
  report.text += cost;
  return report;
}

// Self-play takes the evaluated model; with gating it is also kept as best.ckpt, the
// model self-play resumes from.
void Run::AdoptModel(std::int64_t step) {
  PublishModel(trainer_->published_net(), step);
  if (config_.eval_gate > 0) {
    core::WriteFileAtomically(dir_.best_checkpoint(),
                              core::ReadFile(dir_.checkpoint(step), "checkpoint"), "checkpoint");
  }
}

void Run::LogEvaluation(const EvaluationReport& report) {
  nlohmann::json line = report.json;
  line["seconds"] = TrainedSeconds();
  AppendMetrics({{"eval", line}});
  const std::string text =
      "[" + std::to_string(static_cast<long long>(core::SecondsSince(start_))) + "s] " +
      report.text;
  log_ << (interactive_ ? "\r" + text + "\033[K\n" : text + "\n") << std::flush;
}

void Run::Report(bool final_line) {
  const double now = core::SecondsSince(start_);
  const Rates rates = TakeRates(now);
  const LossSums::Means losses = losses_.Read();
  if (leader()) AppendMetrics(MetricsLine(rates, losses));
  const std::vector<std::string> fields = ProgressFields(rates, losses);
  if (interactive_ && !final_line) {
    log_ << "\r" << FitFields(fields, TerminalColumns(STDERR_FILENO)) << "\033[K" << std::flush;
    return;
  }
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "[%6.0fs] ", now);
  log_ << (interactive_ ? "\r" : "") << elapsed << FitFields(fields, 1 << 30) << "\n"
       << std::flush;
}

Run::Rates Run::TakeRates(double now) {
  const double dt = std::max(1e-9, now - last_report_time_);
  const std::uint64_t games = stats_.games.load(), positions = stats_.positions.load(),
                      playouts = stats_.playouts.load();
  Rates rates{(games - last_games_) / dt, (positions - last_positions_) / dt,
              (playouts - last_playouts_) / dt, {}};
  if (leader()) rates.actors = LiveActors(dir_);
  last_report_time_ = now;
  last_games_ = games;
  last_positions_ = positions;
  last_playouts_ = playouts;
  return rates;
}

// This process's self-play and the live actors', per second.
Run::Totals Run::TotalRates(const Rates& rates) {
  Totals total{rates.games, rates.positions, rates.playouts};
  for (const ActorReport& actor : rates.actors) {
    total.games += actor.games_per_second;
    total.positions += actor.positions_per_second;
    total.playouts += actor.playouts_per_second;
  }
  return total;
}

nlohmann::json Run::MetricsLine(const Rates& rates, const LossSums::Means& losses) const {
  nlohmann::json line = {
      {"seconds", TrainedSeconds()}, {"step", trainer_->step()},
      {"games", buffer_->games()}, {"positions", buffer_->seen()},
      {"buffer", buffer_->size()}, {"window", buffer_->WindowSize()},
      {"games_per_second", rates.games},
      {"positions_per_second", rates.positions}, {"playouts_per_second", rates.playouts},
      {"learning_rate", trainer_->LearningRate()},
      {"resigned", stats_.resigned.load()},
      {"explored_positions", stats_.explored.load()},
      {"resign_checks", stats_.resign_checks.load()},
      {"resign_false_positives", stats_.resign_false_positives.load()}};
  if (losses.steps > 0) line["loss"] = LossJson(losses);
  if (!rates.actors.empty()) {
    const Totals total = TotalRates(rates);
    line["actors"] = nlohmann::json::array();
    for (const ActorReport& actor : rates.actors) line["actors"].push_back(ToJson(actor));
    line["total"] = {{"games_per_second", total.games},
                     {"positions_per_second", total.positions},
                     {"playouts_per_second", total.playouts},
                     {"actors", rates.actors.size()}};
  }
  if (trainer_->scaler().enabled()) {
    line["loss_scale"] = trainer_->scaler().scale();
    line["overflow_steps"] = trainer_->scaler().skipped_steps();
  }
  return line;
}

std::vector<std::string> Run::ProgressFields(const Rates& rates,
                                             const LossSums::Means& losses) const {
  const std::int64_t step = trainer_->step();
  const Totals total = TotalRates(rates);
  std::vector<std::string> fields;
  const std::string outlook = Outlook(total.positions);
  if (!outlook.empty()) fields.push_back(outlook);
  fields.push_back("step " + std::to_string(step));
  char text[96];
  std::snprintf(text, sizeof text, "%.0f positions/s", total.positions);
  fields.push_back(text);
  fields.push_back("games " + std::to_string(buffer_->games()));
  std::snprintf(text, sizeof text, "%.1f games/s", total.games);
  fields.push_back(text);
  fields.push_back("positions " + std::to_string(buffer_->seen()));
  std::snprintf(text, sizeof text, "playouts %.0f/s", total.playouts);
  fields.push_back(text);
  if (!rates.actors.empty()) fields.push_back("actors " + std::to_string(rates.actors.size()));
  if (losses.steps > 0) fields.push_back(LossText(losses));
  if (step > 0 || losses.steps > 0) {
    const std::int64_t to_checkpoint = config_.checkpoint_every - step % config_.checkpoint_every;
    fields.push_back("checkpoint in " + std::to_string(to_checkpoint) + " steps");
  }
  return fields;
}

std::string Run::LossText(const LossSums::Means& losses) const {
  const double policy = config_.loss.policy * losses.policy;
  const double value = config_.loss.value * losses.value;
  char text[128];
  std::snprintf(text, sizeof text, "loss %.3f = policy %.3f + value %.3f + other %.3f",
                losses.total, policy, value, losses.total - policy - value);
  return text;
}

std::string Run::Outlook(double positions_per_second) const {
  const std::size_t needed = static_cast<std::size_t>(config_.min_positions);
  if (buffer_->size() < needed) {
    const double to_go = static_cast<double>(needed - buffer_->size());
    std::string text = "training starts after " + std::to_string(needed - buffer_->size()) +
                       " more positions (" + std::to_string(buffer_->size()) + " of " +
                       std::to_string(needed) + ")";
    if (positions_per_second > 0) {
      text += ", in about " + DurationText(to_go / positions_per_second);
    } else if (leader()) {
      text += ", waiting for the first games";
    }
    return text;
  }
  if (config_.minutes > 0) {
    return DurationText(config_.minutes * 60 - TrainedSeconds()) + " left of " +
           DurationText(config_.minutes * 60);
  }
  if (config_.steps > 0) {
    return std::to_string(std::max<std::int64_t>(0, config_.steps - trainer_->step())) +
           " steps left";
  }
  return "";
}

void Run::AppendMetrics(const nlohmann::json& line) {
  core::AppendToFile(dir_.metrics(), line.dump() + "\n", "metrics");
}

}  // namespace

RunSummary RunTraining(const TrainingConfig& config, const RunDir& dir,
                       const std::atomic<bool>& stop, std::ostream& log, bool interactive,
                       const DistributedOptions& distributed) {
  Run run(config, dir, log, interactive, distributed);
  return run.Execute(stop);
}

}  // namespace othello::training
