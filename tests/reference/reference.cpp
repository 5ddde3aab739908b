#include "tests/reference/reference.h"

namespace othello::reference {
namespace {

const int kDc[8] = {1, -1, 0, 0, 1, -1, 1, -1};
const int kDr[8] = {0, 0, 1, -1, 1, -1, -1, 1};

int Other(int color) { return color == kBlack ? kWhite : kBlack; }

bool IsCenter(const Board& b, int sq) {
  const int c = sq % b.size, r = sq / b.size, lo = b.size / 2 - 1, hi = b.size / 2;
  return (c == lo || c == hi) && (r == lo || r == hi);
}

}  // namespace

Board StandardStart(int size) {
  Board b;
  b.size = size;
  b.cells.assign(size * size, kEmpty);
  const int lo = size / 2 - 1, hi = size / 2;
  b.cells[lo * size + lo] = kWhite;
  b.cells[hi * size + hi] = kWhite;
  b.cells[lo * size + hi] = kBlack;
  b.cells[hi * size + lo] = kBlack;
  return b;
}

bool CenterEmpty(const Board& b) {
  for (int sq = 0; sq < b.size * b.size; ++sq) {
    if (IsCenter(b, sq) && b.cells[sq] == kEmpty) return true;
  }
  return false;
}

std::vector<int> Flips(const Board& b, int sq) {
  std::vector<int> flipped;
  if (b.cells[sq] != kEmpty) return flipped;
  const int me = b.to_move, them = Other(me);
  for (int d = 0; d < 8; ++d) {
    std::vector<int> run;
    int c = sq % b.size + kDc[d], r = sq / b.size + kDr[d];
    while (c >= 0 && c < b.size && r >= 0 && r < b.size && b.cells[r * b.size + c] == them) {
      run.push_back(r * b.size + c);
      c += kDc[d];
      r += kDr[d];
    }
    if (c >= 0 && c < b.size && r >= 0 && r < b.size && b.cells[r * b.size + c] == me) {
      flipped.insert(flipped.end(), run.begin(), run.end());
    }
  }
  return flipped;
}

bool IsLegal(const Board& b, int sq) {
  if (b.cells[sq] != kEmpty) return false;
  if (CenterEmpty(b)) return IsCenter(b, sq);
  return !Flips(b, sq).empty();
}

std::vector<int> LegalMoves(const Board& b) {
  std::vector<int> moves;
  for (int sq = 0; sq < b.size * b.size; ++sq) {
    if (IsLegal(b, sq)) moves.push_back(sq);
  }
  return moves;
}

Board Play(const Board& b, int sq) {
  Board next = b;
  if (sq >= 0) {
    if (!CenterEmpty(b)) {
      for (int f : Flips(b, sq)) next.cells[f] = b.to_move;
    }
    next.cells[sq] = b.to_move;
  }
  next.to_move = Other(b.to_move);
  return next;
}

bool GameOver(const Board& b) {
  if (!LegalMoves(b).empty()) return false;
  return LegalMoves(Play(b, -1)).empty();
}

int Count(const Board& b, int color) {
  int n = 0;
  for (int cell : b.cells) n += cell == color;
  return n;
}

int BlackMargin(const Board& b, bool anti, bool empties_to_winner) {
  const int black = Count(b, kBlack), white = Count(b, kWhite);
  const int empty = b.size * b.size - black - white;
  const bool black_wins = anti ? black < white : black > white;
  const bool white_wins = anti ? white < black : white > black;
  const int diff = black > white ? black - white : white - black;
  const int margin = diff + (empties_to_winner ? empty : 0);
  if (black_wins) return margin;
  if (white_wins) return -margin;
  return 0;
}

std::uint64_t Perft(const Board& b, int depth) {
  if (depth == 0) return 1;
  const std::vector<int> moves = LegalMoves(b);
  if (moves.empty()) {
    if (GameOver(b)) return 1;
    return Perft(Play(b, -1), depth - 1);
  }
  std::uint64_t leaves = 0;
  for (int sq : moves) leaves += Perft(Play(b, sq), depth - 1);
  return leaves;
}

}  // namespace othello::reference
