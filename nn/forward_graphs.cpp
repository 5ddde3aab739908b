// nn/forward_graphs.h: the forward pass captured as CUDA graphs (CUDA builds only).
#include "nn/forward_graphs.h"

#include <stdexcept>

#include "nn/encoding.h"

#if defined(OZ_TORCH_CUDA)
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace othello::nn {

#if defined(OZ_TORCH_CUDA)

struct ForwardGraphs::Graph {
  at::cuda::CUDAGraph graph;
  torch::Tensor input;   // [bucket, planes, size, size] fp32 on the device
  torch::Tensor output;  // [bucket, width] fp32 on the device, written by each replay
};

#else

struct ForwardGraphs::Graph {};

#endif

ForwardGraphs::ForwardGraphs(OthelloNet net, torch::Device device, torch::ScalarType dtype,
                             int max_batch, Pack pack)
    : net_(std::move(net)),
      device_(device),
      dtype_(dtype),
      max_batch_(max_batch),
      pack_(std::move(pack)) {
#if !defined(OZ_TORCH_CUDA)
  throw std::logic_error("CUDA graphs need a LibTorch with CUDA (this build's has none)");
#endif
}

ForwardGraphs::~ForwardGraphs() = default;

std::int64_t ForwardGraphs::Bucket(std::int64_t batch, int max_batch) {
  std::int64_t bucket = 1;
  while (bucket < batch) bucket *= 2;
  return std::min<std::int64_t>(bucket, max_batch);
}

#if defined(OZ_TORCH_CUDA)

ForwardGraphs::Graph& ForwardGraphs::GraphFor(int size, std::int64_t bucket) {
  std::unique_ptr<Graph>& graph = graphs_[{size, bucket}];
  if (graph) return *graph;
  auto made = std::make_unique<Graph>();
  made->input = torch::zeros({bucket, kInputPlanes, size, size},
                             torch::TensorOptions().dtype(torch::kFloat32).device(device_));
  const auto forward = [&] { return pack_(net_->forward(made->input.to(dtype_)), bucket); };
  // Warm-up outside the capture: cuDNN chooses its algorithms and cuBLAS makes its
  // workspace for this stream, neither of which a capture may do.
  for (int i = 0; i < 3; ++i) forward();
  c10::cuda::getCurrentCUDAStream(device_.index()).synchronize();
  // The lane's graphs share the memory pool of its first one (they never run at once).
  using Pool = decltype(made->graph.pool());
  made->graph.capture_begin(first_ ? first_->graph.pool() : Pool{0, 0},
                            cudaStreamCaptureModeThreadLocal);
  made->output = forward();
  made->graph.capture_end();
  graph = std::move(made);
  if (!first_) first_ = graph.get();
  return *graph;
}

void ForwardGraphs::Run(const torch::Tensor& input, torch::Tensor& result) {
  const std::int64_t batch = input.size(0);
  Graph& graph = GraphFor(static_cast<int>(input.size(2)), Bucket(batch, max_batch_));
  graph.input.narrow(0, 0, batch).copy_(input, /*non_blocking=*/true);
  graph.graph.replay();
  result.copy_(graph.output.narrow(0, 0, batch), /*non_blocking=*/true);
}

#else

ForwardGraphs::Graph& ForwardGraphs::GraphFor(int, std::int64_t) {
  throw std::logic_error("CUDA graphs need a LibTorch with CUDA");
}

void ForwardGraphs::Run(const torch::Tensor&, torch::Tensor&) {
  throw std::logic_error("CUDA graphs need a LibTorch with CUDA");
}

#endif

}  // namespace othello::nn
