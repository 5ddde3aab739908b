#include "nn/mixed_precision.h"

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include "core/error.h"

// LibTorch 2.4 replaced the per-device autocast functions (set_enabled,
// set_cpu_enabled, set_autocast_gpu_dtype, ...) by ones that take the device type; the
// old ones are deprecated there and gone later.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define OZ_AUTOCAST_BY_DEVICE_TYPE 1
#else
#define OZ_AUTOCAST_BY_DEVICE_TYPE 0
#endif

namespace othello::nn {
namespace {

bool AutocastEnabled(bool cuda) {
#if OZ_AUTOCAST_BY_DEVICE_TYPE
  return at::autocast::is_autocast_enabled(cuda ? at::kCUDA : at::kCPU);
#else
  return cuda ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

torch::ScalarType AutocastDtype(bool cuda) {
#if OZ_AUTOCAST_BY_DEVICE_TYPE
  return at::autocast::get_autocast_dtype(cuda ? at::kCUDA : at::kCPU);
#else
  return cuda ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
#endif
}

void SetAutocast(bool cuda, bool enabled, torch::ScalarType dtype) {
#if OZ_AUTOCAST_BY_DEVICE_TYPE
  const at::DeviceType type = cuda ? at::kCUDA : at::kCPU;
  at::autocast::set_autocast_dtype(type, dtype);
  at::autocast::set_autocast_enabled(type, enabled);
#else
  if (cuda) {
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(enabled);
  } else {
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(enabled);
  }
#endif
}

}  // namespace

torch::ScalarType ResolveTrainingPrecision(const std::string& precision,
                                           const torch::Device& device) {
  if (precision == "auto") return device.is_cuda() ? torch::kBFloat16 : torch::kFloat32;
  if (precision == "fp32") return torch::kFloat32;
  if (precision == "bf16") return torch::kBFloat16;
  if (precision == "fp16") {
    if (!device.is_cuda()) {
      throw core::InputError("train.precision 'fp16' needs a CUDA device (the CPU has no fp16 " +
                             std::string("autocast; use bf16 or fp32)"));
    }
    return torch::kFloat16;
  }
  throw core::InputError("unknown train.precision '" + precision +
                         "' (use auto, fp32, bf16 or fp16)");
}

std::string PrecisionName(torch::ScalarType dtype) {
  switch (dtype) {
    case torch::kBFloat16: return "bf16";
    case torch::kFloat16: return "fp16";
    default: return "fp32";
  }
}

AutocastGuard::AutocastGuard(const torch::Device& device, torch::ScalarType dtype)
    : active_(dtype != torch::kFloat32), cuda_(device.is_cuda()) {
  if (!active_) return;
  was_enabled_ = AutocastEnabled(cuda_);
  was_dtype_ = AutocastDtype(cuda_);
  SetAutocast(cuda_, /*enabled=*/true, dtype);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (!active_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  SetAutocast(cuda_, was_enabled_, was_dtype_);
}

CpuBf16Guard::CpuBf16Guard(const torch::Device& device, torch::ScalarType dtype)
    : active_(TORCH_VERSION_MAJOR >= 2 && !device.is_cuda() && dtype == torch::kBFloat16) {
  if (!active_) return;
  was_enabled_ = at::globalContext().userEnabledMkldnn();
  at::globalContext().setUserEnabledMkldnn(false);
}

CpuBf16Guard::~CpuBf16Guard() {
  if (active_) at::globalContext().setUserEnabledMkldnn(was_enabled_);
}

torch::Tensor ClipGradNorm(const std::vector<torch::Tensor>& parameters, double max_norm) {
  std::vector<torch::Tensor> norms;
  std::vector<torch::Tensor> grads;
  for (const torch::Tensor& p : parameters) {
    if (!p.grad().defined()) continue;
    grads.push_back(p.grad());
    norms.push_back(p.grad().detach().norm(2).to(torch::kFloat32));
  }
  if (grads.empty()) return torch::zeros({});
  const torch::Tensor total = torch::stack(norms).norm(2);
  // min(1, max_norm / (norm + 1e-6)): the same rule as clip_grad_norm_, on the device.
  const torch::Tensor coefficient = (max_norm / (total + 1e-6)).clamp_max(1.0);
  for (torch::Tensor& g : grads) g.detach().mul_(coefficient.to(g.dtype()));
  return total;
}

GradScaler::GradScaler(bool enabled, Options options)
    : enabled_(enabled), options_(options), scale_(options.initial_scale) {}

torch::Tensor GradScaler::Scale(const torch::Tensor& loss) const {
  return enabled_ ? loss * scale_ : loss;
}

bool GradScaler::Unscale(const std::vector<torch::Tensor>& parameters) {
  if (!enabled_) return false;
  std::vector<torch::Tensor> finite;
  for (const torch::Tensor& p : parameters) {
    if (!p.grad().defined()) continue;
    torch::Tensor g = p.grad().detach();
    g.mul_(1.0 / scale_);
    finite.push_back(torch::isfinite(g).all());
  }
  if (finite.empty()) return false;
  return !torch::stack(finite).all().item<bool>();  // the one synchronisation
}

void GradScaler::Update(bool overflow) {
  if (!enabled_) return;
  if (overflow) {
    scale_ *= options_.backoff_factor;
    good_steps_ = 0;
    ++skipped_;
    return;
  }
  if (++good_steps_ >= options_.growth_interval) {
    scale_ *= options_.growth_factor;
    good_steps_ = 0;
  }
}

}  // namespace othello::nn
