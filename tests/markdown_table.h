#pragma once
// For the tests that check a reference page against the declarations it documents: the
// rows of a Markdown page's tables, by their first cell.
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace othello::test {

// The cells of the table rows "| `NAME` | ... |" of the file at `path`, keyed by the first
// cell (`` `NAME` ``, backticks included); empty when the file cannot be read.
inline std::map<std::string, std::vector<std::string>> MarkdownRows(const std::string& path) {
  std::ifstream in(path);
  std::map<std::string, std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0 || line.size() < 4 || line.compare(line.size() - 2, 2, " |")) {
      continue;
    }
    const std::string body = line.substr(2, line.size() - 4);  // between "| " and " |"
    std::vector<std::string> cells;
    for (std::size_t begin = 0;;) {
      const std::size_t end = body.find(" | ", begin);
      cells.push_back(body.substr(begin, end - begin));
      if (end == std::string::npos) break;
      begin = end + 3;
    }
    rows[cells[0]] = cells;
  }
  return rows;
}

}  // namespace othello::test
