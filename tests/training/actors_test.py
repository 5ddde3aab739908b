#!/usr/bin/python3
"""Actors and a learner as separate processes on one temporary run directory
(training/run_dir.h), on a tiny 6x6 run:

1. flow: a learner (selfplay.threads 0) and two actors; games flow in, models flow out:
   the learner's step and both actors' model steps advance, and the learner counts both
   actors in metrics.jsonl.
2. an actor killed with SIGKILL half-way through writing a shard (OZ_FAULT="kill:incoming
   shard@N") leaves a *.tmp that is never ingested; its complete shards are, each once.
3. the learner killed with SIGKILL between journaling a batch of games and removing their
   files (OZ_FAULT=kill:ingest), then killed at random moments while it ingests, then run
   to the end: every incoming game is in the replay exactly once (games and positions
   counted from the shards themselves).

    tests/training/actors_test.py --exe build/cli/othello-zero [--keep DIR]
"""
import argparse
import glob
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

CONFIG = """\
game: {size: 6}
network: {blocks: 1, channels: 8, head_channels: 4, value_hidden: 8}
selfplay: {threads: 0, games_per_thread: 4, leaves_per_game: 2}
search: {full_visits: 8, fast_visits: 4, solver_empties: 4, tree_nodes: 4000}
train: {batch_size: 32, min_positions: 64, publish_every: 2, checkpoint_every: 6,
        samples_per_position: 2, warmup_steps: 2}
replay: {window_min: 400, window_max: 4000, shard_positions: 256}
inference: {device: cpu, max_wait_us: 100}
eval: {every_checkpoints: 0}
"""


def fail(message):
    print("FAIL: " + message, flush=True)
    sys.exit(1)


def check(exe, run_dir):
    out = subprocess.run([exe, "check", "--json", run_dir], capture_output=True, text=True)
    if out.returncode != 0:
        fail("check failed: " + out.stderr.strip())
    return json.loads(out.stdout)


def incoming(run_dir):
    return sorted(glob.glob(os.path.join(run_dir, "replay", "incoming", "*.shard")))


def shard_positions(path):
    """Records in an incoming shard (replay_format.h: u64 record count at byte 16)."""
    with open(path, "rb") as f:
        header = f.read(48)
    return struct.unpack_from("<Q", header, 16)[0]


def actor_reports(run_dir):
    reports = []
    for path in glob.glob(os.path.join(run_dir, "actors", "*.json")):
        try:
            with open(path) as f:
                reports.append(json.load(f))
        except (OSError, ValueError):
            pass
    return reports


def wait_for(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    fail("timed out waiting for " + what)


class Procs:
    """Started processes, all killed at the end whatever happens."""

    def __init__(self, exe, run_dir, logs):
        self.exe, self.run_dir, self.logs, self.procs = exe, run_dir, logs, []

    def start(self, name, args, fault=None):
        env = dict(os.environ)
        env.pop("OZ_FAULT", None)
        if fault:
            env["OZ_FAULT"] = fault
        log = open(os.path.join(self.logs, name + ".log"), "a")
        proc = subprocess.Popen([self.exe] + args, stdout=log, stderr=subprocess.STDOUT, env=env)
        self.procs.append(proc)
        return proc

    def learner(self, name, steps=None, fault=None):
        args = ["train", "--config", os.path.join(self.logs, "tiny.yaml"), "--run-dir", self.run_dir]
        if steps is not None:
            args += ["--set", "run.steps=%d" % steps]
        return self.start(name, args, fault)

    def actor(self, name, fault=None, threads=1):
        """threads None: the run's selfplay.threads, 0 (a learner's): sized to this machine."""
        args = ["selfplay", "--run-dir", self.run_dir]
        if threads is not None:
            args += ["--threads", str(threads)]
        return self.start(name, args, fault)

    def close(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def stop(proc, seconds=60):
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        fail("a process did not stop within %d s of SIGTERM" % seconds)


def metrics(run_dir):
    try:
        with open(os.path.join(run_dir, "metrics.jsonl")) as f:
            return [json.loads(line) for line in f if line.endswith("\n")]
    except FileNotFoundError:
        return []


def test_flow(procs, run_dir):
    learner = procs.learner("flow-learner")
    wait_for(lambda: os.path.exists(os.path.join(run_dir, "models", "latest.json")), 60,
             "the learner's first model")
    # One actor sizes itself: the run's config has selfplay.threads 0.
    actors = [procs.actor("flow-actor-0"), procs.actor("flow-actor-1", threads=None)]

    def both_counted():
        return any(len(line.get("actors", [])) == 2 and line["total"]["positions_per_second"] > 0
                   and line["step"] >= 20 for line in metrics(run_dir))
    wait_for(both_counted, 180, "the learner at step 20 with both actors' rates in metrics.jsonl")
    if stop(learner) != 0:
        fail("the learner did not stop cleanly")
    result = check(procs.exe, run_dir)
    if result["games"] == 0 or result["published_step"] < 20:
        fail("after the learner: %d games, model of step %d published" % (result["games"], result["published_step"]))
    # The actors keep playing with the learner down, and pick up its last model.
    wait_for(lambda: len([r for r in actor_reports(run_dir) if r["model_step"] == result["published_step"]]) == 2,
             60, "both actors to play with the model of step %d" % result["published_step"])
    for actor in actors:
        if stop(actor) != 0:
            fail("an actor did not stop cleanly on SIGTERM")
    if any(not r["stopped"] for r in actor_reports(run_dir)):
        fail("an actor's last report does not say it stopped")
    sized = open(os.path.join(procs.logs, "flow-actor-1.log")).read()
    if "sizes its threads to this machine" not in sized:
        fail("the actor without --threads on a learner's run did not size itself:\n" + sized)
    cores = os.cpu_count() or 1
    if ("actor " not in sized) or (": %d self-play threads" % cores) not in sized:
        fail("the self-sized actor does not run %d threads (this machine's cores):\n%s" % (cores, sized))
    print("flow: learner to step %d with %d games from 2 actors; both actors took its model of step %d"
          % (result["step"], result["games"], result["published_step"]), flush=True)


def test_actor_killed_mid_write(procs, run_dir):
    before = set(incoming(run_dir))
    actor = procs.actor("killed-actor", fault="kill:incoming shard@7")
    try:
        rc = actor.wait(timeout=120)
    except subprocess.TimeoutExpired:
        fail("the actor armed to die in its 7th shard write is still running")
    if rc != -signal.SIGKILL:
        fail("the actor ended with %d, not SIGKILL" % rc)
    new = [p for p in incoming(run_dir) if p not in before]
    torn = glob.glob(os.path.join(run_dir, "replay", "incoming", "*.shard.tmp"))
    if len(new) != 6 or len(torn) != 1:
        fail("after the kill: %d new shards (expected 6) and %d unfinished (expected 1)"
             % (len(new), len(torn)))
    return torn[0]


def test_learner_killed(procs, run_dir, torn):
    pending = incoming(run_dir)
    games = len(pending)
    positions = sum(shard_positions(p) for p in pending)
    start = check(procs.exe, run_dir)
    # Killed after the journal append, before the files are removed.
    learner = procs.learner("learner-fault", fault="kill:ingest")
    if learner.wait(timeout=120) != -signal.SIGKILL:
        fail("the learner armed to die while ingesting did not")
    mid = check(procs.exe, run_dir)
    if mid["incoming"] != games:
        fail("the killed learner removed files before it died")
    # Killed at random moments (while it resumes, ingests, trains, checkpoints).
    rng = random.Random(1)
    for i in range(4):
        learner = procs.learner("learner-kill-%d" % i)
        time.sleep(rng.uniform(0.2, 2.5))
        learner.kill()
        learner.wait()
        check(procs.exe, run_dir)
    learner = procs.learner("learner-final")
    wait_for(lambda: "training on" in open(os.path.join(procs.logs, "learner-final.log")).read(), 120,
             "the final learner to start")
    wait_for(lambda: check(procs.exe, run_dir)["incoming"] == 0, 120, "the learner to ingest all")
    if stop(learner) != 0:
        with open(os.path.join(procs.logs, "learner-final.log")) as f:
            fail("the final learner did not stop cleanly:\n" + f.read()[-3000:])
    end = check(procs.exe, run_dir)
    if end["games"] - start["games"] != games or end["positions"] - start["positions"] != positions:
        fail("ingested %d games, %d positions; the actors wrote %d games, %d positions"
             % (end["games"] - start["games"], end["positions"] - start["positions"], games, positions))
    if not os.path.exists(torn):
        fail("the unfinished shard was removed or taken: " + torn)
    if glob.glob(os.path.join(run_dir, "replay", "rejected", "*")):
        fail("a complete shard was rejected")
    print("kills: %d games, %d positions ingested exactly once across 6 learner kills; "
          "the torn shard of the killed actor was not taken" % (games, positions), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exe", required=True)
    parser.add_argument("--keep", help="run in this directory and keep it")
    args = parser.parse_args()
    exe = os.path.abspath(args.exe)
    root = args.keep or tempfile.mkdtemp(prefix="oz_actors_")
    os.makedirs(root, exist_ok=True)
    run_dir = os.path.join(root, "run")
    shutil.rmtree(run_dir, ignore_errors=True)
    with open(os.path.join(root, "tiny.yaml"), "w") as f:
        f.write(CONFIG)
    procs = Procs(exe, run_dir, root)
    try:
        test_flow(procs, run_dir)
        torn = test_actor_killed_mid_write(procs, run_dir)
        test_learner_killed(procs, run_dir, torn)
    finally:
        procs.close()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print("PASS", flush=True)


if __name__ == "__main__":
    main()
