// Data-parallel training through c10d (training/distributed.h): a TCPStore for the
// rendezvous and the long barriers, and one Gloo or NCCL process group whose every
// collective is one flat buffer, waited on with the group's timeout. The c10d API
// differs between LibTorch 1.13 and 2.x: the process groups derive from ProcessGroup in
// 1.x and from Backend since 2.0, and TCPStore's libuv server (2.4's default) is not in
// every build; OZ_TORCH_AT_LEAST picks the right one.
#include "training/distributed.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/version.h>
#ifdef OZ_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef OZ_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "core/error.h"

#define OZ_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||     \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace othello::training {
namespace {

#if OZ_TORCH_AT_LEAST(2, 0)
using Collectives = c10d::Backend;  // ProcessGroupGloo and ProcessGroupNCCL since 2.0
#else
using Collectives = c10d::ProcessGroup;
#endif

constexpr const char* kVariables = "RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT";

// Milliseconds for a timeout in seconds (at least 1 ms, at most about 30 years).
std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(
      static_cast<std::int64_t>(std::clamp(seconds * 1000, 1.0, 1e12)));
}

// The whole of `text` as an integer from `low` to `high`, or nothing.
std::optional<int> ParseInt(const std::string& text, int low, int high) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || ptr != end || value < low || value > high) {
    return std::nullopt;
  }
  return value;
}

int EnvironmentInt(const char* name, const char* value, int low, int high) {
  const std::optional<int> parsed = ParseInt(value, low, high);
  if (!parsed) {
    throw core::InputError("environment variable " + std::string(name) + "='" + value +
                           "': expected a whole number from " + std::to_string(low) + " to " +
                           std::to_string(high));
  }
  return *parsed;
}

std::string Seconds(std::chrono::milliseconds duration) {
  std::ostringstream text;
  text << duration.count() / 1000.0 << " s";
  return text.str();
}

// c10's errors without their C++ backtrace.
std::string Describe(const std::exception& e) {
  if (const auto* error = dynamic_cast<const c10::Error*>(&e)) {
    return error->what_without_backtrace();
  }
  return e.what();
}

// A peer that closed its socket would otherwise kill the process at the next write.
void IgnoreSigpipe() {
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    signal(SIGPIPE, SIG_IGN);
  }
}

std::string RequireGloo() {
  if (!HaveGloo()) {
    throw core::InputError("this build has no Gloo: install libgloo-dev and rebuild");
  }
  return "gloo";
}

c10::intrusive_ptr<c10d::Store> ConnectStore(const DistributedOptions& options,
                                             std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions store;
  store.port = static_cast<std::uint16_t>(options.master_port);
  store.isServer = options.rank == 0 && !options.agent_store;
  store.numWorkers = static_cast<std::size_t>(options.world_size);
  store.waitWorkers = false;  // Rendezvous() waits, and says who is missing
  store.timeout = timeout;
#if OZ_TORCH_AT_LEAST(2, 4)
  store.useLibUV = false;  // the classic server: in every build (Debian's has no libuv)
#endif
  auto tcp = c10::make_intrusive<c10d::TCPStore>(options.master_addr, store);
  if (!options.agent_store) return tcp;
  // torchrun's store outlives restarts of the job: one prefix per attempt.
  return c10::make_intrusive<c10d::PrefixStore>(
      "othello-zero/attempt_" + std::to_string(options.restart), tcp);
}

// Every rank announces itself and waits for all the others, so that the process group
// is only created once all are there; on a timeout the error names the missing ranks.
void Rendezvous(c10d::Store& store, const DistributedOptions& options,
                std::chrono::milliseconds timeout) {
  const auto key = [](int rank) { return "othello-zero/joined/" + std::to_string(rank); };
  store.set(key(options.rank), std::vector<std::uint8_t>{1});
  std::vector<std::string> keys;
  for (int rank = 0; rank < options.world_size; ++rank) keys.push_back(key(rank));
  try {
    store.wait(keys, timeout);
  } catch (const std::exception& e) {
    std::string missing;
    try {
      for (int rank = 0; rank < options.world_size; ++rank) {
        if (!store.check({key(rank)})) {
          missing += (missing.empty() ? "" : ", ") + std::to_string(rank);
        }
      }
    } catch (const std::exception&) {
      missing = "(unknown: the store is gone)";
    }
    throw std::runtime_error("rank(s) " + missing + " did not come within " + Seconds(timeout) +
                             " (" + Describe(e) + ")");
  }
}

#ifdef OZ_HAVE_GLOO
// This machine's address on the route to `master_addr` (the address other ranks reach
// this one at, as long as the ranks share a network), or "" when it cannot be found.
std::string LocalAddressTowards(const std::string& master_addr, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (getaddrinfo(master_addr.c_str(), service.c_str(), &hints, &found) != 0) return "";
  std::string address;
  const int fd = socket(found->ai_family, SOCK_DGRAM, 0);
  sockaddr_storage local{};
  socklen_t length = sizeof(local);
  char text[INET6_ADDRSTRLEN] = {};
  // A UDP connect() sends nothing: it only picks the route and the local address.
  if (fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
    const void* raw =
        local.ss_family == AF_INET6
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
    if (inet_ntop(local.ss_family, raw, text, sizeof(text)) != nullptr) address = text;
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(found);
  return address;
}

// Gloo's transport: the interface GLOO_SOCKET_IFNAME names (as in PyTorch), else the
// local address on the route to rank 0, else Gloo's default (the host name's address).
std::shared_ptr<::gloo::transport::Device> GlooDevice(const DistributedOptions& options) {
  if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface && *interface) {
    return c10d::ProcessGroupGloo::createDeviceForInterface(interface);
  }
  const std::string local = LocalAddressTowards(options.master_addr, options.master_port);
  if (!local.empty()) return c10d::ProcessGroupGloo::createDeviceForHostname(local);
  return c10d::ProcessGroupGloo::createDefaultDevice();
}
#endif

c10::intrusive_ptr<Collectives> MakeCollectives(const std::string& backend,
                                                const c10::intrusive_ptr<c10d::Store>& store,
                                                const DistributedOptions& options,
                                                std::chrono::milliseconds timeout) {
#ifdef OZ_HAVE_NCCL
  if (backend == "nccl") {
    auto nccl = c10d::ProcessGroupNCCL::Options::create();
    nccl->timeout = timeout;
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, options.rank, options.world_size,
                                                       nccl);
  }
#endif
#ifdef OZ_HAVE_GLOO
  if (backend == "gloo") {
    auto gloo = c10d::ProcessGroupGloo::Options::create(timeout);
    gloo->devices.push_back(GlooDevice(options));
    gloo->threads = 2;
    return c10::make_intrusive<c10d::ProcessGroupGloo>(store, options.rank, options.world_size,
                                                       gloo);
  }
#endif
  (void)store, (void)options, (void)timeout;
  throw std::logic_error("no process group for backend '" + backend + "'");  // not reached
}

// `tensors` flattened into one buffer of their common dtype on `device`.
torch::Tensor Flatten(const std::vector<torch::Tensor>& tensors, const torch::Device& device) {
  torch::ScalarType dtype = tensors.front().scalar_type();
  for (const torch::Tensor& t : tensors) dtype = torch::promote_types(dtype, t.scalar_type());
  std::vector<torch::Tensor> flat;
  flat.reserve(tensors.size());
  for (const torch::Tensor& t : tensors) flat.push_back(t.reshape(-1).to(dtype));
  return torch::cat(flat).to(device);
}

// The inverse of Flatten: `flat`'s pieces copied into `tensors`.
void Unflatten(const torch::Tensor& flat, const std::vector<torch::Tensor>& tensors) {
  const torch::Tensor source = flat.to(tensors.front().device());
  std::int64_t offset = 0;
  for (const torch::Tensor& t : tensors) {
    t.copy_(source.narrow(0, offset, t.numel()).view_as(t));
    offset += t.numel();
  }
}

}  // namespace

struct DataParallel::Group {
  // Destroyed in reverse: the process group (its destructor drains its work and joins
  // its threads) before the store it rendezvoused through.
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<Collectives> collectives;
  torch::Device buffer_device{torch::kCPU};  // where flat buffers go: the CPU for Gloo
  std::chrono::milliseconds timeout{0};
};

bool HaveGloo() {
#ifdef OZ_HAVE_GLOO
  return true;
#else
  return false;
#endif
}

bool HaveNccl() {
#ifdef OZ_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

DistributedOptions DistributedFromEnvironment(const std::function<const char*(const char*)>& get) {
  const char* rank = get("RANK");
  const char* world_size = get("WORLD_SIZE");
  const char* addr = get("MASTER_ADDR");
  const char* port = get("MASTER_PORT");
  DistributedOptions options;
  if (!rank && !world_size && !addr && !port) return options;
  const auto unset = [](const std::string& name, const std::string& set) {
    return core::InputError("environment variable " + name + " is not set, but " + set +
                            " is: set all of " + kVariables +
                            ", or only RANK and WORLD_SIZE, or none");
  };
  if (!rank || !world_size) {
    const char* set = rank         ? "RANK"
                      : world_size ? "WORLD_SIZE"
                      : addr       ? "MASTER_ADDR"
                                   : "MASTER_PORT";
    throw unset(rank ? "WORLD_SIZE" : "RANK", set);
  }
  if (!addr != !port) {
    throw unset(addr ? "MASTER_PORT" : "MASTER_ADDR", addr ? "MASTER_ADDR" : "MASTER_PORT");
  }
  options.world_size = EnvironmentInt("WORLD_SIZE", world_size, 1, 1 << 20);
  options.rank = EnvironmentInt("RANK", rank, 0, options.world_size - 1);
  if (addr) {
    if (!*addr) throw core::InputError("environment variable MASTER_ADDR='': expected a host");
    options.master_addr = addr;
  }
  if (port) options.master_port = EnvironmentInt("MASTER_PORT", port, 1, 65535);
  const char* agent = get("TORCHELASTIC_USE_AGENT_STORE");
  options.agent_store = agent != nullptr && std::string(agent) == "True";
  if (const char* restart = get("TORCHELASTIC_RESTART_COUNT")) {
    options.restart = EnvironmentInt("TORCHELASTIC_RESTART_COUNT", restart, 0, 1 << 20);
  }
  return options;
}

void ParseMaster(const std::string& text, DistributedOptions& options) {
  const std::size_t colon = text.rfind(':');
  std::string host = colon == std::string::npos ? "" : text.substr(0, colon);
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (bracketed) host = host.substr(1, host.size() - 2);
  const std::optional<int> port =
      colon == std::string::npos ? std::nullopt : ParseInt(text.substr(colon + 1), 1, 65535);
  if (host.empty() || !port || host.find_first_of(bracketed ? "[]" : "[]:") != std::string::npos) {
    throw core::InputError("master '" + text +
                           "': expected HOST:PORT with a port from 1 to 65535 (e.g. "
                           "10.0.0.1:29500, or [::1]:29500 for an IPv6 address)");
  }
  options.master_addr = host;
  options.master_port = *port;
}

std::string ResolveBackend(const DistributedOptions& options, const torch::Device& device) {
  const std::string& backend = options.backend;
  if (backend == "auto") return device.is_cuda() && HaveNccl() ? "nccl" : RequireGloo();
  if (backend == "gloo") return RequireGloo();
  if (backend == "nccl") {
    if (!device.is_cuda()) {
      throw core::InputError("distributed backend 'nccl' needs a CUDA device (training on " +
                             device.str() + "): use gloo");
    }
    if (!HaveNccl()) {
      throw core::InputError(
          "this build has no NCCL: use gloo, or rebuild against a CUDA LibTorch with "
          "NCCL's headers (libnccl-dev)");
    }
    return "nccl";
  }
  throw core::InputError("distributed backend '" + backend + "': expected auto, gloo or nccl");
}

DataParallel::DataParallel(const DistributedOptions& options, const torch::Device& device)
    : options_(options), device_(device) {
  const auto bad = [&](const std::string& what) { throw core::InputError(Prefix() + what); };
  if (options_.world_size < 1) bad("world size " + std::to_string(options_.world_size) + " < 1");
  if (options_.rank < 0 || options_.rank >= options_.world_size) bad("the rank is out of range");
  if (!options_.enabled()) return;
  if (options_.master_addr.empty()) bad("no master address");
  if (options_.master_port < 1 || options_.master_port > 65535) {
    bad("master port " + std::to_string(options_.master_port) + " is not from 1 to 65535");
  }
  if (!(options_.timeout_seconds > 0)) bad("the timeout must be positive");
  try {
    backend_ = ResolveBackend(options_, device_);
  } catch (const core::InputError& e) {
    bad(e.what());
  }
  IgnoreSigpipe();
  auto group = std::make_unique<Group>();
  group->timeout = Millis(options_.timeout_seconds);
  group->buffer_device = backend_ == "nccl" ? device_ : torch::Device(torch::kCPU);
  const std::string master = options_.master_addr + ":" + std::to_string(options_.master_port);
  std::string phase = "connecting to the store";
  try {
    group->store = ConnectStore(options_, group->timeout);
    phase = "waiting for the other ranks";
    Rendezvous(*group->store, options_, group->timeout);
    phase = "creating the " + backend_ + " process group";
    group->collectives = MakeCollectives(backend_, group->store, options_, group->timeout);
  } catch (const std::exception& e) {
    throw std::runtime_error(Prefix() + "the rendezvous at " + master + " failed while " + phase +
                             ": " + Describe(e) +
                             " (are all ranks started, with the same MASTER_ADDR, MASTER_PORT and "
                             "WORLD_SIZE?)");
  }
  group_ = std::move(group);
}

DataParallel::~DataParallel() = default;

std::string DataParallel::Prefix() const {
  return "distributed training: rank " + std::to_string(options_.rank) + " of " +
         std::to_string(options_.world_size) + ": ";
}

void DataParallel::Run(const std::string& operation, std::chrono::milliseconds timeout,
                       const std::function<void()>& collective) {
  if (!failed_.empty()) {
    throw std::runtime_error(Prefix() + operation + ": not started, the group failed earlier (" +
                             failed_ + ")");
  }
  try {
    collective();
  } catch (const std::exception& e) {
    failed_ = operation + " failed (another rank may have died, hung or left the job; timeout " +
              Seconds(timeout) + "): " + Describe(e);
    throw std::runtime_error(Prefix() + failed_);
  }
}

void DataParallel::AverageGradients(const std::vector<torch::Tensor>& parameters,
                                    const std::vector<torch::Tensor>& buffers) {
  if (!group_) return;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> targets;  // the gradients and buffers, averaged in place
  for (const torch::Tensor& p : parameters) {
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    targets.push_back(p.grad());
  }
  for (const torch::Tensor& b : buffers) {
    if (b.is_floating_point()) targets.push_back(b);
  }
  if (targets.empty()) return;
  torch::Tensor flat = Flatten(targets, group_->buffer_device);
  Run("the all-reduce of the gradients", group_->timeout, [&] {
    std::vector<torch::Tensor> tensors{flat};
    group_->collectives->allreduce(tensors)->wait(group_->timeout);
  });
  flat.div_(options_.world_size);
  Unflatten(flat, targets);
}

void DataParallel::Broadcast(const std::vector<torch::Tensor>& tensors) {
  if (!group_) return;
  torch::NoGradGuard no_grad;
  std::map<torch::ScalarType, std::vector<torch::Tensor>> by_dtype;
  for (const torch::Tensor& t : tensors) by_dtype[t.scalar_type()].push_back(t);
  for (const auto& [dtype, group] : by_dtype) {
    const torch::Tensor flat = Flatten(group, group_->buffer_device);
    Run("the broadcast of the parameters", group_->timeout, [&] {
      std::vector<torch::Tensor> one{flat};
      group_->collectives->broadcast(one)->wait(group_->timeout);
    });
    if (options_.rank != 0) Unflatten(flat, group);
  }
}

std::vector<double> DataParallel::BroadcastValues(std::vector<double> values) {
  if (!group_ || values.empty()) return values;
  const torch::Tensor flat = torch::tensor(values, torch::kFloat64).to(group_->buffer_device);
  Run("the broadcast of rank 0's control values", group_->timeout, [&] {
    std::vector<torch::Tensor> one{flat};
    group_->collectives->broadcast(one)->wait(group_->timeout);
  });
  const torch::Tensor host = flat.cpu();
  const double* data = host.data_ptr<double>();
  return std::vector<double>(data, data + values.size());
}

void DataParallel::Release(const std::string& name) {
  if (!group_ || options_.rank != 0) return;
  const std::string key = "othello-zero/release/" + name + "/" + std::to_string(releases_[name]++);
  Run("releasing '" + name + "' to the other ranks", group_->timeout,
      [&] { group_->store->set(key, std::vector<std::uint8_t>{1}); });
}

void DataParallel::Await(const std::string& name, double timeout_seconds) {
  if (!group_ || options_.rank == 0) return;
  const std::string key = "othello-zero/release/" + name + "/" + std::to_string(releases_[name]++);
  const std::chrono::milliseconds timeout = Millis(timeout_seconds);
  Run("waiting for rank 0 to release '" + name + "'", timeout,
      [&] { group_->store->wait({key}, timeout); });
}

}  // namespace othello::training
