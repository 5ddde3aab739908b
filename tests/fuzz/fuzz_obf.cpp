// .obf lines (core/obf.h): a position with checked moves and scores, or an error.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/obf.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello::core;
  auto entry = ParseObfLine(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!entry || !*entry) return 0;
  const int area = (*entry)->position.squares();
  for (const ObfScore& s : (*entry)->scores) {
    if (s.score < -area || s.score > area) std::abort();
  }
  return 0;
}
