#pragma once
// The model that ships with othello-zero: the strongest 8x8 model the project has
// trained (nn/shipped/8x8.ozm, an exported model file; nn/shipped/README.md says how it
// was trained and how strong it is), compiled into the program so that an installed
// othello-zero plays without any file. play, serve, gtp, nboard and analyse use it when
// no --model is given.
//
// The file's bytes are linked in with the assembler's .incbin (shipped_model.cpp);
// CMake reconfigures when the file changes, so a new model is never hidden by a stale
// object (or ccache).
// Thread safety: immutable bytes; LoadShippedModel is a pure function.
#include <string_view>

#include "nn/evaluator.h"
#include "nn/model_loader.h"

namespace othello::nn {

// The name the shipped model goes by in messages and players' names.
inline constexpr std::string_view kShippedModelName = "the shipped 8x8 model";

// The exported model file's bytes.
std::string_view ShippedModelBytes();

// The shipped model behind the search's evaluator (nn::MakeEvaluator: the CPU only;
// another device is a core::InputError).
LoadedModel LoadShippedModel(const EvaluatorOptions& options = {});

}  // namespace othello::nn
