#pragma once
// The network's shape. One net serves every board size (global pooling, no layer
// depends on the board size); the input is the encoding of encoding.h.
#include <cstdint>
#include <string>

namespace othello::nn {

struct NetConfig {
  int blocks = 6;            // residual blocks
  int channels = 64;         // trunk width
  int global_pool_every = 2; // every k-th block carries a global-pooling bias (0: none)
  int head_channels = 32;    // policy and value head width
  int value_hidden = 64;     // value head fully connected width

  friend bool operator==(const NetConfig& a, const NetConfig& b) {
    return a.blocks == b.blocks && a.channels == b.channels &&
           a.global_pool_every == b.global_pool_every && a.head_channels == b.head_channels &&
           a.value_hidden == b.value_hidden;
  }
  friend bool operator!=(const NetConfig& a, const NetConfig& b) { return !(a == b); }

  // "blocks=6 channels=64 ..." for messages.
  std::string Describe() const;
  // The first field that differs, as "channels: 64 (expected 128)", or "".
  std::string Difference(const NetConfig& expected) const;
  // Throws core::InputError naming the field when a value is out of range.
  void Validate() const;
};

}  // namespace othello::nn
