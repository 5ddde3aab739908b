#include "nn/optimizer_state.h"

#include <algorithm>
#include <sstream>
#include <type_traits>

#include "core/error.h"

namespace othello::nn {
namespace {

[[noreturn]] void FailState(const std::string& where, const std::string& what) {
  throw core::InputError(where + ": optimizer state: " + what);
}

// The key LibTorch files a parameter's state under: the address of its TensorImpl, as
// text in LibTorch 1.x and as the pointer itself in 2.x.
template <typename State>
typename State::key_type StateKey(const torch::Tensor& parameter) {
  using Key = typename State::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream text;
    text << parameter.unsafeGetTensorImpl();
    return text.str();
  } else {
    return parameter.unsafeGetTensorImpl();
  }
}

auto Key(torch::optim::Optimizer& optimizer, const torch::Tensor& parameter) {
  return StateKey<std::decay_t<decltype(optimizer.state())>>(parameter);
}

std::vector<torch::Tensor> Parameters(torch::optim::Optimizer& optimizer) {
  std::vector<torch::Tensor> all;
  for (auto& group : optimizer.param_groups()) {
    for (auto& p : group.params()) all.push_back(p);
  }
  return all;
}

// Adam and AdamW keep the same fields in distinct types.
template <typename ParamState>
void PutAdam(NamedTensors& out, const std::string& prefix, ParamState& s) {
  out.emplace_back(prefix + "step", torch::tensor(static_cast<std::int64_t>(s.step())));
  out.emplace_back(prefix + "exp_avg", s.exp_avg());
  out.emplace_back(prefix + "exp_avg_sq", s.exp_avg_sq());
  if (s.max_exp_avg_sq().defined()) out.emplace_back(prefix + "max_exp_avg_sq", s.max_exp_avg_sq());
}

struct Entry {
  std::size_t index;
  std::string field;
};

// "kind/index/field" -> index and field, checked against the optimizer.
Entry ParseName(const std::string& name, const std::string& kind, std::size_t parameters,
                const std::string& where) {
  const std::size_t a = name.find('/'), b = name.find('/', a == std::string::npos ? a : a + 1);
  if (a == std::string::npos || b == std::string::npos) FailState(where, "bad entry name " + name);
  if (name.substr(0, a) != kind) {
    FailState(where, "saved for " + name.substr(0, a) + ", this run's optimizer is " + kind +
                         " (start the optimizer afresh by removing the checkpoint's state)");
  }
  const std::string digits = name.substr(a + 1, b - a - 1);
  if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(digits) >= parameters) {
    FailState(where, "entry " + name + " names no parameter of the network (" +
                         std::to_string(parameters) + " parameters)");
  }
  return {std::stoul(digits), name.substr(b + 1)};
}

// The saved tensor for one field, checked to have the parameter's shape.
torch::Tensor Moment(const std::map<std::string, torch::Tensor>& tensors, const std::string& name,
                     const torch::Tensor& parameter, const std::string& where) {
  const auto it = tensors.find(name);
  if (it == tensors.end()) FailState(where, name + " is missing");
  if (it->second.scalar_type() != torch::kFloat32 || it->second.sizes() != parameter.sizes()) {
    FailState(where, name + " does not have its parameter's type and shape");
  }
  return it->second.to(parameter.device());
}

using States = std::vector<std::pair<std::size_t, std::unique_ptr<torch::optim::OptimizerParamState>>>;

template <typename ParamState>
States ReadAdam(const std::vector<torch::Tensor>& params,
                const std::map<std::string, torch::Tensor>& tensors, const std::string& kind,
                const std::string& where) {
  States states;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string prefix = kind + "/" + std::to_string(i) + "/";
    const auto step = tensors.find(prefix + "step");
    if (step == tensors.end()) continue;
    if (step->second.scalar_type() != torch::kInt64 || step->second.dim() != 0 ||
        step->second.item<std::int64_t>() < 0) {
      FailState(where, prefix + "step is not a count");
    }
    auto state = std::make_unique<ParamState>();
    state->step(step->second.item<std::int64_t>());
    state->exp_avg(Moment(tensors, prefix + "exp_avg", params[i], where));
    state->exp_avg_sq(Moment(tensors, prefix + "exp_avg_sq", params[i], where));
    if (tensors.count(prefix + "max_exp_avg_sq")) {
      state->max_exp_avg_sq(Moment(tensors, prefix + "max_exp_avg_sq", params[i], where));
    }
    states.emplace_back(i, std::move(state));
  }
  return states;
}

States ReadSgd(const std::vector<torch::Tensor>& params,
               const std::map<std::string, torch::Tensor>& tensors, const std::string& where) {
  States states;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string name = "sgd/" + std::to_string(i) + "/momentum_buffer";
    if (!tensors.count(name)) continue;
    auto state = std::make_unique<torch::optim::SGDParamState>();
    state->momentum_buffer(Moment(tensors, name, params[i], where));
    states.emplace_back(i, std::move(state));
  }
  return states;
}

// Checks every entry's name and field before any tensor is read.
void CheckNames(const std::map<std::string, torch::Tensor>& tensors, const std::string& kind,
                std::size_t parameters, const std::string& where) {
  static const std::map<std::string, std::vector<std::string>> kFields = {
      {"sgd", {"momentum_buffer"}},
      {"adam", {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}},
      {"adamw", {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}}};
  const std::vector<std::string>& fields = kFields.at(kind);
  for (const auto& [name, tensor] : tensors) {
    const Entry entry = ParseName(name, kind, parameters, where);
    if (std::find(fields.begin(), fields.end(), entry.field) == fields.end()) {
      FailState(where, "entry " + name + ": " + kind + " keeps no field " + entry.field);
    }
    if (kind != "sgd" && entry.field != "step" &&
        !tensors.count(kind + "/" + std::to_string(entry.index) + "/step")) {
      FailState(where, kind + "/" + std::to_string(entry.index) + "/step is missing");
    }
  }
}

}  // namespace

std::string OptimizerKind(const torch::optim::Optimizer& optimizer) {
  if (dynamic_cast<const torch::optim::SGD*>(&optimizer)) return "sgd";
  if (dynamic_cast<const torch::optim::Adam*>(&optimizer)) return "adam";
  if (dynamic_cast<const torch::optim::AdamW*>(&optimizer)) return "adamw";
  throw std::invalid_argument("optimizer state: only SGD, Adam and AdamW are supported");
}

NamedTensors OptimizerTensors(torch::optim::Optimizer& optimizer) {
  const std::string kind = OptimizerKind(optimizer);
  const std::vector<torch::Tensor> params = Parameters(optimizer);
  auto& states = optimizer.state();
  NamedTensors out;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto it = states.find(Key(optimizer, params[i]));
    if (it == states.end()) continue;
    const std::string prefix = kind + "/" + std::to_string(i) + "/";
    if (auto* sgd = dynamic_cast<torch::optim::SGDParamState*>(it->second.get())) {
      if (sgd->momentum_buffer().defined()) out.emplace_back(prefix + "momentum_buffer", sgd->momentum_buffer());
    } else if (auto* adam = dynamic_cast<torch::optim::AdamParamState*>(it->second.get())) {
      PutAdam(out, prefix, *adam);
    } else if (auto* adamw = dynamic_cast<torch::optim::AdamWParamState*>(it->second.get())) {
      PutAdam(out, prefix, *adamw);
    }
  }
  return out;
}

void LoadOptimizerTensors(torch::optim::Optimizer& optimizer,
                          const std::map<std::string, torch::Tensor>& tensors,
                          const std::string& where) {
  const std::string kind = OptimizerKind(optimizer);
  const std::vector<torch::Tensor> params = Parameters(optimizer);
  CheckNames(tensors, kind, params.size(), where);
  torch::NoGradGuard no_grad;
  States states = kind == "sgd"    ? ReadSgd(params, tensors, where)
                  : kind == "adam" ? ReadAdam<torch::optim::AdamParamState>(params, tensors, kind, where)
                                   : ReadAdam<torch::optim::AdamWParamState>(params, tensors, kind, where);
  // Only now, with every entry read, is the optimizer's state replaced.
  optimizer.state().clear();
  for (auto& [index, state] : states) optimizer.state()[Key(optimizer, params[index])] = std::move(state);
}

}  // namespace othello::nn
