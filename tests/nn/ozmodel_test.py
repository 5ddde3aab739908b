#!/usr/bin/python3
"""The exported model's weights, read from Python with torch (scripts/ozmodel.py), give
the same policy and value as the C++ evaluator: a forward pass written here with
torch.nn.functional is run on positions encoded by the C++ side (FIXTURE/expected.json).
Exits 77 (skipped) when python3-torch is missing."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("python3-torch is not installed: skipped")
    sys.exit(77)

import ozmodel  # noqa: E402


def forward(header, t, planes):
    def conv(x, name):
        w = t[name + ".weight"]
        return F.conv2d(x, w, t[name + ".bias"], padding=w.shape[-1] // 2)

    def linear(x, name):
        return F.linear(x, t[name + ".weight"], t[name + ".bias"])

    def pool(x):
        flat = x.flatten(2)
        return torch.cat([flat.mean(2), flat.max(2).values], 1)

    x = F.relu(conv(planes, "stem"))
    for i in range(header["network"]["blocks"]):
        y = F.relu(conv(x, f"block{i}.conv1"))
        if f"block{i}.pool_bias.weight" in t:
            y = y + linear(pool(y), f"block{i}.pool_bias")[:, :, None, None]
        x = F.relu(x + conv(y, f"block{i}.conv2"))
    p = F.relu(conv(x, "policy_conv"))
    logits = torch.cat([conv(p, "policy_out").flatten(1), linear(pool(p), "pass_fc")], 1)
    v = F.relu(conv(x, "value_conv"))
    hidden = F.relu(linear(pool(v), "value_fc"))
    return F.softmax(logits, 1), F.softmax(linear(hidden, "wdl_fc"), 1)


def main():
    fixture = sys.argv[1]
    header, tensors = ozmodel.load(os.path.join(fixture, "model.ozm"))
    with open(os.path.join(fixture, "expected.json"), encoding="utf-8") as f:
        expected = json.load(f)
    worst = 0.0
    for case in expected:
        size = case["size"]
        planes = torch.tensor(case["planes"], dtype=torch.float32).reshape(1, 6, size, size)
        policy, wdl = forward(header, tensors, planes)
        worst = max(worst, (policy[0] - torch.tensor(case["policy"])).abs().max().item(),
                    (wdl[0] - torch.tensor(case["wdl"])).abs().max().item())
    print(f"{len(expected)} positions, largest difference {worst:.2e}")
    if worst > 1e-4:
        sys.exit("error: Python and C++ outputs differ")
    try:
        ozmodel.load(os.path.join(fixture, "expected.json"))
        sys.exit("error: a JSON file was read as a model")
    except ozmodel.ModelFileError as e:
        assert "bad magic" in str(e), e


if __name__ == "__main__":
    main()
