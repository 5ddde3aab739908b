#pragma once
// Shared by the protocol fuzz targets: the input as lines, each handed to `handle`
// until it returns false.
#include <cstddef>
#include <cstdint>
#include <string>

namespace othello::fuzz {

template <typename Handle>
void ForEachLine(const std::uint8_t* data, std::size_t size, Handle&& handle) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  for (std::size_t begin = 0; begin < input.size();) {
    std::size_t end = input.find('\n', begin);
    if (end == std::string::npos) end = input.size();
    if (!handle(input.substr(begin, end - begin))) return;
    begin = end + 1;
  }
}

}  // namespace othello::fuzz
