#include "nn/shipped_model.h"

#include <string>

#include "nn/model_file.h"

#ifndef OZ_SHIPPED_MODEL_PATH
#error "OZ_SHIPPED_MODEL_PATH (the shipped model file) is set by nn/CMakeLists.txt"
#endif

// The file's bytes between two symbols, in read-only data.
asm(".section .rodata\n"
    ".balign 16\n"
    ".global oz_shipped_model_begin\n"
    "oz_shipped_model_begin:\n"
    ".incbin \"" OZ_SHIPPED_MODEL_PATH "\"\n"
    ".global oz_shipped_model_end\n"
    "oz_shipped_model_end:\n"
    ".previous\n");
extern "C" const char oz_shipped_model_begin[];
extern "C" const char oz_shipped_model_end[];

namespace othello::nn {

std::string_view ShippedModelBytes() {
  return std::string_view(oz_shipped_model_begin,
                          static_cast<std::size_t>(oz_shipped_model_end - oz_shipped_model_begin));
}

LoadedModel LoadShippedModel(const EvaluatorOptions& options) {
  const std::string name(kShippedModelName);
  CheckExportedModelDevice(name, options);
  return ExportedModel(ParseModelFile(ShippedModelBytes(), name), options);
}

}  // namespace othello::nn
