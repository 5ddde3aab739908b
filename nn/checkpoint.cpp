#include "nn/checkpoint.h"

#include <cstring>
#include <sstream>

#include "core/checksum.h"
#include "core/error.h"
#include "core/file_io.h"
#include "nn/binary_io.h"
#include "nn/file_magic.h"
#include "nn/model_file.h"
#include "nn/optimizer_state.h"
#include "nn/rules_json.h"
#include "nn/tensor_io.h"

namespace othello::nn {
namespace {

constexpr const char (&kMagic)[8] = kCheckpointMagic;
// The prefix of the trained weights' names in the optimizer-state section.
const std::string kTrainedPrefix = "trained/";
const std::string kAuxPrefix = "aux/";

// magic, version, 5 config ints, step, the section sizes (version 1 had no metadata
// section), checksum
std::size_t HeaderBytes(std::uint32_t version) { return version == 1 ? 64 : 72; }

// The checksum of the file without its own field (the header's last 8 bytes).
std::uint64_t Checksum(std::string_view file, std::size_t header, std::uint32_t version) {
  const std::string_view head = file.substr(0, header - 8), rest = file.substr(header);
  if (version < 3) return core::Fnv1a64(rest.data(), rest.size(), core::Fnv1a64(head.data(), head.size()));
  return core::Crc32(rest, core::Crc32(head));
}

[[noreturn]] void Fail(const std::string& name, const std::string& what) {
  throw core::InputError("checkpoint " + name + ": " + what);
}

// The least number of bytes the weights of `config` take (their float32 values).
std::uint64_t MinWeightBytes(const NetConfig& config) {
  std::uint64_t values = 0;
  for (const auto& [name, shape] : ModelTensorShapes(config)) {
    std::uint64_t count = 1;
    for (int d : shape) count *= static_cast<std::uint64_t>(d);
    values += count;
  }
  return values * sizeof(float);
}

struct Sections {
  std::uint32_t version = 0;
  NetConfig config;
  std::int64_t step = 0;
  std::string_view weights, optimizer, metadata;
};

// Magic, version, section sizes (each checked against what remains) and checksum.
Sections ReadContainer(std::string_view file, const std::string& name) {
  if (file.size() < 12 || std::memcmp(file.data(), kMagic, kCheckpointMagicCompared) != 0) {
    Fail(name, file.size() < 12 && file.size() >= 6 && std::memcmp(file.data(), kMagic, kCheckpointMagicCompared) == 0
                   ? "truncated: " + std::to_string(file.size()) + " bytes"
                   : "not an othello-zero checkpoint (bad magic)");
  }
  Sections s;
  s.version = Get<std::uint32_t>(file, 8);
  if (s.version < 1 || s.version > kCheckpointVersion) {
    Fail(name, "format version " + std::to_string(s.version) + "; this build reads versions 1-" +
                   std::to_string(kCheckpointVersion));
  }
  const std::size_t header = HeaderBytes(s.version);
  if (file.size() < header) {
    Fail(name, "truncated: " + std::to_string(file.size()) + " bytes, shorter than the header");
  }
  int* fields[] = {&s.config.blocks, &s.config.channels, &s.config.global_pool_every,
                   &s.config.head_channels, &s.config.value_hidden};
  for (int i = 0; i < 5; ++i) *fields[i] = Get<std::int32_t>(file, 12 + 4 * i);
  s.step = Get<std::int64_t>(file, 32);
  const std::uint64_t sizes[3] = {Get<std::uint64_t>(file, 40), Get<std::uint64_t>(file, 48),
                                  s.version >= 2 ? Get<std::uint64_t>(file, 56) : 0};
  std::uint64_t left = file.size() - header;
  for (std::uint64_t size : sizes) {
    if (size > left) {
      Fail(name, "truncated: " + std::to_string(file.size()) + " bytes, its sections need more");
    }
    left -= size;
  }
  if (left > 0) Fail(name, "corrupted: " + std::to_string(left) + " unexpected bytes after the end");
  if (Checksum(file, header, s.version) != Get<std::uint64_t>(file, header - 8)) {
    Fail(name, "corrupted: checksum mismatch");
  }
  if (s.step < 0) Fail(name, "corrupted: negative training step " + std::to_string(s.step));
  s.weights = file.substr(header, sizes[0]);
  s.optimizer = file.substr(header + sizes[0], sizes[1]);
  s.metadata = file.substr(header + sizes[0] + sizes[1], sizes[2]);
  return s;
}

void ReadMetadata(std::string_view text, const std::string& name, Checkpoint& checkpoint) {
  if (text.empty()) return;
  nlohmann::json metadata;
  try {
    metadata = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    Fail(name, std::string("bad metadata: ") + e.what());
  }
  if (!metadata.is_object()) Fail(name, "bad metadata: not a JSON object");
  if (metadata.contains("rules")) {
    checkpoint.rules = RulesFromJson(metadata["rules"], "checkpoint " + name);
    metadata.erase("rules");
  }
  checkpoint.metadata = std::move(metadata);
}

// Versions 1-3 held LibTorch archives. They are read with LibTorch's reader, which
// trusts its input more than this project's readers do (docs/internals.md: Robustness).
void LoadLegacyWeights(const Sections& s, const std::string& name, Checkpoint& checkpoint) {
  try {
    std::istringstream weights{std::string(s.weights)};
    torch::serialize::InputArchive archive;
    archive.load_from(weights);
    checkpoint.net->load(archive);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    Fail(name, "weights do not match the network (" + s.config.Describe() +
                   "): " + what.substr(0, what.find('\n')));
  }
  checkpoint.legacy_optimizer_archive = std::string(s.optimizer);
}

// The optimizer state of a LibTorch archive (formats 1-3) as this project's named
// tensors (nn/optimizer_state.h). The archive files each parameter's state under the
// address of its TensorImpl as text, and its param group lists those keys in parameter
// order. LibTorch 1.x wrote the addresses in hexadecimal ("0x55d0..."); 2.x's
// Optimizer::load parses them as decimal, so that every 1.x key becomes 0 and all
// parameters get one parameter's state. The keys are therefore matched here as text.
std::map<std::string, torch::Tensor> LegacyOptimizerTensors(const std::string& bytes,
                                                            const std::string& kind) {
  std::istringstream stream(bytes);
  torch::serialize::InputArchive archive, state, groups;
  archive.load_from(stream);
  archive.read("state", state);
  archive.read("param_groups", groups);
  torch::Tensor group_count;
  groups.read("param_groups/size", group_count);
  // A field is an attribute (IValue) or, failing that, a buffer.
  const auto read_field = [](torch::serialize::InputArchive& from, const std::string& key) {
    c10::IValue value;
    if (from.try_read(key, value)) return value;
    torch::Tensor tensor;
    if (from.try_read(key, tensor, /*is_buffer=*/true)) return c10::IValue(tensor);
    return c10::IValue();
  };
  std::map<std::string, torch::Tensor> out;
  std::size_t index = 0;
  for (std::int64_t g = 0; g < group_count.item<std::int64_t>(); ++g) {
    torch::serialize::InputArchive group;
    groups.read("param_groups/" + std::to_string(g), group);
    torch::Tensor size;
    group.read("params/size", size);
    for (std::int64_t j = 0; j < size.item<std::int64_t>(); ++j, ++index) {
      c10::IValue key;
      group.read("params/" + std::to_string(j), key);
      torch::serialize::InputArchive param;
      if (!state.try_read(key.toStringRef(), param)) continue;
      const std::string prefix = kind + "/" + std::to_string(index) + "/";
      for (const char* field : {"momentum_buffer", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}) {
        const c10::IValue value = read_field(param, field);
        if (value.isTensor() && value.toTensor().defined()) out[prefix + field] = value.toTensor();
      }
      const c10::IValue step = read_field(param, "step");
      if (step.isInt()) out[prefix + "step"] = torch::tensor(step.toInt());
      if (step.isTensor()) out[prefix + "step"] = step.toTensor().to(torch::kInt64).reshape({});
    }
  }
  return out;
}

}  // namespace

std::string SerializeCheckpoint(OthelloNet& net, std::int64_t step,
                                torch::optim::Optimizer* optimizer,
                                const std::optional<core::Rules>& rules,
                                const nlohmann::json& metadata, OthelloNet* trained,
                                AuxHeads* aux) {
  const std::string weights = EncodeTensors(ModuleTensors(*net));
  NamedTensors state;
  if (optimizer) state = OptimizerTensors(*optimizer);
  if (trained) {
    for (auto& [name, tensor] : ModuleTensors(**trained)) {
      state.emplace_back(kTrainedPrefix + name, tensor);
    }
  }
  if (aux) {
    for (auto& [name, tensor] : ModuleTensors(**aux)) state.emplace_back(kAuxPrefix + name, tensor);
  }
  const std::string optimizer_state = state.empty() ? std::string() : EncodeTensors(state);
  nlohmann::json all = metadata.is_object() ? metadata : nlohmann::json::object();
  if (rules) all["rules"] = RulesToJson(*rules);
  const std::string extra = all.empty() ? std::string() : all.dump();
  const NetConfig& c = net->config();
  std::string file(kMagic, sizeof kMagic);
  Put<std::uint32_t>(file, kCheckpointVersion);
  for (int v : {c.blocks, c.channels, c.global_pool_every, c.head_channels, c.value_hidden}) {
    Put<std::int32_t>(file, v);
  }
  Put<std::int64_t>(file, step);
  Put<std::uint64_t>(file, weights.size());
  Put<std::uint64_t>(file, optimizer_state.size());
  Put<std::uint64_t>(file, extra.size());
  Put<std::uint64_t>(file, 0);  // checksum, filled below
  file += weights;
  file += optimizer_state;
  file += extra;
  const std::size_t header = HeaderBytes(kCheckpointVersion);
  const std::uint64_t sum = Checksum(file, header, kCheckpointVersion);
  std::memcpy(&file[header - 8], &sum, sizeof sum);
  return file;
}

void SaveCheckpoint(const std::string& path, OthelloNet& net, std::int64_t step,
                    torch::optim::Optimizer* optimizer, const std::optional<core::Rules>& rules,
                    const nlohmann::json& metadata, OthelloNet* trained, AuxHeads* aux) {
  core::WriteFileAtomically(
      path, SerializeCheckpoint(net, step, optimizer, rules, metadata, trained, aux), "checkpoint");
}

Checkpoint ParseCheckpoint(std::string_view bytes, const std::string& name,
                           const std::optional<NetConfig>& expected) {
  const Sections s = ReadContainer(bytes, name);
  try {
    s.config.Validate();
  } catch (const core::InputError& e) {
    Fail(name, e.what());
  }
  if (expected && s.config != *expected) {
    Fail(name, "network configuration differs: " + s.config.Difference(*expected));
  }
  if (s.weights.size() < MinWeightBytes(s.config)) {
    Fail(name, "corrupted: " + std::to_string(s.weights.size()) +
                   " bytes of weights cannot hold the network (" + s.config.Describe() + ")");
  }
  Checkpoint checkpoint;
  checkpoint.step = s.step;
  ReadMetadata(s.metadata, name, checkpoint);
  checkpoint.net = OthelloNet(s.config);
  if (s.version >= 4) {
    LoadModuleTensors(*checkpoint.net, DecodeTensors(s.weights, "checkpoint " + name + ": weights"),
                      "checkpoint " + name + ": weights (" + s.config.Describe() + ")");
    if (!s.optimizer.empty()) {
      checkpoint.optimizer_state = DecodeTensors(s.optimizer, "checkpoint " + name + ": optimizer state");
      // The trainer's own weights and the auxiliary heads' travel in the same section
      // (SerializeCheckpoint).
      for (auto it = checkpoint.optimizer_state.begin(); it != checkpoint.optimizer_state.end();) {
        const bool is_trained = it->first.rfind(kTrainedPrefix, 0) == 0;
        const bool is_aux = it->first.rfind(kAuxPrefix, 0) == 0;
        if (!is_trained && !is_aux) {
          ++it;
          continue;
        }
        if (is_trained) {
          checkpoint.trained_weights[it->first.substr(kTrainedPrefix.size())] = it->second;
        } else {
          checkpoint.aux_weights[it->first.substr(kAuxPrefix.size())] = it->second;
        }
        it = checkpoint.optimizer_state.erase(it);
      }
      // They must fit the configuration.
      if (!checkpoint.trained_weights.empty()) TrainedNet(checkpoint, name);
      if (!checkpoint.aux_weights.empty()) CheckpointAuxHeads(checkpoint, name);
    }
  } else {
    LoadLegacyWeights(s, name, checkpoint);
  }
  return checkpoint;
}

Checkpoint LoadCheckpoint(const std::string& path, const std::optional<NetConfig>& expected) {
  return ParseCheckpoint(core::ReadFile(path, "checkpoint"), path, expected);
}

Checkpoint AverageCheckpoints(const std::vector<std::string>& paths) {
  if (paths.empty()) throw core::InputError("averaging checkpoints: no checkpoint given");
  torch::NoGradGuard no_grad;
  Checkpoint newest = LoadCheckpoint(paths.front());
  const NetConfig config = newest.net->config();
  const std::optional<core::Rules> rules = newest.rules;
  // Sums in float64, so that the mean of many checkpoints loses nothing to rounding.
  NamedTensors sums = ModuleTensors(*newest.net);
  for (auto& [name, tensor] : sums) {
    if (tensor.is_floating_point()) tensor = tensor.to(torch::kFloat64);
  }
  for (std::size_t i = 1; i < paths.size(); ++i) {
    Checkpoint next = LoadCheckpoint(paths[i], config);
    // The same board size and goal, as for a model (core::RulesMismatch).
    std::optional<std::string> mismatch;
    if (next.rules.has_value() != rules.has_value()) {
      mismatch = "its rules are stored in one and not the other";
    } else if (rules) {
      mismatch = core::RulesMismatch(*rules, *next.rules);
    }
    if (mismatch) {
      Fail(paths[i], *mismatch + " (against " + paths.front() +
                         "): only checkpoints of one run can be averaged");
    }
    const NamedTensors tensors = ModuleTensors(*next.net);
    const bool newer = next.step > newest.step;
    for (std::size_t t = 0; t < sums.size(); ++t) {
      if (sums[t].second.is_floating_point()) {
        sums[t].second += tensors[t].second.to(torch::kFloat64);
      } else if (newer) {
        sums[t].second = tensors[t].second.clone();
      }
    }
    if (newer) {
      newest.step = next.step;
      newest.rules = next.rules;
    }
  }
  std::map<std::string, torch::Tensor> mean;
  const double count = static_cast<double>(paths.size());
  for (auto& [name, tensor] : sums) {
    mean[name] = tensor.is_floating_point() ? (tensor / count).to(torch::kFloat32) : tensor;
  }
  Checkpoint averaged;
  averaged.net = OthelloNet(config);
  LoadModuleTensors(*averaged.net, mean, "the average of " + std::to_string(paths.size()) +
                                             " checkpoints (" + config.Describe() + ")");
  averaged.step = newest.step;
  averaged.rules = newest.rules;
  return averaged;
}

OthelloNet TrainedNet(const Checkpoint& checkpoint, const std::string& path) {
  OthelloNet net(checkpoint.net->config());
  LoadModuleTensors(*net, checkpoint.trained_weights,
                    "checkpoint " + path + ": trained weights (" + net->config().Describe() + ")");
  return net;
}

AuxHeads CheckpointAuxHeads(const Checkpoint& checkpoint, const std::string& path) {
  AuxHeads aux(checkpoint.net->config());
  LoadModuleTensors(*aux, checkpoint.aux_weights,
                    "checkpoint " + path + ": auxiliary heads (" +
                        checkpoint.net->config().Describe() + ")");
  return aux;
}

void RestoreOptimizer(const Checkpoint& checkpoint, torch::optim::Optimizer& optimizer,
                      const std::string& path) {
  if (!checkpoint.optimizer_state.empty()) {
    LoadOptimizerTensors(optimizer, checkpoint.optimizer_state, "checkpoint " + path);
  }
  if (checkpoint.legacy_optimizer_archive.empty()) return;
  const std::string kind = OptimizerKind(optimizer);
  std::map<std::string, torch::Tensor> tensors;
  try {
    tensors = LegacyOptimizerTensors(checkpoint.legacy_optimizer_archive, kind);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    Fail(path, "optimizer state (a LibTorch archive) does not match " + kind + ": " +
                   what.substr(0, what.find('\n')));
  }
  LoadOptimizerTensors(optimizer, tensors, "checkpoint " + path);
}

}  // namespace othello::nn
