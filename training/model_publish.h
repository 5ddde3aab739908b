#pragma once
// Models published for actors (run_dir.h: DIR/models/): the learner writes a model file
// (a checkpoint without optimizer state), then models/latest.json naming it; an actor
// reads latest.json and then the file it names. Both are written atomically, so an actor
// sees the old manifest or the new one, and the file it names is whole. The newest
// kModelsKept model files are kept: an actor that is reading an older one keeps its open
// file, and one that finds it gone reads latest.json again.
// Thread safety: functions of the file system; the learner (rank 0) alone publishes.
#include <cstdint>
#include <optional>
#include <string>

#include "core/rules.h"
#include "nn/model.h"
#include "training/run_dir.h"

namespace othello::training {

inline constexpr int kModelsKept = 4;

// Publishes `net` at `step` for actors: the model file, then latest.json naming it;
// older model files beyond the newest kModelsKept are removed.
void PublishModel(const RunDir& run, nn::OthelloNet& net, std::int64_t step,
                  const core::Rules& rules);

struct PublishedModel {
  std::int64_t step = 0;
  std::string path;
};
// What latest.json names; nullopt when nothing is published yet. A damaged manifest
// throws core::InputError naming it.
std::optional<PublishedModel> NewestModel(const RunDir& run);

}  // namespace othello::training
