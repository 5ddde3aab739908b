#include "nn/checkpoint.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include "core/error.h"
#include "nn/binary_io.h"

namespace othello::nn {
namespace {

constexpr char kMagic[8] = {'O', 'Z', 'C', 'K', 'P', 'T', '0', '1'};
// magic, version, 5 config ints, step, the section sizes (version 1 had no extra
// section), checksum
std::size_t HeaderBytes(std::uint32_t version) { return version == 1 ? 64 : 72; }

std::uint64_t Fnv1a(const char* data, std::size_t size, std::uint64_t h) {
  for (std::size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Checksum of the file without its checksum field (the header's last 8 bytes).
std::uint64_t Checksum(const std::string& file, std::size_t header) {
  std::uint64_t h = Fnv1a(file.data(), header - 8, 0xcbf29ce484222325ULL);
  return Fnv1a(file.data() + header, file.size() - header, h);
}

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw core::InputError("checkpoint " + path + ": " + what);
}

std::string Serialize(const std::function<void(torch::serialize::OutputArchive&)>& save) {
  torch::serialize::OutputArchive archive;
  save(archive);
  std::ostringstream stream;
  archive.save_to(stream);
  return stream.str();
}

// Writes `data` to `path` through a temporary file, so `path` is always complete.
void WriteAtomically(const std::string& path, const std::string& data) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Fail(path, "cannot create " + tmp + ": " + std::strerror(errno));
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      Fail(path, "cannot write " + tmp + ": " + why);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) Fail(path, "cannot flush " + tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    Fail(path, "cannot rename " + tmp + ": " + std::strerror(errno));
  }
}

}  // namespace

void SaveCheckpoint(const std::string& path, OthelloNet& net, std::int64_t step,
                    torch::optim::Optimizer* optimizer, const std::string& extra) {
  const std::string weights =
      Serialize([&](torch::serialize::OutputArchive& a) { net->save(a); });
  const std::string optimizer_state =
      optimizer ? Serialize([&](torch::serialize::OutputArchive& a) { optimizer->save(a); })
                : std::string();
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
  const std::uint64_t sum = Checksum(file, header);
  std::memcpy(&file[header - 8], &sum, sizeof sum);
  WriteAtomically(path, file);
}

Checkpoint LoadCheckpoint(const std::string& path, const std::optional<NetConfig>& expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path, std::string("cannot open: ") + std::strerror(errno));
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < sizeof kMagic || std::memcmp(file.data(), kMagic, 6) != 0) {
    Fail(path, "not an othello-zero checkpoint (bad magic)");
  }
  if (file.size() < 12) Fail(path, "truncated: " + std::to_string(file.size()) + " bytes");
  const auto version = Get<std::uint32_t>(file, 8);
  if (version < 1 || version > kCheckpointVersion) {
    Fail(path, "format version " + std::to_string(version) + "; this build reads versions 1-" +
                   std::to_string(kCheckpointVersion));
  }
  const std::size_t header = HeaderBytes(version);
  if (file.size() < header) {
    Fail(path, "truncated: " + std::to_string(file.size()) + " bytes, shorter than the header");
  }
  NetConfig config;
  int* fields[] = {&config.blocks, &config.channels, &config.global_pool_every,
                   &config.head_channels, &config.value_hidden};
  for (int i = 0; i < 5; ++i) *fields[i] = Get<std::int32_t>(file, 12 + 4 * i);
  const auto step = Get<std::int64_t>(file, 32);
  const auto weight_bytes = Get<std::uint64_t>(file, 40);
  const auto optimizer_bytes = Get<std::uint64_t>(file, 48);
  const std::uint64_t extra_bytes = version >= 2 ? Get<std::uint64_t>(file, 56) : 0;
  const std::uint64_t expected_size = header + weight_bytes + optimizer_bytes + extra_bytes;
  if (weight_bytes > file.size() || optimizer_bytes > file.size() || extra_bytes > file.size() ||
      file.size() < expected_size) {
    Fail(path, "truncated: " + std::to_string(file.size()) + " bytes, expected " +
                   std::to_string(expected_size));
  }
  if (file.size() > expected_size) {
    Fail(path, "corrupted: " + std::to_string(file.size() - expected_size) +
                   " unexpected bytes after the end");
  }
  if (Checksum(file, header) != Get<std::uint64_t>(file, header - 8)) {
    Fail(path, "corrupted: checksum mismatch");
  }
  try {
    config.Validate();
  } catch (const core::InputError& e) {
    Fail(path, e.what());
  }
  if (expected && config != *expected) {
    Fail(path, "network configuration differs: " + config.Difference(*expected));
  }
  Checkpoint checkpoint;
  checkpoint.net = OthelloNet(config);
  checkpoint.step = step;
  try {
    std::istringstream weights(file.substr(header, weight_bytes));
    torch::serialize::InputArchive archive;
    archive.load_from(weights);
    checkpoint.net->load(archive);
  } catch (const c10::Error& e) {
    const std::string what = e.what();
    Fail(path, "weights do not match the network (" + config.Describe() +
                   "): " + what.substr(0, what.find('\n')));
  }
  checkpoint.optimizer_state = file.substr(header + weight_bytes, optimizer_bytes);
  checkpoint.extra = file.substr(header + weight_bytes + optimizer_bytes, extra_bytes);
  return checkpoint;
}

void RestoreOptimizer(const Checkpoint& checkpoint, torch::optim::Optimizer& optimizer,
                      const std::string& path) {
  if (checkpoint.optimizer_state.empty()) return;
  try {
    std::istringstream stream(checkpoint.optimizer_state);
    torch::serialize::InputArchive archive;
    archive.load_from(stream);
    optimizer.load(archive);
  } catch (const c10::Error& e) {
    const std::string what = e.what();
    Fail(path, "optimizer state does not match: " + what.substr(0, what.find('\n')));
  }
}

}  // namespace othello::nn
