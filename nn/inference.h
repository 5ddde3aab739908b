#pragma once
// The trainable network run by LibTorch for inference (the torch backend of
// nn/evaluator.h, which puts it behind mcts::BatchingEvaluator): positions encoded, run
// on the CPU or a CUDA device in fp32, or fp16/bf16 on CUDA, and turned into
// probabilities.
//
// Each call runs on a lane of its own: host buffers for the encoded input and the packed
// outputs, kept from call to call (sized for max_batch positions at first, grown when a
// call needs more) and, on CUDA, a stream of its own (nn/device_stream.h). There the
// buffers are pinned, the input goes to the device and the outputs come back in one
// copy each, both queued without waiting, and the call then waits for its own stream
// only: the batcher's two workers overlap, and neither waits for the trainer's steps.
// A lane serves one call at a time; there are as many as calls have run at once.
// With options.cuda_graphs (CUDA only) each lane replays CUDA graphs of the forward
// pass, captured per board size and batch size rounded up to a power of two (up to
// max_batch; larger calls run without one): nn/forward_graphs.h.
//
// Thread safety: Forward from any number of threads at once. The net is copied at
// construction, and on CUDA the constructor waits until the copy is on the device, so
// that every lane's stream reads whole weights; later changes to the caller's net do
// not affect it. The constructor sets LibTorch's CPU thread count for the process,
// Forward for its calling thread.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/thread_annotations.h"
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
// next to busy self-play and trainer threads they take CPU time from them (measured with
// perf: docs/lab-notebook.md).
bool SetBlasThreads(int threads);

class TorchNet {
 public:
  // Device, precision and threads from `options` (the rest is the stack's); throws
  // core::InputError for an unknown or unavailable device or precision.
  TorchNet(OthelloNet& net, const EvaluatorOptions& options);
  ~TorchNet();
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
  // Lanes made so far: the most calls that have run at once (tests, benchmarks).
  int lanes() const { return lanes_made_.load(std::memory_order_relaxed); }

 private:
  struct Lane;  // buffers, stream and graphs of one call at a time (inference.cpp)

  // A lane no other call uses (a new one when all are busy); ReturnLane gives it back.
  std::unique_ptr<Lane> TakeLane() EXCLUDES(lanes_mutex_);
  void ReturnLane(std::unique_ptr<Lane> lane) EXCLUDES(lanes_mutex_);
  void ForwardSameSize(Lane& lane, const std::vector<const core::Position*>& positions,
                       const std::vector<mcts::EvalOutput*>& outputs);
  // The packed outputs of `input` (host, fp32) into `result` (host, fp32), queued on the
  // current stream without waiting on CUDA.
  void RunNet(const torch::Tensor& input, torch::Tensor& result);

  OthelloNet net_{nullptr};
  torch::Device device_;
  torch::ScalarType dtype_;
  int max_batch_;
  int cpu_threads_ = 1;
  bool cuda_graphs_ = false;  // options.cuda_graphs on a CUDA device

  std::atomic<int> lanes_made_{0};  // statistics, relaxed
  core::Mutex lanes_mutex_;
  std::vector<std::unique_ptr<Lane>> free_lanes_ GUARDED_BY(lanes_mutex_);
};

}  // namespace othello::nn
