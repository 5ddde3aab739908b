#pragma once
// SIGINT and SIGTERM as a stop flag for the long-running subcommands (train, selfplay):
// the first signal sets it, and the command finishes its work in hand and returns.
#include <atomic>

namespace othello::cli {

// Installs the handlers (once) and returns the flag they set.
const std::atomic<bool>& StopOnSignals();

}  // namespace othello::cli
