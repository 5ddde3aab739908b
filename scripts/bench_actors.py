#!/usr/bin/python3
"""Self-play throughput of actor processes (othello-zero selfplay) against the
single-process mode (othello-zero train with self-play threads), on this machine.

Every mode plays the same configuration (default configs/quickstart.yaml) with the
trainer held back (train.min_positions very large), so that only self-play uses the
cores; the measure is what reaches the learner's replay buffer: positions per second
between the first metrics line after the warm-up and the last (metrics.jsonl, one line
every 10 s), so an actor's games count only once the learner has ingested them.

    scripts/bench_actors.py [--exe build/cli/othello-zero] [--config configs/quickstart.yaml]
                            [--seconds 90] [--warmup 20] [--modes single:1,actors:1,single:2,actors:2]

Modes: single:T (one train process, T self-play threads) and actors:N (a learner with
selfplay.threads 0 and N actor processes of one thread each). Prints a table, and the
ratio of each actors:N to single:N per self-play thread.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def rate(metrics_path, warmup):
    with open(metrics_path) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    lines = [l for l in lines if "positions" in l and l["seconds"] >= warmup]
    if len(lines) < 2:
        raise SystemExit("too few metrics lines after the warm-up in " + metrics_path)
    first, last = lines[0], lines[-1]
    return (last["positions"] - first["positions"]) / (last["seconds"] - first["seconds"])


def run_mode(exe, config, mode, seconds, warmup, work):
    kind, count = mode.split(":")
    count = int(count)
    run_dir = os.path.join(work, mode.replace(":", "-"))
    shutil.rmtree(run_dir, ignore_errors=True)
    hold = ["--set", "train.min_positions=100000000", "--set", "eval.every_checkpoints=0"]
    threads = count if kind == "single" else 0
    log = open(run_dir + ".log", "w")
    procs = [subprocess.Popen([exe, "train", "--config", config, "--run-dir", run_dir,
                               "--set", "selfplay.threads=%d" % threads] + hold,
                              stdout=log, stderr=subprocess.STDOUT)]
    if kind == "actors":
        while not os.path.exists(os.path.join(run_dir, "models", "latest.json")):
            time.sleep(0.2)
        for _ in range(count):
            procs.append(subprocess.Popen([exe, "selfplay", "--run-dir", run_dir, "--threads", "1"],
                                          stdout=log, stderr=subprocess.STDOUT))
    time.sleep(seconds)
    for proc in reversed(procs):
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    return rate(os.path.join(run_dir, "metrics.jsonl"), warmup), count


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser()
    parser.add_argument("--exe", default=os.path.join(here, "..", "build", "cli", "othello-zero"))
    parser.add_argument("--config", default=os.path.join(here, "..", "configs", "quickstart.yaml"))
    parser.add_argument("--seconds", type=float, default=90)
    parser.add_argument("--warmup", type=float, default=20)
    parser.add_argument("--modes", default="single:1,actors:1,single:2,actors:2")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="oz_bench_actors_")
    results = {}
    try:
        for mode in args.modes.split(","):
            results[mode] = run_mode(os.path.abspath(args.exe), os.path.abspath(args.config), mode,
                                     args.seconds, args.warmup, work)
            r, n = results[mode]
            print("%-10s %9.0f positions/s  %9.0f per self-play thread" % (mode, r, r / n), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for mode, (r, n) in results.items():
        single = results.get("single:%d" % n)
        if mode.startswith("actors:") and single:
            print("%s / single:%d = %.2f" % (mode, n, r / single[0]))


if __name__ == "__main__":
    main()
