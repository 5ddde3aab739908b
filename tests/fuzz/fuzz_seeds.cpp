// Writes the seed corpora of the binary formats (model files, checkpoints, replay shards
// and journals) into DIR/<target>/: valid files of every version the readers accept, made
// by the project's own writers so that they follow the formats as they change. The text
// formats' seeds are files under tests/fuzz/corpus/.
// Usage: fuzz_seeds DIR
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/checksum.h"
#include "core/rules.h"
#include "nn/checkpoint.h"
#include "nn/export.h"
#include "nn/model_file.h"
#include "training/replay_format.h"

namespace {

namespace fs = std::filesystem;
using namespace othello;

void Write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary | std::ios::trunc) << bytes;
}

nn::NetConfig Tiny() {
  nn::NetConfig config;
  config.blocks = 1;
  config.channels = 4;
  config.global_pool_every = 1;
  config.head_channels = 2;
  config.value_hidden = 4;
  return config;
}

std::vector<training::Sample> Samples(int size, int count) {
  core::Rules rules;
  rules.size = size;
  rules.start = core::StartKind::kRandom;
  std::vector<training::Sample> samples;
  for (int i = 0; i < count; ++i) {
    rules.random_moves = 2 * i;
    const core::Position pos = core::StartPosition(rules, i);
    training::Sample s;
    s.SetPosition(pos);
    const int area = size * size;
    s.has_policy = 1;
    s.policy[pos.LegalMoves() ? core::LowestSquare(pos.LegalMoves()) : area] = 65535;
    s.wdl[0] = 40000, s.wdl[1] = 5535, s.wdl[2] = 20000;
    for (int sq = 0; sq < area; ++sq) s.ownership[sq] = static_cast<std::int8_t>(sq % 3 - 1);
    s.has_exact = i % 2;
    s.exact_score = static_cast<std::int8_t>(i % 2 ? 4 : 0);
    s.final_margin = -6;
    if (i > 0) {  // the auxiliary heads' targets
      s.has_reply = 1;
      s.reply_policy[area] = 65535;
      s.has_short_term = 1;
      s.short_term[0] = -12000, s.short_term[1] = 32767;
    }
    samples.push_back(s);
  }
  return samples;
}

// A version 1 (packed) record, as the readers convert them.
std::string V1Record(const training::Sample& s) {
  std::string r(reinterpret_cast<const char*>(s.player), 16);
  r.append(reinterpret_cast<const char*>(s.opponent), 16);
  for (int v : {int(s.size), int(s.has_policy), int(s.has_exact), int(s.exact_score),
                int(s.final_margin)}) {
    r += static_cast<char>(v);
  }
  r.append(reinterpret_cast<const char*>(s.wdl), 6);
  r.append(2, '\0');
  r.append(reinterpret_cast<const char*>(s.policy.data()), 202);
  r.append(reinterpret_cast<const char*>(s.ownership.data()), 100);
  return r;
}

template <typename T>
void Put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void ModelSeeds(const fs::path& dir) {
  torch::manual_seed(1);
  nn::OthelloNet net(Tiny());
  for (const int size : {6, 8, 10}) {
    core::Rules rules;
    rules.size = size;
    rules.anti = size == 10;
    const fs::path path = fs::temp_directory_path() / "oz_fuzz_seed.ozm";
    nn::WriteModelFile(path.string(), nn::ExportModel(net, rules, 100 * size));
    std::ifstream in(path, std::ios::binary);
    Write(dir, "model-" + std::to_string(size) + ".ozm",
          std::string(std::istreambuf_iterator<char>(in), {}));
    fs::remove(path);
  }
}

void CheckpointSeeds(const fs::path& dir) {
  torch::manual_seed(2);
  nn::OthelloNet net(Tiny());
  torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  // One step, so that the optimizer has state to save.
  net->train();
  sgd.zero_grad();
  net->forward(torch::zeros({2, 6, 6, 6})).wdl_logits.sum().backward();
  sgd.step();
  torch::optim::AdamW adamw(net->parameters(), torch::optim::AdamWOptions(0.01));
  adamw.zero_grad();
  net->forward(torch::zeros({2, 6, 6, 6})).wdl_logits.sum().backward();
  adamw.step();
  core::Rules six;
  six.size = 6;
  Write(dir, "full-sgd.ckpt", nn::SerializeCheckpoint(net, 200, &sgd, six, {{"rng", {1, 2, 3, 4}}}));
  Write(dir, "full-adamw.ckpt", nn::SerializeCheckpoint(net, 300, &adamw, six));
  Write(dir, "bare.ckpt", nn::SerializeCheckpoint(net, 0));
}

void ReplaySeeds(const fs::path& shards, const fs::path& journals) {
  for (const int size : {4, 8, 10}) {
    const auto samples = Samples(size, 3);
    Write(shards, "shard-" + std::to_string(size) + ".bin",
          training::SerializeShard(samples.data(), samples.size(), 2, 30));
  }
  const auto samples = Samples(8, 2);
  std::string v1_records;
  for (const auto& s : samples) v1_records += V1Record(s);
  std::string v1("OZRPLY01", 8);
  Put(v1, std::uint32_t{1});
  Put(v1, std::uint32_t{347});
  Put(v1, std::uint64_t{2});
  Put(v1, std::uint64_t{1});
  Put(v1, std::uint64_t{2});
  Put(v1, core::Fnv1a64(v1_records.data(), v1_records.size()));
  Write(shards, "shard-v1.bin", v1 + v1_records);

  // Version 2's 352-byte records (today's first 352 bytes, no auxiliary targets).
  std::string v2_records;
  for (const auto& s : Samples(8, 1)) v2_records.append(reinterpret_cast<const char*>(&s), 352);
  std::string v2("OZRPLY01", 8);
  Put(v2, std::uint32_t{2});
  Put(v2, std::uint32_t{352});
  Put(v2, std::uint64_t{1});
  Put(v2, std::uint64_t{1});
  Put(v2, std::uint64_t{1});
  Put(v2, static_cast<std::uint64_t>(core::Crc32(v2_records, core::Crc32(v2))));
  Write(shards, "shard-v2.bin", v2 + v2_records);
  std::string small("OZJRNL03", 8);
  Put(small, std::uint32_t{352});
  std::string entry;
  Put(entry, std::uint64_t{0});
  Put(entry, std::uint32_t{1});
  Put(entry, std::uint32_t{0});
  Put(entry, core::Crc32(v2_records, core::Crc32(std::string_view(), core::Crc32(entry))));
  Write(journals, "journal-352.bin", small + entry + v2_records);

  std::string journal = training::JournalHeader();
  journal += training::JournalEntry(Samples(6, 2), 10);
  journal += training::JournalEntry(Samples(6, 1), 12, "host-1-0a1b2c3d-00000007.shard");
  Write(journals, "journal.bin", journal);
  Write(journals, "journal-torn.bin", journal.substr(0, journal.size() - 5));
  std::string old;
  Put(old, std::uint64_t{0});
  Put(old, std::uint32_t{2});
  Put(old, core::Fnv1a64(v1_records.data(), v1_records.size()));
  Write(journals, "journal-v1.bin", old + v1_records);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds DIR\n");
    return 2;
  }
  const fs::path dir = argv[1];
  ModelSeeds(dir / "fuzz_model_file");
  CheckpointSeeds(dir / "fuzz_checkpoint");
  ReplaySeeds(dir / "fuzz_replay_shard", dir / "fuzz_replay_journal");
  std::printf("seeds written to %s\n", dir.c_str());
  return 0;
}
