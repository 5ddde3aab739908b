#pragma once
// Little-endian fixed-size values in byte strings, for the checkpoint and model file
// formats and training's replay files (this project only builds for little-endian
// x86-64).
// Thread safety: pure functions.
#include <cstring>
#include <string>
#include <string_view>

namespace othello::nn {

template <typename T>
void Put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// The value at `offset` (the caller checks that the bytes are there).
template <typename T>
T Get(std::string_view in, std::size_t offset) {
  T value;
  std::memcpy(&value, in.data() + offset, sizeof value);
  return value;
}

}  // namespace othello::nn
