// Driving searches: several threads on one tree, or many trees on one thread.
#include <exception>
#include <thread>

#include "mcts/search.h"

namespace othello::mcts {
namespace {

// One thread's loop on one tree: gather, evaluate, apply, until done or failed.
void SearchLoop(TreeSearch& search, Evaluator& evaluator, int leaves_per_batch,
                std::atomic<bool>& failed) {
  EvalBatch batch;
  LeafBuffer leaves;
  while (!search.Done() && !failed.load(std::memory_order_relaxed)) {
    batch.Clear();
    leaves.Clear();
    search.Gather(batch, leaves, leaves_per_batch);
    if (leaves.size() == 0) {
      std::this_thread::yield();  // every leaf is being evaluated by another thread
      continue;
    }
    evaluator.Evaluate(batch);
    search.Apply(batch, 0, leaves);
  }
}

}  // namespace

SearchResult RunSearch(TreeSearch& search, Evaluator& evaluator, const SearchLimits& limits,
                       int ply, bool full) {
  search.Begin(limits, full);
  const int threads = std::max(1, search.params().threads);
  const int per_batch = std::max(1, search.params().leaves_per_batch);
  std::atomic<bool> failed{false};
  if (threads == 1) {
    search.SetOneThread();
    SearchLoop(search, evaluator, per_batch, failed);
  } else {
    std::vector<std::exception_ptr> errors(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        try {
          SearchLoop(search, evaluator, per_batch, failed);
        } catch (...) {
          errors[t] = std::current_exception();
          failed.store(true);
        }
      });
    }
    for (auto& th : pool) th.join();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
  }
  return search.Finish(ply);
}

int RunSearchRound(const std::vector<TreeSearch*>& searches, Evaluator& evaluator,
                   int leaves_per_search, SearchRoundBuffers& buffers) {
  EvalBatch& batch = buffers.batch;
  buffers.leaves.resize(searches.size());
  buffers.offsets.resize(searches.size());
  batch.Clear();
  int active = 0;
  for (std::size_t i = 0; i < searches.size(); ++i) {
    buffers.leaves[i].Clear();
    if (searches[i]->Done()) continue;
    ++active;
    searches[i]->SetOneThread();
    buffers.offsets[i] = batch.size();
    searches[i]->Gather(batch, buffers.leaves[i], leaves_per_search);
  }
  if (batch.size() > 0) evaluator.Evaluate(batch);
  for (std::size_t i = 0; i < searches.size(); ++i) {
    if (buffers.leaves[i].size() > 0) {
      searches[i]->Apply(batch, buffers.offsets[i], buffers.leaves[i]);
    }
  }
  return active;
}

void RunSearchesBatched(const std::vector<TreeSearch*>& searches, Evaluator& evaluator,
                        int leaves_per_search) {
  SearchRoundBuffers buffers;
  while (RunSearchRound(searches, evaluator, leaves_per_search, buffers) > 0) {
  }
}

}  // namespace othello::mcts
