#include "nn/inference.h"

#include <dlfcn.h>

#include <algorithm>

#include "core/cpus.h"
#include "core/error.h"
#include "nn/encoding.h"

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

}  // namespace

TorchNet::TorchNet(OthelloNet& net, const EvaluatorOptions& options)
    : device_(ResolveDevice(options.device)),
      dtype_(ResolvePrecision(options.precision, device_)),
      max_batch_(options.max_batch > 0 ? options.max_batch : device_.is_cuda() ? 256 : 32) {
  cpu_threads_ = options.threads > 0 && !kOneTorchThread ? options.threads
                                                         : DefaultCpuThreads(max_batch_);
  if (device_.is_cpu()) torch::set_num_threads(cpu_threads_);
  net_ = CloneNet(net);
  net_->eval();
  net_->to(device_, dtype_);
}

void TorchNet::Forward(const std::vector<const core::Position*>& positions,
                           const std::vector<mcts::EvalOutput*>& outputs) {
  // OpenMP thread counts are per calling thread: set it on every thread that runs the net.
  if (device_.is_cpu() && torch::get_num_threads() != cpu_threads_) {
    torch::set_num_threads(cpu_threads_);
  }
  mcts::ForEachBoardSize(positions, outputs, [this](const auto& same_size, const auto& outs) {
    ForwardSameSize(same_size, outs);
  });
}

void TorchNet::ForwardSameSize(const std::vector<const core::Position*>& positions,
                                   const std::vector<mcts::EvalOutput*>& outputs) {
  const auto batch = static_cast<std::int64_t>(positions.size());
  const int size = positions.front()->size(), area = size * size;
  // On CUDA the input is encoded into pinned memory and copied without waiting, and
  // the four outputs come back in one copy: one host synchronisation per batch.
  const bool cuda = device_.is_cuda();
  const auto host = torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(cuda);
  torch::Tensor input = torch::empty({batch, kInputPlanes, size, size}, host);
  float* data = input.data_ptr<float>();
  for (std::int64_t i = 0; i < batch; ++i) {
    EncodePosition(*positions[i], data + i * kInputPlanes * area);
  }
  c10::InferenceMode inference_mode;
  const NetOutput out = net_->forward(input.to(device_, dtype_, /*non_blocking=*/cuda));
  // Per position: area + 1 policy, 3 win/draw/loss, area ownership, 1 disc difference.
  const std::int64_t width = 2 * area + 5;
  const torch::Tensor packed =
      torch::cat({torch::softmax(out.policy_logits.to(torch::kFloat32), 1),
                  torch::softmax(out.wdl_logits.to(torch::kFloat32), 1),
                  out.ownership.to(torch::kFloat32),
                  out.disc_difference.to(torch::kFloat32).reshape({batch, 1})},
                 1);
  torch::Tensor result = packed.contiguous();
  if (cuda) {
    result = torch::empty({batch, width}, host);
    result.copy_(packed);
  }
  const float* r = result.data_ptr<float>();
  for (std::int64_t i = 0; i < batch; ++i) {
    const float* p = r + i * width;
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

}  // namespace othello::nn
