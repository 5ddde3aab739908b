#include "nn/model_file.h"

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "nn/binary_io.h"

namespace othello::nn {

namespace {

constexpr char kMagic[8] = {'O', 'Z', 'M', 'O', 'D', 'E', 'L', '\0'};

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw core::InputError("model file " + path + ": " + what);
}

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

std::uint32_t Crc32(const void* data, std::size_t bytes, std::uint32_t crc) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

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
      {"rules",
       {{"size", model.rules.size},
        {"start", std::string(core::StartName(model.rules.start))},
        {"anti", model.rules.anti},
        {"empties_to_winner", model.rules.empties_to_winner}}},
      {"step", model.step},
      {"tensors", tensors}};
  const std::string header_text = header.dump();
  std::string out(kMagic, sizeof kMagic);
  Put(out, kModelFormatVersion);
  Put(out, static_cast<std::uint32_t>(header_text.size()));
  out += header_text;
  out.resize((out.size() + 63) / 64 * 64, '\0');
  out += data;
  Put(out, Crc32(out.data(), out.size()));
  const std::string tmp = path + ".tmp";
  {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    file.write(out.data(), static_cast<std::streamsize>(out.size()));
    file.flush();
    if (!file) Fail(path, "cannot be written");
  }
  std::filesystem::rename(tmp, path);
}

bool IsModelFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  char magic[sizeof kMagic] = {};
  file.read(magic, sizeof magic);
  return file && std::memcmp(magic, kMagic, sizeof kMagic) == 0;
}

ModelFile ReadModelFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) Fail(path, "cannot be opened");
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string data = buffer.str();
  if (data.size() < 16 || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) {
    Fail(path, "not an othello-zero model (bad magic); export one with `othello-zero export`");
  }
  const auto version = Get<std::uint32_t>(data, 8);
  if (version != kModelFormatVersion) {
    Fail(path, "format version " + std::to_string(version) + " (this build reads version " +
                   std::to_string(kModelFormatVersion) + ")");
  }
  const auto header_bytes = Get<std::uint32_t>(data, 12);
  const std::size_t data_start = (16 + std::size_t{header_bytes} + 63) / 64 * 64;
  if (data.size() < data_start + 4) Fail(path, "truncated (the header is incomplete)");
  const std::size_t body = data.size() - 4;
  if (Get<std::uint32_t>(data, body) != Crc32(data.data(), body)) {
    Fail(path, "checksum mismatch: the file is corrupted or truncated");
  }
  ModelFile model;
  try {
    const auto header = nlohmann::json::parse(data.substr(16, header_bytes));
    const auto& net = header.at("network");
    model.net.blocks = net.at("blocks").get<int>();
    model.net.channels = net.at("channels").get<int>();
    model.net.global_pool_every = net.at("global_pool_every").get<int>();
    model.net.head_channels = net.at("head_channels").get<int>();
    model.net.value_hidden = net.at("value_hidden").get<int>();
    const auto& rules = header.at("rules");
    model.rules.size = rules.at("size").get<int>();
    auto start = core::ParseStartKind(rules.at("start").get<std::string>());
    if (!start) Fail(path, "rules.start: " + start.error());
    model.rules.start = *start;
    model.rules.anti = rules.at("anti").get<bool>();
    model.rules.empties_to_winner = rules.at("empties_to_winner").get<bool>();
    model.step = header.at("step").get<std::int64_t>();
    for (const auto& t : header.at("tensors")) {
      ModelTensor tensor;
      tensor.shape = t.at("shape").get<std::vector<int>>();
      std::size_t count = 1;
      for (int d : tensor.shape) {
        if (d <= 0 || d > (1 << 20)) Fail(path, "tensor with a bad dimension");
        count *= static_cast<std::size_t>(d);
      }
      const auto offset = t.at("offset").get<std::size_t>();
      if (offset > body || count * sizeof(float) > body - data_start - offset) {
        Fail(path, "tensor " + t.at("name").get<std::string>() + " lies outside the file");
      }
      tensor.values.resize(count);
      std::memcpy(tensor.values.data(), data.data() + data_start + offset, count * sizeof(float));
      model.tensors[t.at("name").get<std::string>()] = std::move(tensor);
    }
  } catch (const nlohmann::json::exception& e) {
    Fail(path, std::string("bad header: ") + e.what());
  }
  if (auto error = core::ValidateRules(model.rules)) Fail(path, "rules: " + error->message);
  try {
    model.net.Validate();
  } catch (const core::InputError& e) {
    Fail(path, e.what());
  }
  const auto expected = ModelTensorShapes(model.net);
  for (const auto& [name, shape] : expected) {
    auto it = model.tensors.find(name);
    if (it == model.tensors.end()) Fail(path, "tensor " + name + " is missing");
    if (it->second.shape != shape) {
      Fail(path, "tensor " + name + " has shape " + ShapeText(it->second.shape) + ", expected " +
                     ShapeText(shape) + " for " + model.net.Describe());
    }
  }
  if (expected.size() != model.tensors.size()) Fail(path, "holds tensors the network does not use");
  return model;
}

}  // namespace othello::nn
