#!/usr/bin/python3
"""A training run's strength curve: its checkpoints at given minutes of training, each
played head to head against a fixed reference model (paired random openings, both colours),
as Elo differences with 95% intervals against the run's minutes.

  scripts/curve.py runs/run150 --every 30 --games 200
  scripts/curve.py runs/night --minutes 60,120,240,480 --games 400 --rising 400

Each mark takes the run's last checkpoint written at or before that many minutes of training
(metrics.jsonl's `seconds`, the run's time across resumes; the mark `end` is the newest
checkpoint). --every M places marks every M minutes and at the end. --rising N adds N games
of the last mark against the one before it: whether the run still gains at its end.

The models are exported to OUT/step-N.ozm, each match's games go to OUT/games/games.ggf and
its result to OUT/step-N.json; a match whose JSON is already there is not played again, so
a stopped curve resumes. The table goes to stdout and OUT/curve.txt, the points to
OUT/curve.json, the plot to OUT/curve.png. OUT defaults to RUN_DIR/curve; the program to
build/cli/othello-zero (or $OZ).
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fail(message):
    print(f"scripts/curve.py: {message}", file=sys.stderr)
    sys.exit(1)


def read_reports(run_dir):
    """(seconds, step, positions, games) of every progress line, with the seconds made
    monotone: runs written before metrics counted across resumes restarted at 0."""
    path = run_dir / "metrics.jsonl"
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        fail(f"{path}: cannot be read ({e.strerror}); is {run_dir} a run directory?")
    reports, offset, last_raw, last = [], 0.0, None, 0.0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            report = json.loads(line)
        except json.JSONDecodeError as e:
            fail(f"{path} line {number}: not JSON ({e.msg})")
        if not isinstance(report, dict) or "eval" in report:
            continue
        seconds, step = report.get("seconds"), report.get("step")
        if not isinstance(seconds, (int, float)) or not isinstance(step, int):
            fail(f"{path} line {number}: a progress line needs numbers 'seconds' and 'step'")
        if last_raw is not None and seconds < last_raw:
            offset = last  # an older run's resumed session counted from 0 again
        last_raw, last = seconds, offset + seconds
        reports.append((last, step, report.get("positions", 0), report.get("games", 0)))
    if not reports:
        fail(f"{path}: no progress lines yet")
    return reports


def checkpoints(run_dir):
    found = {}
    for path in (run_dir / "checkpoints").glob("step-*.ckpt"):
        match = re.fullmatch(r"step-(\d+)\.ckpt", path.name)
        if match:
            found[int(match.group(1))] = path
    if not found:
        fail(f"{run_dir / 'checkpoints'}: no step-N.ckpt checkpoints")
    return found


def parse_marks(text):
    marks = []
    for item in text.split(","):
        item = item.strip()
        if item == "end":
            marks.append(None)
            continue
        try:
            value = float(item)
        except ValueError:
            value = -1
        if not value >= 0 or math.isinf(value):
            fail(f"--minutes: '{item}' is not a number of minutes >= 0 or 'end'")
        marks.append(value)
    return marks


def place(marks, reports, found):
    """[(label, minutes, step, checkpoint, positions)] for the marks, without repeats."""
    trained = reports[-1][0] / 60
    points, seen = [], set()
    for mark in marks:
        if mark is None:
            step = max(found)
        else:
            if mark > trained + 1e-9:
                fail(f"no checkpoint at {mark:g} minutes: the run has trained {trained:.1f}")
            reached = max((s for t, s, _, _ in reports if t <= mark * 60), default=0)
            steps = [s for s in found if s <= reached]
            if not steps:
                fail(f"no checkpoint at or before {mark:g} minutes (step {reached})")
            step = max(steps)
        if step in seen:
            continue
        seen.add(step)
        # The run's time and positions at this step, between the reports around it.
        t0, s0, p0 = 0.0, 0, 0
        for t1, s1, p1, _ in reports:
            if s1 >= step:
                share = (step - s0) / (s1 - s0) if s1 > s0 else 1.0
                t0, p0 = t0 + share * (t1 - t0), p0 + share * (p1 - p0)
                break
            t0, s0, p0 = t1, s1, p1
        points.append({"step": step, "checkpoint": str(found[step]), "minutes": t0 / 60,
                       "positions": int(p0)})
    return points


def elo(score):
    score = min(max(score, 1e-4), 1 - 1e-4)
    return -400 * math.log10(1 / score - 1)


def run(exe, args):
    result = subprocess.run([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    if result.returncode != 0:
        fail(f"othello-zero {' '.join(args[:1])} failed ({result.returncode}):\n"
             f"{result.stderr.strip()}")
    return result.stdout


def match(exe, options, a_name, a_model, b_name, b_model, games, json_path):
    """Plays a_model against b_model (or reads the finished match): a's result."""
    if not json_path.exists():
        spec = f"visits={options.playouts},threads=1"
        run(exe, ["arena", "--player", f"{a_name}@model:{a_model},{spec}",
                  "--player", f"{b_name}@model:{b_model},{spec}", "--games", str(games),
                  "--openings", "random:4", "--parallel", str(options.parallel),
                  "--seed", str(options.seed), "--out", str(options.out / "games"),
                  "--json", str(json_path)])
    try:
        pair = json.loads(json_path.read_text())["pairs"][0]
        score, ci = float(pair["score"]), float(pair["score_ci95"])
        result = {k: int(pair[k]) for k in ("wins", "draws", "losses", "games")}
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        fail(f"{json_path}: not an arena result ({e}); remove it to play the match again")
    if pair.get("player") != a_name:
        fail(f"{json_path}: a match of {pair.get('player')}, not {a_name}; remove it")
    result.update(score=score, score_ci95=ci, elo=elo(score), elo_low=elo(score - ci),
                  elo_high=elo(score + ci))
    return result


def signed(value):
    return f"{round(value):+d}" if round(value) != 0 else "0"


def describe(result):
    return (f"{result['wins']}-{result['draws']}-{result['losses']}, "
            f"{100 * result['score']:.1f}% +- {100 * result['score_ci95']:.1f}: "
            f"{signed(result['elo'])} Elo ({signed(result['elo_low'])} to "
            f"{signed(result['elo_high'])})")


def plot(points, reference_name, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"warning: no {path} (matplotlib is missing: apt-get install "
              "python3-matplotlib); the text and JSON are written", file=sys.stderr)
        return
    minutes = [p["minutes"] for p in points]
    elos = [p["result"]["elo"] for p in points]
    low = [p["result"]["elo"] - p["result"]["elo_low"] for p in points]
    high = [p["result"]["elo_high"] - p["result"]["elo"] for p in points]
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.errorbar(minutes, elos, yerr=[low, high], marker="o", capsize=3)
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("minutes of training")
    axes.set_ylabel(f"Elo against {reference_name} (95%)")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("run_dir", type=Path, help="the training run's directory")
    parser.add_argument("--minutes", help="marks: minutes of training, comma-separated ('end': "
                        "the newest checkpoint)")
    parser.add_argument("--every", type=float, default=30, help="with no --minutes: a mark "
                        "every EVERY minutes and one at the end (default 30)")
    parser.add_argument("--games", type=int, default=200, help="games a mark (default 200; a "
                        "match already played keeps its own count)")
    parser.add_argument("--playouts", type=int, default=200, help="playouts a move, one thread "
                        "(default 200)")
    parser.add_argument("--reference", type=Path,
                        default=ROOT / "scripts/ladder/reference-60min.ozm",
                        help="the fixed reference model (default the 60-minute reference)")
    parser.add_argument("--reference-name", help="its name in the games (default: the file's "
                        "stem; at 200 playouts the default reference plays as the ladder's "
                        "rung reference60: play's defaults, lcb=2, one thread)")
    parser.add_argument("--rising", type=int, default=0, help="games of the last mark "
                        "against the one before it (default 0: none)")
    parser.add_argument("--parallel", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=13, help="the openings' seed (default 13)")
    parser.add_argument("--exe", default=os.environ.get("OZ", str(ROOT / "build/cli/othello-zero")))
    parser.add_argument("--out", type=Path, help="default RUN_DIR/curve")
    options = parser.parse_args()
    for name in ("games", "playouts", "parallel"):
        if getattr(options, name) < 1:
            fail(f"--{name} must be at least 1, not {getattr(options, name)}")
    if options.rising < 0:
        fail(f"--rising must be 0 or more, not {options.rising}")
    if not options.every > 0:
        fail(f"--every must be a number of minutes above 0, not {options.every:g}")
    if not options.reference.is_file():
        fail(f"the reference model {options.reference} does not exist")
    if not Path(options.exe).is_file():
        fail(f"{options.exe}: no othello-zero there (build it, or give --exe or $OZ)")
    options.out = options.out or options.run_dir / "curve"
    options.reference_name = options.reference_name or options.reference.stem

    reports = read_reports(options.run_dir)
    found = checkpoints(options.run_dir)
    if options.minutes:
        marks = parse_marks(options.minutes)
    else:
        trained = reports[-1][0] / 60
        marks = [options.every * k for k in range(1, int(trained / options.every + 1e-9) + 1)]
        marks.append(None)
    points = place(marks, reports, found)
    options.out.mkdir(parents=True, exist_ok=True)

    lines = [f"{options.run_dir}: checkpoints against {options.reference_name} "
             f"({options.reference}), {options.playouts} playouts a move on one thread, "
             f"random 4-ply openings with both colours, seed {options.seed}",
             f"{'minutes':>8} {'step':>9} {'positions':>11} {'games':>6}  result"]
    print(lines[0], flush=True)
    for point in points:
        name = f"step-{point['step']:08d}"
        model = options.out / f"{name}.ozm"
        if not model.exists():
            run(options.exe, ["export", point["checkpoint"], "-o", str(model)])
        point["model"] = str(model)
        point["result"] = match(options.exe, options, name, model, options.reference_name,
                                options.reference, options.games, options.out / f"{name}.json")
        lines.append(f"{point['minutes']:8.1f} {point['step']:9d} {point['positions']:11d} "
                     f"{point['result']['games']:6d}  {describe(point['result'])}")
        print(lines[-1], flush=True)
    rising = None
    if options.rising > 0 and len(points) >= 2:
        last, before = points[-1], points[-2]
        rising = match(options.exe, options, f"step-{last['step']:08d}", last["model"],
                       f"step-{before['step']:08d}", before["model"], options.rising,
                       options.out / "rising.json")
        rising.update(last=last["step"], before=before["step"])
        lines.append(f"the last mark (step {last['step']}) against the one before (step "
                     f"{before['step']}), {options.rising} games: {describe(rising)}")
        print(lines[-1], flush=True)
    (options.out / "curve.txt").write_text("\n".join(lines) + "\n")
    (options.out / "curve.json").write_text(json.dumps(
        {"run": str(options.run_dir), "reference": str(options.reference),
         "reference_name": options.reference_name, "games": options.games,
         "playouts": options.playouts, "seed": options.seed, "points": points,
         "rising": rising}, indent=2) + "\n")
    plot(points, options.reference_name, options.out / "curve.png")


if __name__ == "__main__":
    main()
