#include "nn/inference.h"

#include <dlfcn.h>

#include <algorithm>

#include "core/cpus.h"
#include "core/error.h"
#include "nn/device_stream.h"
#include "nn/encoding.h"
#include "nn/forward_graphs.h"

namespace othello::nn {

torch::Device ResolveDevice(const std::string& device) {
  if (device == "auto") return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  if (device == "cpu") return torch::kCPU;
  if (device.rfind("cuda", 0) == 0) {
    if (!torch::cuda::is_available()) {
      throw core::InputError("device '" + device + "': CUDA is not available in this build or " +
                             "on this machine");
    }
    try {
      return torch::Device(device);
    } catch (const c10::Error&) {
      throw core::InputError("device '" + device + "' is not a valid device (use cuda or cuda:N)");
    }
  }
  throw core::InputError("unknown device '" + device + "' (use auto, cpu, cuda or cuda:N)");
}

namespace {

// Under ThreadSanitizer the network runs on one LibTorch thread: LibTorch's OpenMP
// workers synchronise through libgomp, which is not instrumented, so TSan reports every
// tensor they touch as a race with the thread that allocated it (all 53 reports of the
// first TSan run of the suite were of that kind, each with a libgomp-created thread).
// The project's own threads (search, batching, self-play, trainer, arena) stay checked.
#if defined(OZ_TSAN_BUILD)
constexpr bool kOneTorchThread = true;
#else
constexpr bool kOneTorchThread = false;
#endif

}  // namespace

int DefaultCpuThreads(int max_batch) {
  if (kOneTorchThread) return 1;
  // Measured with Debian's LibTorch 1.13 + OpenBLAS on 2 cores (docs/benchmarks.md): one thread
  // is fastest for single positions and keeps the server at the raw speed for small
  // batches; all cores pay, behind the server too, from batches of 32 up.
  return max_batch < 32 ? 1 : core::UsableCpus();
}

bool SetBlasThreads(int threads) {
  using SetThreads = void (*)(int);
  auto* set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (!set) return false;
  set(std::max(1, threads));
  return true;
}

namespace {

torch::ScalarType ResolvePrecision(const std::string& precision, const torch::Device& device) {
  if (precision == "fp32") return torch::kFloat32;
  if (precision == "fp16" || precision == "bf16") {
    if (!device.is_cuda()) {
      throw core::InputError("precision '" + precision + "' needs a CUDA device (the CPU runs fp32)");
    }
    return precision == "fp16" ? torch::kFloat16 : torch::kBFloat16;
  }
  if (precision == "auto") return device.is_cuda() ? torch::kBFloat16 : torch::kFloat32;
  throw core::InputError("unknown precision '" + precision + "' (use auto, fp32, fp16 or bf16)");
}

// The first `shape` elements of the flat host buffer `buffer`, made (or made larger:
// at least `at_least` elements, what max_batch positions need) when it is too small.
torch::Tensor HostView(torch::Tensor& buffer, torch::IntArrayRef shape, std::int64_t at_least,
                       bool pinned) {
  std::int64_t elements = 1;
  for (const std::int64_t n : shape) elements *= n;
  if (!buffer.defined() || buffer.numel() < elements) {
    buffer = torch::empty({std::max(elements, at_least)},
                          torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(pinned));
  }
  return buffer.narrow(0, 0, elements).view(shape);
}

// Per position: area + 1 policy, 3 win/draw/loss, area ownership, 1 disc difference.
std::int64_t PackedWidth(int area) { return 2 * area + 5; }

torch::Tensor PackOutputs(const NetOutput& out, std::int64_t batch) {
  return torch::cat({torch::softmax(out.policy_logits.to(torch::kFloat32), 1),
                     torch::softmax(out.wdl_logits.to(torch::kFloat32), 1),
                     out.ownership.to(torch::kFloat32),
                     out.disc_difference.to(torch::kFloat32).reshape({batch, 1})},
                    1);
}

void Unpack(const float* rows, int area, const std::vector<mcts::EvalOutput*>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const float* p = rows + i * PackedWidth(area);
    const float* w = p + area + 1;
    const float* own = w + 3;
    mcts::EvalOutput& o = *outputs[i];
    for (int sq = 0; sq < area; ++sq) {
      o.policy[sq] = p[sq];
      o.ownership[sq] = own[sq];
    }
    o.policy[area] = p[area];
    o.win = w[0];
    o.draw = w[1];
    o.loss = w[2];
    o.disc_difference = own[area] * area;
    o.has_aux = true;
  }
}

}  // namespace

// One call's working set (inference.h): host buffers kept from call to call, the CUDA
// stream its work is queued on, and its graphs.
struct TorchNet::Lane {
  explicit Lane(const torch::Device& device) : stream(device) {}
  DeviceStream stream;                    // CUDA: a stream of the pool; the CPU: none
  torch::Tensor input, output;            // flat fp32, pinned on CUDA; grown as needed
  std::unique_ptr<ForwardGraphs> graphs;  // with cuda_graphs_
};

TorchNet::TorchNet(OthelloNet& net, const EvaluatorOptions& options)
    : device_(ResolveDevice(options.device)),
      dtype_(ResolvePrecision(options.precision, device_)),
      max_batch_(options.max_batch > 0 ? options.max_batch : device_.is_cuda() ? 256 : 32),
      cuda_graphs_(options.cuda_graphs && device_.is_cuda()) {
  cpu_threads_ = options.threads > 0 && !kOneTorchThread ? options.threads
                                                         : DefaultCpuThreads(max_batch_);
  if (device_.is_cpu()) torch::set_num_threads(cpu_threads_);
  net_ = CloneNet(net);
  net_->eval();
  net_->to(device_, dtype_);
  // The lanes read these weights on their own streams: they must be whole first.
  SynchronizeCurrentStream(device_);
}

TorchNet::~TorchNet() = default;

std::unique_ptr<TorchNet::Lane> TorchNet::TakeLane() {
  {
    core::MutexLock lock(lanes_mutex_);
    if (!free_lanes_.empty()) {
      std::unique_ptr<Lane> lane = std::move(free_lanes_.back());
      free_lanes_.pop_back();
      return lane;
    }
  }
  auto lane = std::make_unique<Lane>(device_);
  lanes_made_.fetch_add(1, std::memory_order_relaxed);
  if (cuda_graphs_) {
    lane->graphs = std::make_unique<ForwardGraphs>(net_, device_, dtype_, max_batch_, PackOutputs);
  }
  return lane;
}

void TorchNet::ReturnLane(std::unique_ptr<Lane> lane) {
  core::MutexLock lock(lanes_mutex_);
  free_lanes_.push_back(std::move(lane));
}

void TorchNet::Forward(const std::vector<const core::Position*>& positions,
                       const std::vector<mcts::EvalOutput*>& outputs) {
  // OpenMP thread counts are per calling thread: set it on every thread that runs the net.
  if (device_.is_cpu() && torch::get_num_threads() != cpu_threads_) {
    torch::set_num_threads(cpu_threads_);
  }
  // A call that throws drops its lane: LibTorch frees pinned buffers only once the copies
  // queued from them are done, and the next call makes a new lane.
  std::unique_ptr<Lane> lane = TakeLane();
  {
    const StreamScope on_lane(lane->stream);
    mcts::ForEachBoardSize(positions, outputs, [&](const auto& same_size, const auto& outs) {
      ForwardSameSize(*lane, same_size, outs);
    });
  }
  ReturnLane(std::move(lane));
}

void TorchNet::ForwardSameSize(Lane& lane, const std::vector<const core::Position*>& positions,
                               const std::vector<mcts::EvalOutput*>& outputs) {
  const auto batch = static_cast<std::int64_t>(positions.size());
  const int size = positions.front()->size(), area = size * size;
  const bool pinned = device_.is_cuda();
  torch::Tensor input = HostView(lane.input, {batch, kInputPlanes, size, size},
                                 std::int64_t{max_batch_} * kInputPlanes * area, pinned);
  float* data = input.data_ptr<float>();
  for (std::int64_t i = 0; i < batch; ++i) {
    EncodePosition(*positions[i], data + i * kInputPlanes * area);
  }
  torch::Tensor result = HostView(lane.output, {batch, PackedWidth(area)},
                                  std::int64_t{max_batch_} * PackedWidth(area), pinned);
  c10::InferenceMode inference_mode;
  if (lane.graphs && lane.graphs->Covers(batch)) {
    lane.graphs->Run(input, result);
  } else {
    RunNet(input, result);
  }
  // Both copies were queued on the lane's stream: wait for it alone (CUDA; the CPU's
  // work is done already). The buffers are then free for the next call.
  lane.stream.Synchronize();
  Unpack(result.data_ptr<float>(), area, outputs);
}

void TorchNet::RunNet(const torch::Tensor& input, torch::Tensor& result) {
  const bool cuda = device_.is_cuda();
  // fp32 to the device, then the cast there: a cast on the host would need a second,
  // unpinned buffer, and that copy would wait.
  const torch::Tensor on_device = input.to(device_, /*non_blocking=*/cuda).to(dtype_);
  result.copy_(PackOutputs(net_->forward(on_device), input.size(0)), /*non_blocking=*/cuda);
}

}  // namespace othello::nn
