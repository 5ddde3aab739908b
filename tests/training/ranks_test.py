#!/usr/bin/python3
"""Data-parallel `othello-zero train` as two processes with Gloo on 127.0.0.1 (the
torchrun variables for one rank, the flags for the other), on a tiny 6x6 run:

1. both ranks train to run.steps and stop together; rank 0 alone writes checkpoints and
   metrics; started again, both resume from the same checkpoint and go on.
2. a rank killed with SIGKILL: the other ends with an error that names distributed
   training, within the collective timeout, not a hang; likewise when rank 0 dies.

    tests/training/ranks_test.py --exe build/cli/othello-zero
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

CONFIG = """\
game: {size: 6}
network: {blocks: 1, channels: 8, head_channels: 4, value_hidden: 8}
selfplay: {threads: 1, games_per_thread: 8, leaves_per_game: 2}
search: {full_visits: 8, fast_visits: 4, solver_empties: 4, tree_nodes: 4000}
train: {batch_size: 32, min_positions: 64, publish_every: 2, checkpoint_every: 10,
        samples_per_position: 8, warmup_steps: 2}
replay: {window_min: 400, window_max: 4000, shard_positions: 128}
inference: {device: cpu, max_wait_us: 100}
eval: {every_checkpoints: 0}
"""


def fail(message):
    print("FAIL: " + message, flush=True)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(exe, root, run_dir, rank, port, name, extra=()):
    env = dict(os.environ)
    args = [exe, "train", "--config", os.path.join(root, "tiny.yaml"), "--run-dir", run_dir,
            "--dist-timeout", "20"] + list(extra)
    if rank == 0:  # the flags
        args += ["--rank", "0", "--world-size", "2", "--master", "127.0.0.1:%d" % port]
    else:  # the torchrun variables
        env.update(RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    log = open(os.path.join(root, name + ".log"), "w")
    return subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env)


def log_text(root, name):
    with open(os.path.join(root, name + ".log")) as f:
        return f.read()


def wait_all(procs, seconds):
    deadline = time.time() + seconds
    codes = []
    for proc in procs:
        try:
            codes.append(proc.wait(timeout=max(1, deadline - time.time())))
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            fail("ranks still running after %d s (a hang?)" % seconds)
    return codes


def last_step(run_dir):
    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        return [json.loads(line) for line in f][-1]["step"]


def test_train_and_resume(exe, root):
    run_dir = os.path.join(root, "run")
    for session, steps in enumerate((20, 30)):
        port = free_port()
        procs = [start(exe, root, run_dir, r, port, "s%d-rank%d" % (session, r),
                       ["--set", "run.steps=%d" % steps]) for r in (0, 1)]
        codes = wait_all(procs, 240)
        if codes != [0, 0]:
            fail("session %d: exit codes %s\n%s\n%s" % (session, codes, log_text(root, "s%d-rank0" % session),
                                                        log_text(root, "s%d-rank1" % session)))
        if last_step(run_dir) != steps:
            fail("session %d: metrics end at step %d, not %d" % (session, last_step(run_dir), steps))
        for r in (0, 1):
            if "stopped at step %d" % steps not in log_text(root, "s%d-rank%d" % (session, r)):
                fail("session %d: rank %d did not stop at step %d" % (session, r, steps))
    if "from step 20" not in log_text(root, "s1-rank1"):
        fail("rank 1 did not resume from step 20")
    print("train and resume: both ranks at step 20, then both resumed to 30", flush=True)


def test_a_rank_dies(exe, root, victim):
    run_dir = os.path.join(root, "run-kill-%d" % victim)
    port = free_port()
    names = ["kill%d-rank%d" % (victim, r) for r in (0, 1)]
    procs = [start(exe, root, run_dir, r, port, names[r]) for r in (0, 1)]
    deadline = time.time() + 120
    while "step" not in log_text(root, names[0]) or "[" not in log_text(root, names[0]):
        if time.time() > deadline or any(p.poll() is not None for p in procs):
            fail("the ranks did not start training\n" + log_text(root, names[0]))
        time.sleep(0.2)
    time.sleep(1)
    procs[victim].kill()
    procs[victim].wait()
    survivor = 1 - victim
    began = time.time()
    code = wait_all([procs[survivor]], 90)[0]
    took = time.time() - began
    text = log_text(root, names[survivor])
    if code == 0 or "distributed training" not in text:
        fail("rank %d after rank %d died: exit %d\n%s" % (survivor, victim, code, text[-2000:]))
    print("rank %d killed: rank %d stopped with an error after %.1f s: %s" % (
        victim, survivor, took, [l for l in text.splitlines() if "error" in l][-1][:200]), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exe", required=True)
    args = parser.parse_args()
    exe = os.path.abspath(args.exe)
    root = tempfile.mkdtemp(prefix="oz_ranks_")
    try:
        with open(os.path.join(root, "tiny.yaml"), "w") as f:
            f.write(CONFIG)
        test_train_and_resume(exe, root)
        test_a_rank_dies(exe, root, victim=1)
        test_a_rank_dies(exe, root, victim=0)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("PASS", flush=True)


if __name__ == "__main__":
    main()
