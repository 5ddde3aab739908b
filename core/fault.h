#pragma once
// Fault injection, for tests of the failure paths that cannot be provoked from outside
// a process: a full disk in the middle of a write, a failing evaluator, a training step
// that throws. A named point fails once, on its N-th call, when armed by the
// environment, OZ_FAULT="point[@N][,point[@N]...]" (N = 1 by default), or by a test
// through SetFaults(). The caller raises the error the real fault would raise.
// Points: "write" (core/file_io.cpp, any atomic file write), "kill:WHAT" (the process
// kills itself with SIGKILL half-way through an atomic write of a WHAT file, e.g.
// "kill:incoming shard"), "kill:ingest" (the learner dies between journaling actors'
// games and removing their files, training/run_dir.cpp), "evaluate" (every network backend's function, nn::WithFaultPoint in nn/evaluator.cpp),
// "train.step" (training/trainer.cpp).
// Unarmed (every normal run), a check is one relaxed atomic load.
// Thread safety: InjectFault from any thread; SetFaults while no armed point is used.
#include <string>
#include <string_view>

namespace othello::core {

// True when `point` is armed and this is the call it fails on.
bool InjectFault(std::string_view point);

// Replaces the armed points (the environment's included) with `spec`; "" disarms.
void SetFaults(const std::string& spec);

}  // namespace othello::core
