#!/usr/bin/env python3
"""Plots a training run's metrics (DIR/metrics.jsonl) to PNG.

    scripts/plot.py runs/quickstart            -> runs/quickstart/metrics.png
    scripts/plot.py runs/quickstart -o out.png

Panels: the loss terms against the training step, self-play throughput against time,
and the score against the random and greedy players against the training step.
Needs Debian's python3-matplotlib (apt-get install python3-matplotlib).
"""
import argparse
import json
import os
import sys


def read_metrics(path):
    reports, evals = [], []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"error: {path} line {number}: not JSON ({e.msg})")
            (evals if "eval" in record else reports).append(record.get("eval", record))
    return reports, evals


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", help="the training run directory")
    parser.add_argument("-o", "--output", help="PNG file (default: RUN_DIR/metrics.png)")
    args = parser.parse_args()
    metrics = os.path.join(args.run_dir, "metrics.jsonl")
    if not os.path.exists(metrics):
        sys.exit(f"error: {metrics} does not exist (has the run written a report yet?)")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("error: matplotlib is missing: apt-get install python3-matplotlib")
    reports, evals = read_metrics(metrics)
    fig, axes = plt.subplots(3, 1, figsize=(9, 11))
    trained = [r for r in reports if "loss" in r]
    steps = [r["step"] for r in trained]
    for term in ("total", "policy", "value", "ownership", "disc_difference"):
        axes[0].plot(steps, [r["loss"][term] for r in trained], label=term)
    axes[0].set_xlabel("training step")
    axes[0].set_ylabel("loss")
    axes[0].legend()
    minutes = [r["seconds"] / 60 for r in reports]
    axes[1].plot(minutes, [r["positions_per_second"] for r in reports], label="positions/s")
    axes[1].set_xlabel("minutes")
    axes[1].set_ylabel("self-play positions per second")
    ax2 = axes[1].twinx()
    ax2.plot(minutes, [r["playouts_per_second"] for r in reports], color="tab:orange",
             label="playouts/s")
    ax2.set_ylabel("playouts per second")
    for prefix, mode in (("vs_", "search"), ("policy_vs_", "policy")):
        for baseline in ("random", "greedy"):
            key = prefix + baseline
            points = [(e["step"], 100 * e[key]["score"]) for e in evals if key in e]
            if points:
                axes[2].plot(*zip(*points), marker="o", label=f"{mode} vs {baseline}")
    axes[2].set_xlabel("training step")
    axes[2].set_ylabel("score %")
    axes[2].set_ylim(0, 100)
    axes[2].legend()
    fig.tight_layout()
    output = args.output or os.path.join(args.run_dir, "metrics.png")
    fig.savefig(output)
    print(output)


if __name__ == "__main__":
    main()
