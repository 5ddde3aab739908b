#pragma once
// The HTTP server of `othello-zero serve` (cpp-httplib): the page and the API of
// web_api.h on a local address. Request bodies are limited to 64 KiB; a malformed
// request gets an error reply (or, when it is not HTTP at all, a closed connection) and
// the server keeps running; 96 worker threads and 2-second read and keep-alive timeouts
// keep it answering while many idle connections are open.
// Threads: Run() starts the worker threads, which call WebApi::Handle() concurrently,
// and joins them before it returns. Run() blocks the calling thread until Stop().
// Thread safety: Stop() may be called from any thread, or from a signal handler (it only
// shuts the listening socket); a Stop() before Run() is listening has no effect. Other
// calls from one thread.
// Lifetime: the WebApi must outlive the server; destroy the server only when Run() has
// returned (or was never called).
#include <memory>
#include <string>

#include "play/web_api.h"

namespace othello::play {

class WebServer {
 public:
  explicit WebServer(WebApi& api);
  ~WebServer();
  // Serves on host:port until Stop(); throws core::InputError when it cannot listen.
  void Run(const std::string& host, int port);
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace othello::play
