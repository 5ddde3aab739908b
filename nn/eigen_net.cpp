#include "nn/eigen_net.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "nn/encoding.h"

namespace othello::nn {

namespace {

using Matrix = Eigen::MatrixXf;  // [channels, columns]; a column is one square of one position
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Affine {  // a convolution (as [out, in*k*k]) or a linear layer, with its bias
  Matrix weight;
  Eigen::VectorXf bias;
  int kernel = 1;

  static Affine From(const ModelFile& model, const std::string& name) {
    const ModelTensor& w = model.tensors.at(name + ".weight");
    const ModelTensor& b = model.tensors.at(name + ".bias");
    Affine a;
    const int out = w.shape[0];
    const int in = static_cast<int>(w.values.size()) / out;
    a.kernel = w.shape.size() == 4 ? w.shape[2] : 1;
    a.weight = Eigen::Map<const RowMajor>(w.values.data(), out, in);
    a.bias = Eigen::Map<const Eigen::VectorXf>(b.values.data(), out);
    return a;
  }
};

// The 3x3 patches of x ([C, B*S]) with zero padding: [C*9, B*S].
Matrix Im2Col(const Matrix& x, int size) {
  const int area = size * size;
  const Eigen::Index columns = x.cols();
  const int batch = static_cast<int>(columns / area);
  Matrix patches = Matrix::Zero(x.rows() * 9, columns);
  for (Eigen::Index c = 0; c < x.rows(); ++c) {
    for (int ky = 0; ky < 3; ++ky) {
      for (int kx = 0; kx < 3; ++kx) {
        const Eigen::Index row = c * 9 + ky * 3 + kx;
        for (int b = 0; b < batch; ++b) {
          for (int y = 0; y < size; ++y) {
            const int sy = y + ky - 1;
            if (sy < 0 || sy >= size) continue;
            for (int xx = 0; xx < size; ++xx) {
              const int sx = xx + kx - 1;
              if (sx < 0 || sx >= size) continue;
              patches(row, b * area + y * size + xx) = x(c, b * area + sy * size + sx);
            }
          }
        }
      }
    }
  }
  return patches;
}

Matrix Apply(const Affine& a, const Matrix& x, int size) {
  Matrix y = a.kernel == 3 ? Matrix(a.weight * Im2Col(x, size)) : Matrix(a.weight * x);
  y.colwise() += a.bias;
  return y;
}

// Mean and max over each position's squares: [C, B*S] -> [2C, B].
Matrix GlobalPool(const Matrix& x, int area) {
  const Eigen::Index channels = x.rows();
  const int batch = static_cast<int>(x.cols() / area);
  Matrix pooled(2 * channels, batch);
  for (int b = 0; b < batch; ++b) {
    const auto block = x.middleCols(b * area, area);
    pooled.col(b).head(channels) = block.rowwise().mean();
    pooled.col(b).tail(channels) = block.rowwise().maxCoeff();
  }
  return pooled;
}

Matrix Relu(const Matrix& x) { return x.cwiseMax(0.0f); }

void Softmax(const float* logits, int n, float* out) {
  const float top = *std::max_element(logits, logits + n);
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += out[i] = std::exp(logits[i] - top);
  for (int i = 0; i < n; ++i) out[i] /= sum;
}

}  // namespace

struct EigenNet::Layers {
  Affine stem;
  struct Block {
    Affine conv1, conv2, pool_bias;
    bool pool = false;
  };
  std::vector<Block> blocks;
  Affine policy_conv, policy_out, pass_fc, value_conv, value_fc, wdl_fc, disc_fc, ownership;
};

EigenNet::EigenNet(const ModelFile& model) : config_(model.net), layers_(new Layers) {
  Layers& l = *layers_;
  l.stem = Affine::From(model, "stem");
  for (int i = 0; i < config_.blocks; ++i) {
    const std::string name = "block" + std::to_string(i);
    Layers::Block block;
    block.conv1 = Affine::From(model, name + ".conv1");
    block.conv2 = Affine::From(model, name + ".conv2");
    block.pool = model.tensors.count(name + ".pool_bias.weight") > 0;
    if (block.pool) block.pool_bias = Affine::From(model, name + ".pool_bias");
    l.blocks.push_back(std::move(block));
  }
  l.policy_conv = Affine::From(model, "policy_conv");
  l.policy_out = Affine::From(model, "policy_out");
  l.pass_fc = Affine::From(model, "pass_fc");
  l.value_conv = Affine::From(model, "value_conv");
  l.value_fc = Affine::From(model, "value_fc");
  l.wdl_fc = Affine::From(model, "wdl_fc");
  l.disc_fc = Affine::From(model, "disc_fc");
  l.ownership = Affine::From(model, "ownership_conv");
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
  const int batch = static_cast<int>(positions.size());
  const int size = positions.front()->size(), area = size * size;
  Matrix x(kInputPlanes, static_cast<Eigen::Index>(batch) * area);
  std::vector<float> planes(kInputPlanes * area);
  for (int b = 0; b < batch; ++b) {
    EncodePosition(*positions[b], planes.data());
    for (int p = 0; p < kInputPlanes; ++p) {
      for (int s = 0; s < area; ++s) x(p, b * area + s) = planes[p * area + s];
    }
  }
  x = Relu(Apply(l.stem, x, size));
  for (const Layers::Block& block : l.blocks) {
    Matrix y = Relu(Apply(block.conv1, x, size));
    if (block.pool) {
      const Matrix bias = Apply(block.pool_bias, GlobalPool(y, area), size);  // [C, B]
      for (int b = 0; b < batch; ++b) y.middleCols(b * area, area).colwise() += bias.col(b);
    }
    x = Relu(x + Apply(block.conv2, y, size));
  }
  const Matrix policy = Relu(Apply(l.policy_conv, x, size));
  const Matrix square_logits = Apply(l.policy_out, policy, size);          // [1, B*S]
  const Matrix pass_logits = Apply(l.pass_fc, GlobalPool(policy, area), size);  // [1, B]
  const Matrix value = Relu(Apply(l.value_conv, x, size));
  const Matrix hidden = Relu(Apply(l.value_fc, GlobalPool(value, area), size));
  const Matrix wdl = Apply(l.wdl_fc, hidden, size);                          // [3, B]
  const Matrix disc = Apply(l.disc_fc, hidden, size);                        // [1, B]
  const Matrix ownership = Apply(l.ownership, x, size);                      // [1, B*S]
  std::vector<float> logits(area + 1);
  for (int b = 0; b < batch; ++b) {
    mcts::EvalOutput& o = *outputs[b];
    for (int s = 0; s < area; ++s) logits[s] = square_logits(0, b * area + s);
    logits[area] = pass_logits(0, b);
    Softmax(logits.data(), area + 1, o.policy.data());
    const float wdl_logits[3] = {wdl(0, b), wdl(1, b), wdl(2, b)};
    float probabilities[3];
    Softmax(wdl_logits, 3, probabilities);
    o.win = probabilities[0], o.draw = probabilities[1], o.loss = probabilities[2];
    for (int s = 0; s < area; ++s) o.ownership[s] = std::tanh(ownership(0, b * area + s));
    o.disc_difference = std::tanh(disc(0, b)) * area;
    o.has_aux = true;
  }
}

EigenEvaluator::EigenEvaluator(std::shared_ptr<const EigenNet> net) : net_(std::move(net)) {}

void EigenEvaluator::Submit(mcts::EvalBatch& batch) {
  batch.Restart();
  batch.outputs().resize(batch.size());
  std::vector<const core::Position*> positions;
  std::vector<mcts::EvalOutput*> outputs;
  for (int i = 0; i < batch.size(); ++i) {
    positions.push_back(&batch.positions()[i]);
    outputs.push_back(&batch.outputs()[i]);
  }
  try {
    net_->Forward(positions, outputs);
  } catch (...) {
    batch.Fail(std::current_exception());
    return;
  }
  batch.MarkDone();
}

}  // namespace othello::nn
