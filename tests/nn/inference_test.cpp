// nn::TorchNet's lanes (nn/inference.h): host buffers kept from call to call, one stream a
// lane on CUDA, and CUDA graphs. On the CPU: reused buffers give what a fresh net gives,
// for batches that shrink and grow again and mixed board sizes, from two threads at once.
// On a GPU (scripts/gpu-check.sh runs them there; skipped elsewhere, saying why): the
// same on CUDA, the batcher's two workers on their own streams against one-at-a-time
// forward passes, and CUDA graphs against the eager forward pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "core/rules.h"
#include "mcts/batching_evaluator.h"
#include "nn/device_stream.h"
#include "nn/evaluator.h"
#include "nn/forward_graphs.h"
#include "nn/inference.h"
#include "tests/nn/test_nets.h"

namespace othello::nn {
namespace {

NetConfig LaneNet() { return test::TinyNet(); }

std::vector<core::Position> LanePositions(int count, int size, std::uint64_t seed) {
  return test::RandomPositions(count, size, seed);
}

// The reason a CUDA-only test does not run here, or "" where it runs.
std::string NoCuda() {
  if (!BuildHasCuda()) return "this build's LibTorch has no CUDA (OZ_TORCH_CUDA unset)";
  if (!torch::cuda::is_available()) return "no CUDA device: the CUDA path is not exercised here";
  return "";
}

// One Forward call's positions and what it returns.
struct Call {
  std::vector<core::Position> positions;
  std::vector<mcts::EvalOutput> outputs;

  void Run(TorchNet& net) {
    outputs.assign(positions.size(), {});
    std::vector<const core::Position*> p;
    std::vector<mcts::EvalOutput*> o;
    for (std::size_t i = 0; i < positions.size(); ++i) {
      p.push_back(&positions[i]);
      o.push_back(&outputs[i]);
    }
    net.Forward(p, o);
  }
};

// The largest difference between two calls' outputs (every field a position has).
float Difference(const Call& a, const Call& b) {
  float most = 0;
  const auto see = [&](float x, float y) { most = std::max(most, std::abs(x - y)); };
  for (std::size_t i = 0; i < a.outputs.size(); ++i) {
    const mcts::EvalOutput &x = a.outputs[i], &y = b.outputs[i];
    const int area = a.positions[i].size() * a.positions[i].size();
    for (int sq = 0; sq <= area; ++sq) see(x.policy[sq], y.policy[sq]);
    for (int sq = 0; sq < area; ++sq) see(x.ownership[sq], y.ownership[sq]);
    see(x.win, y.win);
    see(x.draw, y.draw);
    see(x.loss, y.loss);
    see(x.disc_difference / area, y.disc_difference / area);
  }
  return most;
}

// Calls of batches that shrink and grow again past max_batch (8), 8x8 and 6x6, and one
// call of both sizes.
std::vector<Call> Sequence() {
  std::vector<Call> calls;
  std::uint64_t seed = 100;
  for (const int batch : {8, 3, 8, 1, 20, 5, 8}) {
    calls.push_back({LanePositions(batch, 8, seed += 50), {}});
  }
  calls.push_back({LanePositions(6, 6, seed += 50), {}});
  Call mixed{LanePositions(4, 8, seed += 50), {}};
  for (const core::Position& p : LanePositions(3, 6, seed += 50)) mixed.positions.push_back(p);
  calls.push_back(mixed);
  return calls;
}

// Runs Sequence() on `shared` from two threads at once, `rounds` times each, against what
// a fresh net (fresh buffers, one lane) gives for each call; the largest difference.
float SharedAgainstFresh(OthelloNet& net, const EvaluatorOptions& options, TorchNet& shared,
                         int rounds) {
  std::vector<Call> expected = Sequence();
  for (Call& call : expected) {
    TorchNet fresh(net, options);
    call.Run(fresh);
  }
  std::vector<float> worst(2, 0.0f);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < rounds; ++round) {
        std::vector<Call> calls = Sequence();
        for (std::size_t c = 0; c < calls.size(); ++c) {
          calls[c].Run(shared);
          worst[t] = std::max(worst[t], Difference(calls[c], expected[c]));
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return std::max(worst[0], worst[1]);
}

TEST(InferenceLanes, ReusedBuffersGiveWhatAFreshNetGives) {
  OthelloNet net(LaneNet());
  EvaluatorOptions options;
  options.device = "cpu";
  options.max_batch = 8;
  options.threads = 1;
  TorchNet shared(net, options);
  // One thread, one call at a time: one lane, its buffers grown once (the batch of 20).
  std::vector<Call> calls = Sequence();
  for (Call& call : calls) call.Run(shared);
  EXPECT_EQ(shared.lanes(), 1);
  EXPECT_LT(SharedAgainstFresh(net, options, shared, /*rounds=*/5), 1e-5f);
  EXPECT_GE(shared.lanes(), 1);
  EXPECT_LE(shared.lanes(), 2);  // never more lanes than calls at once
}

TEST(InferenceLanes, WithoutCudaThereIsNoStreamAndNoGraph) {
  const DeviceStream cpu(torch::Device(torch::kCPU));
  EXPECT_FALSE(cpu.active());
  const StreamScope scope(cpu);  // nothing to do
  cpu.Synchronize();
  SynchronizeCurrentStream(torch::Device(torch::kCPU));
  // cuda_graphs asks for nothing on the CPU: the eager pass, the same outputs.
  OthelloNet net(LaneNet());
  EvaluatorOptions options;
  options.device = "cpu";
  options.threads = 1;
  TorchNet eager(net, options);
  options.cuda_graphs = true;
  TorchNet graphs(net, options);
  Call a{LanePositions(5, 8, 3), {}}, b = a;
  a.Run(eager);
  b.Run(graphs);
  EXPECT_EQ(Difference(a, b), 0.0f);
  if (!BuildHasCuda()) {
    EXPECT_THROW(ForwardGraphs(net, torch::kCPU, torch::kFloat32, 8, nullptr), std::logic_error);
  }
}

TEST(InferenceLanes, GraphBucketsArePowersOfTwoUpToMaxBatch) {
  EXPECT_EQ(ForwardGraphs::Bucket(1, 256), 1);
  EXPECT_EQ(ForwardGraphs::Bucket(3, 256), 4);
  EXPECT_EQ(ForwardGraphs::Bucket(64, 256), 64);
  EXPECT_EQ(ForwardGraphs::Bucket(65, 256), 128);
  EXPECT_EQ(ForwardGraphs::Bucket(200, 200), 200);
  EXPECT_EQ(ForwardGraphs::Bucket(129, 200), 200);
}

// ---- On a GPU only.

// Reused pinned buffers, one stream a lane, two threads at once: what a fresh net gives.
// TF32 convolutions (cuDNN's default) and per-batch-size kernels allow small differences.
TEST(InferenceLanes, OnCudaReusedBuffersAndStreamsGiveWhatAFreshNetGives) {
  if (const std::string why = NoCuda(); !why.empty()) GTEST_SKIP() << why;
  OthelloNet net(LaneNet());
  EvaluatorOptions options;
  options.device = "cuda";
  options.precision = "fp32";
  options.max_batch = 8;
  TorchNet shared(net, options);
  EXPECT_LT(SharedAgainstFresh(net, options, shared, /*rounds=*/20), 2e-3f);
  EXPECT_LE(shared.lanes(), 2);
}

// CUDA graphs (several buckets, both board sizes, a batch above max_batch that runs
// eagerly) against the eager pass, from two threads at once.
TEST(InferenceLanes, OnCudaGraphsGiveTheEagerOutputs) {
  if (const std::string why = NoCuda(); !why.empty()) GTEST_SKIP() << why;
  OthelloNet net(LaneNet());
  for (const char* precision : {"fp32", "bf16"}) {
    EvaluatorOptions options;
    options.device = "cuda";
    options.precision = precision;
    options.max_batch = 8;
    TorchNet eager(net, options);
    options.cuda_graphs = true;
    TorchNet graphs(net, options);
    std::vector<Call> expected = Sequence(), replayed = Sequence();
    for (std::size_t c = 0; c < expected.size(); ++c) {
      expected[c].Run(eager);
      replayed[c].Run(graphs);
      EXPECT_LT(Difference(expected[c], replayed[c]), precision[0] == 'f' ? 2e-3f : 3e-2f)
          << precision << ", call " << c;
    }
    options.cuda_graphs = false;
    EXPECT_LT(SharedAgainstFresh(net, options, graphs, /*rounds=*/10),
              precision[0] == 'f' ? 2e-3f : 3e-2f)
        << precision;
  }
}

// The batcher's two workers, each on its stream, fed by 8 client threads: every
// position's result is what a forward pass of it alone gives.
TEST(InferenceLanes, OnCudaTwoBatcherWorkersGiveTheSerialResults) {
  if (const std::string why = NoCuda(); !why.empty()) GTEST_SKIP() << why;
  OthelloNet net(LaneNet());
  EvaluatorOptions options;
  options.device = "cuda";
  options.precision = "fp32";
  options.max_batch = 16;
  options.max_wait_us = 200;
  EvaluatorLayers layers;
  const std::shared_ptr<mcts::Evaluator> server =
      MakeEvaluator(net, core::Rules{}, /*step=*/0, options, &layers);
  TorchNet alone(net, options);
  std::vector<float> worst(8, 0.0f);
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&, c] {
      for (int round = 0; round < 30; ++round) {
        const std::vector<core::Position> positions =
            LanePositions(1 + (c + round) % 6, 8, 1000 * c + 10 * round);
        mcts::EvalBatch batch;
        for (const core::Position& p : positions) batch.Add(p);
        server->Evaluate(batch);
        for (int i = 0; i < batch.size(); ++i) {
          Call single{{positions[i]}, {}};
          single.Run(alone);
          Call served{{positions[i]}, {batch.output(i)}};
          worst[c] = std::max(worst[c], Difference(single, served));
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_LT(*std::max_element(worst.begin(), worst.end()), 2e-3f);
  EXPECT_GT(layers.batcher->backend_calls(), 0u);
}

}  // namespace
}  // namespace othello::nn
