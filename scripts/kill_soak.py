#!/usr/bin/python3
"""Kill soak: starts `othello-zero train` on a small config and kills it with SIGKILL
at random moments, again and again, resuming each time; a third of the kills land while
a checkpoint is being written and a third while a replay shard or the journal is.

After every kill, `othello-zero check` must find the run sound (every checkpoint loads,
every shard and the journal read back), and the next resume must start from the
checkpoint step and the games that check found on disk: the step never goes below the
last checkpoint's, no game recorded as finished is lost, no corrupt shard is read.
A last run without a kill must finish. Prints the counts and exits 1 on any violation.

    scripts/kill_soak.py [--kills 20] [--exe build/cli/othello-zero] [--dir DIR] [--seed 1]
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CONFIG = """\
game: {size: 6}
network: {blocks: 1, channels: 8, head_channels: 4, value_hidden: 8}
selfplay: {threads: 1, games_per_thread: 8, leaves_per_game: 2}
search: {full_visits: 8, fast_visits: 4, solver_empties: 4, tree_nodes: 4000}
train: {batch_size: 32, min_positions: 64, publish_every: 2, checkpoint_every: 3,
        samples_per_position: 4, warmup_steps: 2}
replay: {window_min: 400, window_max: 3000, shard_positions: 48}
inference: {device: cpu, max_wait_us: 100}
eval: {every_checkpoints: 4, games: 2, visits: 2, opponents: [random]}
"""


def check(exe, run_dir):
    out = subprocess.run([exe, "check", "--json", run_dir], capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(f"check failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def tmp_files(run_dir, folder, since):
    """The temporary files of atomic writes in `folder` that were written after `since`
    (the ones a kill leaves behind stay until their name is written again)."""
    found = []
    try:
        for name in os.listdir(os.path.join(run_dir, folder)):
            try:
                if name.endswith(".tmp") and os.stat(os.path.join(run_dir, folder, name)).st_mtime >= since:
                    found.append(name)
            except FileNotFoundError:
                pass  # renamed into place meanwhile
    except FileNotFoundError:
        pass
    return found


def wait_for_start(process, run_dir, limit):
    """Polls until the run's first checkpoint is on disk (train writes one before anything
    else), so that no kill lands before there is a run; a slow build (sanitizers) may take
    many seconds to get there."""
    end = time.monotonic() + limit
    latest = os.path.join(run_dir, "checkpoints", "latest.ckpt")
    while time.monotonic() < end and process.poll() is None and not os.path.exists(latest):
        time.sleep(0.01)


def wait_for_write(process, run_dir, folder, since, limit):
    """Polls until a temporary file of an atomic write appears in `folder`."""
    end = time.monotonic() + limit
    while time.monotonic() < end and process.poll() is None:
        if tmp_files(run_dir, folder, since):
            return True
        time.sleep(0.0005)
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--exe", default="build/cli/othello-zero")
    parser.add_argument("--dir", help="run directory (default: a new temporary one, removed after)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="oz_kill_soak_")
    run_dir = args.dir or os.path.join(work, "run")
    config = os.path.join(work, "soak.yaml")
    with open(config, "w") as f:
        f.write(CONFIG)
    train = [args.exe, "train", "--config", config, "--run-dir", run_dir]

    problems = []
    counts = {"kills": 0, "resumes": 0, "during checkpoint writes": 0, "during replay writes": 0,
              "torn journal tails": 0, "steps redone": 0, "killed while starting": 0}
    last = None  # the check after the previous kill
    modes = ["random", "checkpoint", "replay"]
    for k in range(args.kills + 1):
        final = k == args.kills
        log_path = os.path.join(work, f"run-{k}.log")
        cmd = train + (["--set", f"run.steps={(last['step'] if last else 0) + 4}"] if final else [])
        with open(log_path, "w") as log:
            started = time.time() - 1  # file times may be coarser than this clock
            process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            mode = modes[k % 3]
            if not final:
                wait_for_start(process, run_dir, 300)
                time.sleep(rng.uniform(0.8, 1.6))  # past the start: self-play and training run
                if mode == "random":
                    time.sleep(rng.uniform(0, 3))
                else:
                    folder = "checkpoints" if mode == "checkpoint" else "replay"
                    wait_for_write(process, run_dir, folder, started, 20)
                if process.poll() is not None:
                    problems.append(f"run {k} ended before its kill (exit {process.returncode})")
                process.send_signal(signal.SIGKILL)
            code = process.wait(timeout=600)
        with open(log_path) as log:
            text = log.read()
        if final and code != 0:
            problems.append(f"the last run failed (exit {code}):\n{text}")
        if not final:
            counts["kills"] += 1
        try:
            now = check(args.exe, run_dir)
        except AssertionError as e:
            problems.append(f"after kill {k}: {e}")
            break
        if not final and tmp_files(run_dir, "checkpoints", started):
            counts["during checkpoint writes"] += 1
        if not final and tmp_files(run_dir, "replay", started):
            counts["during replay writes"] += 1
        counts["torn journal tails"] += now["torn_journal_bytes"] > 0
        if last is not None:
            counts["resumes"] += 1  # the run after a kill, whether it got far or not
            resumed = re.search(r"resuming .* from step (\d+)\n", text)
            replay = re.search(r"replay: (\d+) games, (\d+) positions", text)
            if (not resumed or not replay) and (final or code != -signal.SIGKILL):
                problems.append(f"run {k} did not resume (its log:\n{text[:2000]})")
            elif not resumed or not replay:
                counts["killed while starting"] += 1  # before it logged its resume
            else:
                if int(resumed.group(1)) != last["step"]:
                    problems.append(f"run {k} resumed at step {resumed.group(1)}, the checkpoint "
                                    f"holds step {last['step']}")
                if int(replay.group(1)) != last["games"] or int(replay.group(2)) != last["positions"]:
                    problems.append(f"run {k} resumed with {replay.group(1)} games and "
                                    f"{replay.group(2)} positions; {last['games']} games and "
                                    f"{last['positions']} positions were on disk")
            if now["step"] < last["step"] or now["games"] < last["games"]:
                problems.append(f"after kill {k}: step {now['step']} / games {now['games']} went "
                                f"below {last['step']} / {last['games']}")
        reported = [int(g) for g in re.findall(r"\| games (\d+) \|", text)]
        if reported and reported[-1] > now["games"]:
            problems.append(f"run {k} reported {reported[-1]} finished games, {now['games']} on disk")
        steps = [int(s) for s in re.findall(r"\] step (\d+) \|", text)]
        if steps and not final:
            counts["steps redone"] += max(0, max(steps) - now["step"])
        print(f"{'final run' if final else f'kill {k + 1:2d} ({modes[k % 3]:10s})'}: "
              f"step {now['step']:4d}, {now['games']:5d} games, {now['positions']:6d} positions, "
              f"{now['shards']:3d} shards, {now['journal_games']:3d} in the journal"
              f"{', torn journal tail' if now['torn_journal_bytes'] else ''}"
              f"{', leftovers ' + ' '.join(os.path.basename(p) for p in now['leftovers']) if now['leftovers'] else ''}",
              flush=True)
        last = now
    print("; ".join(f"{key}: {value}" for key, value in counts.items()))
    print("games lost: 0, corrupt files read: 0" if not problems else "PROBLEMS:\n" + "\n".join(problems))
    if not args.dir:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
