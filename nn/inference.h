#pragma once
// The network behind the search's Evaluator interface: requests from many search
// threads are gathered into batches (mcts::BatchingEvaluator: at most max_batch
// positions, waiting at most max_wait_us), encoded, run on the CPU or a CUDA device
// (chosen automatically unless given), in fp32, or fp16/bf16 on CUDA, and turned into
// probabilities. Option: random-symmetry evaluation (each position is evaluated in one
// of its 8 symmetric forms, chosen at random, and the outputs are mapped back).
// NetEvaluator holds no cache: cache_entries and cache_canonical configure the
// mcts::CachingEvaluator that whoever wants one wraps around it (mcts::WithCache).
//
// Thread safety: Submit/Wait (the contract of mcts/evaluator.h) and Forward from any
// number of threads at once. The net is copied at construction; later changes to the
// caller's net do not affect this evaluator. The constructor sets LibTorch's CPU
// thread count for the process.
// On CUDA: two batcher workers (one encodes and decodes on the host while the other's
// batch runs on the device), the input in pinned memory copied without waiting, the
// outputs back in one copy, so one host synchronisation per batch.
// Lifetime: the destructor shuts the batcher down first (batches still queued fail).
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "mcts/batching_evaluator.h"
#include "mcts/evaluator.h"
#include "nn/model.h"

namespace othello::nn {

struct InferenceOptions {
  std::string device = "auto";     // auto (CUDA when available), cpu, cuda, cuda:N
  std::string precision = "auto";  // auto (bf16 on CUDA, fp32 on CPU), fp32, fp16, bf16
  // Self-play's network (training/self_play.h): auto (eigen on the CPU, else torch),
  // torch or eigen.
  std::string backend = "auto";
  int max_batch = 0;               // 0: 32 on the CPU, 256 on CUDA (measured: docs/benchmarks.md)
  int max_wait_us = 1000;
  int threads = 0;                 // LibTorch CPU threads (0: the measured default)
  bool random_symmetry = false;    // training's default: training/config.h
  std::size_t cache_entries = 0;   // 0: no cache (training's default: training/config.h)
  bool cache_canonical = true;
  std::uint64_t seed = 0;          // for random symmetries
};

// The device an options string asks for; throws core::InputError for an unknown
// device or an unavailable CUDA.
torch::Device ResolveDevice(const std::string& device);
// The default number of LibTorch CPU threads (docs/benchmarks.md: measured on 2 cores).
int DefaultCpuThreads(int max_batch);
// Sets the thread count of OpenBLAS's own worker pool, when LibTorch's BLAS is OpenBLAS
// (Debian's; found at run time, so another BLAS is left alone). Returns whether it was
// set. OpenBLAS starts one worker per core and they spin in sched_yield between calls:
// next to busy self-play and trainer threads that was 8% of all CPU time (perf, docs/benchmarks.md).
bool SetBlasThreads(int threads);

class NetEvaluator : public mcts::Evaluator {
 public:
  NetEvaluator(OthelloNet& net, const InferenceOptions& options);
  ~NetEvaluator() override;

  void Submit(mcts::EvalBatch& batch) override;
  void Wait(mcts::EvalBatch& batch) override;

  // The raw forward pass on `positions` of any board sizes (no batching): what the
  // batcher calls, and what benchmarks compare it with.
  void Forward(const std::vector<const core::Position*>& positions,
               const std::vector<mcts::EvalOutput*>& outputs);

  torch::Device device() const { return device_; }
  torch::ScalarType dtype() const { return dtype_; }
  const mcts::BatchingEvaluator& batcher() const { return *batcher_; }

 private:
  // Evaluates positions of one board size.
  void ForwardSameSize(const std::vector<const core::Position*>& positions,
                       const std::vector<mcts::EvalOutput*>& outputs);
  // The backend of the batcher: Forward, or an injected fault (OZ_FAULT=evaluate).
  void Backend(const std::vector<const core::Position*>& positions,
               const std::vector<mcts::EvalOutput*>& outputs);

  InferenceOptions options_;
  OthelloNet net_{nullptr};
  torch::Device device_;
  torch::ScalarType dtype_;
  int cpu_threads_ = 1;
  std::atomic<std::uint64_t> symmetry_calls_{0};  // forward calls: seeds their symmetries
  std::unique_ptr<mcts::BatchingEvaluator> batcher_;  // last: its worker uses the above
};

}  // namespace othello::nn
