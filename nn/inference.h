#pragma once
// The trainable network run by LibTorch for inference (the torch backend of
// nn/evaluator.h, which puts it behind mcts::BatchingEvaluator): positions encoded, run
// on the CPU or a CUDA device in fp32, or fp16/bf16 on CUDA, and turned into
// probabilities. On CUDA the input goes through pinned memory, copied without waiting,
// and the outputs come back in one copy: one host synchronisation per call.
//
// Thread safety: Forward from any number of threads at once. The net is copied at
// construction; later changes to the caller's net do not affect it. The constructor
// sets LibTorch's CPU thread count for the process, Forward for its calling thread.
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "mcts/evaluator.h"
#include "nn/evaluator.h"
#include "nn/model.h"

namespace othello::nn {

// The device an options string asks for; throws core::InputError for an unknown
// device or an unavailable CUDA.
torch::Device ResolveDevice(const std::string& device);
// The default number of LibTorch CPU threads: 1 below batches of 32, else the CPUs this
// process may use (core::UsableCpus; docs/benchmarks.md: measured on 2 cores).
int DefaultCpuThreads(int max_batch);
// Sets the thread count of OpenBLAS's own worker pool, when LibTorch's BLAS is OpenBLAS
// (Debian's; found at run time, so another BLAS is left alone). Returns whether it was
// set. OpenBLAS starts one worker per core and they spin in sched_yield between calls:
// next to busy self-play and trainer threads that was 8% of all CPU time (perf, docs/benchmarks.md).
bool SetBlasThreads(int threads);

class TorchNet {
 public:
  // Device, precision and threads from `options` (the rest is the stack's); throws
  // core::InputError for an unknown or unavailable device or precision.
  TorchNet(OthelloNet& net, const EvaluatorOptions& options);
  TorchNet(const TorchNet&) = delete;
  TorchNet& operator=(const TorchNet&) = delete;

  // Evaluates positions of any board sizes (each size is one forward pass).
  void Forward(const std::vector<const core::Position*>& positions,
               const std::vector<mcts::EvalOutput*>& outputs);

  torch::Device device() const { return device_; }
  torch::ScalarType dtype() const { return dtype_; }
  // The batch size its batcher should gather: options.max_batch, or 32 on the CPU and
  // 256 on CUDA for 0 (measured: docs/benchmarks.md).
  int max_batch() const { return max_batch_; }

 private:
  void ForwardSameSize(const std::vector<const core::Position*>& positions,
                       const std::vector<mcts::EvalOutput*>& outputs);

  OthelloNet net_{nullptr};
  torch::Device device_;
  torch::ScalarType dtype_;
  int max_batch_;
  int cpu_threads_ = 1;
};

}  // namespace othello::nn
