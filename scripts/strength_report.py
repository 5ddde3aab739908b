#!/usr/bin/python3
"""The strength benchmark's report (scripts/strength.sh runs it): the model's rating on
the fixed ladder with its 95% interval, its score against each opponent, as text, JSON
and a PNG.

    scripts/strength_report.py OUT_DIR --ladder scripts/ladder/ladder.csv

Reads OUT_DIR/elo.csv (written by `othello-zero elo --fixed LADDER OUT_DIR/games`) and
the arena results OUT_DIR/games/*.json (`othello-zero arena --json`); writes
OUT_DIR/strength.json and OUT_DIR/strength.png (needs Debian's python3-matplotlib for
the PNG; without it the PNG is skipped with a warning).
"""
import argparse
import csv
import glob
import json
import os
import sys


def read_ladder(path):
    """{name: (elo, ci95, games, score)} from a CSV that `othello-zero elo` wrote."""
    rows = {}
    with open(path, encoding="utf-8", newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    for number, row in enumerate(csv.DictReader(lines), 2):
        try:
            rows[row["player"]] = (float(row["elo"]), float(row.get("ci95") or 0),
                                   int(float(row.get("games") or 0)),
                                   float(row.get("score") or 0))
        except (KeyError, TypeError, ValueError) as e:
            sys.exit(f"error: {path} line {number}: bad row ({e})")
    if not rows:
        sys.exit(f"error: {path}: no players in it")
    return rows


def read_matches(games_dir):
    """Every pair result of the arena JSON files: (player, opponent, wins, draws, losses)."""
    pairs = []
    for path in sorted(glob.glob(os.path.join(games_dir, "*.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            for p in data["pairs"]:
                pairs.append((p["player"], p["opponent"], p["wins"], p["draws"], p["losses"]))
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"error: {path}: not an arena result ({e})")
    if not pairs:
        sys.exit(f"error: {games_dir}: no arena results (*.json)")
    return pairs


def report(out_dir, ladder_path):
    ladder = read_ladder(ladder_path)
    fitted = read_ladder(os.path.join(out_dir, "elo.csv"))
    models = {}
    for player, opponent, wins, draws, losses in read_matches(os.path.join(out_dir, "games")):
        games = wins + draws + losses
        entry = models.setdefault(player, {"player": player, "vs": {}})
        entry["vs"][opponent] = {"wins": wins, "draws": draws, "losses": losses, "games": games,
                                 "score": (wins + 0.5 * draws) / games if games else 0,
                                 "opponent_elo": ladder[opponent][0] if opponent in ladder else None}
    for name, entry in models.items():
        if name not in fitted:
            sys.exit(f"error: {out_dir}/elo.csv has no rating for {name}")
        elo, ci95, games, score = fitted[name]
        entry.update({"elo": elo, "ci95": ci95, "games": games, "score": score})
    result = {"ladder": os.path.abspath(ladder_path),
              "ladder_ratings": {k: v[0] for k, v in ladder.items()},
              "models": sorted(models.values(), key=lambda m: -m["elo"])}
    with open(os.path.join(out_dir, "strength.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    for m in result["models"]:
        print(f"{m['player']}: {m['elo']:.0f} +- {m['ci95']:.0f} Elo on the ladder "
              f"({m['games']} games)")
        for opponent, r in sorted(m["vs"].items(), key=lambda kv: kv[1]["opponent_elo"] or 0):
            rated = f"{r['opponent_elo']:.0f}" if r["opponent_elo"] is not None else "unrated"
            print(f"  vs {opponent:<16} ({rated:>7}): {100 * r['score']:5.1f}%  "
                  f"{r['wins']}-{r['draws']}-{r['losses']} of {r['games']}")
    plot(result, os.path.join(out_dir, "strength.png"))


def plot(result, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("warning: no PNG (apt-get install python3-matplotlib)", file=sys.stderr)
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    ladder = sorted(result["ladder_ratings"].items(), key=lambda kv: kv[1])
    left.barh([n for n, _ in ladder], [e for _, e in ladder], color="#bbbbbb", label="ladder")
    for i, m in enumerate(result["models"]):
        left.axvline(m["elo"], color=f"C{i}", label=f"{m['player']} {m['elo']:.0f}")
        left.axvspan(m["elo"] - m["ci95"], m["elo"] + m["ci95"], color=f"C{i}", alpha=0.15)
    left.set_xlabel("Elo (fixed ladder, random = 0)")
    left.legend(fontsize=8)
    width = 0.8 / max(1, len(result["models"]))
    names = [n for n, _ in ladder]
    for i, m in enumerate(result["models"]):
        xs = [k + i * width for k, n in enumerate(names) if n in m["vs"]]
        ys = [100 * m["vs"][n]["score"] for n in names if n in m["vs"]]
        right.bar(xs, ys, width=width, color=f"C{i}", label=m["player"])
    right.set_xticks(range(len(names)))
    right.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
    right.set_ylabel("score %")
    right.set_ylim(0, 100)
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    print(f"plot written to {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--ladder", required=True, help="the fixed ladder's CSV")
    args = parser.parse_args()
    report(args.out_dir, args.ladder)


if __name__ == "__main__":
    main()
