// The project's tensor encoding (nn/tensor_io.h) and the optimizer state in it
// (nn/optimizer_state.h): round trips, and every malformed input refused by name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "core/error.h"
#include "nn/optimizer_state.h"
#include "nn/tensor_io.h"

namespace othello::nn {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TensorIo, RoundTripKeepsNamesTypesShapesAndValues) {
  const NamedTensors tensors = {{"w", torch::randn({3, 2, 1, 4})},
                                {"count", torch::tensor(static_cast<std::int64_t>(17))},
                                {"empty", torch::empty({0, 5})},
                                {"strided", torch::randn({4, 6}).t()}};
  const auto decoded = DecodeTensors(EncodeTensors(tensors), "t");
  ASSERT_EQ(decoded.size(), tensors.size());
  for (const auto& [name, tensor] : tensors) {
    SCOPED_TRACE(name);
    const torch::Tensor& d = decoded.at(name);
    EXPECT_EQ(d.scalar_type(), tensor.scalar_type());
    EXPECT_EQ(d.sizes(), tensor.sizes());
    EXPECT_TRUE(torch::equal(d, tensor));
  }
}

TEST(TensorIo, EveryTruncationAndStrayByteIsAClearError) {
  const std::string bytes =
      EncodeTensors({{"a", torch::randn({2, 3})}, {"b", torch::tensor(static_cast<std::int64_t>(5))}});
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THAT(ErrorOf([&] { DecodeTensors(bytes.substr(0, n), "f.ckpt"); }), HasSubstr("f.ckpt"))
        << n << " bytes";
  }
  EXPECT_THAT(ErrorOf([&] { DecodeTensors(bytes + "x", "f"); }), HasSubstr("1 unexpected bytes"));
  std::string twice = EncodeTensors({{"a", torch::ones({1})}, {"a", torch::ones({1})}});
  EXPECT_THAT(ErrorOf([&] { DecodeTensors(twice, "f"); }), HasSubstr("tensor a appears twice"));
  // A count far beyond the bytes: refused when the bytes run out, nothing allocated first.
  std::string many = bytes;
  const std::uint32_t count = 0xffffffff;
  std::memcpy(&many[0], &count, 4);
  EXPECT_THAT(ErrorOf([&] { DecodeTensors(many, "f"); }), HasSubstr("truncated"));
}

torch::nn::Linear SmallNet() { return torch::nn::Linear(3, 2); }

TEST(TensorIo, ModulesLoadOnlyTheirOwnTensors) {
  torch::nn::Linear source = SmallNet(), target = SmallNet();
  const std::string bytes = EncodeTensors(ModuleTensors(*source));
  LoadModuleTensors(*target, DecodeTensors(bytes, "f"), "f");
  EXPECT_TRUE(torch::equal(source->weight, target->weight));
  EXPECT_TRUE(torch::equal(source->bias, target->bias));

  auto tensors = DecodeTensors(bytes, "f");
  tensors.erase("bias");
  EXPECT_THAT(ErrorOf([&] { LoadModuleTensors(*target, tensors, "f"); }),
              HasSubstr("tensor bias is missing"));
  tensors = DecodeTensors(bytes, "f");
  tensors["weight"] = torch::zeros({2, 4});
  EXPECT_THAT(ErrorOf([&] { LoadModuleTensors(*target, tensors, "f"); }),
              HasSubstr("tensor weight is float32 [2, 4], the network needs float32 [2, 3]"));
  tensors = DecodeTensors(bytes, "f");
  tensors["extra"] = torch::zeros({1});
  EXPECT_THAT(ErrorOf([&] { LoadModuleTensors(*target, tensors, "f"); }),
              HasSubstr("holds tensor extra"));
}

// Two optimizers on equal nets take one step each from equal gradients.
template <typename Optimizer>
void Step(torch::nn::Linear& net, Optimizer& optimizer) {
  torch::manual_seed(11);
  optimizer.zero_grad();
  net->forward(torch::randn({5, 3})).pow(2).sum().backward();
  optimizer.step();
}

template <typename Optimizer, typename Options>
void ExpectTheSameNextStep(const Options& options) {
  torch::manual_seed(5);
  torch::nn::Linear net = SmallNet(), copy = SmallNet();
  Optimizer optimizer(net->parameters(), options);
  Step(net, optimizer);
  Step(net, optimizer);
  {
    torch::NoGradGuard no_grad;
    copy->weight.copy_(net->weight);
    copy->bias.copy_(net->bias);
  }
  Optimizer restored(copy->parameters(), options);
  const std::string saved = EncodeTensors(OptimizerTensors(optimizer));
  LoadOptimizerTensors(restored, DecodeTensors(saved, "f"), "f");
  Step(net, optimizer);
  Step(copy, restored);
  EXPECT_TRUE(torch::allclose(net->weight, copy->weight, 0, 1e-7));
  EXPECT_TRUE(torch::allclose(net->bias, copy->bias, 0, 1e-7));
  // Without the state the step differs (so the check above means something).
  torch::nn::Linear fresh_net = SmallNet();
  {
    torch::NoGradGuard no_grad;
    fresh_net->weight.copy_(copy->weight);
    fresh_net->bias.copy_(copy->bias);
  }
  Optimizer fresh(fresh_net->parameters(), options);
  Step(copy, restored);
  Step(fresh_net, fresh);
  EXPECT_FALSE(torch::allclose(copy->weight, fresh_net->weight, 0, 1e-7));
}

TEST(OptimizerState, SgdMomentumComesBack) {
  ExpectTheSameNextStep<torch::optim::SGD>(torch::optim::SGDOptions(0.1).momentum(0.9));
}

TEST(OptimizerState, AdamAndAdamWMomentsComeBack) {
  ExpectTheSameNextStep<torch::optim::Adam>(torch::optim::AdamOptions(0.01));
  ExpectTheSameNextStep<torch::optim::AdamW>(torch::optim::AdamWOptions(0.01).amsgrad(true));
}

TEST(OptimizerState, AStateThatDoesNotFitIsRefusedAndKeepsTheOldOne) {
  torch::nn::Linear net = SmallNet();
  torch::optim::AdamW adamw(net->parameters(), torch::optim::AdamWOptions(0.01));
  Step(net, adamw);
  const auto saved = DecodeTensors(EncodeTensors(OptimizerTensors(adamw)), "f");
  torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  EXPECT_THAT(ErrorOf([&] { LoadOptimizerTensors(sgd, saved, "run.ckpt"); }),
              HasSubstr("run.ckpt: optimizer state: saved for adamw, this run's optimizer is sgd"));

  torch::optim::AdamW other(net->parameters(), torch::optim::AdamWOptions(0.01));
  Step(net, other);
  const auto before = DecodeTensors(EncodeTensors(OptimizerTensors(other)), "f");
  auto bad = saved;
  bad["adamw/7/exp_avg"] = torch::zeros({2});
  EXPECT_THAT(ErrorOf([&] { LoadOptimizerTensors(other, bad, "f"); }),
              HasSubstr("entry adamw/7/exp_avg names no parameter of the network (2 parameters)"));
  bad = saved;
  bad["adamw/0/velocity"] = torch::zeros({2, 3});
  EXPECT_THAT(ErrorOf([&] { LoadOptimizerTensors(other, bad, "f"); }),
              HasSubstr("adamw keeps no field velocity"));
  bad = saved;
  bad["adamw/1/exp_avg"] = torch::zeros({7});
  EXPECT_THAT(ErrorOf([&] { LoadOptimizerTensors(other, bad, "f"); }),
              HasSubstr("adamw/1/exp_avg does not have its parameter's type and shape"));
  bad = saved;
  bad["adamw/0/step"] = torch::tensor(-3, torch::kInt64);
  EXPECT_THAT(ErrorOf([&] { LoadOptimizerTensors(other, bad, "f"); }), HasSubstr("not a count"));
  bad = saved;
  bad.erase("adamw/0/step");
  EXPECT_THAT(ErrorOf([&] { LoadOptimizerTensors(other, bad, "f"); }),
              HasSubstr("adamw/0/step is missing"));
  const auto after = DecodeTensors(EncodeTensors(OptimizerTensors(other)), "f");
  ASSERT_EQ(after.size(), before.size());
  for (const auto& [name, tensor] : before) EXPECT_TRUE(torch::equal(after.at(name), tensor)) << name;
}

}  // namespace
}  // namespace othello::nn
