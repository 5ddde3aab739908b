#!/usr/bin/env python3
"""The figures of scripts/gpu-check.sh, read from its logs: printed as the report's
second half and written as one JSON object (--json). Standard library only.

Each figure comes from one step's log (None where that step did not run or its log holds
no figure): logs/preflight.log (machine, GPU, torch), steps.txt (each step's seconds and
exit code), tests.xml (ctest's JUnit file), bench-nn-*.log (bench nn's table),
bench-selfplay.log (bench selfplay --json), gpu-utilisation.csv (nvidia-smi samples),
train-metrics.jsonl (the training run's metrics.jsonl).
"""
import argparse
import json
import os
import re
import statistics
import sys
import xml.etree.ElementTree as ET

SERVER_RAW_AIM = 0.9        # server / raw forward at batches of 256 and more
PLAYOUTS_AIM = 100_000      # self-play playouts/s with the 10x128 net on an H100
TRAIN_BATCH = 512           # configs/8x8-gpu.yaml's train.batch_size


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def preflight(logs):
    text = read(os.path.join(logs, "preflight.log")) or ""
    fields = {}
    for key in ("machine", "cmake", "c++", "ninja", "gpu", "nvcc"):
        m = re.search(r"^%s: (.*)$" % re.escape(key), text, re.M)
        fields[key] = m.group(1) if m else None
    m = re.search(r"^torch \(.*\): (\S+) (\S+) (\S+) (\S+) (\S+)$", text, re.M)
    fields["torch"] = ({"version": m.group(1), "cuda": m.group(2), "cuda_available": m.group(3) == "True"}
                       if m else None)
    return fields


def steps(logs):
    result = {}
    for line in (read(os.path.join(logs, "steps.txt")) or "").splitlines():
        parts = line.split()
        if len(parts) == 3:
            result[parts[0]] = {"seconds": int(parts[1]), "exit": int(parts[2])}
    return result


def tests(logs, device):
    text = read(os.path.join(logs, "tests.xml"))
    if text is None:
        return None
    root = ET.fromstring(text)
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    skipped, failed = [], []
    for case in root.iter("testcase"):
        name = case.get("name")
        node = case.find("system-out")
        out = (node.text or "") if node is not None else ""
        if case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            counts["skipped"] += 1
            # GoogleTest prints "file:line: Skipped" and the reason on the next line.
            m = re.search(r": Skipped\n(.*)", out)
            reason = (m.group(1) if m else (out.strip().splitlines() or [""])[-1]).strip()[:200]
            skipped.append({"name": name, "cuda": "cuda" in (name + " " + reason).lower(),
                            "reason": reason})
        elif case.find("failure") is not None or case.get("status") == "fail":
            counts["failed"] += 1
            failed.append(name)
        else:
            counts["passed"] += 1
    counts["failed_names"] = failed
    counts["skipped_tests"] = skipped
    # On a GPU a CUDA test that skips did not test what the check is for.
    counts["cuda_skipped"] = [s["name"] for s in skipped if s["cuda"]] if device == "cuda" else []
    return counts


def bench_nn(logs):
    """bench nn's rows: batch device dtype threads raw server ratio [graphs]."""
    rows = []
    for name in sorted(os.listdir(logs)):
        if not (name.startswith("bench-nn-") and name.endswith(".log")):
            continue
        for line in (read(os.path.join(logs, name)) or "").splitlines():
            parts = line.split()
            if len(parts) >= 7 and parts[0].isdigit():
                rows.append({"batch": int(parts[0]), "device": parts[1], "precision": parts[2],
                             "raw_per_s": float(parts[4]), "server_per_s": float(parts[5]),
                             "ratio": float(parts[6]),
                             "cuda_graphs": len(parts) >= 8 and parts[7] == "on"})
    return rows


def selfplay(logs):
    text = read(os.path.join(logs, "bench-selfplay.log")) or ""
    start = text.find("{")
    if start < 0:
        return None
    try:
        report = json.loads(text[start:text.rfind("}") + 1])
    except ValueError:
        return None
    keep = ("threads", "positions_per_s", "playouts_per_s", "mean_batch",
            "root_evaluations_per_s", "evaluations_per_s")
    return {k: report.get(k) for k in keep if k in report} or report


def utilisation(logs):
    values = []
    for line in (read(os.path.join(logs, "gpu-utilisation.csv")) or "").splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 2 and parts[0].isdigit():
            values.append((int(parts[0]), int(parts[1]) if parts[1].isdigit() else None))
    if not values:
        return None
    util = [v[0] for v in values]
    return {"samples": len(util), "median_percent": statistics.median(util),
            "min_percent": min(util), "max_percent": max(util),
            "max_memory_mib": max((v[1] for v in values if v[1] is not None), default=None)}


def training(logs):
    lines = []
    for line in (read(os.path.join(logs, "train-metrics.jsonl")) or "").splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if "step" in m and "seconds" in m and "eval" not in m:
            lines.append(m)
    if not lines:
        return None
    last = lines[-1]
    trained = [m for m in lines if m.get("step", 0) > 0]
    steps_per_s = None
    if len(trained) >= 2 and trained[-1]["seconds"] > trained[0]["seconds"]:
        steps_per_s = ((trained[-1]["step"] - trained[0]["step"]) /
                       (trained[-1]["seconds"] - trained[0]["seconds"]))
    rates = [m["positions_per_second"] for m in lines if m.get("positions_per_second")]
    positions = last.get("positions") or 0
    return {"seconds": last["seconds"], "steps": last["step"], "positions": positions,
            "steps_per_s": steps_per_s,
            "positions_per_s": statistics.median(rates) if rates else None,
            "samples_per_position": (last["step"] * TRAIN_BATCH / positions) if positions else None}


def graph_gains(nn_rows):
    """Per precision and batch: the server's rate with CUDA graphs over without."""
    gains = []
    for on in (r for r in nn_rows if r["cuda_graphs"]):
        off = [r for r in nn_rows if not r["cuda_graphs"] and r["precision"] == on["precision"]
               and r["batch"] == on["batch"]]
        if off and off[0]["server_per_s"] > 0:
            gains.append({"precision": on["precision"], "batch": on["batch"],
                          "server_gain": on["server_per_s"] / off[0]["server_per_s"],
                          "raw_gain": on["raw_per_s"] / off[0]["raw_per_s"] if off[0]["raw_per_s"] else None})
    return gains


def aims(nn_rows, sp, device):
    result = []
    nn_rows = [r for r in nn_rows if not r["cuda_graphs"]]  # the default: graphs off
    for precision in sorted({r["precision"] for r in nn_rows}):
        big = [r for r in nn_rows if r["precision"] == precision and r["batch"] >= 256]
        if big:
            low = min(big, key=lambda r: r["ratio"])
            result.append({"aim": "server/raw >= %.1f at batches >= 256, %s" % (SERVER_RAW_AIM, precision),
                           "value": low["ratio"], "at_batch": low["batch"],
                           "met": low["ratio"] >= SERVER_RAW_AIM})
    if sp and sp.get("playouts_per_s") is not None:
        result.append({"aim": "self-play >= %d playouts/s, 10x128 net (H100)" % PLAYOUTS_AIM,
                       "value": sp["playouts_per_s"], "met": sp["playouts_per_s"] >= PLAYOUTS_AIM,
                       "note": None if device == "cuda" else "a CPU dry run: not the GPU's figure"})
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--logs", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--failed", default="")
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--json", required=True)
    args = ap.parse_args()
    figures = {"device": args.device, "seconds": args.seconds,
               "failed_steps": [f for f in args.failed.split(" ") if f],
               "preflight": preflight(args.logs), "steps": steps(args.logs),
               "tests": tests(args.logs, args.device), "bench_nn": bench_nn(args.logs),
               "selfplay": selfplay(args.logs), "gpu_utilisation": utilisation(args.logs),
               "train": training(args.logs)}
    figures["build_seconds"] = figures["steps"].get("build", {}).get("seconds")
    figures["aims"] = aims(figures["bench_nn"], figures["selfplay"], args.device)
    figures["cuda_graph_gains"] = graph_gains(figures["bench_nn"])
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump(figures, f, indent=1)
        f.write("\n")
    print_report(figures)
    t = figures["tests"]
    return 3 if t and (t["failed"] or t["cuda_skipped"]) else 0  # 1: this script failed


def fmt(value, spec="{:,.0f}"):
    return "-" if value is None else spec.format(value)


def print_report(f):
    p = f["preflight"]
    torch = p.get("torch") or {}
    print("== the machine")
    print("gpu: %s" % (p.get("gpu") or "-"))
    print("torch %s, CUDA %s; nvcc: %s" % (torch.get("version", "-"), torch.get("cuda", "-"), p.get("nvcc") or "-"))
    print("%s; %s; %s" % (p.get("cmake") or "-", p.get("c++") or "-", p.get("machine") or "-"))
    print("build: %s s" % fmt(f["build_seconds"], "{}"))
    t = f["tests"]
    if t:
        print("== tests (nn, training): %d passed, %d failed, %d skipped" % (t["passed"], t["failed"], t["skipped"]))
        for name in t["failed_names"]:
            print("  failed: %s" % name)
        for s in t["skipped_tests"]:
            print("  skipped: %s: %s" % (s["name"], s["reason"]))
        if t["cuda_skipped"]:
            print("  FAILED: CUDA tests skipped on a GPU: %s" % ", ".join(t["cuda_skipped"]))
    print("== bench nn, 10x128 (evaluations/s)")
    print("  %-6s %-9s %12s %12s %7s %6s" % ("batch", "precision", "raw", "server", "ratio", "graphs"))
    for r in f["bench_nn"]:
        print("  %-6d %-9s %12s %12s %7.3f %6s" % (r["batch"], r["precision"], fmt(r["raw_per_s"]),
                                                   fmt(r["server_per_s"]), r["ratio"],
                                                   "on" if r["cuda_graphs"] else "off"))
    for g in f["cuda_graph_gains"]:
        print("  CUDA graphs, %s, batch %d: server x%.3f, raw x%s" % (g["precision"], g["batch"], g["server_gain"],
                                                                    fmt(g["raw_gain"], "{:.3f}")))
    sp = f["selfplay"]
    if sp:
        print("== bench selfplay, configs/8x8-gpu.yaml, net evaluator")
        print("  " + ", ".join("%s %s" % (k, fmt(v, "{:,.1f}") if isinstance(v, float) else v)
                               for k, v in sp.items()))
    u = f["gpu_utilisation"]
    if u:
        print("  GPU utilisation meanwhile: median %s%% (%s-%s%%, %d samples), memory up to %s MiB"
              % (u["median_percent"], u["min_percent"], u["max_percent"], u["samples"], u["max_memory_mib"]))
    tr = f["train"]
    if tr:
        print("== train, configs/8x8-gpu.yaml: %s s, %s steps, %s positions" % (fmt(tr["seconds"]), tr["steps"], fmt(tr["positions"])))
        print("  %s steps/s, %s positions/s, %s samples a position"
              % (fmt(tr["steps_per_s"], "{:.2f}"), fmt(tr["positions_per_s"]), fmt(tr["samples_per_position"], "{:.2f}")))
    print("== the aims")
    for a in f["aims"]:
        print("  %s: %s %s%s" % (a["aim"], fmt(a["value"], "{:,.3f}" if a["value"] < 10 else "{:,.0f}"),
                                 "[met]" if a["met"] else "[not met]",
                                 " (%s)" % a["note"] if a.get("note") else ""))


if __name__ == "__main__":
    sys.exit(main())
