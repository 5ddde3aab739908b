#include "training/train_bench.h"

#include <chrono>
#include <vector>

#include <torch/torch.h>

#include "core/bitboard.h"
#include "core/rng.h"
#include "core/rules.h"
#include "core/stopwatch.h"
#include "nn/device_stream.h"
#include "nn/mixed_precision.h"
#include "training/trainer.h"

namespace othello::training {
namespace {

using Clock = std::chrono::steady_clock;

// Positions of random games under `rules`, as training records with plausible targets.
std::vector<Sample> RandomSamples(const core::Rules& rules, int count, core::Rng& rng) {
  std::vector<Sample> samples;
  samples.reserve(count);
  while (static_cast<int>(samples.size()) < count) {
    core::Position pos = core::StartPosition(rules, rng.Next());
    while (!pos.IsGameOver() && static_cast<int>(samples.size()) < count) {
      const core::Bitboard legal = pos.LegalMoves();
      if (legal == 0) {
        pos = pos.Play(core::kPass);
        continue;
      }
      std::vector<core::Square> moves;
      core::ForEachSquare(legal, [&](core::Square sq) { moves.push_back(sq); });
      Sample s;
      s.SetPosition(pos);
      s.has_policy = 1;
      int left = 65535;
      for (std::size_t i = 0; i < moves.size(); ++i) {
        const int share = i + 1 == moves.size() ? left : 65535 / static_cast<int>(moves.size());
        s.policy[moves[i]] = static_cast<std::uint16_t>(share);
        left -= share;
      }
      const int win = static_cast<int>(rng.Below(65536));
      const int draw = static_cast<int>(rng.Below(65536 - win));
      s.wdl[0] = static_cast<std::uint16_t>(win);
      s.wdl[1] = static_cast<std::uint16_t>(draw);
      s.wdl[2] = static_cast<std::uint16_t>(65535 - win - draw);
      for (int sq = 0; sq < pos.squares(); ++sq) s.ownership[sq] = rng.Below(2) ? 1 : -1;
      s.final_margin = static_cast<std::int8_t>(static_cast<int>(rng.Below(33)) - 16);
      samples.push_back(s);
      pos = pos.Play(moves[rng.Below(static_cast<std::uint32_t>(moves.size()))]);
    }
  }
  return samples;
}

}  // namespace

nlohmann::ordered_json BenchTrain(const TrainingConfig& config, const TrainBenchOptions& options) {
  core::Rng rng(core::Mix64(options.seed));
  const std::vector<Sample> pool = RandomSamples(config.rules, 8192, rng);
  Trainer trainer(config, nn::Checkpoint{}, "bench train");
  // On a stream of its own, as in a training run (training/run.cpp).
  const nn::DeviceStream stream(trainer.device());
  const nn::StreamScope on_stream(stream);
  std::vector<Sample> batch(config.batch_size);
  // `seconds` of steps; returns how many. The last step's loss is read back, so that a
  // CUDA device has finished the steps when the clock stops.
  const auto run = [&](double seconds) {
    const Clock::time_point start = Clock::now();
    std::int64_t steps = 0;
    nn::LossTerms loss;
    do {
      for (Sample& s : batch) s = pool[rng.Below(static_cast<std::uint32_t>(pool.size()))];
      loss = trainer.Step(batch);
      ++steps;
    } while (core::SecondsSince(start) < seconds);
    (void)loss.total.item<float>();
    return std::make_pair(steps, core::SecondsSince(start));
  };
  run(options.warmup);
  const auto [steps, seconds] = run(options.seconds);
  std::int64_t parameters = 0;
  for (const torch::Tensor& p : trainer.net()->parameters()) parameters += p.numel();

  nlohmann::ordered_json report;
  report["config"] = options.config_name;
  report["network"] = config.net.Describe();
  report["parameters"] = parameters;
  report["device"] = trainer.device().str();
  report["precision"] = nn::PrecisionName(trainer.precision());
  report["threads"] = trainer.device().is_cpu() ? torch::get_num_threads() : 0;
  report["batch_size"] = config.batch_size;
  report["seconds"] = seconds;
  report["steps"] = steps;
  report["steps_per_second"] = steps / seconds;
  report["samples_per_second"] = steps * config.batch_size / seconds;
  report["ms_per_step"] = 1000.0 * seconds / steps;
  return report;
}

}  // namespace othello::training
