#include "training/config.h"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "core/cpus.h"
#include "core/error.h"
#include "core/notation.h"
#include "nn/evaluator.h"
#include "nn/inference.h"
#include "mcts/search_options.h"
#include "training/config_reader.h"

namespace othello::training {
namespace {

// A value its type and range allow but a further check refuses.
[[noreturn]] void Reject(const ConfigReader& r, const std::string& key, const std::string& value,
                         const std::string& why) {
  throw core::InputError("config " + r.name() + ": " + key + " '" + value + "': " + why);
}

void ReadGame(ConfigReader& r, core::Rules& rules) {
  rules.size = r.Int("game.size", rules.size, 4, 10);
  if (rules.size % 2) Reject(r, "game.size", std::to_string(rules.size), "must be even");
  const std::string start = r.String("game.start", std::string(core::StartName(rules.start)),
                                     {"standard", "reversi", "random", "handicap"});
  rules.start = *core::ParseStartKind(start);
  rules.random_moves =
      r.Int("game.random_moves", rules.random_moves, 0, rules.size * rules.size - 4);
  rules.handicap = r.Int("game.handicap", rules.handicap, 1, 4);
  const std::string side = r.String("game.handicap_side",
                                    std::string(core::ColorName(rules.handicap_side)),
                                    {"black", "white"});
  rules.handicap_side = side == "black" ? core::Color::kBlack : core::Color::kWhite;
  rules.anti = r.Bool("game.anti", rules.anti);
  rules.empties_to_winner = r.Bool("game.empties_to_winner", rules.empties_to_winner);
}

void ReadNetwork(ConfigReader& r, nn::NetConfig& net) {
  net.blocks = r.Int("network.blocks", net.blocks, 1, 64);
  net.channels = r.Int("network.channels", net.channels, 4, 1024);
  net.global_pool_every = r.Int("network.global_pool_every", net.global_pool_every, 0, 64);
  net.head_channels = r.Int("network.head_channels", net.head_channels, 2, 256);
  net.value_hidden = r.Int("network.value_hidden", net.value_hidden, 4, 1024);
}

void ReadGrowth(ConfigReader& r, TrainingConfig& c) {
  c.grow_blocks = r.Int("network.grow_blocks", c.grow_blocks, 0, 64);
  c.grow_at = r.Double("network.grow_at", c.grow_at, 0, 1);
  if (c.grow_blocks > 0 && c.net.blocks + c.grow_blocks > 64) {
    Reject(r, "network.grow_blocks", std::to_string(c.grow_blocks),
           "network.blocks + network.grow_blocks is above 64");
  }
}

void ReadSelfPlay(ConfigReader& r, TrainingConfig& c) {
  c.selfplay_threads = r.IntOrAuto("selfplay.threads", c.selfplay_threads, 0, 1024);
  c.games_per_thread = r.Int("selfplay.games_per_thread", c.games_per_thread, 1, 65536);
  c.leaves_per_game = r.Int("selfplay.leaves_per_game", c.leaves_per_game, 1, 1024);
  c.resign = r.Bool("selfplay.resign", c.resign);
  c.resign_value = r.Double("selfplay.resign_value", c.resign_value, -1, 1);
  c.resign_moves = r.Int("selfplay.resign_moves", c.resign_moves, 1, 100);
  c.resign_check_fraction =
      r.Double("selfplay.resign_check_fraction", c.resign_check_fraction, 0, 1);
}

float Float(ConfigReader& r, const std::string& key, float fallback, double lo, double hi) {
  return static_cast<float>(r.Double(key, fallback, lo, hi));
}

// One search setting by its row (mcts/search_options.h): its range, its help.
void ReadSearchOption(ConfigReader& r, const mcts::SearchOption& option, mcts::SearchParams& s) {
  using Type = mcts::SearchOption::Type;
  const std::string key = std::string("search.") + option.name;
  const double fallback = option.Get(s);
  double value = fallback;
  switch (option.type) {
    case Type::kFloat: value = r.Double(key, fallback, option.low, option.high); break;
    case Type::kInt:
      value = r.Int(key, static_cast<int>(fallback), static_cast<int>(option.low),
                    static_cast<int>(option.high));
      break;
    case Type::kBool: value = r.Bool(key, fallback != 0) ? 1 : 0; break;
    case Type::kCount:
      value = static_cast<double>(r.Int64(key, static_cast<std::int64_t>(fallback),
                                          static_cast<std::int64_t>(option.low),
                                          static_cast<std::int64_t>(option.high)));
      break;
  }
  option.Set(s, value);
  r.DescribeHelp(key, option.help);
}

void ReadSearch(ConfigReader& r, TrainingConfig& c) {
  for (const mcts::SearchOption& option : mcts::SearchOptions()) {
    if (option.where & mcts::SearchOption::kInConfig) ReadSearchOption(r, option, c.search);
  }
  c.tree_nodes = static_cast<std::size_t>(
      r.Int("search.tree_nodes", static_cast<int>(c.tree_nodes), 1000, 1 << 30));
  c.search.rules = c.rules;
}

void ReadOptimizer(ConfigReader& r, TrainingConfig& c) {
  c.optimizer = r.Choice("train.optimizer", c.optimizer, kOptimizerNames);
  c.learning_rate = r.Double("train.learning_rate", c.learning_rate, 1e-7, 10);
  c.momentum = r.Double("train.momentum", c.momentum, 0, 0.999);
  c.weight_decay = r.Double("train.weight_decay", c.weight_decay, 0, 1);
  c.warmup_steps = r.Int("train.warmup_steps", c.warmup_steps, 0, 1 << 30);
  c.lr_schedule = r.Choice("train.lr_schedule", c.lr_schedule, kLrScheduleNames);
  c.lr_schedule_steps = r.Int("train.lr_schedule_steps", c.lr_schedule_steps, 0, 1 << 30);
  c.lr_floor = r.Double("train.lr_floor", c.lr_floor, 0, 1);
  c.grad_clip = r.Double("train.grad_clip", c.grad_clip, 0, 1e6);
  c.train_threads = r.Int("train.threads", c.train_threads, 0, 1024);
  c.batch_norm = r.Bool("train.batch_norm", c.batch_norm);
  c.train_precision =
      r.String("train.precision", c.train_precision, {"auto", "fp32", "bf16", "fp16"});
}

void ReadLossWeights(ConfigReader& r, nn::LossWeights& loss) {
  loss.policy = Float(r, "train.loss.policy", loss.policy, 0, 100);
  loss.value = Float(r, "train.loss.value", loss.value, 0, 100);
  loss.ownership = Float(r, "train.loss.ownership", loss.ownership, 0, 100);
  loss.disc_difference = Float(r, "train.loss.disc_difference", loss.disc_difference, 0, 100);
  loss.soft_policy = Float(r, "train.loss.soft_policy", loss.soft_policy, 0, 100);
  loss.reply_policy = Float(r, "train.loss.reply_policy", loss.reply_policy, 0, 100);
  loss.short_term_value = Float(r, "train.loss.short_term_value", loss.short_term_value, 0, 100);
}

void ReadTrain(ConfigReader& r, TrainingConfig& c) {
  c.batch_size = r.Int("train.batch_size", c.batch_size, 1, 1 << 16);
  ReadOptimizer(r, c);
  c.samples_per_position =
      r.Double("train.samples_per_position", c.samples_per_position, 0.01, 1000);
  c.min_positions = r.Int("train.min_positions", c.min_positions, 1, 1 << 30);
  c.publish_every = r.Int("train.publish_every", c.publish_every, 1, 1 << 30);
  c.checkpoint_every = r.Int("train.checkpoint_every", c.checkpoint_every, 1, 1 << 30);
  c.ema_steps = r.Int("train.ema_steps", c.ema_steps, 0, 1 << 30);
  c.value_target_mix = r.Double("train.value_target_mix", c.value_target_mix, 0, 1);
  c.value_lambda = r.Double("train.value_lambda", c.value_lambda, 0, 1);
  c.policy_surprise_weight = r.Double("train.policy_surprise_weight", c.policy_surprise_weight, 0, 1);
  c.exact_target_empties = r.Int("train.exact_target_empties", c.exact_target_empties, 0, 20);
  c.exact_outcome = r.Bool("train.exact_outcome", c.exact_outcome);
  c.explored_min_visits = r.Int("train.explored_min_visits", c.explored_min_visits, 0, 1 << 20);
  c.explored_value = r.String("train.explored_value", c.explored_value, {"search", "result"});
  ReadLossWeights(r, c.loss);
}

std::size_t Positions(ConfigReader& r, const std::string& key, std::size_t fallback, int lo) {
  return static_cast<std::size_t>(r.Int(key, static_cast<int>(fallback), lo, 1 << 30));
}

void ReadReplay(ConfigReader& r, WindowConfig& w) {
  w.kind = r.Choice("replay.window", w.kind, kReplayWindowNames);
  w.min = Positions(r, "replay.window_min", w.min, 1);
  w.max = Positions(r, "replay.window_max", w.max, 1);
  w.exponent = r.Double("replay.window_exponent", w.exponent, 0, 1);
  w.shard_positions = static_cast<std::size_t>(
      r.Int("replay.shard_positions", static_cast<int>(w.shard_positions), 16, 1 << 24));
  w.average_duplicates_plies =
      r.Int("replay.average_duplicates_plies", w.average_duplicates_plies, 0, 100);
  if (w.max < w.min) {
    Reject(r, "replay.window_max", std::to_string(w.max),
              "below replay.window_min (" + std::to_string(w.min) + ")");
  }
}

void ReadInference(ConfigReader& r, nn::EvaluatorOptions& o) {
  o.device = r.String("inference.device", o.device);
  r.DescribeRange("inference.device", "auto, cpu, cuda, cuda:N");
  if (!nn::IsDeviceName(o.device)) {
    Reject(r, "inference.device", o.device, "expected auto, cpu, cuda or cuda:N");
  }
  o.precision = r.String("inference.precision", o.precision, {"auto", "fp32", "fp16", "bf16"});
  o.backend = r.String("inference.backend", o.backend, {"auto", "torch", "eigen"});
  o.max_batch = r.Int("inference.max_batch", o.max_batch, 0, 1 << 16);
  o.max_wait_us = r.Int("inference.max_wait_us", o.max_wait_us, 0, 10000000);
  o.threads = r.Int("inference.threads", o.threads, 0, 1024);
  o.cuda_graphs = r.Bool("inference.cuda_graphs", o.cuda_graphs);
  o.random_symmetry = r.Bool("inference.random_symmetry", o.random_symmetry);
  o.cache_entries = static_cast<std::size_t>(
      r.Int("inference.cache_entries", static_cast<int>(o.cache_entries), 0, 1 << 28));
}

void ReadEval(ConfigReader& r, TrainingConfig& c) {
  c.eval_every_checkpoints = r.Int("eval.every_checkpoints", c.eval_every_checkpoints, 0, 1 << 20);
  c.eval_games = r.Int("eval.games", c.eval_games, 2, 100000);
  c.eval_visits = r.Int("eval.visits", c.eval_visits, 1, 1 << 20);
  c.eval_opponents = r.StringList("eval.opponents", c.eval_opponents);
  c.eval_ladder = r.Path("eval.ladder", c.eval_ladder);
  if (!c.eval_ladder.empty() && c.rules.size != 8) {
    Reject(r, "eval.ladder", c.eval_ladder, "the fixed ladder rates 8x8 players only");
  }
  c.eval_max_share = r.Double("eval.max_share", c.eval_max_share, 0, 1);
  c.eval_previous = r.Int("eval.previous", c.eval_previous, 0, 100);
  c.eval_gate = r.Double("eval.gate", c.eval_gate, 0, 1);
}

void ReadRun(ConfigReader& r, TrainingConfig& c) {
  c.minutes = r.Double("run.minutes", c.minutes, 0, 1e7);
  c.steps = r.Int("run.steps", static_cast<int>(c.steps), 0, 2000000000);
  c.seed = static_cast<std::uint64_t>(r.Int64("run.seed", static_cast<std::int64_t>(c.seed), 0,
                                               std::numeric_limits<std::int64_t>::max()));
}

TrainingConfig Read(ConfigReader& r, const std::vector<std::string>& overrides) {
  r.Override(overrides);
  TrainingConfig c;
  ReadGame(r, c.rules);
  ReadNetwork(r, c.net);
  ReadSelfPlay(r, c);
  ReadSearch(r, c);
  ReadTrain(r, c);
  ReadReplay(r, c.replay);
  ReadInference(r, c.inference);
  ReadEval(r, c);
  ReadRun(r, c);
  ReadGrowth(r, c);
  if (c.grow_blocks > 0 && c.minutes <= 0) {
    Reject(r, "network.grow_blocks", std::to_string(c.grow_blocks),
           "growing the net at network.grow_at of the run needs run.minutes");
  }
  if (c.lr_schedule == LrSchedule::kCosine && c.lr_schedule_steps == 0 && c.minutes <= 0 &&
      c.steps <= 0) {
    Reject(r, "train.lr_schedule_steps", "0",
           "a schedule over the run's length needs run.minutes or run.steps");
  }
  r.Finish();
  return c;
}

}  // namespace

nn::NetConfig GrownNet(const TrainingConfig& config) {
  nn::NetConfig grown = config.net;
  grown.blocks += config.grow_blocks;
  return grown;
}

bool IsRunNet(const TrainingConfig& config, const nn::NetConfig& net) {
  return net == config.net || (config.grow_blocks > 0 && net == GrownNet(config));
}

TrainingConfig LoadTrainingConfig(const std::string& path,
                                  const std::vector<std::string>& overrides) {
  ConfigReader reader = ConfigReader::FromFile(path);
  return Read(reader, overrides);
}

TrainingConfig ParseTrainingConfig(const std::string& yaml, const std::string& name,
                                   const std::vector<std::string>& overrides) {
  ConfigReader reader = ConfigReader::FromString(yaml, name);
  return Read(reader, overrides);
}

std::vector<ConfigKey> ConfigReference() {
  ConfigReader reader = ConfigReader::FromString("", "defaults");
  Read(reader, {});
  return reader.keys();
}

namespace {

// selfplay.threads auto on `machine` (SizedForMachine says why).
int AutoSelfPlayThreads(const Machine& machine, bool trains) {
  const int n = static_cast<int>(std::max(1u, machine.cores));
  if (!trains) return machine.gpu ? std::max(1, n - 1) : n;
  // On a GPU the network is the device's: threads keep its batches full, 2 cores in 16
  // go to the inference server's batcher workers, 1 to the trainer, 1 to the rest. On
  // the CPU self-play and the trainer share the cores half and half.
  return machine.gpu ? std::max(1, n * 3 / 4) : std::max(1, n / 2);
}

}  // namespace

TrainingConfig SizedForMachine(TrainingConfig config, const Machine& machine, bool trains) {
  const int n = static_cast<int>(std::max(1u, machine.cores));
  if (config.selfplay_threads == kAutoThreads ||
      (!trains && config.selfplay_threads == 0)) {  // an actor of a learner-only config
    config.selfplay_threads = AutoSelfPlayThreads(machine, trains);
  }
  const int selfplay = std::max(1, config.selfplay_threads);  // 0: the evaluations' network
  if (config.inference.threads == 0) {
    config.inference.threads = std::max(1, (trains ? n / 2 : n) / selfplay);
  }
  if (config.train_threads == 0) {
    config.train_threads =
        std::max(1, n - config.selfplay_threads * (trains ? config.inference.threads : 0));
  }
  return config;
}

Machine ThisMachine(const std::string& device) {
  return Machine{static_cast<unsigned>(core::UsableCpus()), nn::ResolveDevice(device).is_cuda()};
}

}  // namespace othello::training
