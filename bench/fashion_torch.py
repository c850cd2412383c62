"""PyTorch's side of bench/fashion.ts: the same model, started from the SAME initial weights
(written by paralens), trained with the same optimiser, learning rate, batch size and number
of epochs on Fashion-MNIST; prints one JSON object with per-epoch times and test accuracies.

Usage: python3 bench/fashion_torch.py < job.json
job: {model, spec, theta: [[...], ...], epochs, batch, lr, optimizer, schedule: 'constant'|'cosine', dataDir, limit, threads,
      finalTrainEval?: bool}
Each epoch's "seconds" is its training alone and "evalSeconds" its test evaluation; "seconds" of
the whole is the run from the first epoch to the last evaluation — with finalTrainEval, one more
pass over the training set at the end, as `paralens train` does for its final accuracy.
"""
import gzip
import json
import math
import os
import sys
import time

import numpy as np
import torch


def read_idx(path):
    for p in (path + ".gz", path):
        if os.path.exists(p):
            with (gzip.open(p, "rb") if p.endswith(".gz") else open(p, "rb")) as f:
                data = f.read()
            rank = data[3]
            dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
            return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)
    raise FileNotFoundError(path)


def load(d, prefix, limit, image):
    x = read_idx(os.path.join(d, f"{prefix}-images-idx3-ubyte"))[:limit].astype(np.float32) / 255
    y = read_idx(os.path.join(d, f"{prefix}-labels-idx1-ubyte"))[:limit].astype(np.int64)
    x = x.reshape(len(x), 1, 28, 28) if image else x.reshape(len(x), 784)
    return torch.from_numpy(x), torch.from_numpy(y)


def build(spec):
    """The PyTorch module of a paralens spec made of dense, conv2d, maxpool2d, relu and flatten."""
    mods = []
    for part in spec.split(">>"):
        part = part.strip()
        name, _, rest = part.partition("(")
        args = [int(a) for a in rest.rstrip(")").split(",") if a.strip()]
        if name == "dense":
            mods.append(torch.nn.Linear(*args))
        elif name == "conv2d":
            i, o, k, s, p = args + [1, 0][len(args) - 3:]
            mods.append(torch.nn.Conv2d(i, o, k, stride=s, padding=p))
        elif name == "maxpool2d":
            mods.append(torch.nn.MaxPool2d(args[0], stride=args[1] if len(args) > 1 else args[0]))
        elif name == "relu":
            mods.append(torch.nn.ReLU())
        elif name == "flatten":
            mods.append(torch.nn.Flatten())
        else:
            raise ValueError(f"fashion_torch.py cannot build '{part}'")
    return torch.nn.Sequential(*mods)


def main():
    job = json.load(sys.stdin)
    torch.set_num_threads(job["threads"])
    torch.manual_seed(0)
    image = job["spec"].startswith("conv2d")
    xtr, ytr = load(job["dataDir"], "train", job["limit"], image)
    xte, yte = load(job["dataDir"], "t10k", job["limit"], image)
    model = build(job["spec"])
    params = list(model.parameters())
    assert len(params) == len(job["theta"]), "parameter lists differ"
    with torch.no_grad():
        for p, t in zip(params, job["theta"]):
            p.copy_(torch.tensor(t, dtype=torch.float32).reshape(p.shape))
    opt = {"adam": torch.optim.Adam, "sgd": torch.optim.SGD}[job["optimizer"]](model.parameters(), lr=job["lr"])
    loss_fn = torch.nn.CrossEntropyLoss()
    n, b = len(xtr), job["batch"]
    total = job["epochs"] * -(-n // b)
    # paralens's cosine schedule (src/optim/schedule.ts): base·½(1 + cos(πt/T)) at step t
    cosine = job["schedule"] == "cosine"
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: 0.5 * (1 + math.cos(math.pi * t / total))) if cosine else None
    epochs = []
    t_run = time.perf_counter()
    for e in range(job["epochs"]):
        t = time.perf_counter()
        perm = torch.randperm(n)
        loss_sum = 0.0
        for s in range(0, n, b):
            idx = perm[s:s + b]
            opt.zero_grad()
            loss = loss_fn(model(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            if sched:
                sched.step()
            loss_sum += loss.item() * len(idx)
        seconds = time.perf_counter() - t
        with torch.no_grad():
            acc = (model(xte).argmax(1) == yte).float().mean().item()
        epochs.append({"epoch": e + 1, "seconds": seconds, "evalSeconds": time.perf_counter() - t - seconds, "loss": loss_sum / n, "testAccuracy": acc})
        print(f"  PyTorch {job['model']} epoch {e + 1}: {seconds:.2f} s, loss {loss_sum / n:.4f}, test accuracy {acc:.4f}", file=sys.stderr, flush=True)
    train_accuracy = None
    if job.get("finalTrainEval"):
        with torch.no_grad():
            train_accuracy = (model(xtr).argmax(1) == ytr).float().mean().item()
    total = time.perf_counter() - t_run
    json.dump({"version": torch.__version__, "threads": job["threads"], "epochs": epochs, "seconds": total, "trainAccuracy": train_accuracy}, sys.stdout)


if __name__ == "__main__":
    main()
