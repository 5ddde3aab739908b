#include "training/progress_line.h"

#include <sys/ioctl.h>

#include <cstdlib>

namespace othello::training {

std::string FitFields(const std::vector<std::string>& fields, int columns) {
  const std::size_t limit = columns > 1 ? static_cast<std::size_t>(columns) - 1 : 1;
  std::string line;
  for (const std::string& field : fields) {
    if (line.empty()) {
      line = field.substr(0, limit);
      continue;
    }
    if (line.size() + 3 + field.size() > limit) break;
    line += " | " + field;
  }
  return line;
}

int TerminalColumns(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    const int value = std::atoi(columns);
    if (value > 0) return value;
  }
  return 80;
}

}  // namespace othello::training
