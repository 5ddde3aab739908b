#pragma once
// The run's configuration file, DIR/run-config.json (run_dir.h): the learner (rank 0)
// saves the configuration it starts with, and an actor given no --config plays by it.
// Thread safety: functions of the file system; the learner alone writes the file, which
// is replaced atomically.
#include <string>
#include <vector>

#include "training/config.h"
#include "training/run_dir.h"

namespace othello::training {

// Writes run-config.json (creating the run directory): the configuration's YAML text,
// the file it came from (for error messages) and the overrides.
void SaveRunConfig(const RunDir& run, const std::string& yaml, const std::string& name,
                   const std::vector<std::string>& overrides);

// Parses run-config.json with `extra` overrides after the run's; a missing or bad file
// throws core::InputError naming it.
TrainingConfig LoadRunConfig(const RunDir& run, const std::vector<std::string>& extra = {});

}  // namespace othello::training
