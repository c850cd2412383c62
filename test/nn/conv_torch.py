"""PyTorch (float64) reference for test/nn/conv-torch.test.ts.

Reads a JSON list of cases on stdin: {kind, args, x, xshape, weight?, bias?, dy}; for each
runs the PyTorch layer with the given weights, pulls dy back, and prints y, dx, dweight,
dbias as flat lists.
"""
import json
import sys

import torch

torch.set_default_dtype(torch.float64)


def layer(kind, a, w, b):
    if kind == "conv2d":
        m = torch.nn.Conv2d(a[0], a[1], a[2], stride=a[3], padding=a[4])
    elif kind == "conv1d":
        m = torch.nn.Conv1d(a[0], a[1], a[2], stride=a[3], padding=a[4])
    elif kind == "maxpool2d":
        return torch.nn.MaxPool2d(a[0], stride=a[1])
    elif kind == "avgpool2d":
        return torch.nn.AvgPool2d(a[0], stride=a[1])
    elif kind == "flatten":
        return torch.nn.Flatten()
    elif kind == "globalavgpool":
        return torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten())
    else:
        raise ValueError(kind)
    with torch.no_grad():
        m.weight.copy_(torch.tensor(w).reshape(m.weight.shape))
        m.bias.copy_(torch.tensor(b))
    return m


out = []
for c in json.load(sys.stdin):
    m = layer(c["kind"], c["args"], c.get("weight"), c.get("bias"))
    x = torch.tensor(c["x"]).reshape(c["xshape"]).requires_grad_(True)
    y = m(x)
    y.backward(torch.tensor(c["dy"]).reshape(y.shape))
    r = {"y": y.detach().flatten().tolist(), "yshape": list(y.shape), "dx": x.grad.flatten().tolist()}
    if hasattr(m, "weight"):
        r["dweight"] = m.weight.grad.flatten().tolist()
        r["dbias"] = m.bias.grad.flatten().tolist()
    out.append(r)
json.dump(out, sys.stdout)
