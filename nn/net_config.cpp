#include "nn/net_config.h"

#include <utility>
#include <vector>

#include "core/error.h"

namespace othello::nn {
namespace {

std::vector<std::pair<const char*, int>> Fields(const NetConfig& c) {
  return {{"blocks", c.blocks},
          {"channels", c.channels},
          {"global_pool_every", c.global_pool_every},
          {"head_channels", c.head_channels},
          {"value_hidden", c.value_hidden}};
}

}  // namespace

std::string NetConfig::Describe() const {
  std::string out;
  for (const auto& [name, value] : Fields(*this)) {
    out += (out.empty() ? "" : " ") + std::string(name) + "=" + std::to_string(value);
  }
  return out;
}

std::string NetConfig::Difference(const NetConfig& expected) const {
  const auto mine = Fields(*this), theirs = Fields(expected);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    if (mine[i].second != theirs[i].second) {
      return std::string(mine[i].first) + ": " + std::to_string(mine[i].second) +
             " (expected " + std::to_string(theirs[i].second) + ")";
    }
  }
  return "";
}

void NetConfig::Validate() const {
  const auto check = [](const char* name, int value, int lo, int hi) {
    if (value < lo || value > hi) {
      throw core::InputError("network " + std::string(name) + " = " + std::to_string(value) +
                             " is out of range [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "]");
    }
  };
  check("blocks", blocks, 1, 64);
  check("channels", channels, 4, 1024);
  check("global_pool_every", global_pool_every, 0, 64);
  check("head_channels", head_channels, 2, 256);
  check("value_hidden", value_hidden, 4, 1024);
}

}  // namespace othello::nn
