#pragma once
// Data-parallel training across processes (ranks) through LibTorch's c10d: every rank
// trains the same network on its own minibatches, and the gradients are averaged
// across ranks between the backward pass and the optimiser step (Trainer's gradient
// hook), so that every rank takes the same step and the ranks stay identical: the
// effective batch is world_size times the per-rank batch.
//
// Rendezvous: a c10d::TCPStore that rank 0 hosts at master_addr:master_port (the
// torchrun/Slurm convention); collectives: one c10d process group, Gloo (CPU tensors;
// CUDA tensors are staged through the host) or NCCL (CUDA tensors; only in builds with
// NCCL). The c10d types stay in distributed.cpp: this header needs no c10d or Gloo.
//
// Errors: a failed collective (a peer closed its connection, or nothing arrived within
// timeout_seconds) throws std::runtime_error "distributed training: rank R of W: <what>"
// naming the operation and that another rank may have died; it never hangs past the
// timeout. After a failure the group is unusable: every later collective throws at once.
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

namespace othello::training {

struct DistributedOptions {
  int rank = 0;                           // 0 .. world_size-1; rank 0 hosts the store
  int world_size = 1;                     // 1: one process, no group, every call a no-op
  std::string master_addr = "127.0.0.1";  // rank 0's address, reachable from every rank
  int master_port = 29500;                // rank 0's TCPStore port (1..65535)
  // auto (NCCL for a CUDA device when the build has it, else Gloo) | gloo | nccl
  std::string backend = "auto";
  // Rendezvous and every collective: a rank that died or hangs ends in an error after
  // this long, not in a hang.
  double timeout_seconds = 300;
  // Launched by torchrun, whose agent already hosts a store at MASTER_ADDR:MASTER_PORT
  // (TORCHELASTIC_USE_AGENT_STORE=True): every rank, rank 0 too, connects to it as a
  // client, with its keys under "othello-zero/attempt_N/" (N: TORCHELASTIC_RESTART_COUNT).
  // A dead rank 0 then no longer ends Await by itself: torchrun's agent stops the others.
  bool agent_store = false;
  int restart = 0;
  bool enabled() const { return world_size > 1; }
};

// The torchrun/Slurm variables RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT: all four,
// none (one process), or only RANK and WORLD_SIZE (the address and port keep their
// defaults); and torchrun's TORCHELASTIC_USE_AGENT_STORE and TORCHELASTIC_RESTART_COUNT. A missing or bad value throws core::InputError naming the variable and its
// value. `get` reads a variable (nullptr: unset); std::getenv by default.
DistributedOptions DistributedFromEnvironment(
    const std::function<const char*(const char*)>& get = [](const char* name) {
      return static_cast<const char*>(std::getenv(name));
    });

// "HOST:PORT" (e.g. "10.0.0.1:29500", "[::1]:29500") into master_addr and master_port;
// core::InputError naming the text when it is not one.
void ParseMaster(const std::string& text, DistributedOptions& options);

// The backend `options.backend` gives for `device`: "gloo" or "nccl"; core::InputError
// for an unknown name, NCCL for a CPU device, or NCCL in a build without it.
std::string ResolveBackend(const DistributedOptions& options, const torch::Device& device);

// Whether this build has the Gloo and NCCL process groups.
bool HaveGloo();
bool HaveNccl();

// One rank's membership of the group. Thread safety: one thread at a time calls a
// DataParallel, and every rank calls the collectives (everything but rank() and
// world_size()) in the same order with tensors of the same shapes: c10d matches the
// calls of the ranks by their order. With world_size 1 every call is a no-op.
// Lifetime: rank 0's object hosts the store, so it is destroyed after the others have
// passed their last Await (destroying after the last collective is enough). The
// constructor sets SIGPIPE to ignored when it has its default action (which would kill
// the process when a peer closes its socket): writes to a dead peer become errors.
class DataParallel {
 public:
  // Rendezvous through the TCPStore (rank 0 hosts it and waits for the others; the
  // others connect, retrying) and one process group for `device`, all within
  // timeout_seconds. Errors: std::runtime_error "distributed training: rank R of W:
  // <what>" (core::InputError for bad options, e.g. "this build has no Gloo: install
  // libgloo-dev and rebuild").
  DataParallel(const DistributedOptions& options, const torch::Device& device);
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  int rank() const { return options_.rank; }
  int world_size() const { return options_.world_size; }
  const std::string& backend() const { return backend_; }

  // Averages the gradients of `parameters` across ranks with one all-reduce of one
  // flat buffer (flatten, sum, divide by world_size, copy back). A parameter without a
  // grad counts as zeros and gets the average as its grad. `buffers` (BatchNorm running
  // statistics) are averaged in the same collective; integer buffers (BatchNorm's
  // num_batches_tracked) are skipped: they stay equal on every rank by themselves.
  void AverageGradients(const std::vector<torch::Tensor>& parameters,
                        const std::vector<torch::Tensor>& buffers = {});
  // Rank 0's values of `tensors` copied into every rank's, in place (one collective per
  // dtype): parameters and buffers at the start, so that every rank begins identical.
  void Broadcast(const std::vector<torch::Tensor>& tensors);
  // Rank 0's `values` to every rank (a small control message); the other ranks pass a
  // vector of the same size and get rank 0's.
  std::vector<double> BroadcastValues(std::vector<double> values);

  // A barrier through the store (not the process group) with its own timeout, for waits
  // that may be long (rank 0 evaluating a checkpoint for minutes): rank 0 calls
  // Release(name), the others Await(name, timeout_seconds), which returns once rank 0
  // has released `name` and throws the runtime_error when rank 0 dies or the time runs
  // out. Release is a no-op on other ranks and Await on rank 0, so every rank may call
  // both. A name may be used again: the k-th Await of a name waits for its k-th Release.
  void Release(const std::string& name);
  void Await(const std::string& name, double timeout_seconds);

 private:
  struct Group;  // the store and the process group (distributed.cpp)

  // "distributed training: rank R of W: " + what.
  std::string Prefix() const;
  // Runs `collective` (one c10d operation and its wait of up to `timeout`); any failure
  // becomes the runtime_error naming `operation`, and marks the group failed.
  void Run(const std::string& operation, std::chrono::milliseconds timeout,
           const std::function<void()>& collective);

  const DistributedOptions options_;
  const torch::Device device_;
  std::string backend_;  // "gloo" or "nccl"; empty with world_size 1
  std::unique_ptr<Group> group_;
  std::string failed_;                   // the failed operation's message; empty while good
  std::map<std::string, int> releases_;  // per name: Release or Await calls so far
};

}  // namespace othello::training
