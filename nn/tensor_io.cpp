#include "nn/tensor_io.h"

#include <cstdint>
#include <cstring>
#include <set>

#include "core/error.h"
#include "nn/binary_io.h"

namespace othello::nn {
namespace {

constexpr std::uint8_t kFloat32 = 1, kInt64 = 2;
constexpr std::size_t kMaxName = 256;
constexpr int kMaxRank = 4;

[[noreturn]] void FailTensor(const std::string& where, const std::string& what) {
  throw core::InputError(where + ": " + what);
}

std::string ShapeText(at::IntArrayRef sizes) {
  std::string text = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

std::string TypeName(std::uint8_t type) { return type == kFloat32 ? "float32" : "int64"; }

std::uint8_t TypeOf(const torch::Tensor& t) {
  if (t.scalar_type() == torch::kFloat32) return kFloat32;
  if (t.scalar_type() == torch::kInt64) return kInt64;
  throw std::invalid_argument(std::string("EncodeTensors: unsupported tensor type ") +
                              c10::toString(t.scalar_type()));
}

// Reads from a byte string, checking that each read lies inside it.
class Reader {
 public:
  Reader(std::string_view bytes, const std::string& where) : bytes_(bytes), where_(where) {}

  template <typename T>
  T Read(const char* what) {
    Need(sizeof(T), what);
    const T value = Get<T>(bytes_, offset_);
    offset_ += sizeof(T);
    return value;
  }
  std::string_view Take(std::size_t n, const std::string& what) {
    Need(n, what);
    const std::string_view part = bytes_.substr(offset_, n);
    offset_ += n;
    return part;
  }
  std::size_t left() const { return bytes_.size() - offset_; }

 private:
  void Need(std::size_t n, const std::string& what) const {
    if (n > left()) {
      FailTensor(where_, "truncated: " + what + " needs " + std::to_string(n) + " bytes, " +
                             std::to_string(left()) + " remain");
    }
  }
  std::string_view bytes_;
  std::size_t offset_ = 0;
  const std::string& where_;
};

std::pair<std::string, torch::Tensor> DecodeOne(Reader& in, const std::string& where) {
  const auto name_bytes = in.Read<std::uint32_t>("a tensor name's length");
  if (name_bytes == 0 || name_bytes > kMaxName) {
    FailTensor(where, "a tensor name of " + std::to_string(name_bytes) + " bytes (1 to " +
                          std::to_string(kMaxName) + " allowed)");
  }
  std::string name(in.Take(name_bytes, "a tensor name"));
  const auto type = in.Read<std::uint8_t>("a tensor type");
  if (type != kFloat32 && type != kInt64) {
    FailTensor(where, "tensor " + name + ": unknown type " + std::to_string(type));
  }
  const auto rank = in.Read<std::uint8_t>("a tensor rank");
  if (rank > kMaxRank) FailTensor(where, "tensor " + name + ": rank " + std::to_string(rank) + " (at most 4)");
  const std::size_t element = type == kFloat32 ? 4 : 8;
  std::vector<std::int64_t> sizes;
  std::size_t count = 1;
  for (int d = 0; d < rank; ++d) {
    const auto size = in.Read<std::int64_t>("a tensor size");
    // Each size is bounded by what remains, so the product cannot overflow.
    if (size < 0 || static_cast<std::uint64_t>(size) > in.left()) {
      FailTensor(where, "tensor " + name + ": size " + std::to_string(size) + " does not fit the data");
    }
    sizes.push_back(size);
    count *= static_cast<std::size_t>(size);
    if (count > in.left() / element) {
      FailTensor(where, "tensor " + name + " " + ShapeText(sizes) + " is larger than the data left (" +
                            std::to_string(in.left()) + " bytes)");
    }
  }
  const std::string_view values = in.Take(count * element, "tensor " + name + "'s values");
  torch::Tensor tensor = torch::empty(sizes, type == kFloat32 ? torch::kFloat32 : torch::kInt64);
  if (!values.empty()) std::memcpy(tensor.data_ptr(), values.data(), values.size());
  return {std::move(name), std::move(tensor)};
}

}  // namespace

std::string EncodeTensors(const NamedTensors& tensors) {
  std::string out;
  Put<std::uint32_t>(out, static_cast<std::uint32_t>(tensors.size()));
  for (const auto& [name, tensor] : tensors) {
    const std::uint8_t type = TypeOf(tensor);
    const torch::Tensor values = tensor.detach().to(torch::kCPU).contiguous();
    Put<std::uint32_t>(out, static_cast<std::uint32_t>(name.size()));
    out += name;
    Put<std::uint8_t>(out, type);
    Put<std::uint8_t>(out, static_cast<std::uint8_t>(values.dim()));
    for (std::int64_t size : values.sizes()) Put<std::int64_t>(out, size);
    if (values.numel() > 0) {
      out.append(static_cast<const char*>(values.data_ptr()), values.numel() * values.element_size());
    }
  }
  return out;
}

std::map<std::string, torch::Tensor> DecodeTensors(std::string_view bytes, const std::string& where) {
  Reader in(bytes, where);
  const auto count = in.Read<std::uint32_t>("the tensor count");
  std::map<std::string, torch::Tensor> tensors;
  for (std::uint32_t i = 0; i < count; ++i) {
    auto [name, tensor] = DecodeOne(in, where);
    if (!tensors.emplace(name, std::move(tensor)).second) {
      FailTensor(where, "tensor " + name + " appears twice");
    }
  }
  if (in.left() > 0) FailTensor(where, std::to_string(in.left()) + " unexpected bytes after the tensors");
  return tensors;
}

NamedTensors ModuleTensors(torch::nn::Module& module) {
  NamedTensors tensors;
  for (const auto& item : module.named_parameters()) tensors.emplace_back(item.key(), item.value());
  for (const auto& item : module.named_buffers()) tensors.emplace_back(item.key(), item.value());
  return tensors;
}

void LoadModuleTensors(torch::nn::Module& module, const std::map<std::string, torch::Tensor>& tensors,
                       const std::string& where) {
  torch::NoGradGuard no_grad;
  std::set<std::string> used;
  for (auto& [name, target] : ModuleTensors(module)) {
    const auto it = tensors.find(name);
    if (it == tensors.end()) FailTensor(where, "tensor " + name + " is missing");
    const torch::Tensor& source = it->second;
    if (source.scalar_type() != target.scalar_type() || source.sizes() != target.sizes()) {
      FailTensor(where, "tensor " + name + " is " + TypeName(TypeOf(source)) + " " +
                            ShapeText(source.sizes()) + ", the network needs " +
                            TypeName(TypeOf(target)) + " " + ShapeText(target.sizes()));
    }
    target.copy_(source);
    used.insert(name);
  }
  for (const auto& [name, tensor] : tensors) {
    if (!used.count(name)) FailTensor(where, "holds tensor " + name + ", which the network does not have");
  }
}

}  // namespace othello::nn
