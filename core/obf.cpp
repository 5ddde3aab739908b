#include "core/obf.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/notation.h"

namespace othello::core {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

std::optional<int> ObfEntry::BestScore() const {
  if (scores.empty()) return std::nullopt;
  return std::max_element(scores.begin(), scores.end(),
                          [](const ObfScore& a, const ObfScore& b) { return a.score < b.score; })
      ->score;
}

Result<std::optional<ObfEntry>> ParseObfLine(std::string_view line) {
  std::size_t first = 0;
  while (first < line.size() && IsSpace(line[first])) ++first;
  if (first == line.size() || line[first] == '%' || line[first] == '#') {
    return std::optional<ObfEntry>();
  }
  const std::size_t semi = line.find(';', first);
  auto position = ParseBoardString(line.substr(first, semi == std::string_view::npos
                                                          ? std::string_view::npos
                                                          : semi - first));
  if (!position) return Error{position.error()};
  ObfEntry entry;
  entry.position = *position;
  const int area = position->squares();
  for (std::size_t at = semi; at != std::string_view::npos && at < line.size();) {
    const std::size_t begin = at + 1;
    const std::size_t end = std::min(line.find(';', begin), line.size());
    std::string_view item = line.substr(begin, end - begin);
    at = end == line.size() ? std::string_view::npos : end;
    while (!item.empty() && IsSpace(item.front())) item.remove_prefix(1);
    while (!item.empty() && IsSpace(item.back())) item.remove_suffix(1);
    if (item.empty()) continue;
    const std::string where = "column " + std::to_string(begin + 1) + " ('" + std::string(item) + "')";
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos) return Error{where + ": expected move:score"};
    auto move = ParseSquare(item.substr(0, colon), position->size());
    if (!move) return Error{where + ": " + move.error()};
    // Where the side to move must pass, a line may list the opponent's replies.
    const Position& mover = position->MustPass() ? position->Play(kPass) : *position;
    if (!mover.IsLegal(*move)) return Error{where + ": the move is illegal in this position"};
    const std::string_view number = item.substr(colon + 1);
    std::size_t digits = !number.empty() && (number[0] == '+' || number[0] == '-') ? 1 : 0;
    const bool numeric = number.size() > digits && number.size() - digits <= 3 &&
                         std::all_of(number.begin() + digits, number.end(),
                                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    const int score = numeric ? std::stoi(std::string(number)) : 0;
    if (!numeric || score < -area || score > area) {
      return Error{where + ": the score must be a whole number of discs from -" +
                   std::to_string(area) + " to +" + std::to_string(area)};
    }
    entry.scores.push_back({*move, score});
  }
  return std::optional<ObfEntry>(std::move(entry));
}

}  // namespace othello::core
