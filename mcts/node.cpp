#include "mcts/node.h"

#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace othello::mcts {
namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}  // namespace

NodePool::NodePool(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {
  const std::size_t bytes = (capacity_ * sizeof(Node) + kHugePage - 1) / kHugePage * kHugePage;
  void* memory = ::operator new(bytes, std::align_val_t{kHugePage});
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(memory, bytes, MADV_HUGEPAGE);  // a hint; failure only costs speed
#endif
  nodes_ = static_cast<Node*>(memory);
  for (std::size_t i = 0; i < capacity_; ++i) new (&nodes_[i]) Node();
}

NodePool::~NodePool() {
  for (std::size_t i = 0; i < capacity_; ++i) nodes_[i].~Node();
  ::operator delete(nodes_, std::align_val_t{kHugePage});  // unsized: clang has no sized delete by default
}

}  // namespace othello::mcts
