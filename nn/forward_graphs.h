#pragma once
// The self-play network's forward pass as CUDA graphs (inference.cuda_graphs, off by
// default): one at::cuda::CUDAGraph per board size and batch bucket (the batch rounded up
// to a power of two, at most max_batch), captured the first time that bucket is needed
// and replayed after. A replay launches the whole pass at once instead of one kernel at a
// time from the host, which matters where the kernels are short (small nets, small
// batches). A call's positions fill the first rows of the bucket's fixed input; the rows
// after them hold earlier inputs, harmless because every row is computed on its own
// (BatchNorm in inference mode, per-position pooling), and are not read back.
//
// Each lane of nn::TorchNet owns one ForwardGraphs and runs it on its own stream; the
// graphs of one lane share one memory pool, safe because they never run at once.
// Captures use CUDA's thread-local capture mode, so that the other lanes' threads go on
// working (and allocating) during one.
// Compiled only where LibTorch has CUDA (OZ_TORCH_CUDA); elsewhere the constructor
// throws std::logic_error (TorchNet makes one only on a CUDA device).
// Thread safety: one thread at a time (the lane's).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>

#include <torch/torch.h>

#include "nn/model.h"

namespace othello::nn {

class ForwardGraphs {
 public:
  // Graphs of `net` (in eval mode, on `device` in `dtype`; it must outlive this) for
  // batches of up to `max_batch`. `pack` turns the net's outputs into the packed fp32
  // rows that TorchNet reads back.
  using Pack = std::function<torch::Tensor(const NetOutput& out, std::int64_t batch)>;
  ForwardGraphs(OthelloNet net, torch::Device device, torch::ScalarType dtype, int max_batch,
                Pack pack);
  ~ForwardGraphs();
  ForwardGraphs(const ForwardGraphs&) = delete;
  ForwardGraphs& operator=(const ForwardGraphs&) = delete;

  // Whether a batch of `batch` positions has a graph (at most max_batch).
  bool Covers(std::int64_t batch) const { return batch <= max_batch_; }
  // Queues, on the calling thread's current stream (a lane's, never the default one),
  // the copy of `input` (host, pinned, [batch, planes, size, size] fp32) to the device,
  // the replay of its bucket's graph (captured first if new), and the copy of the packed
  // outputs into `result` (host, pinned, [batch, width]); the caller then synchronises
  // the stream. Precondition: Covers(batch).
  void Run(const torch::Tensor& input, torch::Tensor& result);

  // The bucket of a batch: the next power of two, at most max_batch.
  static std::int64_t Bucket(std::int64_t batch, int max_batch);
  // Graphs captured so far (tests, benchmarks).
  int captured() const { return static_cast<int>(graphs_.size()); }

 private:
  struct Graph;  // one capture with its fixed input and output (forward_graphs.cpp)
  Graph& GraphFor(int size, std::int64_t bucket);

  OthelloNet net_;
  const torch::Device device_;
  const torch::ScalarType dtype_;
  const int max_batch_;
  const Pack pack_;
  std::map<std::pair<int, std::int64_t>, std::unique_ptr<Graph>> graphs_;  // (size, bucket)
  Graph* first_ = nullptr;  // the first captured, whose memory pool the others share
};

}  // namespace othello::nn
