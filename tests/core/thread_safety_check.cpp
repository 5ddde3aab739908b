// Compiled, never run, by tests/core/thread_safety_check.cmake: with clang++
// -Wthread-safety -Werror, Bump() must fail to compile (it writes a GUARDED_BY field
// without its mutex), and with OZ_TAKE_LOCK defined (the mutex taken) it must compile.
#include "core/thread_annotations.h"

namespace othello::core {

class Counter {
 public:
  void Bump() {
#ifdef OZ_TAKE_LOCK
    MutexLock lock(mutex_);
#endif
    ++count_;
  }

 private:
  Mutex mutex_;
  int count_ GUARDED_BY(mutex_) = 0;
};

}  // namespace othello::core
