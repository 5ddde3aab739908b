#include "play/engine_process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "play/player.h"

extern char** environ;

namespace othello::play {

namespace {

// Writes to a dead engine must fail with EPIPE, not kill the arena.
void IgnoreSigpipe() {
  static const bool once = [] {
    std::signal(SIGPIPE, SIG_IGN);
    return true;
  }();
  (void)once;
}

// Whether `pid` has exited, leaving it unreaped: until it is reaped its process group
// cannot be reused, so what is left of the group can still be killed.
bool HasExited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

}  // namespace

EngineProcess::EngineProcess(std::string command) : command_(std::move(command)) {
  IgnoreSigpipe();
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) Fail(std::string("cannot create a pipe: ") + std::strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]);
    Fail(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  const std::string exec_line = "exec " + command_;
  const char* argv[] = {"/bin/sh", "-c", exec_line.c_str(), nullptr};
  const int rc = posix_spawn(&pid_, "/bin/sh", &actions, &attr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(in[0]);
  close(out[1]);
  to_engine_ = in[1];
  from_engine_ = out[0];
  if (rc != 0) {
    pid_ = -1;
    close(to_engine_);  // the destructor does not run for a constructor that throws
    close(from_engine_);
    Fail(std::string("cannot start: ") + std::strerror(rc));
  }
}

EngineProcess::~EngineProcess() {
  if (to_engine_ >= 0) close(to_engine_);
  // A polite engine exits when its input closes (or after "quit"): wait briefly, then
  // kill what is left of its process group (all of it, if the engine did not exit).
  for (int i = 0; i < 50 && pid_ > 0 && !HasExited(pid_); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Kill();
  if (from_engine_ >= 0) close(from_engine_);
}

void EngineProcess::Kill() {
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

void EngineProcess::Fail(const std::string& what) {
  throw PlayerError("engine '" + command_ + "': " + what);
}

void EngineProcess::WriteLine(const std::string& line) {
  if (pid_ <= 0) Fail("is not running");
  const std::string data = line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(to_engine_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fail("died (its input is closed) while sent '" + line + "'");
    done += static_cast<std::size_t>(n);
  }
}

EngineProcess::Deadline::Deadline(std::chrono::duration<double> timeout)
    : at(std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout)),
      seconds(timeout.count()) {}

std::string EngineProcess::ReadLine(const Deadline& deadline) {
  using Clock = std::chrono::steady_clock;
  for (;;) {
    const std::size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    if (buffer_.size() > (1u << 20)) Fail("sent a line longer than 1 MiB");
    if (pid_ <= 0) Fail("is not running");
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline.at - Clock::now());
    if (left.count() <= 0) {
      Kill();
      char secs[32];
      std::snprintf(secs, sizeof secs, "%.1f", deadline.seconds);
      Fail(std::string("did not answer within ") + secs + " s (killed)");
    }
    pollfd fd{from_engine_, POLLIN, 0};
    const int ready = poll(&fd, 1, static_cast<int>(std::min<long long>(left.count() + 1, 1 << 30)));
    if (ready < 0 && errno != EINTR) Fail(std::string("poll failed: ") + std::strerror(errno));
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t n = read(from_engine_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Kill();
      Fail("died (its output closed)");
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace othello::play
