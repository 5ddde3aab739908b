#pragma once
// CUDA streams for the threads that share one GPU: each batcher worker of the self-play
// network (nn/inference.h) and the training thread (training/run.cpp) queue their work
// on a stream of their own, so that none waits behind another's kernels or copies on
// the default stream, and each waits for its own stream only, never for the device.
//
// Work on two streams is not ordered: a tensor written on one stream and read on another
// needs a synchronisation in between. Where this project crosses streams it does so by
// copies that return on the host only when done (a device-to-host copy into pageable
// memory), or after Synchronize (nn::TorchNet's constructor, after uploading the
// weights that its workers read on their streams).
//
// The CUDA code is compiled only where LibTorch has CUDA (OZ_TORCH_CUDA, set by
// nn/CMakeLists.txt). Without it, and on the CPU, a DeviceStream holds no stream and
// every call here does nothing.
// Thread safety: DeviceStreams are made and destroyed on any threads (the streams they
// hold are recorded under a mutex), and used from any thread (one thread at a time is the
// point of having several); a StreamScope belongs to the thread that made it.
#include <optional>

#include <c10/core/Stream.h>
#include <c10/core/StreamGuard.h>
#include <torch/torch.h>

namespace othello::nn {

// Whether this build's LibTorch has CUDA (OZ_TORCH_CUDA): streams and CUDA graphs exist.
bool BuildHasCuda();

class DeviceStream {
 public:
  // A stream from LibTorch's pool for `device` when it is a CUDA device; none otherwise.
  // The pool hands out its 32 streams a device in turn, whoever holds them: this takes
  // one that no other live DeviceStream holds while there is one, so that the trainer and
  // every lane of every live network have streams of their own (a CUDA graph's capture
  // needs its stream to itself).
  explicit DeviceStream(const torch::Device& device);
  ~DeviceStream();
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;

  bool active() const { return stream_.has_value(); }
  const std::optional<c10::Stream>& stream() const { return stream_; }
  // Returns when the work queued on this stream so far is done (this stream only).
  void Synchronize() const;

 private:
  std::optional<c10::Stream> stream_;
};

// While it lives, `stream` is the calling thread's current stream on its device (and its
// device the current one): LibTorch queues that thread's work there. Nothing for a
// DeviceStream without a stream. Scopes end in the reverse order of their making.
class StreamScope {
 public:
  explicit StreamScope(const DeviceStream& stream);
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;

 private:
  std::optional<c10::StreamGuard> guard_;
};

// Returns when the calling thread's current stream on `device` has done its work so far
// (CUDA; nothing on the CPU).
void SynchronizeCurrentStream(const torch::Device& device);

}  // namespace othello::nn
