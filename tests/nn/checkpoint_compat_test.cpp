// Checkpoints written under one LibTorch version load under another: LibTorch 1.13
// (Debian 12's, the CPU build), 2.6 (Debian 13's, tested by an earlier CI script) and
// 2.15 (PyPI's CUDA torch, `scripts/test.sh --cuda`). Both of CI's builds run this suite.
//
// The fixtures in tests/data/ were written by CheckpointFixtures.Write, which runs only
// with OZ_WRITE_CHECKPOINT_FIXTURES set to a folder:
//   OZ_WRITE_CHECKPOINT_FIXTURES=$PWD/tests/data build/tests/nn_tests
//       --gtest_filter=CheckpointFixtures.Write        (one command line)
// It writes, for the LibTorch it is built with (TORCH_VERSION_MAJOR.MINOR):
//   checkpoint-libtorch<M.m>.ckpt     format 4 (today's): a tiny net whose weights are
//                                     set from a formula, then two AdamW steps with
//                                     gradients from a formula; step 777; 6x6 rules;
//                                     metadata {"written_by": "LibTorch <version>"}
//   checkpoint-v3-libtorch<M.m>.ckpt  format 3 (LibTorch archives for the weights and
//                                     the optimizer, as checkpoints before format 4
//                                     were written): the same net after two SGD steps
//                                     with momentum; step 333
// checkpoint-libtorch1.13.ckpt and checkpoint-v3-libtorch1.13.ckpt were written by the
// Debian 12 build (LibTorch 1.13), checkpoint-libtorch2.6.ckpt in a Debian 13 root
// (LibTorch 2.6), checkpoint-libtorch2.15.ckpt by the build against PyPI's torch 2.15.0
// (build-cuda/, on the CPU). The tests below redo the
// same steps with the LibTorch they are built with and compare weights, step and
// optimizer state with what each fixture holds.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <torch/version.h>

#include "core/checksum.h"
#include "core/error.h"
#include "core/rules.h"
#include "nn/binary_io.h"
#include "nn/checkpoint.h"
#include "nn/optimizer_state.h"
#include "nn/rules_json.h"
#include "nn/tensor_io.h"
#include "tests/nn/legacy_checkpoint.h"

namespace othello::nn {
namespace {

const std::string kDataDir = OZ_TEST_DATA_DIR;

NetConfig FixtureConfig() {
  NetConfig c;
  c.blocks = 1;
  c.channels = 8;
  c.global_pool_every = 1;
  c.head_channels = 4;
  c.value_hidden = 8;
  return c;
}

core::Rules FixtureRules() {
  core::Rules rules;
  rules.size = 6;
  return rules;
}

// Values from a formula, the same under every LibTorch (no random generator).
torch::Tensor Pattern(const torch::Tensor& like, int modulus, double offset, double scale) {
  return (torch::arange(like.numel(), torch::kFloat64).remainder(modulus) - offset)
      .mul(scale)
      .to(like.scalar_type())
      .reshape(like.sizes());
}

void SetFixtureWeights(OthelloNet& net) {
  torch::NoGradGuard no_grad;
  int i = 0;
  for (auto& [name, tensor] : ModuleTensors(*net)) {
    ++i;
    if (tensor.scalar_type() == torch::kInt64) {
      tensor.fill_(i);  // num_batches_tracked
    } else if (name.find("running_var") != std::string::npos) {
      tensor.copy_(Pattern(tensor, 3, -10, 0.1));  // 1.0, 1.1, 1.2
    } else {
      tensor.copy_(Pattern(tensor, 7, 3, 0.01 * (i % 5 + 1)));
    }
  }
}

void SetFixtureGradients(OthelloNet& net) {
  int i = 0;
  for (auto& p : net->parameters()) {
    ++i;
    p.mutable_grad() = Pattern(p, 5, 2, 0.001 * i);
  }
}

torch::optim::AdamWOptions FixtureAdamW() { return torch::optim::AdamWOptions(0.01).weight_decay(0.1); }
torch::optim::SGDOptions FixtureSgd() { return torch::optim::SGDOptions(0.05).momentum(0.9); }

// The fixture's net, after `steps` optimizer steps with the formula's gradients.
template <typename Optimizer>
void Train(OthelloNet& net, Optimizer& optimizer, int steps) {
  for (int s = 0; s < steps; ++s) {
    SetFixtureGradients(net);
    optimizer.step();
  }
}

std::string MinorVersion() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR);
}

nlohmann::json WrittenBy() { return {{"written_by", std::string("LibTorch ") + TORCH_VERSION}}; }

TEST(CheckpointFixtures, Write) {
  const char* dir = std::getenv("OZ_WRITE_CHECKPOINT_FIXTURES");
  if (dir == nullptr) GTEST_SKIP() << "set OZ_WRITE_CHECKPOINT_FIXTURES=DIR to write the fixtures";
  {
    OthelloNet net(FixtureConfig());
    SetFixtureWeights(net);
    torch::optim::AdamW adamw(net->parameters(), FixtureAdamW());
    Train(net, adamw, 2);
    SaveCheckpoint(std::string(dir) + "/checkpoint-libtorch" + MinorVersion() + ".ckpt", net, 777,
                   &adamw, FixtureRules(), WrittenBy());
  }
  {
    OthelloNet net(FixtureConfig());
    SetFixtureWeights(net);
    torch::optim::SGD sgd(net->parameters(), FixtureSgd());
    Train(net, sgd, 2);
    nlohmann::json metadata = WrittenBy();
    metadata["rules"] = RulesToJson(FixtureRules());
    std::ofstream(std::string(dir) + "/checkpoint-v3-libtorch" + MinorVersion() + ".ckpt",
                  std::ios::binary)
        << LegacyCheckpoint(net, 333, /*version=*/3, &sgd, metadata);
  }
}

void ExpectClose(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b,
                 const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].sizes(), b[i].sizes()) << what << " " << i;
    EXPECT_TRUE(torch::allclose(a[i], b[i], 1e-5, 1e-7)) << what << " " << i;
  }
}

// The buffers (BN statistics) as the formula set them: optimizer steps leave them alone.
void ExpectFixtureBuffers(OthelloNet& loaded) {
  OthelloNet reference(FixtureConfig());
  SetFixtureWeights(reference);
  const auto a = loaded->buffers(), b = reference->buffers();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << "buffer " << i;
}

class CheckpointFromVersion : public ::testing::TestWithParam<std::string> {};

// Format 4: weights, step, rules, metadata and the AdamW state (per parameter: step 2
// and both moments), and the next step from the restored state matches.
TEST_P(CheckpointFromVersion, Format4LoadsWithWeightsStepAndOptimizerState) {
  const std::string path = kDataDir + "/checkpoint-libtorch" + GetParam() + ".ckpt";
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  Checkpoint loaded = LoadCheckpoint(path, FixtureConfig());
  EXPECT_EQ(loaded.step, 777);
  ASSERT_TRUE(loaded.rules.has_value());
  EXPECT_EQ(*loaded.rules, FixtureRules());
  EXPECT_EQ(loaded.metadata.value("written_by", "").rfind("LibTorch " + GetParam() + ".", 0), 0u)
      << loaded.metadata.dump();

  OthelloNet expected(FixtureConfig());
  SetFixtureWeights(expected);
  torch::optim::AdamW adamw(expected->parameters(), FixtureAdamW());
  Train(expected, adamw, 2);
  ExpectClose(loaded.net->parameters(), expected->parameters(), "parameter");
  ExpectFixtureBuffers(loaded.net);

  torch::optim::AdamW restored(loaded.net->parameters(), FixtureAdamW());
  RestoreOptimizer(loaded, restored, path);
  const auto params = loaded.net->parameters();
  ASSERT_EQ(restored.state().size(), params.size());
  std::vector<torch::Tensor> got_avg, want_avg;
  const NamedTensors mine = OptimizerTensors(restored), theirs = OptimizerTensors(adamw);
  ASSERT_EQ(mine.size(), theirs.size());
  for (std::size_t i = 0; i < mine.size(); ++i) {
    ASSERT_EQ(mine[i].first, theirs[i].first);
    if (mine[i].first.size() > 5 && mine[i].first.substr(mine[i].first.size() - 5) == "/step") {
      EXPECT_EQ(mine[i].second.item<std::int64_t>(), 2) << mine[i].first;
      EXPECT_EQ(theirs[i].second.item<std::int64_t>(), 2) << theirs[i].first;
    } else {
      got_avg.push_back(mine[i].second);
      want_avg.push_back(theirs[i].second);
    }
  }
  ExpectClose(got_avg, want_avg, "optimizer moment");
  // One more step from the restored state lands where the uninterrupted run does.
  Train(loaded.net, restored, 1);
  Train(expected, adamw, 1);
  ExpectClose(loaded.net->parameters(), expected->parameters(), "parameter after a step");
}

INSTANTIATE_TEST_SUITE_P(LibTorch, CheckpointFromVersion, ::testing::Values("1.13", "2.6", "2.15"),
                         [](const auto& info) {
                           std::string name = "v" + info.param;
                           name[name.find('.')] = '_';
                           return name;
                         });

// Format 3 (LibTorch archives), written under LibTorch 1.13: read through LibTorch's own
// archive reader, whichever version this is built with.
TEST(CheckpointFromVersion13, Format3LoadsThroughLibTorchArchives) {
  const std::string path = kDataDir + "/checkpoint-v3-libtorch1.13.ckpt";
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  Checkpoint loaded = LoadCheckpoint(path, FixtureConfig());
  EXPECT_EQ(loaded.step, 333);
  ASSERT_TRUE(loaded.rules.has_value());
  EXPECT_EQ(*loaded.rules, FixtureRules());
  EXPECT_EQ(loaded.metadata.value("written_by", "").rfind("LibTorch 1.13.", 0), 0u);
  OthelloNet expected(FixtureConfig());
  SetFixtureWeights(expected);
  torch::optim::SGD sgd(expected->parameters(), FixtureSgd());
  Train(expected, sgd, 2);
  ExpectClose(loaded.net->parameters(), expected->parameters(), "parameter");
  ExpectFixtureBuffers(loaded.net);

  torch::optim::SGD restored(loaded.net->parameters(), FixtureSgd());
  RestoreOptimizer(loaded, restored, path);
  ASSERT_EQ(restored.state().size(), sgd.state().size());
  Train(loaded.net, restored, 1);
  Train(expected, sgd, 1);
  ExpectClose(loaded.net->parameters(), expected->parameters(), "parameter after a step");
}

}  // namespace
}  // namespace othello::nn
