// The trainer's precisions (nn/mixed_precision.h): bf16 autocast against fp32 on one
// batch, a short run that learns under bf16, the gradient scaler's skip-and-back-off
// rule, gradient clipping without a host read, and the losses read once per report.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/hash.h"
#include "core/rng.h"
#include "nn/mixed_precision.h"
#include "tests/training/teacher_samples.h"
#include "training/trainer.h"

namespace othello::training {
namespace {

TrainingConfig SmallCpuConfig(const std::string& precision) {
  TrainingConfig config;
  config.net.blocks = 2;
  config.net.channels = 16;
  config.inference.device = "cpu";
  config.train_precision = precision;
  config.warmup_steps = 0;
  config.learning_rate = 0.02;
  config.grad_clip = 0;
  config.train_threads = 1;
  return config;
}

// A trainer on a copy of `net` (same weights for every precision).
Trainer TrainerOn(nn::OthelloNet& net, const TrainingConfig& config) {
  nn::Checkpoint checkpoint;
  checkpoint.net = nn::CloneNet(net);
  return Trainer(config, checkpoint, "test");
}

std::vector<torch::Tensor> Gradients(Trainer& trainer) {
  std::vector<torch::Tensor> grads;
  for (const torch::Tensor& p : trainer.net()->parameters()) grads.push_back(p.grad().clone());
  return grads;
}

double CosineSimilarity(const torch::Tensor& a, const torch::Tensor& b) {
  const double norms = a.norm().item<double>() * b.norm().item<double>();
  return norms == 0 ? 1.0 : (a * b).sum().item<double>() / norms;
}

TEST(Precision, NamesResolvePerDevice) {
  const torch::Device cpu(torch::kCPU);
  EXPECT_EQ(nn::ResolveTrainingPrecision("auto", cpu), torch::kFloat32);
  EXPECT_EQ(nn::ResolveTrainingPrecision("fp32", cpu), torch::kFloat32);
  EXPECT_EQ(nn::ResolveTrainingPrecision("bf16", cpu), torch::kBFloat16);
  try {
    nn::ResolveTrainingPrecision("fp16", cpu);
    FAIL() << "fp16 on the CPU was accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("train.precision 'fp16' needs a CUDA device"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(nn::ResolveTrainingPrecision("fp8", cpu), core::InputError);
  EXPECT_EQ(nn::PrecisionName(torch::kBFloat16), "bf16");
}

TEST(Precision, TheConfigKeyIsValidated) {
  EXPECT_EQ(ParseTrainingConfig("train:\n  precision: bf16\n", "t.yaml").train_precision, "bf16");
  EXPECT_EQ(ParseTrainingConfig("", "t.yaml").train_precision, "auto");
  EXPECT_THROW(ParseTrainingConfig("train:\n  precision: half\n", "t.yaml"), core::InputError);
}

TEST(Precision, AutocastRunsTheConvolutionsInBf16AndIsUndoneAfter) {
  const torch::Device cpu(torch::kCPU);
  nn::OthelloNet net(SmallCpuConfig("bf16").net);
  const torch::Tensor input = torch::randn({2, 6, 8, 8});
  {
    nn::AutocastGuard autocast(cpu, torch::kBFloat16);
    EXPECT_EQ(net->forward(input).policy_logits.scalar_type(), torch::kBFloat16);
  }
  EXPECT_EQ(net->forward(input).policy_logits.scalar_type(), torch::kFloat32);
  for (const torch::Tensor& p : net->parameters()) EXPECT_EQ(p.scalar_type(), torch::kFloat32);
}

// One step from the same weights on the same batch: the loss under bf16 autocast is
// within 2% of fp32's, and every layer's gradient points the same way (cosine > 0.97)
// with a norm within 10%. bf16 keeps 8 bits of mantissa (relative error ~0.4% per
// operation). The test prints what it measured.
TEST(Precision, Bf16LossAndGradientsMatchFp32OnAFixedBatch) {
  torch::manual_seed(7);
  nn::OthelloNet net(SmallCpuConfig("fp32").net);
  const std::vector<Sample> batch = TeacherSamples(64, 3);
  Trainer fp32 = TrainerOn(net, SmallCpuConfig("fp32"));
  Trainer bf16 = TrainerOn(net, SmallCpuConfig("bf16"));
  ASSERT_EQ(bf16.precision(), torch::kBFloat16);
  const double loss32 = fp32.Step(batch).total.item<double>();
  const double loss16 = bf16.Step(batch).total.item<double>();
  EXPECT_NEAR(loss16, loss32, 0.02 * loss32);
  const auto g32 = Gradients(fp32), g16 = Gradients(bf16);
  ASSERT_EQ(g32.size(), g16.size());
  double min_cosine = 1, max_norm_error = 0;
  for (std::size_t i = 0; i < g32.size(); ++i) {
    if (g32[i].norm().item<double>() < 1e-6) continue;  // e.g. a bias under batch norm
    const double cosine = CosineSimilarity(g32[i], g16[i]);
    const double norm_error =
        std::abs(g16[i].norm().item<double>() / g32[i].norm().item<double>() - 1);
    EXPECT_GT(cosine, 0.97) << "parameter " << i;
    EXPECT_LT(norm_error, 0.10) << "parameter " << i;
    min_cosine = std::min(min_cosine, cosine);
    max_norm_error = std::max(max_norm_error, norm_error);
  }
  std::printf("bf16 vs fp32: loss %.4f vs %.4f (%.3f%%), gradients: lowest cosine %.5f, "
              "largest norm error %.3f%%\n",
              loss16, loss32, 100 * std::abs(loss16 / loss32 - 1), min_cosine,
              100 * max_norm_error);
}

// The mean loss over the first 5 and the last 5 of 60 steps of `trainer`, batches of 32
// drawn from 256 teacher positions.
std::pair<double, double> LossBeforeAndAfter(Trainer& trainer) {
  const std::vector<Sample> data = TeacherSamples(256, 5);
  core::Rng rng(9);
  LossSums first, last;
  for (int step = 0; step < 60; ++step) {
    std::vector<Sample> batch;
    for (int i = 0; i < 32; ++i) batch.push_back(data[rng.Below(256)]);
    const nn::LossTerms loss = trainer.Step(batch);
    if (step < 5) first.Add(loss);
    if (step >= 55) last.Add(loss);
  }
  return {first.Read().total, last.Read().total};
}

// A tiny run learns under bf16: 60 steps on a fixed set of 256 teacher positions take
// the loss well below where it started (the same as fp32 does).
TEST(Precision, ATinyRunLearnsUnderBf16) {
  torch::manual_seed(11);
  TrainingConfig config = SmallCpuConfig("bf16");
  nn::OthelloNet net(config.net);
  Trainer trainer = TrainerOn(net, config);
  const auto [before, after] = LossBeforeAndAfter(trainer);
  std::printf("bf16 run: loss %.3f over the first 5 steps, %.3f over the last 5\n", before,
              after);
  EXPECT_TRUE(std::isfinite(after));
  EXPECT_LT(after, 0.8 * before) << "before " << before << " after " << after;
}

// On a GPU (scripts/gpu-check.sh runs it there; skipped elsewhere): every precision
// trains on CUDA, fp16 through the loss scaler, and the loss falls.
TEST(Precision, EveryPrecisionTrainsOnCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the CUDA path is not exercised here";
  for (const std::string precision : {"fp32", "bf16", "fp16"}) {
    torch::manual_seed(11);
    TrainingConfig config = SmallCpuConfig(precision);
    config.inference.device = "cuda";
    nn::OthelloNet net(config.net);
    Trainer trainer = TrainerOn(net, config);
    EXPECT_EQ(nn::PrecisionName(trainer.precision()), precision);
    EXPECT_EQ(trainer.scaler().enabled(), precision == "fp16");
    const auto [before, after] = LossBeforeAndAfter(trainer);
    EXPECT_TRUE(std::isfinite(after)) << precision;
    EXPECT_LT(after, 0.8 * before) << precision << ": before " << before << " after " << after;
    EXPECT_LT(trainer.scaler().skipped_steps(), 10) << precision;
  }
}

TEST(Precision, TheGradScalerSkipsAnOverflowAndBacksOff) {
  nn::GradScaler::Options options;
  options.initial_scale = 1024;
  options.growth_interval = 3;
  nn::GradScaler scaler(/*enabled=*/true, options);
  torch::Tensor w = torch::ones({3}, torch::requires_grad());
  scaler.Scale((w * 2).sum()).backward();
  EXPECT_FALSE(scaler.Unscale({w}));
  EXPECT_TRUE(torch::allclose(w.grad(), torch::full({3}, 2.0)));  // unscaled
  scaler.Update(false);
  w.grad().zero_();
  w.grad()[1] = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(scaler.Unscale({w}));
  scaler.Update(true);
  EXPECT_EQ(scaler.scale(), 512);
  EXPECT_EQ(scaler.skipped_steps(), 1);
  for (int i = 0; i < 3; ++i) scaler.Update(false);
  EXPECT_EQ(scaler.scale(), 1024);  // grows after growth_interval good steps

  nn::GradScaler off(/*enabled=*/false);
  EXPECT_FALSE(off.Unscale({w}));  // disabled: nothing to unscale, never an overflow
  EXPECT_EQ(off.Scale(torch::ones({})).item<double>(), 1.0);
}

TEST(Precision, ClippingOnTheDeviceMatchesClipGradNorm) {
  torch::manual_seed(3);
  std::vector<torch::Tensor> a, b;
  for (int i = 0; i < 3; ++i) {
    a.push_back(torch::randn({5}, torch::requires_grad()));
    b.push_back(a.back().detach().clone().requires_grad_());
    const torch::Tensor g = torch::randn({5}) * 4;
    a.back().mutable_grad() = g.clone();
    b.back().mutable_grad() = g.clone();
  }
  const double norm = nn::ClipGradNorm(a, 1.0).item<double>();
  const double reference = torch::nn::utils::clip_grad_norm_(b, 1.0);
  EXPECT_NEAR(norm, reference, 1e-4);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(torch::allclose(a[i].grad(), b[i].grad(), 1e-5, 1e-6));
}

TEST(Precision, LossSumsAverageTheStepsSinceTheLastRead) {
  LossSums sums;
  EXPECT_EQ(sums.Read().steps, 0);
  for (double v : {1.0, 3.0}) {
    const torch::Tensor t = torch::full({}, v);
    sums.Add({t, t * 2, t, t, t});
  }
  const LossSums::Means means = sums.Read();
  EXPECT_EQ(means.steps, 2);
  EXPECT_DOUBLE_EQ(means.total, 2.0);
  EXPECT_DOUBLE_EQ(means.policy, 4.0);
  EXPECT_EQ(sums.Read().steps, 0);
}

}  // namespace
}  // namespace othello::training
