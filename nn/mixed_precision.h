#pragma once
// Mixed-precision training (Micikevicius et al. 2018, "Mixed Precision Training"; the
// recipe of PyTorch's torch.autocast and GradScaler): the forward pass runs under
// autocast (convolutions and matrix products in bf16 or fp16, the weights kept in
// fp32), the loss in fp32; with fp16 the loss is scaled before backward so that small
// gradients do not flush to zero, the gradients are unscaled before clipping, and a
// step whose gradients overflowed is skipped and the scale lowered.
//
// Precision names: auto (bf16 on CUDA, fp32 on the CPU), fp32, bf16 (CUDA, and the CPU
// through LibTorch's CPU autocast), fp16 (CUDA only: the CPU has no fp16 autocast).
//
// Thread safety: autocast is per thread (LibTorch keeps it in thread-local state), so
// an AutocastGuard covers only the thread that made it. A GradScaler belongs to the
// thread that trains.
#include <cstdint>
#include <string>
#include <vector>

#include <torch/torch.h>

namespace othello::nn {

// The training compute type that `precision` asks for on `device`; throws
// core::InputError for an unknown name or fp16 on the CPU. fp32 means no autocast.
torch::ScalarType ResolveTrainingPrecision(const std::string& precision,
                                           const torch::Device& device);
// "fp32", "bf16" or "fp16".
std::string PrecisionName(torch::ScalarType dtype);

// Autocast to `dtype` on `device`'s type for this thread while it lives (nothing for
// fp32). Nests: the state before is restored, and the cast cache is cleared when the
// outermost region ends (as torch.autocast does).
class AutocastGuard {
 public:
  AutocastGuard(const torch::Device& device, torch::ScalarType dtype);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool active_ = false;
  bool cuda_ = false;
  bool was_enabled_ = false;
  torch::ScalarType was_dtype_ = torch::kFloat32;
};

// bf16 training on the CPU with LibTorch 2.x: while it lives, LibTorch does not use
// oneDNN (mkldnn), whose AVX-512 bf16 kernels there lose most of the gradients' accuracy
// (measured with LibTorch 2.6 on an AVX512-BF16 CPU: lowest gradient cosine to fp32
// 0.59; with oneDNN limited to AVX2, or without it, 0.99). LibTorch 1.13's oneDNN path
// is accurate (0.99) and kept; nothing changes for fp32 or CUDA.
class CpuBf16Guard {
 public:
  CpuBf16Guard(const torch::Device& device, torch::ScalarType dtype);
  ~CpuBf16Guard();
  CpuBf16Guard(const CpuBf16Guard&) = delete;
  CpuBf16Guard& operator=(const CpuBf16Guard&) = delete;

 private:
  bool active_ = false;
  bool was_enabled_ = true;
};

// Clips the gradients of `parameters` to a total L2 norm of at most `max_norm`
// (torch::nn::utils::clip_grad_norm_'s rule) without reading the norm back to the
// host: no device synchronisation. Returns the norm before clipping as a scalar tensor.
torch::Tensor ClipGradNorm(const std::vector<torch::Tensor>& parameters, double max_norm);

// Dynamic loss scaling for fp16 (PyTorch's GradScaler rule): the loss is multiplied by
// `scale` before backward; Unscale() divides the gradients by it and says whether any
// is inf or NaN; Update() then halves the scale after an overflow (the step is
// skipped) and doubles it after `growth_interval` good steps in a row. Disabled, every
// call is a no-op and nothing overflows.
class GradScaler {
 public:
  struct Options {
    double initial_scale = 65536.0;
    double growth_factor = 2.0;
    double backoff_factor = 0.5;
    int growth_interval = 2000;
  };
  GradScaler(bool enabled, Options options);
  explicit GradScaler(bool enabled) : GradScaler(enabled, Options{}) {}

  bool enabled() const { return enabled_; }
  double scale() const { return scale_; }
  // `loss` times the scale (the loss itself when disabled).
  torch::Tensor Scale(const torch::Tensor& loss) const;
  // Divides every defined gradient by the scale; true when one of them is not finite
  // (one host synchronisation when enabled). Call once per step, after backward.
  bool Unscale(const std::vector<torch::Tensor>& parameters);
  // Adjusts the scale after a step: `overflow` is what Unscale returned.
  void Update(bool overflow);
  // Steps skipped for an overflow so far.
  std::int64_t skipped_steps() const { return skipped_; }

 private:
  const bool enabled_;
  const Options options_;
  double scale_;
  int good_steps_ = 0;
  std::int64_t skipped_ = 0;
};

}  // namespace othello::nn
