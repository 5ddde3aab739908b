#include "training/config.h"

#include "core/error.h"
#include "training/config_reader.h"

namespace othello::training {
namespace {

void ReadGame(ConfigReader& r, core::Rules& rules) {
  rules.size = r.Int("game.size", 8, 4, 10);
  if (rules.size % 2) throw core::InputError("config " + r.name() + ": game.size '" +
                                             std::to_string(rules.size) + "': must be even");
  const std::string start = r.String("game.start", "standard",
                                     {"standard", "reversi", "random", "handicap"});
  rules.start = *core::ParseStartKind(start);
  rules.random_moves = r.Int("game.random_moves", 0, 0, rules.size * rules.size - 4);
  rules.handicap = r.Int("game.handicap", 1, 1, 4);
  rules.handicap_side = r.String("game.handicap_side", "black", {"black", "white"}) == "black"
                            ? core::Color::kBlack
                            : core::Color::kWhite;
  rules.anti = r.Bool("game.anti", false);
  rules.empties_to_winner = r.Bool("game.empties_to_winner", true);
}

void ReadNetwork(ConfigReader& r, nn::NetConfig& net) {
  net.blocks = r.Int("network.blocks", net.blocks, 1, 64);
  net.channels = r.Int("network.channels", net.channels, 4, 1024);
  net.global_pool_every = r.Int("network.global_pool_every", net.global_pool_every, 0, 64);
  net.head_channels = r.Int("network.head_channels", net.head_channels, 2, 256);
  net.value_hidden = r.Int("network.value_hidden", net.value_hidden, 4, 1024);
}

void ReadSearch(ConfigReader& r, mcts::SearchParams& s, TrainingConfig& c) {
  s.c_puct = static_cast<float>(r.Double("search.c_puct", s.c_puct, 0.01, 100));
  s.fpu_reduction = static_cast<float>(r.Double("search.fpu_reduction", s.fpu_reduction, 0, 2));
  s.root_fpu_reduction =
      static_cast<float>(r.Double("search.root_fpu_reduction", s.root_fpu_reduction, 0, 2));
  s.solver_empties = r.Int("search.solver_empties", s.solver_empties, 0, 20);
  s.full_visits = static_cast<std::uint64_t>(r.Int("search.full_visits", 64, 1, 1 << 20));
  s.fast_visits = static_cast<std::uint64_t>(r.Int("search.fast_visits", 16, 1, 1 << 20));
  s.full_search_probability = static_cast<float>(
      r.Double("search.full_search_probability", 0.25, 0, 1));
  s.dirichlet_noise = r.Bool("search.dirichlet_noise", true);
  s.dirichlet_total = static_cast<float>(r.Double("search.dirichlet_total", 10.0, 0.01, 1000));
  s.dirichlet_fraction =
      static_cast<float>(r.Double("search.dirichlet_fraction", 0.25, 0, 1));
  s.forced_playouts = r.Bool("search.forced_playouts", false);
  s.gumbel = r.Bool("search.gumbel", false);
  s.gumbel_actions = r.Int("search.gumbel_actions", s.gumbel_actions, 1, 128);
  s.temperature_start = static_cast<float>(r.Double("search.temperature_start", 1.0, 0, 10));
  s.temperature_end = static_cast<float>(r.Double("search.temperature_end", 0.2, 0, 10));
  s.temperature_halflife =
      static_cast<float>(r.Double("search.temperature_halflife", 10, 0.1, 1000));
  c.tree_nodes = static_cast<std::size_t>(r.Int("search.tree_nodes", 200000, 1000, 1 << 30));
}

void ReadTrain(ConfigReader& r, TrainingConfig& c) {
  c.batch_size = r.Int("train.batch_size", c.batch_size, 1, 1 << 16);
  c.optimizer = r.String("train.optimizer", c.optimizer, {"sgd", "adamw"});
  c.learning_rate = r.Double("train.learning_rate", c.learning_rate, 1e-7, 10);
  c.momentum = r.Double("train.momentum", c.momentum, 0, 0.999);
  c.weight_decay = r.Double("train.weight_decay", c.weight_decay, 0, 1);
  c.warmup_steps = r.Int("train.warmup_steps", c.warmup_steps, 0, 1 << 30);
  c.lr_schedule = r.String("train.lr_schedule", c.lr_schedule, {"constant", "cosine"});
  c.lr_schedule_steps = r.Int("train.lr_schedule_steps", c.lr_schedule_steps, 1, 1 << 30);
  c.grad_clip = r.Double("train.grad_clip", c.grad_clip, 0, 1e6);
  c.samples_per_position =
      r.Double("train.samples_per_position", c.samples_per_position, 0.01, 1000);
  c.min_positions = r.Int("train.min_positions", c.min_positions, 1, 1 << 30);
  c.publish_every = r.Int("train.publish_every", c.publish_every, 1, 1 << 30);
  c.checkpoint_every = r.Int("train.checkpoint_every", c.checkpoint_every, 1, 1 << 30);
  c.value_target_mix = r.Double("train.value_target_mix", c.value_target_mix, 0, 1);
  c.exact_target_empties = r.Int("train.exact_target_empties", c.exact_target_empties, 0, 20);
  c.loss.policy = static_cast<float>(r.Double("train.loss.policy", c.loss.policy, 0, 100));
  c.loss.value = static_cast<float>(r.Double("train.loss.value", c.loss.value, 0, 100));
  c.loss.ownership =
      static_cast<float>(r.Double("train.loss.ownership", c.loss.ownership, 0, 100));
  c.loss.disc_difference = static_cast<float>(
      r.Double("train.loss.disc_difference", c.loss.disc_difference, 0, 100));
}

void ReadReplay(ConfigReader& r, TrainingConfig& c) {
  c.window = r.String("replay.window", c.window, {"growing", "fixed"});
  c.window_min = r.Int("replay.window_min", c.window_min, 1, 1 << 30);
  c.window_max = r.Int("replay.window_max", c.window_max, 1, 1 << 30);
  c.window_exponent = r.Double("replay.window_exponent", c.window_exponent, 0, 1);
  c.shard_positions = r.Int("replay.shard_positions", c.shard_positions, 16, 1 << 24);
  if (c.window_max < c.window_min) {
    throw core::InputError("config " + r.name() + ": replay.window_max '" +
                           std::to_string(c.window_max) + "': below replay.window_min (" +
                           std::to_string(c.window_min) + ")");
  }
}

void ReadInference(ConfigReader& r, nn::InferenceOptions& o) {
  o.device = r.String("inference.device", o.device);
  const bool cuda_index = o.device.rfind("cuda:", 0) == 0 && o.device.size() > 5 &&
                          o.device.find_first_not_of("0123456789", 5) == std::string::npos;
  if (o.device != "auto" && o.device != "cpu" && o.device != "cuda" && !cuda_index) {
    throw core::InputError("config " + r.name() + ": inference.device '" + o.device +
                           "': expected auto, cpu, cuda or cuda:N");
  }
  o.precision = r.String("inference.precision", o.precision, {"auto", "fp32", "fp16", "bf16"});
  o.max_batch = r.Int("inference.max_batch", o.max_batch, 0, 1 << 16);
  o.max_wait_us = r.Int("inference.max_wait_us", o.max_wait_us, 0, 10000000);
  o.threads = r.Int("inference.threads", o.threads, 0, 1024);
  o.random_symmetry = r.Bool("inference.random_symmetry", true);
  o.cache_entries =
      static_cast<std::size_t>(r.Int("inference.cache_entries", 1 << 16, 0, 1 << 28));
}

TrainingConfig Read(ConfigReader& r, const std::vector<std::string>& overrides) {
  r.Override(overrides);
  TrainingConfig c;
  ReadGame(r, c.rules);
  ReadNetwork(r, c.net);
  c.selfplay_threads = r.Int("selfplay.threads", c.selfplay_threads, 1, 1024);
  c.games_per_thread = r.Int("selfplay.games_per_thread", c.games_per_thread, 1, 65536);
  c.leaves_per_game = r.Int("selfplay.leaves_per_game", c.leaves_per_game, 1, 1024);
  c.resign = r.Bool("selfplay.resign", c.resign);
  c.resign_value = r.Double("selfplay.resign_value", c.resign_value, -1, 1);
  c.resign_moves = r.Int("selfplay.resign_moves", c.resign_moves, 1, 100);
  c.resign_check_fraction =
      r.Double("selfplay.resign_check_fraction", c.resign_check_fraction, 0, 1);
  ReadSearch(r, c.search, c);
  c.search.rules = c.rules;
  ReadTrain(r, c);
  ReadReplay(r, c);
  ReadInference(r, c.inference);
  c.eval_every_checkpoints = r.Int("eval.every_checkpoints", c.eval_every_checkpoints, 0, 1 << 20);
  c.eval_games = r.Int("eval.games", c.eval_games, 2, 100000);
  c.eval_visits = r.Int("eval.visits", c.eval_visits, 1, 1 << 20);
  c.eval_opponents = r.StringList("eval.opponents", c.eval_opponents);
  c.eval_previous = r.Int("eval.previous", c.eval_previous, 0, 100);
  c.eval_gate = r.Double("eval.gate", c.eval_gate, 0, 1);
  c.minutes = r.Double("run.minutes", c.minutes, 0, 1e7);
  c.steps = r.Int("run.steps", 0, 0, 2000000000);
  c.seed = static_cast<std::uint64_t>(r.Int("run.seed", 1, 0, 1 << 30));
  r.Finish();
  return c;
}

}  // namespace

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

}  // namespace othello::training
