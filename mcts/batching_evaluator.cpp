#include "mcts/batching_evaluator.h"

#include <stdexcept>

namespace othello::mcts {

BatchingEvaluator::BatchingEvaluator(Backend backend, int max_batch,
                                     std::chrono::microseconds max_wait, int workers)
    : backend_(std::move(backend)), max_batch_(std::max(1, max_batch)), max_wait_(max_wait) {
  for (int i = 0; i < std::max(1, workers); ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

BatchingEvaluator::~BatchingEvaluator() {
  {
    core::MutexLock lock(mutex_);
    stop_ = true;
  }
  work_cv_.NotifyAll();
  for (auto& worker : workers_) worker.join();
  core::MutexLock lock(mutex_);
  for (Pending* p : queue_) {  // the workers are gone: nobody else will complete these
    p->batch->Fail(std::make_exception_ptr(std::runtime_error("evaluator shut down")));
    delete p;
  }
  queue_.clear();
}

void BatchingEvaluator::Submit(EvalBatch& batch) {
  batch.Restart();
  batch.outputs().resize(batch.size());
  if (batch.size() == 0) {
    batch.MarkDone();
    return;
  }
  {
    core::MutexLock lock(mutex_);
    if (stop_) throw std::runtime_error("evaluator shut down");
    queue_.push_back(new Pending{&batch, 0, batch.size(), std::chrono::steady_clock::now(), {}});
    queued_positions_ += batch.size();
  }
  work_cv_.NotifyOne();
}

void BatchingEvaluator::Wait(EvalBatch& batch) { batch.WaitDone(); }

std::vector<BatchingEvaluator::Slice> BatchingEvaluator::TakeSlices() {
  std::vector<Slice> slices;
  int room = max_batch_;
  while (room > 0 && !queue_.empty()) {
    Pending* p = queue_.front();
    const int take = std::min(room, p->batch->size() - p->next);
    slices.push_back({p, p->next, p->next + take});
    p->next += take;
    room -= take;
    queued_positions_ -= take;
    if (p->next == p->batch->size()) queue_.pop_front();
  }
  return slices;
}

void BatchingEvaluator::WorkerLoop() {
  core::MutexLock lock(mutex_);
  std::vector<const Position*> positions;
  std::vector<EvalOutput*> outputs;
  while (true) {
    while (!stop_ && queued_positions_ <= 0) work_cv_.Wait(mutex_);
    if (stop_) return;
    const auto deadline = queue_.front()->since + max_wait_;
    while (!stop_ && queued_positions_ > 0 && queued_positions_ < max_batch_ &&
           std::chrono::steady_clock::now() < deadline) {
      work_cv_.WaitUntil(mutex_, deadline);
    }
    if (stop_) return;
    if (queued_positions_ == 0) continue;  // another worker took them
    const std::vector<Slice> slices = TakeSlices();
    lock.Unlock();
    positions.clear();
    outputs.clear();
    for (const Slice& s : slices) {
      for (int i = s.begin; i < s.end; ++i) {
        positions.push_back(&s.pending->batch->positions()[i]);
        outputs.push_back(&s.pending->batch->outputs()[i]);
      }
    }
    std::exception_ptr error;
    try {
      backend_(positions, outputs);
    } catch (...) {
      error = std::current_exception();
    }
    calls_.fetch_add(1, std::memory_order_relaxed);
    positions_.fetch_add(positions.size(), std::memory_order_relaxed);
    lock.Lock();
    for (const Slice& s : slices) {
      Pending* p = s.pending;
      if (error && !p->error) p->error = error;
      p->remaining -= s.end - s.begin;
      if (p->remaining == 0) {
        if (p->error) {
          p->batch->Fail(p->error);
        } else {
          p->batch->MarkDone();
        }
        delete p;
      }
    }
  }
}

}  // namespace othello::mcts
