// nn/device_stream.h: streams of LibTorch's pool, and nothing without CUDA.
#include "nn/device_stream.h"

#include <set>
#include <utility>

#include "core/thread_annotations.h"

#if defined(OZ_TORCH_CUDA)
#include <c10/cuda/CUDAStream.h>
#endif

namespace othello::nn {

bool BuildHasCuda() {
#if defined(OZ_TORCH_CUDA)
  return true;
#else
  return false;
#endif
}

namespace {

// The pool's streams that live DeviceStreams hold, by device and stream id (a multiset:
// past 32 live ones a stream is shared).
using StreamKey = std::pair<c10::DeviceIndex, c10::StreamId>;
core::Mutex held_mutex;
std::multiset<StreamKey> held GUARDED_BY(held_mutex);

StreamKey KeyOf(const c10::Stream& stream) { return {stream.device_index(), stream.id()}; }

}  // namespace

DeviceStream::DeviceStream([[maybe_unused]] const torch::Device& device) {
#if defined(OZ_TORCH_CUDA)
  if (!device.is_cuda()) return;
  // Pool streams do not wait for the default stream, nor it for them. One pass over the
  // pool (32 streams; twice that in case another caller takes some meanwhile) finds a
  // free one if there is one.
  core::MutexLock lock(held_mutex);
  for (int tries = 0; tries < 64; ++tries) {
    stream_ = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index());
    if (held.count(KeyOf(*stream_)) == 0) break;
  }
  held.insert(KeyOf(*stream_));
#endif
}

DeviceStream::~DeviceStream() {
  if (!stream_) return;
  core::MutexLock lock(held_mutex);
  held.erase(held.find(KeyOf(*stream_)));
}

void DeviceStream::Synchronize() const {
  if (stream_) stream_->synchronize();
}

StreamScope::StreamScope(const DeviceStream& stream) {
  if (stream.stream()) guard_.emplace(*stream.stream());
}

void SynchronizeCurrentStream([[maybe_unused]] const torch::Device& device) {
#if defined(OZ_TORCH_CUDA)
  if (device.is_cuda()) c10::cuda::getCurrentCUDAStream(device.index()).synchronize();
#endif
}

}  // namespace othello::nn
