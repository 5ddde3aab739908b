#pragma once
// Export: a trained network (LibTorch) to a self-contained model file (model_file.h),
// with each batch normalisation folded into the convolution before it.
// Thread safety: reads the net; no other thread may train it meanwhile.
#include "nn/model.h"
#include "nn/model_file.h"

namespace othello::nn {

ModelFile ExportModel(OthelloNet& net, const core::Rules& rules, std::int64_t step);

}  // namespace othello::nn
