#include "nn/model_file.h"

#include <limits>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/checksum.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/hash.h"
#include "core/rng.h"
#include "nn/binary_io.h"
#include "nn/file_magic.h"
#include "nn/json_fields.h"
#include "nn/rules_json.h"

namespace othello::nn {

namespace {

constexpr const char (&kMagic)[8] = kModelFileMagic;

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw core::InputError("model file " + path + ": " + what);
}

// The tensor data starts at the first multiple of 64 after the 16-byte prefix and header.
std::size_t DataStart(std::size_t header_bytes) { return (16 + header_bytes + 63) / 64 * 64; }

std::string ShapeText(const std::vector<int>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

void AddConv(std::map<std::string, std::vector<int>>& shapes, const std::string& name, int in,
             int out, int k) {
  shapes[name + ".weight"] = {out, in, k, k};
  shapes[name + ".bias"] = {out};
}

void AddLinear(std::map<std::string, std::vector<int>>& shapes, const std::string& name, int in,
               int out) {
  shapes[name + ".weight"] = {out, in};
  shapes[name + ".bias"] = {out};
}

}  // namespace

std::map<std::string, std::vector<int>> ModelTensorShapes(const NetConfig& net) {
  const int c = net.channels, h = net.head_channels;
  std::map<std::string, std::vector<int>> shapes;
  AddConv(shapes, "stem", 6, c, 3);
  for (int i = 0; i < net.blocks; ++i) {
    const std::string block = "block" + std::to_string(i);
    AddConv(shapes, block + ".conv1", c, c, 3);
    AddConv(shapes, block + ".conv2", c, c, 3);
    if (net.global_pool_every > 0 && (i + 1) % net.global_pool_every == 0) {
      AddLinear(shapes, block + ".pool_bias", 2 * c, c);
    }
  }
  AddConv(shapes, "policy_conv", c, h, 1);
  AddConv(shapes, "policy_out", h, 1, 1);
  AddLinear(shapes, "pass_fc", 2 * h, 1);
  AddConv(shapes, "value_conv", c, h, 1);
  AddLinear(shapes, "value_fc", 2 * h, net.value_hidden);
  AddLinear(shapes, "wdl_fc", net.value_hidden, 3);
  AddLinear(shapes, "disc_fc", net.value_hidden, 1);
  AddConv(shapes, "ownership_conv", c, 1, 1);
  return shapes;
}

ModelFile RandomModelFile(const NetConfig& net, const core::Rules& rules, std::uint64_t seed) {
  ModelFile model;
  model.net = net;
  model.net.Validate();
  model.rules = rules;
  core::Rng rng(seed);
  for (const auto& [name, shape] : ModelTensorShapes(model.net)) {
    std::size_t count = 1;
    for (int d : shape) count *= d;
    ModelTensor tensor{shape, std::vector<float>(count)};
    for (float& v : tensor.values) v = static_cast<float>(rng.Uniform() - 0.5) * 0.1f;
    model.tensors[name] = std::move(tensor);
  }
  return model;
}

void WriteModelFile(const std::string& path, const ModelFile& model) {
  nlohmann::json tensors = nlohmann::json::array();
  std::string data;
  for (const auto& [name, tensor] : model.tensors) {
    tensors.push_back({{"name", name}, {"shape", tensor.shape}, {"offset", data.size()}});
    data.append(reinterpret_cast<const char*>(tensor.values.data()),
                tensor.values.size() * sizeof(float));
  }
  const nlohmann::json header = {
      {"format", "othello-zero model"},
      {"network",
       {{"blocks", model.net.blocks},
        {"channels", model.net.channels},
        {"global_pool_every", model.net.global_pool_every},
        {"head_channels", model.net.head_channels},
        {"value_hidden", model.net.value_hidden}}},
      {"rules", RulesToJson(model.rules)},
      {"step", model.step},
      {"tensors", tensors}};
  const std::string header_text = header.dump();
  std::string out(kMagic, sizeof kMagic);
  Put(out, kModelFormatVersion);
  Put(out, static_cast<std::uint32_t>(header_text.size()));
  out += header_text;
  out.resize(DataStart(header_text.size()), '\0');
  out += data;
  Put(out, core::Crc32(out));
  core::WriteFileAtomically(path, out, "model file");
}

bool IsModelFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  char magic[sizeof kMagic] = {};
  file.read(magic, sizeof magic);
  return file && std::memcmp(magic, kMagic, sizeof kMagic) == 0;
}

namespace {

// The container: magic, version, header length, checksum. Returns the header text and
// the tensor data (the bytes between the padded header and the checksum).
std::pair<std::string_view, std::string_view> ReadContainer(std::string_view bytes,
                                                            const std::string& name) {
  if (bytes.size() < 16 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    Fail(name, "not an othello-zero model (bad magic); export one with `othello-zero export`");
  }
  const auto version = Get<std::uint32_t>(bytes, 8);
  if (version != kModelFormatVersion) {
    Fail(name, "format version " + std::to_string(version) + " (this build reads version " +
                   std::to_string(kModelFormatVersion) + ")");
  }
  const std::size_t header_bytes = Get<std::uint32_t>(bytes, 12);
  // The padded header and the checksum must fit: compare with what remains.
  if (header_bytes > bytes.size() - 16 || DataStart(header_bytes) > bytes.size() - 4) {
    Fail(name, "truncated (the header is incomplete)");
  }
  const std::size_t body = bytes.size() - 4;
  if (Get<std::uint32_t>(bytes, body) != core::Crc32(bytes.data(), body)) {
    Fail(name, "checksum mismatch: the file is corrupted or truncated");
  }
  const std::size_t data_start = DataStart(header_bytes);
  return {bytes.substr(16, header_bytes), bytes.substr(data_start, body - data_start)};
}

NetConfig ReadNetwork(const nlohmann::json& header, const std::string& where) {
  const nlohmann::json& net = JsonObject(header, "network", where);
  const std::string in = where + ": network";
  NetConfig config;
  config.blocks = static_cast<int>(JsonInteger(net, "blocks", 1, 64, in));
  config.channels = static_cast<int>(JsonInteger(net, "channels", 4, 1024, in));
  config.global_pool_every = static_cast<int>(JsonInteger(net, "global_pool_every", 0, 64, in));
  config.head_channels = static_cast<int>(JsonInteger(net, "head_channels", 2, 256, in));
  config.value_hidden = static_cast<int>(JsonInteger(net, "value_hidden", 4, 1024, in));
  return config;
}

// One tensor of the header's list, its values copied from `data` after checking that
// they lie inside it.
std::pair<std::string, ModelTensor> ReadTensor(const nlohmann::json& entry, std::string_view data,
                                               const std::string& where) {
  const std::string name = JsonString(entry, "name", where + ": tensor");
  const std::string in = where + ": tensor " + name;
  const auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array() || shape->empty() || shape->size() > 4) {
    Fail(where, "tensor " + name + ": shape must be a list of 1 to 4 dimensions");
  }
  ModelTensor tensor;
  std::size_t count = 1;
  for (const nlohmann::json& d : *shape) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 1 || d.get<std::int64_t>() > (1 << 20)) {
      Fail(where, "tensor " + name + ": a dimension is not an integer in [1, 1048576]");
    }
    tensor.shape.push_back(d.get<int>());
    count *= static_cast<std::size_t>(tensor.shape.back());
    if (count > data.size() / sizeof(float)) {
      Fail(where, "tensor " + name + " " + ShapeText(tensor.shape) +
                      " is larger than the file's data");
    }
  }
  const auto offset = static_cast<std::size_t>(
      JsonInteger(entry, "offset", 0, static_cast<std::int64_t>(data.size()), in));
  if (count * sizeof(float) > data.size() - offset) {
    Fail(where, "tensor " + name + " lies outside the file (offset " + std::to_string(offset) +
                    ", " + std::to_string(count * sizeof(float)) + " bytes, " +
                    std::to_string(data.size()) + " bytes of data)");
  }
  tensor.values.resize(count);
  std::memcpy(tensor.values.data(), data.data() + offset, count * sizeof(float));
  return {name, std::move(tensor)};
}

// Every tensor the configuration needs is there with its shape, and no other.
void CheckTensors(const ModelFile& model, const std::string& where) {
  const auto expected = ModelTensorShapes(model.net);
  for (const auto& [name, shape] : expected) {
    auto it = model.tensors.find(name);
    if (it == model.tensors.end()) Fail(where, "tensor " + name + " is missing");
    if (it->second.shape != shape) {
      Fail(where, "tensor " + name + " has shape " + ShapeText(it->second.shape) + ", expected " +
                      ShapeText(shape) + " for " + model.net.Describe());
    }
  }
  for (const auto& [name, tensor] : model.tensors) {
    if (!expected.count(name)) Fail(where, "holds tensor " + name + ", which the network does not use");
  }
}

}  // namespace

ModelFile ParseModelFile(std::string_view bytes, const std::string& name) {
  const auto [header_text, data] = ReadContainer(bytes, name);
  const std::string where = "model file " + name;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(header_text);
  } catch (const nlohmann::json::exception& e) {
    Fail(name, std::string("bad header: ") + e.what());
  }
  if (!header.is_object()) Fail(name, "bad header: not a JSON object");
  ModelFile model;
  model.net = ReadNetwork(header, where);
  model.rules = RulesFromJson(JsonObject(header, "rules", where), where);
  model.step = JsonInteger(header, "step", 0, std::numeric_limits<std::int64_t>::max(), where);
  const auto tensors = header.find("tensors");
  if (tensors == header.end() || !tensors->is_array()) Fail(name, "bad header: no tensor list");
  for (const nlohmann::json& entry : *tensors) {
    auto [tensor_name, tensor] = ReadTensor(entry, data, where);
    if (!model.tensors.emplace(tensor_name, std::move(tensor)).second) {
      Fail(name, "tensor " + tensor_name + " is listed twice");
    }
  }
  CheckTensors(model, where);
  return model;
}

ModelFile ReadModelFile(const std::string& path) {
  return ParseModelFile(core::ReadFile(path, "model file"), path);
}

}  // namespace othello::nn
