#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/checksum.h"
#include "core/error.h"
#include "core/rules.h"
#include "core/symmetry.h"
#include "mcts/batching_evaluator.h"
#include "mcts/eval_cache.h"
#include "mcts/search.h"
#include "nn/binary_io.h"
#include "tests/nn/legacy_checkpoint.h"
#include "nn/checkpoint.h"
#include "nn/encoding.h"
#include "nn/inference.h"
#include "nn/loss.h"
#include "nn/tensor_io.h"
#include "tests/nn/test_nets.h"

namespace othello::nn {
namespace {

using ::testing::HasSubstr;

NetConfig Tiny() { return test::TinyNet(); }

using test::RandomPositions;

torch::Tensor Encode(const std::vector<core::Position>& positions) {
  const int size = positions[0].size();
  torch::Tensor input =
      torch::empty({static_cast<long>(positions.size()), kInputPlanes, size, size});
  for (std::size_t i = 0; i < positions.size(); ++i) {
    EncodePosition(positions[i], input.data_ptr<float>() + i * kInputPlanes * size * size);
  }
  return input;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("oz_nn_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(Encoding, AgreesWithTheCoreSymmetries) {
  for (int size : {6, 8, 10}) {
    for (const core::Position& pos : RandomPositions(10, size, 1)) {
      const std::vector<float> base = EncodePosition(pos);
      const int area = size * size;
      for (int s = 0; s < core::kNumSymmetries; ++s) {
        const std::vector<float> t = EncodePosition(core::TransformPosition(pos, s));
        for (int p = 0; p < kInputPlanes; ++p) {
          for (int sq = 0; sq < area; ++sq) {
            ASSERT_EQ(t[p * area + core::TransformSquare(sq, size, s)], base[p * area + sq])
                << "size " << size << " symmetry " << s << " plane " << p;
          }
        }
      }
    }
  }
}

TEST(Encoding, PlanesHoldDiscsMovesAndMask) {
  const core::Position pos = core::Position::Standard(8);
  const std::vector<float> planes = EncodePosition(pos);
  EXPECT_EQ(planes.size(), static_cast<std::size_t>(kInputPlanes * 64));
  const auto count = [&](int p) {
    float sum = 0;
    for (int sq = 0; sq < 64; ++sq) sum += planes[p * 64 + sq];
    return sum;
  };
  EXPECT_EQ(count(0), 2);   // black's discs (to move)
  EXPECT_EQ(count(1), 2);
  EXPECT_EQ(count(2), 4);   // black's moves
  EXPECT_EQ(count(3), 4);   // white's moves
  EXPECT_EQ(count(4), 64);  // the board mask
  EXPECT_EQ(count(5), 64);
}

TEST(Model, OneNetServesEveryBoardSize) {
  OthelloNet net(Tiny());
  net->eval();
  torch::NoGradGuard no_grad;
  for (int size : {6, 8, 10}) {
    const NetOutput out = net->forward(Encode(RandomPositions(3, size, 2)));
    EXPECT_EQ(out.policy_logits.sizes(), (std::vector<long>{3, size * size + 1}));
    EXPECT_EQ(out.wdl_logits.sizes(), (std::vector<long>{3, 3}));
    EXPECT_EQ(out.ownership.sizes(), (std::vector<long>{3, size * size}));
    EXPECT_EQ(out.disc_difference.sizes(), (std::vector<long>{3}));
  }
}

TEST(Model, TinyNetOverfitsAFixedBatch) {
  torch::manual_seed(0);
  OthelloNet net(Tiny());
  const std::vector<core::Position> positions = RandomPositions(16, 8, 3);
  const torch::Tensor input = Encode(positions);
  TrainingTargets targets;
  targets.policy = torch::zeros({16, 65});
  targets.wdl = torch::zeros({16, 3});
  targets.ownership = torch::zeros({16, 64});
  targets.disc_difference = torch::zeros({16});
  targets.policy_weight = torch::ones({16});
  for (int i = 0; i < 16; ++i) {
    const core::Bitboard legal = positions[i].LegalMoves();
    targets.policy[i][legal ? core::LowestSquare(legal) : 64] = 1.0f;  // one-hot
    targets.wdl[i][i % 3] = 1.0f;
    targets.disc_difference[i] = (i % 5 - 2) / 10.0f;
  }
  torch::optim::Adam optimizer(net->parameters(), torch::optim::AdamOptions(3e-3));
  net->train();
  float first = 0, last = 0;
  for (int step = 0; step < 300; ++step) {
    optimizer.zero_grad();
    const LossTerms loss = ComputeLoss(net->forward(input), targets);
    loss.total.backward();
    optimizer.step();
    if (step == 0) first = loss.total.item<float>();
    last = loss.policy.item<float>() + loss.value.item<float>();
  }
  EXPECT_LT(last, 0.1f) << "initial loss " << first;
}

// The grown net computes what the small one did, in inference and with batch statistics,
// with or without batch norm; its new blocks then learn.
TEST(Model, AGrownNetComputesWhatTheSmallOneDid) {
  torch::manual_seed(3);
  for (bool batch_norm : {true, false}) {
    OthelloNet net(Tiny());
    net->SetBatchNorm(batch_norm);
    {  // running statistics away from 0 and 1, as after training
      torch::NoGradGuard no_grad;
      for (auto& item : net->named_buffers()) {
        if (item.key().find("running_mean") != std::string::npos) item.value().uniform_(-0.5, 0.5);
        if (item.key().find("running_var") != std::string::npos) item.value().uniform_(0.5, 2.0);
      }
    }
    OthelloNet grown = GrowNet(net, Tiny().blocks + 2);
    EXPECT_EQ(grown->config().blocks, Tiny().blocks + 2);
    EXPECT_EQ(grown->batch_norm(), batch_norm);
    const torch::Tensor input = Encode(RandomPositions(8, 8, 4));
    for (bool train : {false, true}) {
      net->train(train);
      grown->train(train);
      torch::NoGradGuard no_grad;
      const NetOutput a = net->forward(input), b = grown->forward(input);
      EXPECT_TRUE(torch::allclose(a.policy_logits, b.policy_logits, 1e-5, 1e-6)) << train;
      EXPECT_TRUE(torch::allclose(a.wdl_logits, b.wdl_logits, 1e-5, 1e-6)) << train;
      EXPECT_TRUE(torch::allclose(a.ownership, b.ownership, 1e-5, 1e-6)) << train;
    }
    grown->train();
    ComputeLoss(grown->forward(input), [&] {
      TrainingTargets t;
      t.policy = torch::full({8, 65}, 1.0f / 65);
      t.policy_weight = torch::ones({8});
      t.wdl = torch::full({8, 3}, 1.0f / 3);
      t.ownership = torch::zeros({8, 64});
      t.disc_difference = torch::zeros({8});
      return t;
    }()).total.backward();
    const std::string last = "block" + std::to_string(Tiny().blocks + 1) + ".bn2.weight";
    EXPECT_GT(grown->named_parameters()[last].grad().abs().sum().item<float>(), 0.0f);
  }
  OthelloNet net(Tiny());
  EXPECT_THROW(GrowNet(net, Tiny().blocks - 1), std::invalid_argument);
}

TEST(AuxHeads, ReadTheTrunkOnEveryBoardSize) {
  OthelloNet net(Tiny());
  AuxHeads aux(Tiny());
  net->eval();
  aux->eval();
  torch::NoGradGuard no_grad;
  for (int size : {6, 8, 10}) {
    torch::Tensor trunk;
    const torch::Tensor input = Encode(RandomPositions(3, size, 2));
    const NetOutput out = net->ForwardWithTrunk(input, trunk);
    EXPECT_TRUE(torch::equal(out.policy_logits, net->forward(input).policy_logits));
    const AuxOutput a = aux->forward(trunk);
    EXPECT_EQ(a.soft_policy_logits.sizes(), (std::vector<long>{3, size * size + 1}));
    EXPECT_EQ(a.reply_policy_logits.sizes(), (std::vector<long>{3, size * size + 1}));
    EXPECT_EQ(a.short_term.sizes(), (std::vector<long>{3, 2}));
    EXPECT_LE(a.short_term.abs().max().item<float>(), 1.0f);
  }
}

TEST(AuxHeads, TheSoftPolicyFlattensTheTarget) {
  const torch::Tensor policy = torch::tensor({{0.0f, 0.0625f, 0.9375f}, {0.0f, 0.0f, 0.0f}});
  const torch::Tensor soft = SoftPolicyTarget(policy);
  // 0.0625^0.25 = 0.5, 0.9375^0.25 = 0.98399: renormalised 0.33695 and 0.66305.
  EXPECT_NEAR(soft[0][0].item<float>(), 0.0f, 1e-6);
  EXPECT_NEAR(soft[0][1].item<float>(), 0.5f / 1.48399f, 1e-4);
  EXPECT_NEAR(soft[0][2].item<float>(), 0.98399f / 1.48399f, 1e-4);
  EXPECT_EQ(soft[1].sum().item<float>(), 0.0f);  // no target: stays zero
}

// Each term counts only where its target is valid, and only with a weight above 0.
TEST(AuxHeads, TheLossWeighsOnlyValidTargets) {
  AuxOutput out;
  out.soft_policy_logits = torch::zeros({2, 3});
  out.reply_policy_logits = torch::zeros({2, 3});
  out.short_term = torch::tensor({{0.5f, 0.5f}, {0.0f, 0.0f}});
  TrainingTargets t;
  t.policy = torch::tensor({{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}});
  t.policy_weight = torch::tensor({1.0f, 0.0f});
  t.reply_policy = torch::tensor({{0.0f, 0.0f, 1.0f}, {1.0f, 0.0f, 0.0f}});
  t.reply_weight = torch::tensor({0.0f, 1.0f});
  t.short_term = torch::tensor({{1.0f, -0.5f}, {0.9f, 0.9f}});
  t.short_term_weight = torch::tensor({1.0f, 0.0f});
  LossWeights w;
  EXPECT_FALSE(w.aux_heads());
  EXPECT_EQ(ComputeAuxLoss(out, t, w).item<float>(), 0.0f);
  w.soft_policy = 1;  // uniform logits over 3: ln 3 for the one valid row
  EXPECT_NEAR(ComputeAuxLoss(out, t, w).item<float>(), std::log(3.0f), 1e-5);
  w = LossWeights{};
  w.reply_policy = 2;
  EXPECT_NEAR(ComputeAuxLoss(out, t, w).item<float>(), 2 * std::log(3.0f), 1e-5);
  w = LossWeights{};
  w.short_term_value = 1;  // row 0: (0.25 + 1) / 2
  EXPECT_NEAR(ComputeAuxLoss(out, t, w).item<float>(), 0.625f, 1e-6);
  EXPECT_TRUE(w.aux_heads());
}

TEST(Checkpoint, RoundTripGivesIdenticalOutputsAndState) {
  torch::manual_seed(1);
  OthelloNet net(Tiny());
  torch::optim::Adam optimizer(net->parameters(), torch::optim::AdamOptions(1e-3));
  // One training step so that BN statistics and the optimizer state are non-trivial.
  const torch::Tensor input = Encode(RandomPositions(8, 8, 4));
  net->train();
  optimizer.zero_grad();
  net->forward(input).wdl_logits.sum().backward();
  optimizer.step();
  const std::string path = TempPath("roundtrip.ckpt");
  core::Rules rules;
  rules.size = 6;
  rules.anti = true;
  SaveCheckpoint(path, net, /*step=*/1234, &optimizer, rules, {{"run", 1}});
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

  Checkpoint loaded = LoadCheckpoint(path, Tiny());
  EXPECT_EQ(loaded.step, 1234);
  EXPECT_EQ(loaded.metadata, nlohmann::json({{"run", 1}}));
  ASSERT_TRUE(loaded.rules.has_value());
  EXPECT_EQ(*loaded.rules, rules);
  EXPECT_EQ(loaded.net->config(), Tiny());
  net->eval();
  loaded.net->eval();
  torch::NoGradGuard no_grad;
  const NetOutput a = net->forward(input), b = loaded.net->forward(input);
  EXPECT_TRUE(torch::equal(a.policy_logits, b.policy_logits));
  EXPECT_TRUE(torch::equal(a.wdl_logits, b.wdl_logits));
  EXPECT_TRUE(torch::equal(a.ownership, b.ownership));
  torch::optim::Adam restored(loaded.net->parameters(), torch::optim::AdamOptions(1e-3));
  RestoreOptimizer(loaded, restored, path);
  EXPECT_FALSE(loaded.optimizer_state.empty());
  // The restored optimizer takes the step the saved one takes (its moments came back:
  // a fresh Adam's first step differs).
  for (auto* n : {&net, &loaded.net}) {
    (*n)->train();
    (*n)->zero_grad();
  }
  {
    torch::AutoGradMode grad(true);
    net->forward(input).wdl_logits.sum().backward();
    loaded.net->forward(input).wdl_logits.sum().backward();
  }
  optimizer.step();
  restored.step();
  const auto after = net->parameters(), restored_after = loaded.net->parameters();
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_TRUE(torch::allclose(after[i], restored_after[i], 0, 1e-7)) << "parameter " << i;
  }
  std::filesystem::remove(path);
}

TEST(Checkpoint, AveragingGivesTheMeanOfTheWeightsAndStatistics) {
  torch::manual_seed(3);
  core::Rules rules;
  rules.size = 6;
  const torch::Tensor input = Encode(RandomPositions(8, 6, 5));
  std::vector<OthelloNet> nets;
  std::vector<std::string> paths;
  for (int i = 0; i < 3; ++i) {
    nets.emplace_back(Tiny());
    nets.back()->train();
    nets.back()->forward(input);  // BatchNorm statistics of their own
    paths.push_back(TempPath("average" + std::to_string(i) + ".ckpt"));
    SaveCheckpoint(paths.back(), nets.back(), /*step=*/100 + 10 * i, nullptr, rules);
  }
  // The newest (the largest step) need not come first.
  std::swap(paths[0], paths[1]);
  Checkpoint mean = AverageCheckpoints(paths);
  EXPECT_EQ(mean.step, 120);
  ASSERT_TRUE(mean.rules.has_value());
  EXPECT_EQ(*mean.rules, rules);
  EXPECT_TRUE(mean.optimizer_state.empty());
  const NamedTensors got = ModuleTensors(*mean.net);
  const NamedTensors a = ModuleTensors(*nets[0]), b = ModuleTensors(*nets[1]),
                     c = ModuleTensors(*nets[2]);
  int floats = 0, integers = 0;
  for (std::size_t t = 0; t < got.size(); ++t) {
    if (got[t].second.is_floating_point()) {
      EXPECT_TRUE(torch::allclose(got[t].second, (a[t].second + b[t].second + c[t].second) / 3,
                                  1e-6, 1e-7))
          << got[t].first;
      ++floats;
    } else {
      EXPECT_TRUE(torch::equal(got[t].second, c[t].second)) << got[t].first;  // the newest's
      ++integers;
    }
  }
  EXPECT_GT(floats, 0);
  EXPECT_GT(integers, 0);  // BatchNorm's batch counts
  // One checkpoint alone is itself.
  Checkpoint one = AverageCheckpoints({paths[2]});
  const NamedTensors alone = ModuleTensors(*one.net);
  for (std::size_t t = 0; t < alone.size(); ++t) {
    EXPECT_TRUE(torch::equal(alone[t].second, c[t].second)) << alone[t].first;
  }

  // Another net or other rules than the first's: an error naming the file.
  NetConfig wider = Tiny();
  wider.channels = 24;
  OthelloNet other(wider);
  const std::string other_path = TempPath("average-other.ckpt");
  SaveCheckpoint(other_path, other, 130, nullptr, rules);
  EXPECT_THAT([&] { AverageCheckpoints({paths[0], other_path}); },
              ::testing::ThrowsMessage<core::InputError>(HasSubstr(other_path)));
  core::Rules eight;
  SaveCheckpoint(other_path, nets[0], 130, nullptr, eight);
  EXPECT_THAT([&] { AverageCheckpoints({paths[0], other_path}); },
              ::testing::ThrowsMessage<core::InputError>(
                  ::testing::AllOf(HasSubstr(other_path), HasSubstr("only checkpoints of one run"))));
  EXPECT_THROW(AverageCheckpoints({}), core::InputError);
  for (const std::string& p : paths) std::filesystem::remove(p);
  std::filesystem::remove(other_path);
}

TEST(Checkpoint, BrokenFilesGiveClearErrors) {
  OthelloNet net(Tiny());
  const std::string path = TempPath("broken.ckpt");
  SaveCheckpoint(path, net, 7);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto write = [&](const std::string& data) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
  };
  const auto error = [&](const std::optional<NetConfig>& expected = std::nullopt) {
    try {
      LoadCheckpoint(path, expected);
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };

  std::string corrupted = bytes;
  corrupted[bytes.size() / 2] ^= 0x55;
  write(corrupted);
  EXPECT_THAT(error(), HasSubstr("corrupted: checksum mismatch"));
  EXPECT_THAT(error(), HasSubstr(path));

  write(bytes.substr(0, bytes.size() - 100));
  EXPECT_THAT(error(), HasSubstr("truncated"));
  write(bytes.substr(0, 20));
  EXPECT_THAT(error(), HasSubstr("truncated"));
  write("hello, world, not a checkpoint at all");
  EXPECT_THAT(error(), HasSubstr("not an othello-zero checkpoint"));
  std::string versioned = bytes;
  versioned[8] = 7;
  write(versioned);
  EXPECT_THAT(error(), HasSubstr("format version 7; this build reads versions 1-4"));

  write(bytes);
  NetConfig wider = Tiny();
  wider.channels = 32;
  EXPECT_THAT(error(wider), HasSubstr("network configuration differs: channels: 16 (expected 32)"));
  EXPECT_EQ(error(Tiny()), "no error");

  std::filesystem::remove(path);
  EXPECT_THAT(error(), HasSubstr("cannot be opened"));
}

// The checksum of a version 3 or 4 file (CRC-32 of all but its own field), for crafted files.
void Reseal(std::string& file) {
  const std::uint64_t sum = core::Crc32(file.substr(72), core::Crc32(file.substr(0, 64)));
  std::memcpy(&file[64], &sum, 8);
}

// The error a crafted checkpoint gives once its checksum is made right.
std::string CraftedError(std::string file) {
  Reseal(file);
  try {
    ParseCheckpoint(file, "crafted.ckpt");
  } catch (const core::InputError& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

TEST(Checkpoint, CraftedHeadersWithARightChecksumAreRefused) {
  const auto error = CraftedError;
  OthelloNet net(Tiny());
  const std::string bytes = SerializeCheckpoint(net, 7, nullptr, core::Rules{}, {{"k", 1}});
  EXPECT_EQ(error(bytes), "no error");
  const auto with = [&](std::size_t offset, std::uint64_t value) {
    std::string file = bytes;
    std::memcpy(&file[offset], &value, 8);
    return file;
  };
  // Section sizes beyond the file, and sizes whose sum wraps around.
  EXPECT_THAT(error(with(40, bytes.size())), HasSubstr("truncated"));
  EXPECT_THAT(error(with(48, ~0ull)), HasSubstr("truncated"));
  EXPECT_THAT(error(with(56, ~0ull - 100)), HasSubstr("truncated"));
  // A configuration far larger than its weights: refused before allocating it.
  std::string huge = bytes;
  const std::int32_t big[5] = {64, 1024, 2, 256, 1024};
  std::memcpy(&huge[12], big, sizeof big);
  EXPECT_THAT(error(huge), HasSubstr("cannot hold the network"));
  EXPECT_THAT(error(with(32, ~0ull)), HasSubstr("negative training step"));
  // Metadata that is not JSON, and rules that are not rules.
  std::string meta = bytes;
  meta.replace(meta.size() - 5, 3, "!!!");
  EXPECT_THAT(error(meta), HasSubstr("bad metadata"));
  const std::string odd = SerializeCheckpoint(net, 7, nullptr, std::nullopt,
                                              {{"rules", {{"size", 7}, {"start", "standard"}, {"anti", false}}}});
  EXPECT_THAT(error(odd), HasSubstr("rules: board size 7 is not supported"));
}

TEST(Checkpoint, FilesOfEarlierVersionsStillLoad) {
  torch::manual_seed(3);
  OthelloNet net(Tiny());
  torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  net->zero_grad();
  net->forward(Encode(RandomPositions(4, 8, 9))).wdl_logits.sum().backward();
  sgd.step();
  const nlohmann::json metadata = {
      {"rng", {1, 2, 3, 4}},
      {"rules", {{"size", 6}, {"start", "standard"}, {"anti", false}, {"empties_to_winner", true}}}};
  for (std::uint32_t version : {1u, 2u, 3u}) {
    SCOPED_TRACE("version " + std::to_string(version));
    const Checkpoint loaded =
        ParseCheckpoint(LegacyCheckpoint(net, 42, version, &sgd, metadata), "old.ckpt", Tiny());
    EXPECT_EQ(loaded.step, 42);
    EXPECT_EQ(loaded.rules.has_value(), version >= 2);
    if (version >= 2) {
      EXPECT_EQ(loaded.rules->size, 6);
      EXPECT_EQ(loaded.metadata["rng"].size(), 4u);
    }
    const auto a = net->parameters(), b = loaded.net->parameters();
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i]));
    torch::optim::SGD restored(loaded.net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    RestoreOptimizer(loaded, restored, "old.ckpt");
    EXPECT_EQ(restored.state().size(), sgd.state().size());
  }
}

TEST(Checkpoint, CraftedTensorSectionsWithARightChecksumAreRefused) {
  OthelloNet net(Tiny());
  const std::string bytes = SerializeCheckpoint(net, 7);
  const std::uint64_t weight_bytes = Get<std::uint64_t>(bytes, 40);
  const auto error = CraftedError;
  // The first tensor's name length, then its first size: the file's own values work.
  const std::uint32_t name_bytes = Get<std::uint32_t>(bytes, 76);
  const std::size_t first_size = 72 + 4 + 4 + name_bytes + 2;
  std::string file = bytes;
  const std::int64_t huge = 1ll << 40;
  std::memcpy(&file[first_size], &huge, 8);
  EXPECT_THAT(error(file), HasSubstr("does not fit the data"));
  file = bytes;
  const std::uint32_t long_name = 100000;
  std::memcpy(&file[76], &long_name, 4);
  EXPECT_THAT(error(file), HasSubstr("a tensor name of 100000 bytes"));
  file = bytes;
  file[first_size - 2] = 9;  // the type
  EXPECT_THAT(error(file), HasSubstr("unknown type 9"));
  file = bytes;
  file[first_size - 1] = 1;  // rank 1 where it is 4: the shape no longer fits the net
  EXPECT_THAT(error(file), HasSubstr("crafted.ckpt: weights"));
  // A weights section one tensor short.
  file = bytes;
  const std::uint32_t count = Get<std::uint32_t>(bytes, 72) - 1;
  std::memcpy(&file[72], &count, 4);
  EXPECT_THAT(error(file), HasSubstr("unexpected bytes after the tensors"));
  EXPECT_GT(weight_bytes, 0u);
}

TEST(Inference, EvaluatorGivesProbabilitiesMatchingTheRawForwardPass) {
  torch::manual_seed(2);
  OthelloNet net(Tiny());
  EvaluatorOptions options;
  options.device = "cpu";
  options.backend = "torch";
  options.max_batch = 8;
  EvaluatorLayers layers;
  const std::shared_ptr<mcts::Evaluator> evaluator =
      MakeEvaluator(net, core::Rules{}, 0, options, &layers);
  TorchNet raw_net(net, options);
  const std::vector<core::Position> positions = RandomPositions(20, 8, 5);
  mcts::EvalBatch batch;
  for (const auto& p : positions) batch.Add(p);
  evaluator->Evaluate(batch);
  std::vector<const core::Position*> raw_positions;
  std::vector<mcts::EvalOutput> raw(positions.size());
  std::vector<mcts::EvalOutput*> raw_outputs;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    raw_positions.push_back(&positions[i]);
    raw_outputs.push_back(&raw[i]);
  }
  raw_net.Forward(raw_positions, raw_outputs);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const mcts::EvalOutput& o = batch.output(static_cast<int>(i));
    float sum = 0;
    for (int a = 0; a <= 64; ++a) sum += o.policy[a];
    EXPECT_NEAR(sum, 1.0f, 1e-4);
    EXPECT_NEAR(o.win + o.draw + o.loss, 1.0f, 1e-5);
    EXPECT_NEAR(o.policy[19], raw[i].policy[19], 1e-5);
    EXPECT_NEAR(o.win, raw[i].win, 1e-5);
  }
  ASSERT_NE(layers.batcher, nullptr);
  EXPECT_EQ(layers.backend, "torch");
  EXPECT_EQ(layers.device, "cpu");
  EXPECT_EQ(layers.precision, "fp32");
  EXPECT_GE(layers.batcher->backend_calls(), 3u);  // 20 positions, batches of 8
}

TEST(Inference, RandomSymmetryMapsOutputsBack) {
  torch::manual_seed(3);
  OthelloNet net(Tiny());
  EvaluatorOptions options;
  options.device = "cpu";
  options.backend = "torch";
  options.random_symmetry = true;
  const std::shared_ptr<mcts::Evaluator> evaluator = MakeEvaluator(net, core::Rules{}, 0, options);
  const core::Position pos = RandomPositions(1, 8, 6)[0];
  // The 8 possible answers: the net on each symmetric form, mapped back.
  std::vector<mcts::EvalOutput> expected(8);
  for (int s = 0; s < 8; ++s) {
    const core::Position t = core::TransformPosition(pos, s);
    mcts::EvalOutput out;
    TorchNet direct(net, options);
    direct.Forward({&t}, {&out});
    for (int sq = 0; sq < 64; ++sq) expected[s].policy[sq] = out.policy[core::TransformSquare(sq, 8, s)];
    expected[s].win = out.win;
  }
  std::set<int> seen;
  for (int trial = 0; trial < 40; ++trial) {
    mcts::EvalBatch batch;
    batch.Add(pos);
    evaluator->Evaluate(batch);
    int match = -1;
    for (int s = 0; s < 8 && match < 0; ++s) {
      bool same = std::abs(batch.output(0).win - expected[s].win) < 1e-5;
      for (int sq = 0; sq < 64 && same; ++sq) {
        same = std::abs(batch.output(0).policy[sq] - expected[s].policy[sq]) < 1e-5;
      }
      if (same) match = s;
    }
    ASSERT_GE(match, 0) << "an output that is no symmetric evaluation mapped back";
    seen.insert(match);
  }
  EXPECT_GT(seen.size(), 3u);
}

TEST(Inference, CacheAndSearchIntegration) {
  OthelloNet net(Tiny());
  EvaluatorOptions options;
  options.device = "cpu";
  options.backend = "torch";
  TorchNet torch_net(net, options);
  mcts::FunctionEvaluator network([&](const auto& positions, const auto& outputs) {
    torch_net.Forward(positions, outputs);
  });
  mcts::CachingEvaluator evaluator(network, 1 << 12, options.cache_canonical);
  mcts::SearchParams params;
  params.solver_empties = 0;
  params.threads = 2;
  params.leaves_per_batch = 4;
  mcts::Tree tree(core::Position::Standard(8), 1 << 16);
  mcts::TreeSearch search(tree, evaluator, params, 1);
  mcts::SearchLimits limits;
  limits.playouts = 200;
  const mcts::SearchResult r = mcts::RunSearch(search, evaluator, limits);
  EXPECT_EQ(r.playouts, 200u);
  mcts::EvalBatch batch;
  batch.Add(core::Position::Standard(8));
  evaluator.Evaluate(batch);
  EXPECT_GT(evaluator.cache().hits(), 0u);  // the root was evaluated before
}

TEST(Inference, DevicesAndPrecisions) {
  OthelloNet net(Tiny());
  EvaluatorOptions options;
  options.device = "tpu";
  EXPECT_THROW(TorchNet(net, options), core::InputError);
  EXPECT_THROW(MakeEvaluator(net, core::Rules{}, 0, options), core::InputError);
  options.device = "cpu";
  options.precision = "bf16";
  EXPECT_THROW(TorchNet(net, options), core::InputError);  // CPU runs fp32
  options.precision = "fp8";
  EXPECT_THROW(TorchNet(net, options), core::InputError);
  options.precision = "auto";
  options.backend = "onnx";
  EXPECT_THROW(MakeEvaluator(net, core::Rules{}, 0, options), core::InputError);
  if (!torch::cuda::is_available()) {
    EXPECT_THROW(ResolveDevice("cuda"), core::InputError);
    EXPECT_EQ(ResolveDevice("auto"), torch::Device(torch::kCPU));
    GTEST_SKIP() << "no CUDA device: the CUDA path is not exercised here";
  }
  for (const char* precision : {"fp32", "fp16", "bf16"}) {
    options.device = "cuda";
    options.precision = precision;
    const std::shared_ptr<mcts::Evaluator> evaluator = MakeEvaluator(net, core::Rules{}, 0, options);
    mcts::EvalBatch batch;
    batch.Add(core::Position::Standard(8));
    evaluator->Evaluate(batch);
    EXPECT_NEAR(batch.output(0).win + batch.output(0).draw + batch.output(0).loss, 1.0f, 1e-2)
        << precision;
  }
}

}  // namespace
}  // namespace othello::nn
