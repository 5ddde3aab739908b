// Board strings (core/notation.h): any bytes give a position or an error; a position
// formats back to a string that parses to the same position.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/notation.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello::core;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto position = ParseBoardString(text);
  if (!position) return 0;
  auto again = ParseBoardString(FormatBoardString(*position));
  if (!again || !(*again == *position)) std::abort();
  static_cast<void>(RenderBoard(*position));
  static_cast<void>(position->LegalMoves());
  return 0;
}
