// Training configurations (training/config.h): YAML, then after a NUL byte one --set
// override per line. Anything gives a checked configuration or core::InputError.
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "training/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  std::vector<std::string> overrides;
  if (nul != std::string::npos) {
    std::size_t begin = nul + 1;
    while (begin <= input.size()) {
      std::size_t end = input.find('\n', begin);
      if (end == std::string::npos) end = input.size();
      if (end > begin) overrides.push_back(input.substr(begin, end - begin));
      begin = end + 1;
    }
  }
  try {
    othello::training::ParseTrainingConfig(input.substr(0, nul), "fuzz.yaml", overrides);
  } catch (const othello::core::InputError&) {
  }
  return 0;
}
