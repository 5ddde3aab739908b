#pragma once
// The one place that turns a network into the search's evaluator (mcts/evaluator.h),
// for self-play, training's evaluations, the arena, the play front ends, the engines
// and the benchmarks: nothing above nn/ decides backends or stacks evaluators.
//
// The stack, outermost first (each layer only when asked for):
//   mcts::CachingEvaluator        cache_entries > 0: a result cache (canonical forms
//                                 with cache_canonical)
//   mcts::RandomSymmetryEvaluator random_symmetry: one of 8 board symmetries per
//                                 position, seeded by seed ^ step
//   the network, by backend:
//     eigen  EigenNet::Forward on the calling thread (mcts::FunctionEvaluator): no
//            LibTorch, no thread hand-off; the CPU's default (2x LibTorch's one-thread
//            speed on the quickstart net, docs/benchmarks.md)
//     torch  LibTorch (TorchNet: the CPU or a CUDA device, fp32/fp16/bf16) behind
//            mcts::BatchingEvaluator (max_batch positions, max_wait_us; two workers on
//            CUDA, each on a stream of its own, so the host encodes one batch while the
//            device runs the other)
// The network function checks the `evaluate` fault point (core/fault.h) once per call.
//
// This header needs no LibTorch. The exported-model overloads live in oz_nn_eigen
// (evaluator.cpp); the checkpoint overload and UsesEigen in oz_nn (evaluator_torch.cpp,
// builds with LibTorch only).
// Thread safety: pure functions; the evaluators they return follow evaluator.h.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/rules.h"
#include "mcts/evaluator.h"

namespace othello::mcts {
class BatchingEvaluator;
class CachingEvaluator;
}  // namespace othello::mcts

namespace othello::nn {

class EigenNet;
class OthelloNet;

// How a network is run as an evaluator. The defaults are play's; training's are
// training::SelfPlayInferenceDefaults (training/config.h: random symmetries, a cache).
struct EvaluatorOptions {
  std::string device = "auto";     // auto (CUDA when available), cpu, cuda, cuda:N
  std::string precision = "auto";  // auto (bf16 on CUDA, fp32 on CPU), fp32, fp16, bf16
  std::string backend = "auto";    // auto (eigen on the CPU, else torch), torch, eigen
  int max_batch = 0;               // torch: 0 is 32 on the CPU, 256 on CUDA (docs/benchmarks.md)
  int max_wait_us = 1000;          // torch: the batcher's longest wait for a full batch
  int threads = 0;                 // torch: LibTorch CPU threads (0: DefaultCpuThreads)
  bool cuda_graphs = false;        // torch on CUDA: replay CUDA graphs (nn/forward_graphs.h)
  bool random_symmetry = false;
  std::uint64_t seed = 0;          // for random symmetries (mixed with the model's step)
  std::size_t cache_entries = 0;   // 0: no cache
  bool cache_canonical = true;
};

// Whether `device` names a device the way every option does: auto, cpu, cuda or cuda:N
// (not whether this machine has it).
bool IsDeviceName(const std::string& device);
// Whether `device` is cuda or cuda:N.
bool IsCudaDeviceName(const std::string& device);

// What MakeEvaluator made, for benchmarks and metrics: the layers they read (null where
// absent) and the network's backend, device and precision ("eigen", "cpu", "fp32").
struct EvaluatorLayers {
  std::shared_ptr<const mcts::BatchingEvaluator> batcher;  // the torch backend's
  std::shared_ptr<const mcts::CachingEvaluator> cache;
  std::string backend, device, precision;
};

// An exported model's network (the eigen backend: `options.device` must be auto or
// cpu and `options.backend` auto or eigen, else core::InputError). `step` seeds the
// symmetries. With `layers`, fills in the layers made.
std::shared_ptr<mcts::Evaluator> MakeEvaluator(std::shared_ptr<const EigenNet> net,
                                               std::int64_t step, const EvaluatorOptions& options,
                                               EvaluatorLayers* layers = nullptr);

// A trainable network at training step `step`, playing `rules` (LibTorch builds, oz_nn):
// the eigen backend runs its export (nn/export.h), torch a copy of it; later changes to
// `net` do not reach the evaluator. Throws core::InputError for an unknown backend,
// device or precision, or eigen asked for on CUDA.
std::shared_ptr<mcts::Evaluator> MakeEvaluator(OthelloNet& net, const core::Rules& rules,
                                               std::int64_t step, const EvaluatorOptions& options,
                                               EvaluatorLayers* layers = nullptr);

// Whether `options` run the network with the eigen backend (LibTorch builds, oz_nn: auto
// resolves the device). Throws as MakeEvaluator does for a bad backend or device.
bool UsesEigen(const EvaluatorOptions& options);

// The layers above the network, in the order of the stack above; `network` is the
// backend's evaluator. For MakeEvaluator's two halves.
std::shared_ptr<mcts::Evaluator> WrapNetwork(std::shared_ptr<mcts::Evaluator> network,
                                             std::int64_t step, const EvaluatorOptions& options,
                                             EvaluatorLayers* layers);

// The network function as every backend calls it: the `evaluate` fault point, then `run`.
mcts::EvalFunction WithFaultPoint(mcts::EvalFunction run);

}  // namespace othello::nn
