#!/usr/bin/python3
"""Plots a training run's metrics (DIR/metrics.jsonl) to PNG.

    scripts/plot.py runs/quickstart            -> runs/quickstart/metrics.png
    scripts/plot.py runs/quickstart -o out.png
    scripts/plot.py runs/quickstart --elo ladder/elo.csv

Panels: the loss terms against the training step, self-play throughput against time,
the new checkpoints' scores against each evaluation opponent, and the checkpoints'
Elo ratings with their 95% intervals against the training step and against the
run's wall time: the ratings logged by training (each checkpoint as fitted when it was
evaluated: on the fixed ladder with eval.ladder, else anchored on random), or with
--elo those of a ladder written by `othello-zero elo` whose players are named
step-NNNNNNNN (optionally followed by /settings, as arena names model players; their
times are read from the run's reports). The evaluations' share of the run's time is
in the rating panels' titles.
Needs Debian's python3-matplotlib (apt-get install python3-matplotlib).
"""
import argparse
import csv
import json
import os
import re
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


STEP = re.compile(r"^step-(\d+)")


def read_ladder(path):
    """(step, elo, ci95) for every player of a ladder CSV named step-N..."""
    points = []
    with open(path, encoding="utf-8", newline="") as f:
        for number, row in enumerate(csv.DictReader(f), 2):
            try:
                match = STEP.match(row["player"])
                if match:
                    points.append((int(match.group(1)), float(row["elo"]),
                                   float(row.get("ci95") or 0)))
            except (KeyError, TypeError, ValueError):
                sys.exit(f"error: {path} line {number}: not a ladder row (player,elo,...)")
    return sorted(points)


def seconds_at(step, reports):
    """The run's time at `step`, interpolated between its reports (None without any)."""
    known = sorted((r["step"], r["seconds"]) for r in reports if "step" in r and "seconds" in r)
    if not known:
        return None
    for (s0, t0), (s1, t1) in zip(known, known[1:]):
        if s0 <= step <= s1:
            return t0 if s1 == s0 else t0 + (t1 - t0) * (step - s0) / (s1 - s0)
    return known[0][1] if step < known[0][0] else known[-1][1]


def ratings(evals, reports, ladder):
    """(step, elo, ci95, minutes) per rated checkpoint, and a label."""
    if ladder:
        points = read_ladder(ladder)
        rows = [(s, e, ci, seconds_at(s, reports)) for s, e, ci in points]
        label = os.path.basename(ladder)
    else:
        rows = [(e["step"], e["elo"], e.get("elo_ci95", 0), e.get("seconds"))
                for e in evals if "elo" in e]
        label = "training evaluations"
    return sorted((s, e, ci, t / 60 if t is not None else None) for s, e, ci, t in rows), label


def plot_ratings(ax, rows, column, label, xlabel, title):
    rows = [r for r in rows if r[column] is not None]
    if rows:
        ax.errorbar([r[column] for r in rows], [r[1] for r in rows],
                    yerr=[r[2] for r in rows], marker="o", capsize=3, label=label)
        ax.legend()
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Elo (random = 0), 95% interval")
    ax.set_title(title)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", help="the training run directory")
    parser.add_argument("-o", "--output", help="PNG file (default: RUN_DIR/metrics.png)")
    parser.add_argument("--elo", help="a ladder CSV from `othello-zero elo` to plot by step")
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
    fig, axes = plt.subplots(5, 1, figsize=(9, 17))
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
    opponents = sorted({name for e in evals for name in e.get("vs", {})
                        if not STEP.match(name)})
    for name in opponents:
        points = [(e["step"], 100 * e["vs"][name]["score"]) for e in evals
                  if name in e.get("vs", {})]
        axes[2].plot(*zip(*points), marker="o", label=f"vs {name}")
    axes[2].set_xlabel("training step")
    axes[2].set_ylabel("score %")
    axes[2].set_ylim(0, 100)
    if opponents:
        axes[2].legend()
    rows, label = ratings(evals, reports, args.elo)
    cost = [e for e in evals if "eval_share" in e]
    title = (f"evaluations: {100 * cost[-1]['eval_share']:.1f}% of the run's time"
             if cost else "")
    plot_ratings(axes[3], rows, 0, label, "training step", title)
    plot_ratings(axes[4], rows, 3, label, "minutes", title)
    fig.tight_layout()
    output = args.output or os.path.join(args.run_dir, "metrics.png")
    fig.savefig(output)
    print(output)


if __name__ == "__main__":
    main()
