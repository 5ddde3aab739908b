#pragma once
// A model to play with, behind the search's Evaluator interface (made by
// nn::MakeEvaluator, nn/evaluator.h): an exported model file (nn/model_file.h, run with
// Eigen: no LibTorch) or, in a build with LibTorch, a checkpoint (nn/checkpoint.h, on
// the CPU or a CUDA device). The play front ends, the arena's `model:` players and
// training's evaluations all load models here.
//
// Implemented in model_loader.cpp (LoadExportedModel, library oz_nn_eigen) and
// model_loader_torch.cpp (LoadModel, library oz_nn: only in a build with LibTorch).
// Thread safety: the loaders are pure functions; the evaluators they return may be
// shared by any number of threads and live as long as their last owner.
#include <functional>
#include <memory>
#include <string>

#include "core/rules.h"
#include "mcts/evaluator.h"
#include "nn/evaluator.h"

namespace othello::nn {

struct LoadedModel {
  std::shared_ptr<mcts::Evaluator> evaluator;
  core::Rules rules;  // what the model was trained for (8x8 standard for checkpoints
                      // written before runs stored their rules)
};

struct ModelFile;

// What a model file is, by its first bytes (nn/file_magic.h).
enum class ModelFileKind { kExportedModel, kCheckpoint, kNeither };
// Throws core::InputError "model PATH: cannot be opened: <the system's reason>" (or "is a
// folder") when the file cannot be read.
ModelFileKind ProbeModelFile(const std::string& path);
// "model PATH: neither an exported model nor a checkpoint (...)": the error for kNeither.
core::InputError NotAModelError(const std::string& path);

// Throws core::InputError "NAME: an exported model runs on the CPU (...)" unless
// `options` ask for the CPU (auto or cpu): exported models run with Eigen.
void CheckExportedModelDevice(const std::string& name, const EvaluatorOptions& options);
// An exported model behind the search's evaluator (nn::MakeEvaluator), with its rules.
LoadedModel ExportedModel(const ModelFile& file, const EvaluatorOptions& options);

// Reads an exported model file. Throws core::InputError naming the file (missing,
// corrupt, a checkpoint, or a device other than the CPU asked for).
LoadedModel LoadExportedModel(const std::string& path, const EvaluatorOptions& options = {});

// An exported model file or a checkpoint, told apart by the file's magic. LibTorch
// builds only (library oz_nn). Throws core::InputError naming the file.
LoadedModel LoadModel(const std::string& path, const EvaluatorOptions& options = {});

// How the arena and the front ends load a model (LoadExportedModel or LoadModel).
using ModelLoader =
    std::function<LoadedModel(const std::string& path, const EvaluatorOptions& options)>;

}  // namespace othello::nn
