"""Reference computations in PyTorch (float64) for test/peer/torch.test.ts.

Reads a JSON list of cases on stdin; for each builds the same network from paralens's
weights and returns outputs, loss, all gradients, and parameters after 3 steps of each
optimiser.
"""
import json
import sys

import torch

torch.set_default_dtype(torch.float64)


def build(layers):
    mods = []
    for l in layers:
        k = l["kind"]
        if k == "dense":
            m = torch.nn.Linear(l["in"], l["out"])
            with torch.no_grad():
                m.weight.copy_(torch.tensor(l["weight"]).reshape(l["out"], l["in"]))
                m.bias.copy_(torch.tensor(l["bias"]))
            mods.append(m)
        elif k == "sigmoid":
            mods.append(torch.nn.Sigmoid())
        elif k == "tanh":
            mods.append(torch.nn.Tanh())
        elif k == "relu":
            mods.append(torch.nn.ReLU())
        elif k == "gelu":
            mods.append(torch.nn.GELU(approximate="tanh"))
        elif k == "softplus":
            mods.append(torch.nn.Softplus())
        elif k == "leaky_relu":
            mods.append(torch.nn.LeakyReLU(l["alpha"]))
        elif k == "softmax":
            mods.append(torch.nn.Softmax(dim=-1))
        else:
            raise ValueError(k)
    return torch.nn.Sequential(*mods)


def loss_fn(name):
    return {
        "mse": torch.nn.MSELoss(),
        "bce": torch.nn.BCEWithLogitsLoss(),
        "softmax-cross-entropy": torch.nn.CrossEntropyLoss(),
    }[name]


def optim(name, params, lr):
    if name == "sgd":
        return torch.optim.SGD(params, lr=lr)
    if name == "momentum":
        return torch.optim.SGD(params, lr=lr, momentum=0.9)
    if name == "nesterov":
        return torch.optim.SGD(params, lr=lr, momentum=0.9, nesterov=True)
    if name == "adam":
        return torch.optim.Adam(params, lr=lr)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    raise ValueError(name)


def flat(ps):
    return [v for p in ps for v in p.detach().reshape(-1).tolist()]


out = []
for case in json.load(sys.stdin):
    x = torch.tensor(case["x"], dtype=torch.float64, requires_grad=True)
    t = torch.tensor(case["target"], dtype=torch.float64)
    net = build(case["layers"])
    y = net(x)
    loss = loss_fn(case["loss"])(y, t)
    loss.backward()
    res = {
        "y": y.detach().reshape(-1).tolist(),
        "loss": loss.item(),
        "dx": x.grad.reshape(-1).tolist(),
        "dtheta": [v for p in net.parameters() for v in p.grad.reshape(-1).tolist()],
        "steps": {},
    }
    for name in ["sgd", "momentum", "nesterov", "adam", "adamw"]:
        net = build(case["layers"])
        opt = optim(name, net.parameters(), case["lr"])
        for _ in range(3):
            opt.zero_grad()
            loss_fn(case["loss"])(net(torch.tensor(case["x"], dtype=torch.float64)), t).backward()
            opt.step()
        res["steps"][name] = flat(net.parameters())
    out.append(res)
json.dump(out, sys.stdout)
