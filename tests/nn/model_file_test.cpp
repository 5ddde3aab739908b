// Exported model files and the LibTorch-free (Eigen) forward pass.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/rules.h"
#include "nn/eigen_net.h"
#include "nn/encoding.h"
#include "nn/export.h"
#include "nn/inference.h"
#include "nn/model_file.h"

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
  InferenceOptions options;
  options.device = "cpu";
  NetEvaluator torch_eval(net, options);
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

TEST(ModelFile, EigenEvaluatorServesTheSearchWithACache) {
  const NetConfig config = Tiny(1, 8);
  OthelloNet net = RandomNet(config, 5);
  auto eigen = std::make_shared<EigenNet>(ExportModel(net, core::Rules{}, 0));
  EigenEvaluator evaluator(eigen, 1024);
  mcts::EvalBatch batch;
  batch.Add(core::Position::Standard(8));
  batch.Add(core::Position::Standard(8));
  evaluator.Evaluate(batch);
  EXPECT_NEAR(batch.output(0).win + batch.output(0).draw + batch.output(0).loss, 1.0, 1e-5);
  EXPECT_EQ(batch.output(0).policy, batch.output(1).policy);
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

// Writes FIXTURE/model.ozm and the C++ outputs for some positions, for the Python
// reader's test (tests/nn/ozmodel_test.py).
TEST(ModelFile, WritesThePythonFixture) {
  const NetConfig config = Tiny(2, 8);
  OthelloNet net = RandomNet(config, 11);
  const fs::path dir = OZ_PY_FIXTURE_DIR;
  fs::create_directories(dir);
  WriteModelFile((dir / "model.ozm").string(), ExportModel(net, core::Rules{}, 7));
  EigenNet eigen(ReadModelFile((dir / "model.ozm").string()));
  std::ofstream out(dir / "expected.json");
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
  EXPECT_TRUE(out.good());
}

TEST(ModelFile, Crc32MatchesZlib) {
  EXPECT_EQ(Crc32("123456789", 9), 0xCBF43926u);  // the standard check value
}

}  // namespace
}  // namespace othello::nn
