#pragma once
// The training run's configuration, read from YAML (configs/*.yaml) with --set
// overrides. Every key is validated (type and range) and unknown keys are errors;
// messages name the key, the value and the file (training/config_reader.h).
//
// Defaults: a TrainingConfig{} is what an empty file gives. Each default lives in one
// place: the fields below, the structs they hold (core::Rules, nn::NetConfig,
// nn::LossWeights, WindowConfig), and for the search, the inference and the rules the
// few fields where training differs from those structs' defaults (which are for play
// and analysis), set in the *Defaults() functions below.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/rules.h"
#include "mcts/search.h"
#include "nn/evaluator.h"
#include "nn/loss_weights.h"
#include "nn/net_config.h"
#include "training/config_reader.h"
#include "training/replay_window.h"

namespace othello::training {

inline constexpr int kAutoThreads = ConfigReader::kAuto;  // selfplay.threads: auto

enum class Optimizer { kSgd, kAdamW };  // SGD with momentum, or AdamW
inline constexpr std::array<std::string_view, 2> kOptimizerNames = {"sgd", "adamw"};

enum class LrSchedule { kConstant, kCosine };
inline constexpr std::array<std::string_view, 2> kLrScheduleNames = {"constant", "cosine"};

// game.*: core::Rules{}, with one corner given when game.start is handicap.
inline core::Rules TrainingRulesDefaults() {
  core::Rules rules;
  rules.handicap = 1;
  return rules;
}

// search.*: mcts::SearchParams{} with self-play's c_puct (1.5; play's is lower), root
// methods (Dirichlet noise, a temperature schedule) and playout cap randomisation at
// small visit counts.
inline mcts::SearchParams SelfPlaySearchDefaults() {
  mcts::SearchParams search;
  search.rules = TrainingRulesDefaults();  // then game.*
  search.c_puct = 1.5f;
  search.dirichlet_noise = true;
  search.temperature_start = 1.0f;
  search.temperature_end = 0.2f;
  search.temperature_halflife = 10;
  search.full_search_probability = 0.25f;
  search.full_visits = 64;
  search.fast_visits = 16;
  return search;
}

// inference.*: nn::EvaluatorOptions{} with random symmetries and a result cache.
inline nn::EvaluatorOptions SelfPlayInferenceDefaults() {
  nn::EvaluatorOptions inference;
  inference.random_symmetry = true;
  inference.cache_entries = 1 << 16;
  return inference;
}

struct TrainingConfig;

// The network a run ends with: config.net, with grow_blocks more blocks.
nn::NetConfig GrownNet(const TrainingConfig& config);
// Whether `net` is a network of this run: config.net, or GrownNet when it grows.
bool IsRunNet(const TrainingConfig& config, const nn::NetConfig& net);

struct TrainingConfig {
  core::Rules rules = TrainingRulesDefaults();  // game.*
  nn::NetConfig net;  // network.*
  // network.grow_blocks, network.grow_at: once grow_at of run.minutes is trained, the
  // trainer appends grow_blocks residual blocks to the tower, each starting as the
  // identity, so the network's outputs do not change (nn::GrowNet); 0: never.
  int grow_blocks = 0;
  double grow_at = 0.5;

  // selfplay.*: threads x games in flight per thread, leaves per game per round.
  // threads kAutoThreads (`auto`): sized to the machine (SizedForMachine); 0: a learner
  // only, fed by actors (othello-zero selfplay, run_dir.h).
  int selfplay_threads = kAutoThreads;
  int games_per_thread = 16;
  int leaves_per_game = 4;
  // selfplay.resign*: a side whose root value stays at or below resign_value for
  // resign_moves of its moves in a row resigns, except in a resign_check_fraction of
  // games, which play on to count how often resigning would have been wrong.
  bool resign = false;
  double resign_value = -0.95;
  int resign_moves = 2;
  double resign_check_fraction = 0.1;
  mcts::SearchParams search = SelfPlaySearchDefaults();  // search.*
  std::size_t tree_nodes = 200000;  // search.tree_nodes: per game

  // train.*
  int batch_size = 128;
  Optimizer optimizer = Optimizer::kSgd;
  double learning_rate = 0.02;
  double momentum = 0.9;
  double weight_decay = 1e-4;
  int warmup_steps = 100;
  LrSchedule lr_schedule = LrSchedule::kConstant;
  // cosine: steps to the minimum; 0: over the run's length, run.minutes of training
  // (counted across resumes) or else run.steps
  int lr_schedule_steps = 100000;
  double lr_floor = 0.05;  // cosine: where it ends, a share of learning_rate
  double grad_clip = 1.0;
  int train_threads = 0;  // train.threads: LibTorch CPU threads of the trainer (0: auto)
  // train.batch_norm: false trains the normalisation layers as fixed per-channel scales
  // and biases (no batch statistics; nn/model.h), a fresh net's blocks starting at the
  // identity. Inference and the file formats are the same either way.
  bool batch_norm = true;
  // train.precision: auto (bf16 on CUDA, fp32 on the CPU), fp32, bf16 (CUDA or CPU
  // autocast), fp16 (CUDA, with dynamic loss scaling); nn/mixed_precision.h
  std::string train_precision = "auto";
  double samples_per_position = 4.0;  // training samples drawn per generated position
  int min_positions = 2000;           // positions in the buffer before training starts
  int publish_every = 50;             // steps between new models for self-play
  int checkpoint_every = 200;         // steps between checkpoints
  // train.ema_steps: publish (to self-play, evaluations, checkpoints and so exports) an
  // exponential moving average of the weights over about this many steps (0: the
  // trained weights themselves); trainer.h.
  int ema_steps = 0;
  double value_target_mix = 0.0;      // 0: game result, 1: the root's search value
  // train.value_lambda: below 1 the value target is the lambda-return over the later
  // positions' search values (FillTargets, self_play.h); 1: the game's result
  double value_lambda = 1.0;
  // train.policy_surprise_weight: the share of each game's sample weight given out by
  // policy surprise (WeightBySurprise, self_play.h; KataGo uses 0.5); 0: uniform
  double policy_surprise_weight = 0.0;
  int exact_target_empties = 10;      // exact solver targets at or below this many empties
  // train.exact_outcome: a game's first exact score (turned to each mover's side) replaces
  // its final result as the value and disc targets of the positions before it, and exact
  // scores are the disc targets (FillTargets, self_play.h); false: the game's result
  bool exact_outcome = false;
  // train.explored_min_visits: a position a full search visited at least this often that
  // the game did not play gives a sample of its own (OLIVAW's side positions): its
  // children's visit shares as the policy target (0: off; see ExploredSamples, self_play.h)
  int explored_min_visits = 0;
  // train.explored_value: the value target of those samples: "search", the subtree's mean
  // value and margin, or "result", the game's result for its side to move
  std::string explored_value = "search";
  nn::LossWeights loss;

  WindowConfig replay;  // replay.*: window, window_min/max/exponent, shard_positions

  nn::EvaluatorOptions inference = SelfPlayInferenceDefaults();  // inference.*

  // eval.*: after checkpoints, the new model (a search of `eval_visits` playouts) plays
  // `eval_games` games against each fixed opponent (player specs, see
  // arena/player_spec.h, or "ladder": training::LadderOpponents, expanded when the
  // evaluation starts) and against the last
  // `eval_previous` evaluated checkpoints; the games go to RUN/eval/games.ggf and the Elo
  // ratings fitted to all of them to metrics.jsonl. With `eval_ladder` (a ladder CSV,
  // `othello-zero elo`'s form) the ladder's players keep its ratings, so that every
  // checkpoint is placed on that fixed scale; without, the ratings are anchored on random.
  // An evaluation due at a checkpoint is skipped when the evaluations so far plus the
  // last one's duration would pass `eval_max_share` of the run's time.
  // With eval_gate > 0, self-play only takes a new model that scores at least that
  // against the model self-play uses now (AlphaGo Zero's gating).
  int eval_every_checkpoints = 1;  // 0: never
  int eval_games = 10;             // per opponent
  int eval_visits = 32;
  std::vector<std::string> eval_opponents = {"ladder"};
  std::string eval_ladder;         // "": no fixed ratings
  double eval_max_share = 0.10;    // 0: no limit
  int eval_previous = 1;
  double eval_gate = 0;            // 0: no gating

  // run.*
  double minutes = 0;      // the run's length, counted across resumes (0: until stopped)
  std::int64_t steps = 0;  // stop at this training step (0: no limit)
  std::uint64_t seed = 1;
};

// Reads `path` with `overrides` ("key.path=value"); throws core::InputError.
TrainingConfig LoadTrainingConfig(const std::string& path,
                                  const std::vector<std::string>& overrides = {});
TrainingConfig ParseTrainingConfig(const std::string& yaml, const std::string& name,
                                   const std::vector<std::string>& overrides = {});

// The configuration's keys as the reader reads them, with their defaults and ranges:
// what docs/configuration.md lists (tests/training/config_test.cpp checks it).
std::vector<ConfigKey> ConfigReference();

// What the automatic sizes follow.
struct Machine {
  unsigned cores = 1;  // the CPUs the process may use (core::UsableCpus)
  bool gpu = false;    // the network runs on a CUDA device
};
// This process's CPUs (core::UsableCpus: its affinity mask and cgroup quota), with the
// network on `device` (inference.device: auto, cpu, cuda...).
// Throws core::InputError for a device that is not there.
Machine ThisMachine(const std::string& device);

// `config` with its automatic sizes (selfplay.threads auto, inference.threads 0,
// train.threads 0) filled in for `machine`; explicit values stay.
//   selfplay.threads auto: on the CPU half the cores (the trainer takes the other half);
//     on a GPU three quarters (the GPU sets the pace; the rest feed its batches and the
//     trainer); an actor (`trains` false) all cores (one left on a GPU machine). An actor
//     also sizes selfplay.threads 0, a learner-only run's.
//   inference.threads 0: each self-play thread's network gets max(1, cores / 2 /
//     selfplay.threads) LibTorch CPU threads (an actor: cores / selfplay.threads).
//   train.threads 0: what self-play leaves, at least 1 (all cores with selfplay.threads
//     0, a learner fed by actors).
// On 2 cores that is one thread each: more than one thread per core makes OpenMP's and
// OpenBLAS's workers spin and yield against each other (measured: the lab notebook's
// speed measurements, docs/lab-notebook.md).
TrainingConfig SizedForMachine(TrainingConfig config, const Machine& machine, bool trains = true);

}  // namespace othello::training
