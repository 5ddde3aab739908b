#pragma once
// Thread rules the compiler checks: Clang's thread-safety analysis
// (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html). A field shared between
// threads names its mutex with GUARDED_BY; a function that must be called with a mutex
// held says REQUIRES; one that takes it itself says EXCLUDES. Clang built with
// -Wthread-safety (the top CMakeLists.txt adds it, as an error) then refuses a read or
// write of a guarded field without its mutex held. Other compilers see plain C++: the
// macros expand to nothing and Mutex is a std::mutex.
//
// core::Mutex and core::MutexLock are std::mutex and a scoped lock the analysis
// understands; core::CondVar waits on a Mutex the caller holds. The analysis follows
// one function at a time: a lambda does not know that its caller holds a lock (say
// REQUIRES on the lambda: `[&](int a) REQUIRES(mutex_) { ... }`), and a pattern it
// cannot follow (a field read only after every other thread is joined) uses
// NO_THREAD_SAFETY_ANALYSIS on that one function, with a comment saying why.
//
// Thread safety: Mutex and CondVar as std::mutex and std::condition_variable; a
// MutexLock belongs to one thread.
#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define OZ_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define OZ_THREAD_ANNOTATION(x)
#endif

// On a class: its objects are capabilities (mutexes) named `x` in diagnostics.
#define CAPABILITY(x) OZ_THREAD_ANNOTATION(capability(x))
// On a class: an RAII object that holds a capability for its lifetime.
#define SCOPED_CAPABILITY OZ_THREAD_ANNOTATION(scoped_lockable)
// On a field: read and written only with `x` held.
#define GUARDED_BY(x) OZ_THREAD_ANNOTATION(guarded_by(x))
// On a pointer field: what it points to is read and written only with `x` held.
#define PT_GUARDED_BY(x) OZ_THREAD_ANNOTATION(pt_guarded_by(x))
// On a mutex: it is taken before (after) the mutexes named.
#define ACQUIRED_BEFORE(...) OZ_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) OZ_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
// On a function: the caller holds the mutexes named (exclusively, or at least shared).
#define REQUIRES(...) OZ_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) OZ_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
// On a function: it takes (releases) the mutexes named, or `this` when none is named.
#define ACQUIRE(...) OZ_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) OZ_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
// On a function: it takes the mutex only when it returns `result` (TryLock).
#define TRY_ACQUIRE(...) OZ_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
// On a function: the caller must not hold the mutexes named (the function takes them).
#define EXCLUDES(...) OZ_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
// On a function: it checks at run time that the mutex is held; held afterwards.
#define ASSERT_CAPABILITY(x) OZ_THREAD_ANNOTATION(assert_capability(x))
// On a function: it returns a reference to the mutex named (an accessor).
#define RETURN_CAPABILITY(x) OZ_THREAD_ANNOTATION(lock_returned(x))
// On a function: the analysis skips it (say why at the function).
#define NO_THREAD_SAFETY_ANALYSIS OZ_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace othello::core {

// A std::mutex the analysis knows as a capability. Prefer MutexLock to Lock/Unlock.
class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mutex_.lock(); }
  void Unlock() RELEASE() { mutex_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mutex_.try_lock(); }

 private:
  friend class CondVar;
  std::mutex mutex_;
};

// Holds a Mutex from construction to destruction, as std::unique_lock does; Unlock()
// and Lock() let go of it and take it again in between (the destructor then releases
// it only if held).
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mutex) ACQUIRE(mutex) : mutex_(mutex) { mutex_.Lock(); }
  ~MutexLock() RELEASE() {
    if (locked_) mutex_.Unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() RELEASE() {
    mutex_.Unlock();
    locked_ = false;
  }
  void Lock() ACQUIRE() {
    mutex_.Lock();
    locked_ = true;
  }

 private:
  Mutex& mutex_;
  bool locked_ = true;
};

// A std::condition_variable for Mutex. The waits release `mutex` while blocked and
// hold it again when they return, so to the analysis it is held throughout; spurious
// wake-ups happen, so wait in a loop on the condition (`while (!ready_) cv_.Wait(mu_);`,
// which is what std::condition_variable's predicate overload does).
class CondVar {
 public:
  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

  void Wait(Mutex& mutex) REQUIRES(mutex) {
    std::unique_lock<std::mutex> lock(mutex.mutex_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // still held: the caller's lock owns it
  }
  // Returns std::cv_status::timeout once `deadline` has passed.
  template <class Clock, class Duration>
  std::cv_status WaitUntil(Mutex& mutex, const std::chrono::time_point<Clock, Duration>& deadline)
      REQUIRES(mutex) {
    std::unique_lock<std::mutex> lock(mutex.mutex_, std::adopt_lock);
    const std::cv_status status = cv_.wait_until(lock, deadline);
    lock.release();
    return status;
  }

 private:
  std::condition_variable cv_;
};

}  // namespace othello::core
