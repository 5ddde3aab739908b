#pragma once
// An outside engine run as a child process (`/bin/sh -c COMMAND`, in its own process
// group), talked to line by line over pipes. Reads take a deadline, so a hung engine
// is noticed; an engine that exits or closes its output is reported as dead. The
// destructor closes the engine's input, gives it half a second to quit, then kills its
// whole process group (what the engine started too) and reaps it: no engine outlives
// the object.
// Errors are PlayerError whose message names the engine's command.
// Thread safety: none; one thread uses an object. The first object sets SIGPIPE to be
// ignored in the whole process, so that a write to a dead engine fails with EPIPE.
#include <chrono>
#include <string>
#include <sys/types.h>

namespace othello::play {

class EngineProcess {
 public:
  explicit EngineProcess(std::string command);
  ~EngineProcess();
  EngineProcess(const EngineProcess&) = delete;
  EngineProcess& operator=(const EngineProcess&) = delete;

  const std::string& command() const { return command_; }
  // Writes one line (a newline is added).
  void WriteLine(const std::string& line);
  // A deadline for a whole exchange: `timeout` from now.
  struct Deadline {
    explicit Deadline(std::chrono::duration<double> timeout);
    std::chrono::steady_clock::time_point at;
    double seconds;  // the timeout, for messages
  };
  // The next line without its newline (and without a trailing '\r'), waiting until
  // `deadline` (so that an engine sending blank or chatty lines cannot keep a caller
  // waiting past it); throws PlayerError when the engine dies or the time runs out.
  std::string ReadLine(const Deadline& deadline);
  // Kills the engine now (e.g. after a timeout); later calls fail.
  void Kill();

 private:
  [[noreturn]] void Fail(const std::string& what);

  std::string command_;
  pid_t pid_ = -1;
  int to_engine_ = -1;    // the engine's stdin
  int from_engine_ = -1;  // the engine's stdout
  std::string buffer_;    // read but not yet returned
};

}  // namespace othello::play
