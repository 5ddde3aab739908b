#include "cli/stop_signal.h"

#include <csignal>

namespace othello::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void OnSignal(int) { g_stop.store(true); }

}  // namespace

const std::atomic<bool>& StopOnSignals() {
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  return g_stop;
}

}  // namespace othello::cli
