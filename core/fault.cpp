#include "core/fault.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "core/thread_annotations.h"

namespace othello::core {
namespace {

struct Armed {
  std::string point;
  long calls_left;  // fails when this reaches 0
};

Mutex g_mutex;
std::vector<Armed> g_armed GUARDED_BY(g_mutex);
std::atomic<bool> g_any{false};
std::once_flag g_env_once;

void Parse(const std::string& spec) REQUIRES(g_mutex) {
  g_armed.clear();
  std::size_t begin = 0;
  while (begin < spec.size()) {
    std::size_t end = spec.find(',', begin);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(begin, end - begin);
    const std::size_t at = item.find('@');
    long n = 1;
    if (at != std::string::npos) n = std::max(1L, std::strtol(item.c_str() + at + 1, nullptr, 10));
    if (!item.empty()) g_armed.push_back({item.substr(0, at), n});
    begin = end + 1;
  }
  g_any.store(!g_armed.empty(), std::memory_order_relaxed);
}

void ReadEnvironment() {
  std::call_once(g_env_once, [] {
    MutexLock lock(g_mutex);
    if (const char* spec = std::getenv("OZ_FAULT")) Parse(spec);
  });
}

}  // namespace

bool InjectFault(std::string_view point) {
  ReadEnvironment();
  if (!g_any.load(std::memory_order_relaxed)) return false;
  MutexLock lock(g_mutex);
  for (Armed& armed : g_armed) {
    if (armed.point == point && armed.calls_left > 0 && --armed.calls_left == 0) return true;
  }
  return false;
}

void SetFaults(const std::string& spec) {
  ReadEnvironment();
  MutexLock lock(g_mutex);
  Parse(spec);
}

}  // namespace othello::core
