// Exported model files and the LibTorch-free (Eigen) forward pass.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/checksum.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/rules.h"
#include "core/symmetry.h"
#include "mcts/eval_cache.h"
#include "nn/binary_io.h"
#include "nn/eigen_net.h"
#include "nn/encoding.h"
#include "nn/export.h"
#include "nn/inference.h"
#include "nn/model_file.h"
#include "nn/shipped_model.h"

namespace othello::nn {
namespace {

namespace fs = std::filesystem;

// A net whose batch norms have non-trivial statistics, as after training.
OthelloNet RandomNet(const NetConfig& config, int seed) {
  torch::manual_seed(seed);
  OthelloNet net(config);
  torch::NoGradGuard no_grad;
  for (auto& item : net->named_buffers()) {
    if (item.key().find("running_mean") != std::string::npos) item.value().normal_(0, 0.3);
    if (item.key().find("running_var") != std::string::npos) item.value().uniform_(0.5, 2.0);
  }
  for (auto& item : net->named_parameters()) {
    if (item.key().find("bn") != std::string::npos) item.value().normal_(0.5, 0.3);
  }
  net->eval();
  return net;
}

std::vector<core::Position> RandomPositions(int size, int count, int seed) {
  std::vector<core::Position> out;
  core::Rules rules;
  rules.size = size;
  rules.start = core::StartKind::kRandom;
  for (int i = 0; i < count; ++i) {
    rules.random_moves = (i * 7) % (size * size - 4);
    out.push_back(core::StartPosition(rules, seed * 1000 + i));
  }
  return out;
}

NetConfig Tiny(int blocks, int channels) {
  NetConfig config;
  config.blocks = blocks;
  config.channels = channels;
  config.head_channels = channels / 2;
  config.value_hidden = channels;
  return config;
}

fs::path Temp(const std::string& name) { return fs::temp_directory_path() / ("oz_model_" + name); }

TEST(ModelFile, EigenMatchesLibTorchOnRandomPositions) {
  const NetConfig config = Tiny(3, 16);
  OthelloNet net = RandomNet(config, 3);
  const fs::path path = Temp("match.ozm");
  WriteModelFile(path.string(), ExportModel(net, core::Rules{}, 42));
  const ModelFile model = ReadModelFile(path.string());
  EXPECT_EQ(model.step, 42);
  EXPECT_EQ(model.net, config);
  EigenNet eigen(model);
  EvaluatorOptions options;
  options.device = "cpu";
  TorchNet torch_eval(net, options);
  double worst = 0;
  for (const int size : {6, 8, 10}) {
    const auto positions = RandomPositions(size, 24, size);
    std::vector<const core::Position*> p;
    std::vector<mcts::EvalOutput> a(positions.size()), b(positions.size());
    std::vector<mcts::EvalOutput*> pa, pb;
    for (std::size_t i = 0; i < positions.size(); ++i) {
      p.push_back(&positions[i]), pa.push_back(&a[i]), pb.push_back(&b[i]);
    }
    torch_eval.Forward(p, pa);
    eigen.Forward(p, pb);
    const int area = size * size;
    for (std::size_t i = 0; i < positions.size(); ++i) {
      for (int m = 0; m <= area; ++m) worst = std::max(worst, double(std::abs(a[i].policy[m] - b[i].policy[m])));
      for (int s = 0; s < area; ++s) worst = std::max(worst, double(std::abs(a[i].ownership[s] - b[i].ownership[s])));
      worst = std::max({worst, double(std::abs(a[i].win - b[i].win)), double(std::abs(a[i].draw - b[i].draw)),
                        double(std::abs(a[i].loss - b[i].loss)),
                        double(std::abs(a[i].disc_difference - b[i].disc_difference)) / area});
    }
  }
  EXPECT_LT(worst, 1e-4);
  fs::remove(path);
}

TEST(ModelFile, TheEigenEvaluatorServesTheSearchWithACache) {
  const NetConfig config = Tiny(1, 8);
  OthelloNet net = RandomNet(config, 5);
  auto eigen = std::make_shared<EigenNet>(ExportModel(net, core::Rules{}, 0));
  EvaluatorOptions options;
  options.cache_entries = 1024;
  EvaluatorLayers layers;
  const std::shared_ptr<mcts::Evaluator> evaluator = MakeEvaluator(eigen, 0, options, &layers);
  ASSERT_NE(layers.cache, nullptr);
  EXPECT_EQ(layers.batcher, nullptr);  // eigen runs on the calling thread
  EXPECT_EQ(layers.backend, "eigen");
  mcts::EvalBatch batch;
  batch.Add(core::Position::Standard(8));
  batch.Add(core::Position::Standard(8));
  evaluator->Evaluate(batch);
  EXPECT_NEAR(batch.output(0).win + batch.output(0).draw + batch.output(0).loss, 1.0, 1e-5);
  EXPECT_EQ(batch.output(0).policy, batch.output(1).policy);
}

// Self-play's random symmetries on the Eigen path: each evaluation is the plain one of
// one of the 8 transformed positions, mapped back to the position's squares.
TEST(ModelFile, TheEigenEvaluatorWithRandomSymmetriesMapsOutputsBack) {
  OthelloNet net = RandomNet(Tiny(1, 8), 9);
  auto eigen = std::make_shared<EigenNet>(ExportModel(net, core::Rules{}, 0));
  core::Position position = core::Position::Standard(8);
  position = position.Play(core::LowestSquare(position.LegalMoves()));  // not symmetric any more
  const std::shared_ptr<mcts::Evaluator> plain = MakeEvaluator(eigen, 0, EvaluatorOptions{});
  std::vector<mcts::EvalOutput> expected;
  for (int s = 0; s < core::kNumSymmetries; ++s) {
    mcts::EvalBatch one;
    one.Add(core::TransformPosition(position, s));
    plain->Evaluate(one);
    mcts::EvalOutput mapped = one.output(0);
    for (int sq = 0; sq < 64; ++sq) {
      mapped.policy[sq] = one.output(0).policy[core::TransformSquare(sq, 8, s)];
      mapped.ownership[sq] = one.output(0).ownership[core::TransformSquare(sq, 8, s)];
    }
    expected.push_back(mapped);
  }
  EvaluatorOptions options;
  options.random_symmetry = true;
  options.seed = 3;
  const std::shared_ptr<mcts::Evaluator> symmetric = MakeEvaluator(eigen, 0, options);
  std::set<int> seen;
  for (int round = 0; round < 8; ++round) {
    mcts::EvalBatch batch;
    for (int i = 0; i < 8; ++i) batch.Add(position);
    symmetric->Evaluate(batch);
    for (int i = 0; i < 8; ++i) {
      const mcts::EvalOutput& o = batch.output(i);
      int match = -1;
      for (int s = 0; s < core::kNumSymmetries && match < 0; ++s) {
        bool same = std::abs(o.win - expected[s].win) < 1e-5;
        for (int sq = 0; sq <= 64 && same; ++sq) {
          same = std::abs(o.policy[sq] - expected[s].policy[sq]) < 1e-5 &&
                 (sq == 64 || std::abs(o.ownership[sq] - expected[s].ownership[sq]) < 1e-5);
        }
        if (same) match = s;
      }
      ASSERT_GE(match, 0) << "round " << round << " position " << i;
      seen.insert(match);
    }
  }
  EXPECT_GT(seen.size(), 4u);  // the symmetries are drawn, not fixed
}

TEST(ModelFile, DamagedFilesGiveClearErrors) {
  const NetConfig config = Tiny(1, 8);
  OthelloNet net = RandomNet(config, 7);
  const fs::path path = Temp("damaged.ozm");
  WriteModelFile(path.string(), ExportModel(net, core::Rules{}, 0));
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto expect_error = [&](const std::string& content, const std::string& message) {
    const fs::path bad = Temp("bad.ozm");
    std::ofstream(bad, std::ios::binary) << content;
    try {
      ReadModelFile(bad.string());
      ADD_FAILURE() << "accepted: " << message;
    } catch (const core::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad.string()), std::string::npos) << e.what();
    }
  };
  expect_error(bytes.substr(0, bytes.size() / 2), "checksum mismatch");
  std::string flipped = bytes;
  flipped[bytes.size() - 100] ^= 0x40;
  expect_error(flipped, "checksum mismatch");
  expect_error("OZCKPT01 not a model", "not an othello-zero model");
  std::string version = bytes;
  version[8] = 9;
  expect_error(version, "format version 9");
  expect_error(bytes.substr(0, 20), "truncated");
  EXPECT_THROW(ReadModelFile(Temp("missing.ozm").string()), core::InputError);
  EXPECT_TRUE(IsModelFile(path.string()));
  fs::remove(path);
  fs::remove(Temp("bad.ozm"));
}

// Writes FIXTURE/model.ozm (8x8) and model6.ozm (6x6), and the C++ outputs for some
// positions, for the Python reader's test (tests/nn/ozmodel_test.py). It runs once, as
// ctest's nn.ozmodel_fixture (the fixture of the CLI tests; tests/CMakeLists.txt leaves it
// out of the discovered tests), and writes every file atomically.
TEST(ModelFile, WritesThePythonFixture) {
  const NetConfig config = Tiny(2, 8);
  OthelloNet net = RandomNet(config, 11);
  const fs::path dir = OZ_PY_FIXTURE_DIR;
  fs::create_directories(dir);
  WriteModelFile((dir / "model.ozm").string(), ExportModel(net, core::Rules{}, 7));
  // The same net as a 6x6 model, for the tests of play on other boards.
  core::Rules six;
  six.size = 6;
  WriteModelFile((dir / "model6.ozm").string(), ExportModel(net, six, 7));
  EigenNet eigen(ReadModelFile((dir / "model.ozm").string()));
  std::ostringstream out;
  out << "[";
  bool first = true;
  for (const int size : {6, 8}) {
    for (const core::Position& pos : RandomPositions(size, 4, 3)) {
      mcts::EvalOutput o;
      eigen.Forward({&pos}, {&o});
      const std::vector<float> planes = EncodePosition(pos);
      auto list = [&](const float* v, int n) {
        std::string s = "[";
        for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v[i]);
        return s + "]";
      };
      const float wdl[3] = {o.win, o.draw, o.loss};
      out << (first ? "" : ",") << "{\"size\":" << size << ",\"planes\":"
          << list(planes.data(), static_cast<int>(planes.size())) << ",\"policy\":"
          << list(o.policy.data(), size * size + 1) << ",\"wdl\":" << list(wdl, 3) << "}";
      first = false;
    }
  }
  out << "]\n";
  core::WriteFileAtomically((dir / "expected.json").string(), out.str(), "fixture");
}

TEST(ModelFile, Crc32MatchesZlib) {
  EXPECT_EQ(core::Crc32("123456789", 9), 0xCBF43926u);  // the standard check value
  // Slicing-by-8 and byte-at-a-time agree at every length and alignment.
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>(i * 37 + 11);
  for (std::size_t start = 0; start < 9; ++start) {
    for (std::size_t length = 0; start + length <= text.size(); length += 7) {
      std::uint32_t bytewise = 0;
      for (std::size_t i = 0; i < length; ++i) bytewise = core::Crc32(&text[start + i], 1, bytewise);
      EXPECT_EQ(core::Crc32(text.data() + start, length), bytewise) << start << " " << length;
    }
  }
}

// A model file rebuilt around another header, with a right checksum: only the
// reader's own checks can refuse it.
std::string Craft(const std::string& original, const std::string& header) {
  const auto old_header = Get<std::uint32_t>(original, 12);
  const std::size_t old_start = (16 + old_header + 63) / 64 * 64;
  const std::string data = original.substr(old_start, original.size() - 4 - old_start);
  std::string out = original.substr(0, 12);
  Put(out, static_cast<std::uint32_t>(header.size()));
  out += header;
  out.resize((out.size() + 63) / 64 * 64, '\0');
  out += data;
  Put(out, core::Crc32(out));
  return out;
}

TEST(ModelFile, CraftedFilesWithARightChecksumAreRefused) {
  OthelloNet net = RandomNet(Tiny(1, 8), 9);
  const fs::path path = Temp("crafted.ozm");
  WriteModelFile(path.string(), ExportModel(net, core::Rules{}, 0));
  const std::string bytes = core::ReadFile(path.string(), "model file");
  const auto header = nlohmann::json::parse(bytes.substr(16, Get<std::uint32_t>(bytes, 12)));
  const std::size_t data_bytes = bytes.size() - 4 - (16 + header.dump().size() + 63) / 64 * 64;
  const auto error = [&](const nlohmann::json& h) {
    try {
      ParseModelFile(Craft(bytes, h.dump()), "crafted.ozm");
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  ASSERT_EQ(error(header), "no error");
  // The fault this test was written for: an offset between the data's length and the
  // file's length used to pass the check and read past the buffer.
  for (const std::size_t offset : {data_bytes - 4, data_bytes, data_bytes + 8, bytes.size() - 8,
                                   bytes.size() + 1000}) {
    nlohmann::json h = header;
    h["tensors"][0]["offset"] = offset;
    EXPECT_THAT(error(h), ::testing::ContainsRegex("lies outside the file|offset must be an "
                                                   "integer in \\[0, " +
                                                   std::to_string(data_bytes) + "\\]"))
        << offset;
  }
  nlohmann::json h = header;
  h["tensors"][0]["offset"] = -8;
  EXPECT_THAT(error(h), ::testing::HasSubstr("offset must be an integer"));
  h = header;
  h["tensors"][0]["shape"] = {1 << 20, 1 << 20, 1 << 20, 1 << 20};  // 2^80 values
  EXPECT_THAT(error(h), ::testing::HasSubstr("larger than the file's data"));
  h = header;
  h["network"]["blocks"] = 1e10;
  EXPECT_THAT(error(h), ::testing::HasSubstr("network: blocks must be an integer"));
  h = header;
  h["rules"]["size"] = 12;
  EXPECT_THAT(error(h), ::testing::HasSubstr("rules: size must be an integer in [4, 10]"));
  h = header;
  h["tensors"].push_back(h["tensors"][0]);
  EXPECT_THAT(error(h), ::testing::HasSubstr("listed twice"));
  h = header;
  h["tensors"] = "none";
  EXPECT_THAT(error(h), ::testing::HasSubstr("no tensor list"));
  // A header length beyond the file.
  std::string long_header = bytes;
  const std::uint32_t too_long = static_cast<std::uint32_t>(bytes.size());
  std::memcpy(&long_header[12], &too_long, 4);
  const std::uint32_t crc = core::Crc32(long_header.data(), long_header.size() - 4);
  std::memcpy(&long_header[long_header.size() - 4], &crc, 4);
  EXPECT_THROW(ParseModelFile(long_header, "long.ozm"), core::InputError);
  fs::remove(path);
}

// The model compiled into the program: a valid exported 8x8 model that evaluates.
TEST(ShippedModel, IsAnEightByEightModelThatEvaluates) {
  const ModelFile file = ParseModelFile(ShippedModelBytes(), "shipped");
  EXPECT_EQ(file.rules.size, 8);
  EXPECT_GT(file.step, 0);
  const LoadedModel model = LoadShippedModel();
  mcts::EvalBatch batch;
  batch.Add(core::Position::Standard(8));
  model.evaluator->Evaluate(batch);
  float sum = 0;
  for (int m = 0; m <= 64; ++m) sum += batch.output(0).policy[m];
  EXPECT_NEAR(sum, 1.0f, 1e-4);
  EXPECT_NEAR(batch.output(0).win + batch.output(0).draw + batch.output(0).loss, 1.0f, 1e-5);
  EvaluatorOptions cuda;
  cuda.device = "cuda";
  EXPECT_THROW(LoadShippedModel(cuda), core::InputError);
}

}  // namespace
}  // namespace othello::nn
