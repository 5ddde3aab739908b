#pragma once
// Test-only: checkpoint files as format versions 1-3 wrote them (LibTorch archives for
// the weights and the optimizer), for the tests that check they still load
// (nn_test.cpp) and the fixtures written under each LibTorch version
// (checkpoint_compat_test.cpp).
#include <cstring>
#include <functional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/checksum.h"
#include "nn/binary_io.h"
#include "nn/model.h"

namespace othello::nn {

// A checkpoint as versions 1-3 wrote it: LibTorch archives for the weights and the
// optimizer, the metadata section from version 2, FNV-1a before version 3.
inline std::string LegacyCheckpoint(OthelloNet& net, std::int64_t step, std::uint32_t version,
                                      torch::optim::Optimizer* optimizer = nullptr,
                                      const nlohmann::json& metadata = nlohmann::json::object()) {
  const auto archive = [](const std::function<void(torch::serialize::OutputArchive&)>& save) {
    torch::serialize::OutputArchive a;
    save(a);
    std::ostringstream out;
    a.save_to(out);
    return out.str();
  };
  const std::string weights = archive([&](auto& a) { net->save(a); });
  const std::string state = optimizer ? archive([&](auto& a) { optimizer->save(a); }) : "";
  const std::string extra = version >= 2 && !metadata.empty() ? metadata.dump() : "";
  const NetConfig& c = net->config();
  std::string file = "OZCKPT01";
  Put<std::uint32_t>(file, version);
  for (int v : {c.blocks, c.channels, c.global_pool_every, c.head_channels, c.value_hidden}) {
    Put<std::int32_t>(file, v);
  }
  Put<std::int64_t>(file, step);
  Put<std::uint64_t>(file, weights.size());
  Put<std::uint64_t>(file, state.size());
  if (version >= 2) Put<std::uint64_t>(file, extra.size());
  Put<std::uint64_t>(file, 0);
  file += weights + state + extra;
  const std::size_t header = version == 1 ? 64 : 72;
  const std::uint64_t sum =
      version >= 3 ? core::Crc32(file.substr(header), core::Crc32(file.substr(0, header - 8)))
                   : core::Fnv1a64(file.data() + header, file.size() - header,
                                   core::Fnv1a64(file.data(), header - 8));
  std::memcpy(&file[header - 8], &sum, 8);
  return file;
}

}  // namespace othello::nn
