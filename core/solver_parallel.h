#pragma once
// Internal to the solver: several threads solving one position, by "young brothers
// wait" (Feldmann, Monien, Mysliwietz and Vornberger, 1990; the scheme of Edax's
// parallel search): a null-window node with enough empties searches its eldest child
// alone, and only when that child fails to cut off are the younger children shared
// out. The node is then a split point: every idle helper thread takes the next child
// of the newest open split point, and the owner takes children too until none is
// left. It then waits for the helpers still inside, helping meanwhile only in split
// points below its own (so it is free the moment they finish). A child that beats
// alpha cuts the split point off: the threads still searching its other children see
// the cut at their next limit check and unwind (Cancelled), storing nothing from
// unfinished nodes. The threads share the lockless transposition table.
//
// Thread safety: open_ and each SplitPoint's `active` change under mutex_; a split
// point's next child index and cutoff flag are atomics; best/best_square under the
// split point's own mutex. A split point lives on its owner's stack and is removed
// from open_ and has no worker left inside before the owner returns.
#include <algorithm>
#include <thread>
#include <vector>

#include "core/solver_search.h"
#include "core/thread_annotations.h"

namespace othello::core::solver_detail {

template <class L>
class Pool {
 public:
  using S = Search<L>;
  using MoveList = typename S::MoveList;

  // Starts `helpers` threads. `shared` (the limits' common state, also given to the
  // owner's context) must outlive the pool.
  Pool(Table& table, const Rules& rules, const SolveLimits& limits, SharedLimits& shared,
       int helpers)
      : table_(table), rules_(rules), limits_(limits), shared_(shared) {
    for (int i = 0; i < helpers; ++i) threads_.emplace_back([this] { HelperLoop(); });
  }
  ~Pool() { Stop(); }

  // Ends the helper threads (idempotent); helper_nodes() is final afterwards.
  void Stop() EXCLUDES(mutex_) {
    {
      MutexLock lock(mutex_);
      quit_ = true;
    }
    wake_.NotifyAll();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Nodes searched by the helpers, once Stop() has returned. Read without mutex_: no
  // helper is left to write it then, and Stop()'s joins order their writes before.
  std::uint64_t helper_nodes() const NO_THREAD_SAFETY_ANALYSIS { return helper_nodes_; }

  // Searches children 1.. of `list` (sorted, best first) of a null-window node with
  // `n` empties on the owner's thread and the helpers; raises *best (and sets
  // *best_square) with their scores. Returns when every child is searched or one beat
  // alpha. Throws like a search (a limit, or Cancelled from above).
  __attribute__((noinline)) void Split(S& owner, MoveList& list, int alpha, int n, int* best,
                                       Square* best_square) EXCLUDES(mutex_) {
    SplitPoint sp;
    sp.list = &list;
    sp.alpha = alpha;
    sp.n = n;
    {
      MutexLock lock(sp.result_mutex);  // uncontended: no other thread sees sp yet
      sp.best = *best;
      sp.best_square = *best_square;
    }
    sp.parent = owner.context().split;
    sp.next.store(1, std::memory_order_relaxed);
    {
      MutexLock lock(mutex_);
      open_.push_back(&sp);
    }
    wake_.NotifyAll();
    done_.NotifyAll();  // an owner waiting above may help here
    Context& ctx = owner.context();
    const SplitLink* outer = ctx.split;
    ctx.split = &sp;
    try {
      Work(owner, sp);
    } catch (...) {
      ctx.split = outer;
      sp.cutoff.store(true, std::memory_order_relaxed);  // send the helpers home
      Close(owner, sp, /*help=*/false);
      throw;
    }
    ctx.split = outer;
    Close(owner, sp, /*help=*/true);
    // A helper may have left a child unfinished: a limit (every thread unwinds), or a
    // cut above this split point. Then the result is not proven and must not be used.
    const int aborted = shared_.aborted.load(std::memory_order_relaxed);
    if (aborted >= 0) throw Aborted{static_cast<SolveStatus>(aborted)};
    if (!sp.cutoff.load(std::memory_order_relaxed) && sp.CutAbove()) throw Cancelled{};
    MutexLock lock(sp.result_mutex);  // uncontended: every helper has left sp
    *best = sp.best;
    *best_square = sp.best_square;
  }

 private:
  struct SplitPoint : SplitLink {
    MoveList* list = nullptr;
    int alpha = 0;
    int n = 0;
    std::atomic<int> next{1};  // the next child to take
    // Helpers inside; guarded by Pool::mutex_ (unchecked: the analysis cannot name the
    // pool's mutex from a split point).
    int active = 0;
    Mutex result_mutex;
    int best GUARDED_BY(result_mutex) = -kInf;
    Square best_square GUARDED_BY(result_mutex) = -1;

    bool HasWork() const {
      return !cutoff.load(std::memory_order_relaxed) &&
             next.load(std::memory_order_relaxed) < list->count;
    }
    bool Below(const SplitPoint* ancestor) const {
      for (const SplitLink* s = parent; s; s = s->parent) {
        if (s == ancestor) return true;
      }
      return false;
    }
  };

  // Takes children of sp until none is left or it is cut off. The caller has set its
  // context's split to sp.
  void Work(S& search, SplitPoint& sp) EXCLUDES(mutex_) {
    while (true) {
      const int i = sp.next.fetch_add(1, std::memory_order_relaxed);
      if (i >= sp.list->count || sp.cutoff.load(std::memory_order_relaxed)) return;
      const typename S::Move& m = sp.list->moves[i];
      int v;
      try {
        v = -search.Nws(m.player, m.opponent, -sp.alpha - 1, sp.n - 1);
      } catch (const Cancelled&) {
        if (!sp.cutoff.load(std::memory_order_relaxed)) throw;  // cut further up
        return;  // this split point is cut: the child is not needed
      }
      MutexLock lock(sp.result_mutex);
      if (v > sp.best) {
        sp.best = v;
        sp.best_square = m.square;
        if (v > sp.alpha) sp.cutoff.store(true, std::memory_order_relaxed);
      }
    }
  }

  // Removes sp from the open split points and waits until no helper is inside it,
  // meanwhile (with `help`) working in open split points below it.
  void Close(S& owner, SplitPoint& sp, bool help) EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    open_.erase(std::find(open_.begin(), open_.end(), &sp));
    while (sp.active > 0) {
      SplitPoint* below = help ? FindWork(&sp) : nullptr;
      if (!below) {
        done_.Wait(mutex_);
        continue;
      }
      ++below->active;
      lock.Unlock();
      Join(owner, *below);
      lock.Lock();
    }
  }

  // The newest open split point with children left, below `ancestor` when given.
  SplitPoint* FindWork(const SplitPoint* ancestor) const REQUIRES(mutex_) {
    for (auto it = open_.rbegin(); it != open_.rend(); ++it) {
      if ((*it)->HasWork() && (!ancestor || (*it)->Below(ancestor))) return *it;
    }
    return nullptr;
  }

  // Works on another thread's split point as a helper; never throws.
  void Join(S& search, SplitPoint& sp) EXCLUDES(mutex_) {
    Context& ctx = search.context();
    const SplitLink* outer = ctx.split;
    ctx.split = &sp;
    try {
      Work(search, sp);
    } catch (const Cancelled&) {
    } catch (const Aborted&) {  // a limit: recorded in shared_, every thread unwinds
    }
    ctx.split = outer;
    {
      MutexLock lock(mutex_);
      --sp.active;
    }
    done_.NotifyAll();
  }

  void HelperLoop() EXCLUDES(mutex_) {
    Context ctx(table_, rules_, limits_, &shared_);
    S search(ctx, this);
    MutexLock lock(mutex_);
    while (true) {
      SplitPoint* sp = FindWork(/*ancestor=*/nullptr);
      if (!sp) {
        if (quit_) break;
        wake_.Wait(mutex_);
        continue;
      }
      ++sp->active;
      lock.Unlock();
      Join(search, *sp);
      lock.Lock();
    }
    helper_nodes_ += ctx.nodes;
  }

  Table& table_;
  const Rules rules_;
  const SolveLimits limits_;
  SharedLimits& shared_;
  std::vector<std::thread> threads_;
  Mutex mutex_;
  CondVar wake_;  // a split point opened, or quit_
  CondVar done_;  // a helper left a split point, or one opened
  std::vector<SplitPoint*> open_ GUARDED_BY(mutex_);
  bool quit_ GUARDED_BY(mutex_) = false;
  std::uint64_t helper_nodes_ GUARDED_BY(mutex_) = 0;
};

}  // namespace othello::core::solver_detail
