#!/usr/bin/env python3
"""scripts/gpu-check.sh without a GPU: its report from logs (scripts/gpu_check_report.py
on fixture logs: each figure, each aim, a CUDA test skipped on a GPU fails), and the EXIT
trap: a check that fails at its preflight still leaves report.txt, figures.json and
logs.tar.gz in --out, naming the step and its reason; bad arguments are refused.
Usage: gpu_check_test.py PYTHON (the interpreter the report runs under)."""
import json
import os
import subprocess
import sys
import tarfile
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON = sys.argv[1] if len(sys.argv) > 1 else sys.executable
failures = []


def check(name, condition, detail=""):
    print(("ok: " if condition else "FAILED: ") + name + ("" if condition else ": " + str(detail)))
    if not condition:
        failures.append(name)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def fixture_logs(logs, skipped_cuda):
    write(os.path.join(logs, "preflight.log"),
          "machine: Linux 6.1 x86_64, 16 CPUs here (16 used), 128 GiB\ncmake: cmake version 3.31.0\n"
          "gpu: NVIDIA H100 80GB HBM3, 81559 MiB, 580.95.05\n"
          "torch (version, CUDA, available, C++11 ABI, folder): 2.11.0+cu130 13.0 True 1 /opt/t\n"
          "nvcc: /usr/local/cuda/bin/nvcc: Build cuda_13.0.r13.0/compiler.36424714_0\n")
    write(os.path.join(logs, "steps.txt"), "preflight 2 0\nunpack 1 0\nconfigure 20 0\nbuild 95 0\n")
    skipped = ('<testcase name="Inference.Lanes" status="notrun"><skipped/>'
               '<system-out>[ RUN      ] Inference.Lanes\nnn_test.cpp:636: Skipped\nno CUDA device: not here\n'
               '[  SKIPPED ] Inference.Lanes (10 ms)</system-out></testcase>') if skipped_cuda else ""
    skipped += ('<testcase name="DataParallel.Ranks" status="notrun"><skipped/>'
                '<system-out>x_test.cpp:9: Skipped\nthis build has no Gloo\n[  SKIPPED ] DataParallel.Ranks'
                '</system-out></testcase>')
    write(os.path.join(logs, "tests.xml"),
          '<?xml version="1.0"?><testsuite tests="3">'
          '<testcase name="Nn.Forward" status="run"/>'
          '<testcase name="Trainer.Step" status="run"/>' + skipped + "</testsuite>")
    header = "network: 10x128\nbatch  device   dtype   threads    raw evals/s server evals/s    ratio\n"
    write(os.path.join(logs, "bench-nn-fp32.log"), header +
          "256    cuda:0   fp32         0         200000         190000    0.950\n"
          "1024   cuda:0   fp32         0         400000         340000    0.850\n")
    write(os.path.join(logs, "bench-nn-bf16.log"), header +
          "256    cuda:0   bf16         0         300000         291000    0.970    off\n"
          "256    cuda:0   bf16         0         330000         320100    0.970     on\n"
          "1024   cuda:0   bf16         0         600000         570000    0.950    off\n"
          "1024   cuda:0   bf16         0         610000         430000    0.705     on\n")
    write(os.path.join(logs, "bench-selfplay.log"),
          'warming up\n{"threads": 12, "positions_per_s": 1500.5, "playouts_per_s": 123456.0,'
          ' "mean_batch": 900.0, "root_evaluations_per_s": 0.0}\n')
    write(os.path.join(logs, "gpu-utilisation.csv"), "80, 5000\n90, 5100\n95, 5200\n")
    write(os.path.join(logs, "train-metrics.jsonl"),
          '{"seconds": 10, "step": 0, "positions": 20000, "positions_per_second": 2000}\n'
          '{"seconds": 20, "step": 100, "positions": 40000, "positions_per_second": 2100}\n'
          '{"eval": {"step": 100}}\n'
          '{"seconds": 30, "step": 300, "positions": 60000, "positions_per_second": 2200}\n')


def report(logs, device):
    out = os.path.join(logs, "figures.json")
    p = subprocess.run([PYTHON, os.path.join(REPO, "scripts", "gpu_check_report.py"), "--logs", logs,
                        "--device", device, "--json", out, "--seconds", "300"],
                       capture_output=True, text=True)
    with open(out) as f:
        return p, json.load(f)


with tempfile.TemporaryDirectory() as tmp:
    logs = os.path.join(tmp, "logs")
    os.makedirs(logs)
    fixture_logs(logs, skipped_cuda=False)
    p, fig = report(logs, "cuda")
    check("the report exits 0", p.returncode == 0, p.stderr)
    check("GPU and torch", fig["preflight"]["gpu"].startswith("NVIDIA H100")
          and fig["preflight"]["torch"]["version"] == "2.11.0+cu130", fig["preflight"])
    check("build seconds", fig["build_seconds"] == 95, fig["build_seconds"])
    check("tests counted", (fig["tests"]["passed"], fig["tests"]["skipped"]) == (2, 1), fig["tests"])
    check("a skip's reason, and a skip that is not CUDA's passes on a GPU",
          fig["tests"]["skipped_tests"][0]["reason"] == "this build has no Gloo"
          and fig["tests"]["cuda_skipped"] == [], fig["tests"])
    check("bench nn rows", len(fig["bench_nn"]) == 6, fig["bench_nn"])
    gains = {(g["precision"], g["batch"]): g for g in fig["cuda_graph_gains"]}
    check("CUDA graphs: the server's gain per batch", sorted(gains) == [("bf16", 256), ("bf16", 1024)]
          and abs(gains[("bf16", 256)]["server_gain"] - 1.1) < 1e-9, fig["cuda_graph_gains"])
    aims = {a["aim"]: a for a in fig["aims"]}
    fp32 = [a for a in fig["aims"] if a["aim"].endswith("fp32")][0]
    check("the server aim takes the lowest ratio at batches >= 256", fp32["value"] == 0.85
          and fp32["at_batch"] == 1024 and not fp32["met"], fp32)
    bf16 = [a for a in fig["aims"] if a["aim"].endswith("bf16")][0]
    check("bf16 meets the server aim (graphs off, the default)", bf16["met"] and bf16["value"] == 0.95, bf16)
    playouts = [a for a in fig["aims"] if "playouts" in a["aim"]][0]
    check("the playouts aim", playouts["met"] and playouts["value"] == 123456.0, playouts)
    check("self-play figures", fig["selfplay"]["root_evaluations_per_s"] == 0.0, fig["selfplay"])
    check("GPU utilisation", fig["gpu_utilisation"]["median_percent"] == 90
          and fig["gpu_utilisation"]["max_memory_mib"] == 5200, fig["gpu_utilisation"])
    tr = fig["train"]
    check("training: steps/s over the trained reports", abs(tr["steps_per_s"] - 20.0) < 1e-9, tr)
    check("training: samples a position", abs(tr["samples_per_position"] - 300 * 512 / 60000) < 1e-9, tr)
    check("training: the median positions/s", tr["positions_per_s"] == 2100, tr)
    check("the printed report names the aims", "[not met]" in p.stdout and "[met]" in p.stdout, p.stdout)

    fixture_logs(logs, skipped_cuda=True)
    p, fig = report(logs, "cuda")
    check("a CUDA test skipped on a GPU fails the report (exit 3)", p.returncode == 3
          and fig["tests"]["cuda_skipped"] == ["Inference.Lanes"]
          and "skipped: Inference.Lanes: no CUDA device: not here" in p.stdout, p.stdout)
    p, fig = report(logs, "cpu")
    check("... but not on the CPU dry run", p.returncode == 0 and fig["tests"]["skipped"] == 2, p.stdout)

    # The EXIT trap: a preflight that fails (no torch in this Python) still writes --out.
    out = os.path.join(tmp, "out")
    env = dict(os.environ, PYTHON=os.path.join(tmp, "no-python"))
    write(env["PYTHON"], "#!/bin/sh\necho 'No module named torch' >&2\nexit 1\n")
    os.chmod(env["PYTHON"], 0o755)
    p = subprocess.run(["bash", os.path.join(REPO, "scripts", "gpu-check.sh"), "--out", out, "--device", "cpu"],
                       capture_output=True, text=True, env=env, cwd=tmp)
    check("a failed preflight exits non-zero", p.returncode != 0, p.returncode)
    files = sorted(os.listdir(out)) if os.path.isdir(out) else []
    check("--out holds the report, the figures and the logs", files == ["figures.json", "logs.tar.gz", "report.txt"], files)
    text = open(os.path.join(out, "report.txt")).read() if "report.txt" in files else ""
    check("the report names the step and why", "[FAILED] preflight" in text and "cannot import torch" in text
          and "FAILED: preflight" in text, text)
    if "logs.tar.gz" in files:
        with tarfile.open(os.path.join(out, "logs.tar.gz")) as t:
            check("the archive holds the step's log", "logs/preflight.log" in t.getnames(), t.getnames())

    for args, text in ((["--device", "tpu"], "expected cuda or cpu"), (["--budget", "x"], "not a whole number"),
                       (["--bogus"], "unknown argument")):
        p = subprocess.run(["bash", os.path.join(REPO, "scripts", "gpu-check.sh")] + args,
                           capture_output=True, text=True)
        check("refuses " + " ".join(args), p.returncode == 2 and text in p.stderr, p.stderr)
    p = subprocess.run(["bash", os.path.join(REPO, "scripts", "gpu-check.sh"), "--help"], capture_output=True, text=True)
    check("--help", p.returncode == 0 and "--out DIR" in p.stdout, p.stdout[:200])

sys.exit(1 if failures else 0)
