#include "nn/eigen_net.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/error.h"
#include "nn/encoding.h"

// The hand-written 3x3 convolution kernel needs AVX2 and FMA; without them (or for an
// output width that is not a multiple of 8) Eigen's products do the convolutions.
#if defined(__AVX2__) && defined(__FMA__)
#define OZ_CONV_KERNEL 1
#include <immintrin.h>
#endif

namespace othello::nn {

namespace {

using Matrix = Eigen::MatrixXf;  // [channels, columns]; a column is one cell
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<Matrix>;
// Overlapping columns, each starting one cell (C floats) after the previous: the
// rows of a 3x3 window over the padded grid, read in place (see Conv3x3).
using WindowMap = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;
using Buffer = std::vector<float, Eigen::aligned_allocator<float>>;

// Positions per pass through the net: a chunk's activations stay in the L2 cache, so
// large batches run as fast per position as middling ones.
constexpr int kChunk = 16;

struct Affine {  // a 1x1 convolution or a linear layer as [out, in], with its bias
  Matrix weight;
  Eigen::VectorXf bias;

  static Affine From(const ModelFile& model, const std::string& name) {
    const ModelTensor& w = model.tensors.at(name + ".weight");
    const ModelTensor& b = model.tensors.at(name + ".bias");
    Affine a;
    const int out = w.shape[0];
    const int in = static_cast<int>(w.values.size()) / out;
    a.weight = Eigen::Map<const RowMajor>(w.values.data(), out, in);
    a.bias = Eigen::Map<const Eigen::VectorXf>(b.values.data(), out);
    return a;
  }
  // Several layers reading the same input as one product: their rows stacked in order.
  static Affine Stack(const std::vector<const Affine*>& parts) {
    Eigen::Index rows = 0;
    for (const Affine* p : parts) rows += p->weight.rows();
    Affine a;
    a.weight.resize(rows, parts.front()->weight.cols());
    a.bias.resize(rows);
    Eigen::Index row = 0;
    for (const Affine* p : parts) {
      a.weight.middleRows(row, p->weight.rows()) = p->weight;
      a.bias.segment(row, p->weight.rows()) = p->bias;
      row += p->weight.rows();
    }
    return a;
  }
};

// A 3x3 convolution with zero padding, reordered at load time for the padded grid: one
// [out, 3 * in] matrix per kernel row ky, column kx * in + c (the file's is c * 9 + ky * 3 + kx).
// With the kernel, `packed` holds the weights again for it: blocks of up to 32 output rows
// (4 vectors of 8), each [9 * in][block rows] with the kernel index (ky * 3 + kx) * in + c.
struct Conv3x3 {
  Matrix rows[3];
  Eigen::VectorXf bias;
  Buffer packed;
  int in = 0;

  static Conv3x3 From(const ModelFile& model, const std::string& name) {
    const ModelTensor& w = model.tensors.at(name + ".weight");
    const ModelTensor& b = model.tensors.at(name + ".bias");
    Conv3x3 conv;
    const int out = w.shape[0];
    conv.in = static_cast<int>(w.values.size()) / (out * 9);
    for (int ky = 0; ky < 3; ++ky) {
      conv.rows[ky].resize(out, 3 * conv.in);
      for (int o = 0; o < out; ++o) {
        for (int c = 0; c < conv.in; ++c) {
          for (int kx = 0; kx < 3; ++kx) {
            conv.rows[ky](o, kx * conv.in + c) = w.values[((o * conv.in + c) * 3 + ky) * 3 + kx];
          }
        }
      }
    }
    conv.bias = Eigen::Map<const Eigen::VectorXf>(b.values.data(), out);
#ifdef OZ_CONV_KERNEL
    if (out % 8 == 0) {
      const int span = 3 * conv.in;
      conv.packed.resize(std::size_t(out) * 3 * span);
      float* w = conv.packed.data();
      for (int row0 = 0; row0 < out; row0 += 32) {
        const int block = std::min(32, out - row0);
        for (int ky = 0; ky < 3; ++ky) {
          for (int t = 0; t < span; ++t) {
            for (int j = 0; j < block; ++j) *w++ = conv.rows[ky](row0 + j, t);
          }
        }
      }
    }
#endif
    return conv;
  }
  Eigen::Index out() const { return bias.size(); }
};

// The padded layout of a chunk of boards: a grid `width` = size + 1 cells wide, whose
// column `size` is zero (the right padding of one row and the left padding of the next),
// with a zero row above each board (also below the previous one) and after the last, and
// one zero cell before and after the whole grid. A 3x3 neighbour is then a fixed cell
// offset, and activations are [C, cells] column-major: each cell's C channels are
// contiguous, so one row of a 3x3 window is 3C contiguous floats. The convolutions compute
// every cell of rows 1 .. rows - 2 (the range), then zero the padding they wrote.
struct Grid {
  int size = 0, width = 0, batch = 0, rows = 0;
  Eigen::Index cells = 0, first = 0, count = 0;  // all cells; the range [first, first + count)

  Grid(int size_, int batch_)
      : size(size_), width(size_ + 1), batch(batch_), rows(batch_ * (size_ + 1) + 1) {
    cells = Eigen::Index(rows) * width + 2;
    first = 1 + width;
    count = Eigen::Index(rows - 2) * width;
  }
  Eigen::Index Cell(int b, int y, int x) const {
    return 1 + Eigen::Index(b * (size + 1) + 1 + y) * width + x;
  }
};

// out = (accumulate ? out : 0) + conv(in) over the range, before bias; in and out are
// [C, cells]. Three products, one per kernel row, each reading its windows in place.
void Conv(const Conv3x3& conv, const float* in, const Grid& g, float* out, bool accumulate) {
  MatrixMap y(out + g.first * conv.out(), conv.out(), g.count);
  for (int ky = 0; ky < 3; ++ky) {
    const WindowMap window(in + (g.first + (ky - 1) * g.width - 1) * conv.in, 3 * conv.in,
                           g.count, Eigen::OuterStride<>(conv.in));
    if (ky == 0 && !accumulate) {
      y.noalias() = conv.rows[ky] * window;
    } else {
      y.noalias() += conv.rows[ky] * window;
    }
  }
}

// x = relu(x + bias) on the boards' cells of [C, cells]; the padding (outside the range
// too) is set back to zero for the next convolution.
void BiasRelu(float* x, const Eigen::VectorXf& bias, const Grid& g) {
  const Eigen::Index c = bias.size();
  std::fill(x, x + g.first * c, 0.0f);
  std::fill(x + (g.first + g.count) * c, x + g.cells * c, 0.0f);
  for (int r = 1; r < g.rows - 1; ++r) {
    float* row = x + (1 + Eigen::Index(r) * g.width) * c;
    if (r % (g.size + 1) == 0) {  // between two boards
      std::fill(row, row + g.width * c, 0.0f);
      continue;
    }
    for (int col = 0; col < g.size; ++col, row += c) {
      for (Eigen::Index i = 0; i < c; ++i) row[i] = std::max(row[i] + bias[i], 0.0f);
    }
    std::fill(row, row + c, 0.0f);
  }
}

// Mean and max over each board's cells of `channels` rows, where cell k of the grid is at
// range + (k - first) * stride: [2 * channels, B].
void GlobalPool(const float* range, Eigen::Index channels, Eigen::Index stride, const Grid& g,
                Matrix& pooled) {
  pooled.resize(2 * channels, g.batch);
  const float scale = 1.0f / float(g.size * g.size);
  for (int b = 0; b < g.batch; ++b) {
    float* mean = &pooled(0, b);
    float* max = mean + channels;
    std::fill(mean, mean + channels, 0.0f);
    std::fill(max, max + channels, -std::numeric_limits<float>::infinity());
    for (int y = 0; y < g.size; ++y) {
      const float* cell = range + (g.Cell(b, y, 0) - g.first) * stride;
      for (int x = 0; x < g.size; ++x, cell += stride) {
        for (Eigen::Index i = 0; i < channels; ++i) {
          mean[i] += cell[i];
          max[i] = std::max(max[i], cell[i]);
        }
      }
    }
    for (Eigen::Index i = 0; i < channels; ++i) mean[i] *= scale;
  }
}

#ifdef OZ_CONV_KERNEL
// out = relu(bias + conv(in) (+ out when residual)) at N board cells, output rows
// [row0, row0 + 8R). The R x N accumulators stay in registers (12 of the 16 at most), the
// weights are read once per N cells, and the input is broadcast straight from the grid
// (a window row is 3 * in contiguous floats), so nothing is packed and no padding cell
// is computed.
template <int R, int N>
void ConvTile(const Conv3x3& conv, const float* w, int row0, const float* in, const int* cells,
              int width, float* out, bool residual) {
  const Eigen::Index cin = conv.in, cout = conv.out(), span = 3 * cin;
  // The small loops are unrolled at once so that GCC keeps acc in registers.
  __m256 acc[N][R];
#pragma GCC unroll 4
  for (int i = 0; i < N; ++i) {
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      acc[i][r] = _mm256_loadu_ps(conv.bias.data() + row0 + 8 * r);
      if (residual) {
        acc[i][r] = _mm256_add_ps(acc[i][r], _mm256_loadu_ps(out + cells[i] * cout + row0 + 8 * r));
      }
    }
  }
  const float* a[N];
#pragma GCC unroll 4
  for (int i = 0; i < N; ++i) a[i] = in + (cells[i] - Eigen::Index(width) - 1) * cin;
  const float* wk = w;
  for (int ky = 0; ky < 3; ++ky) {
    for (Eigen::Index t = 0; t < span; ++t, wk += 8 * R) {
      __m256 b[N];
#pragma GCC unroll 4
      for (int i = 0; i < N; ++i) b[i] = _mm256_broadcast_ss(a[i] + t);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const __m256 wr = _mm256_load_ps(wk + 8 * r);
#pragma GCC unroll 4
        for (int i = 0; i < N; ++i) acc[i][r] = _mm256_fmadd_ps(wr, b[i], acc[i][r]);
      }
    }
#pragma GCC unroll 4
    for (int i = 0; i < N; ++i) a[i] += width * cin;  // the next kernel row
  }
  const __m256 zero = _mm256_setzero_ps();
#pragma GCC unroll 4
  for (int i = 0; i < N; ++i) {
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      _mm256_storeu_ps(out + cells[i] * cout + row0 + 8 * r, _mm256_max_ps(acc[i][r], zero));
    }
  }
}

template <int R>
void ConvRows(const Conv3x3& conv, int row0, const float* in, const Grid& g,
              const std::vector<int>& cells, float* out, bool residual) {
  const float* w = conv.packed.data() + Eigen::Index(row0) * 9 * conv.in;
  const int n = static_cast<int>(cells.size());
  int i = 0;
  for (; i + 3 <= n; i += 3) ConvTile<R, 3>(conv, w, row0, in, &cells[i], g.width, out, residual);
  if (n - i == 2) ConvTile<R, 2>(conv, w, row0, in, &cells[i], g.width, out, residual);
  if (n - i == 1) ConvTile<R, 1>(conv, w, row0, in, &cells[i], g.width, out, residual);
}
#endif

// out = relu(conv(in) + bias (+ out when residual)) on the boards' cells (listed in
// `cells`), padding zero; in and out are [C, cells] and distinct.
void ConvBiasRelu(const Conv3x3& conv, const float* in, const Grid& g,
                  [[maybe_unused]] const std::vector<int>& cells, float* out, bool residual) {
#ifdef OZ_CONV_KERNEL
  if (!conv.packed.empty()) {  // the padding of out is zero already and is not written
    for (int row0 = 0; row0 < conv.out(); row0 += 32) {
      switch (std::min<Eigen::Index>(32, conv.out() - row0) / 8) {
        case 1: ConvRows<1>(conv, row0, in, g, cells, out, residual); break;
        case 2: ConvRows<2>(conv, row0, in, g, cells, out, residual); break;
        case 3: ConvRows<3>(conv, row0, in, g, cells, out, residual); break;
        default: ConvRows<4>(conv, row0, in, g, cells, out, residual); break;
      }
    }
    return;
  }
#endif
  Conv(conv, in, g, out, residual);
  BiasRelu(out, conv.bias, g);
}

void Softmax(const float* logits, int n, float* out) {
  const float top = *std::max_element(logits, logits + n);
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += out[i] = std::exp(logits[i] - top);
  for (int i = 0; i < n; ++i) out[i] /= sum;
}

// Per-thread working memory, reused across calls (Forward runs on many threads at once).
struct Scratch {
  Buffer input, x, y;  // [planes or C, cells]
  Matrix heads, pooled, bias, pass, hidden, wdl, disc, square_logits;
  std::vector<float> planes, logits;
  std::vector<int> cells;  // the boards' cells, board by board, row by row
};

}  // namespace

struct EigenNet::Layers {
  Conv3x3 stem;
  struct Block {
    Conv3x3 conv1, conv2;
    Affine pool_bias;
    bool pool = false;
  };
  std::vector<Block> blocks;
  // heads: policy_conv, value_conv and ownership_conv stacked, all reading the trunk.
  Affine heads, policy_out, pass_fc, value_fc, wdl_fc, disc_fc;
  Eigen::Index head_channels = 0;
};

EigenNet::EigenNet(const ModelFile& model) : config_(model.net), layers_(new Layers) {
  Layers& l = *layers_;
  l.stem = Conv3x3::From(model, "stem");
  for (int i = 0; i < config_.blocks; ++i) {
    const std::string name = "block" + std::to_string(i);
    Layers::Block block;
    block.conv1 = Conv3x3::From(model, name + ".conv1");
    block.conv2 = Conv3x3::From(model, name + ".conv2");
    block.pool = model.tensors.count(name + ".pool_bias.weight") > 0;
    if (block.pool) block.pool_bias = Affine::From(model, name + ".pool_bias");
    l.blocks.push_back(std::move(block));
  }
  const Affine policy_conv = Affine::From(model, "policy_conv");
  const Affine value_conv = Affine::From(model, "value_conv");
  const Affine ownership = Affine::From(model, "ownership_conv");
  l.head_channels = policy_conv.weight.rows();
  if (value_conv.weight.rows() != l.head_channels) {
    throw core::InputError("model file: policy_conv and value_conv widths differ");
  }
  l.heads = Affine::Stack({&policy_conv, &value_conv, &ownership});
  l.policy_out = Affine::From(model, "policy_out");
  l.pass_fc = Affine::From(model, "pass_fc");
  l.value_fc = Affine::From(model, "value_fc");
  l.wdl_fc = Affine::From(model, "wdl_fc");
  l.disc_fc = Affine::From(model, "disc_fc");
}

EigenNet::~EigenNet() = default;

void EigenNet::Forward(const std::vector<const core::Position*>& positions,
                       const std::vector<mcts::EvalOutput*>& outputs) const {
  mcts::ForEachBoardSize(positions, outputs, [this](const auto& same_size, const auto& outs) {
    ForwardSameSize(same_size, outs);
  });
}

void EigenNet::ForwardSameSize(const std::vector<const core::Position*>& positions,
                               const std::vector<mcts::EvalOutput*>& outputs) const {
  const Layers& l = *layers_;
  thread_local Scratch s;
  const int total = static_cast<int>(positions.size());
  const int size = positions.front()->size(), area = size * size;
  const Eigen::Index channels = l.stem.out(), h = l.head_channels;
  for (int start = 0; start < total; start += kChunk) {
    const Grid g(size, std::min(kChunk, total - start));
    s.input.assign(kInputPlanes * g.cells, 0.0f);
    s.x.assign(channels * g.cells, 0.0f);  // the padding must be zero
    s.y.assign(channels * g.cells, 0.0f);
    s.planes.resize(kInputPlanes * area);
    s.cells.clear();
    for (int b = 0; b < g.batch; ++b) {
      for (int sq = 0; sq < area; ++sq) s.cells.push_back(int(g.Cell(b, sq / size, sq % size)));
    }
    for (int b = 0; b < g.batch; ++b) {
      EncodePosition(*positions[start + b], s.planes.data());
      for (int sq = 0; sq < area; ++sq) {
        float* cell = s.input.data() + g.Cell(b, sq / size, sq % size) * kInputPlanes;
        for (int p = 0; p < kInputPlanes; ++p) cell[p] = s.planes[p * area + sq];
      }
    }
    float* x = s.x.data();
    float* y = s.y.data();
    ConvBiasRelu(l.stem, s.input.data(), g, s.cells, x, false);
    for (const Layers::Block& block : l.blocks) {
      ConvBiasRelu(block.conv1, x, g, s.cells, y, false);
      if (block.pool) {  // y += pool_bias(GlobalPool(y)) on the boards' cells only
        GlobalPool(y + g.first * channels, channels, channels, g, s.pooled);
        s.bias.noalias() = block.pool_bias.weight * s.pooled;
        s.bias.colwise() += block.pool_bias.bias;
        for (int b = 0; b < g.batch; ++b) {
          for (int row = 0; row < size; ++row) {
            MatrixMap(y + g.Cell(b, row, 0) * channels, channels, size).colwise() += s.bias.col(b);
          }
        }
      }
      ConvBiasRelu(block.conv2, y, g, s.cells, x, true);  // the residual: x += conv2(y)
    }
    // Heads, over the whole range (padding cells computed but never read).
    const MatrixMap trunk(x + g.first * channels, channels, g.count);
    s.heads.noalias() = l.heads.weight * trunk;  // [2h + 1, count]
    s.heads.colwise() += l.heads.bias;
    s.heads.topRows(2 * h) = s.heads.topRows(2 * h).cwiseMax(0.0f);
    s.square_logits.noalias() = l.policy_out.weight * s.heads.topRows(h);  // [1, count]
    const Eigen::Index stride = s.heads.rows();
    GlobalPool(s.heads.data(), h, stride, g, s.pooled);
    s.pass.noalias() = l.pass_fc.weight * s.pooled;  // [1, B]
    GlobalPool(s.heads.data() + h, h, stride, g, s.pooled);
    s.hidden.noalias() = l.value_fc.weight * s.pooled;
    s.hidden.colwise() += l.value_fc.bias;
    s.hidden = s.hidden.cwiseMax(0.0f);
    s.wdl.noalias() = l.wdl_fc.weight * s.hidden;    // [3, B]
    s.disc.noalias() = l.disc_fc.weight * s.hidden;  // [1, B]
    s.logits.resize(area + 1);
    for (int b = 0; b < g.batch; ++b) {
      mcts::EvalOutput& o = *outputs[start + b];
      for (int sq = 0; sq < area; ++sq) {
        const Eigen::Index col = g.Cell(b, sq / size, sq % size) - g.first;
        s.logits[sq] = s.square_logits(0, col) + l.policy_out.bias[0];
        o.ownership[sq] = std::tanh(s.heads(2 * h, col));
      }
      s.logits[area] = s.pass(0, b) + l.pass_fc.bias[0];
      Softmax(s.logits.data(), area + 1, o.policy.data());
      float wdl_logits[3], probabilities[3];
      for (int i = 0; i < 3; ++i) wdl_logits[i] = s.wdl(i, b) + l.wdl_fc.bias[i];
      Softmax(wdl_logits, 3, probabilities);
      o.win = probabilities[0], o.draw = probabilities[1], o.loss = probabilities[2];
      o.disc_difference = std::tanh(s.disc(0, b) + l.disc_fc.bias[0]) * area;
      o.has_aux = true;
    }
  }
}

}  // namespace othello::nn
