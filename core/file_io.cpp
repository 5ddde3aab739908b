#include "core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "core/fault.h"

namespace othello::core {
namespace {

[[noreturn]] void Fail(std::string_view what, const std::string& path, const std::string& action,
                       int error) {
  throw InputError(std::string(what) + " " + path + ": " + action + ": " + std::strerror(error));
}

// Writes all of `bytes` to `fd`; false with errno set on failure.
bool WriteAll(int fd, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string FolderOf(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

}  // namespace

std::string ReadFile(const std::string& path, std::string_view what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail(what, path, "cannot be opened", errno);
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    Fail(what, path, "cannot be read", EISDIR);
  }
  std::string data;
  if (info.st_size > 0) data.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      Fail(what, path, "cannot be read", error);
    }
    if (n == 0) break;
    data.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return data;
}

void SyncFolder(const std::string& path, std::string_view what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) Fail(what, path, "cannot open the folder to sync it", errno);
  // Some file systems cannot sync a folder (EINVAL); their renames are then as durable
  // as they get.
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int error = errno;
    ::close(fd);
    Fail(what, path, "cannot sync the folder", error);
  }
  ::close(fd);
}

bool IsTemporaryFile(std::string_view name) {
  return name.size() >= kTemporarySuffix.size() &&
         name.substr(name.size() - kTemporarySuffix.size()) == kTemporarySuffix;
}

void WriteFileAtomically(const std::string& path, std::string_view bytes, std::string_view what) {
  const std::string tmp = path + std::string(kTemporarySuffix);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Fail(what, path, "cannot create " + tmp, errno);
  const auto abandon = [&](const std::string& action, int error) {
    ::close(fd);
    ::unlink(tmp.c_str());
    Fail(what, path, action, error);
  };
  if (InjectFault("kill:" + std::string(what))) {  // a SIGKILL half-way through the write
    WriteAll(fd, bytes.substr(0, bytes.size() / 2));
    ::kill(::getpid(), SIGKILL);
  }
  if (!WriteAll(fd, bytes)) abandon("cannot write " + tmp, errno);
  if (InjectFault("write")) abandon("cannot write " + tmp + " (injected)", ENOSPC);
  if (::fsync(fd) != 0) abandon("cannot sync " + tmp, errno);
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    Fail(what, path, "cannot close " + tmp, error);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    Fail(what, path, "cannot rename " + tmp + " to it", error);
  }
  SyncFolder(FolderOf(path), what);
}

void AppendToFile(const std::string& path, std::string_view bytes, std::string_view what,
                  bool durable) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) Fail(what, path, "cannot be opened for appending", errno);
  if (!WriteAll(fd, bytes) || (durable && ::fdatasync(fd) != 0)) {
    const int error = errno;
    ::close(fd);
    Fail(what, path, "cannot append to it", error);
  }
  if (::close(fd) != 0) Fail(what, path, "cannot close it", errno);
}

std::uint64_t RepairTornTail(const std::string& path, std::string_view what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return 0;
  const std::string data = ReadFile(path, what);
  if (data.empty() || data.back() == '\n') return 0;
  const std::size_t keep = data.rfind('\n') == std::string::npos ? 0 : data.rfind('\n') + 1;
  if (::truncate(path.c_str(), static_cast<off_t>(keep)) != 0) {
    Fail(what, path, "cannot cut its unfinished last line", errno);
  }
  return data.size() - keep;
}

}  // namespace othello::core
