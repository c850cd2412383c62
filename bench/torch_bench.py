"""PyTorch's side of `npm run bench`: the workloads of bench/workloads.ts, same shapes,
batches, steps, repeats and warm-up. Reads the config (JSON) on stdin, prints a JSON list
of measurements. Usage: python3 bench/torch_bench.py --threads N < config.json
"""
import json
import statistics
import sys
import time

import torch


def rand(shape, seed):
    """Uniform [-0.5, 0.5) like bench/workloads.ts `fill` (same distribution, torch's own seeded generator)."""
    g = torch.Generator().manual_seed(seed)
    return torch.rand(shape, generator=g) - 0.5


def repeats_after(warm_seconds, cfg):
    """bench/workloads.ts repeatsAfter: fewer repeats (never below 3) for very slow runs."""
    return max(min(3, cfg["repeats"]), min(cfg["repeats"], int(60 / max(1e-9, warm_seconds))))


def time_matmul(n, cfg):
    a, b = rand((n, n), 1), rand((n, n), 2)
    c = torch.empty(n, n)
    torch.mm(a, b, out=c)
    t = time.perf_counter()
    torch.mm(a, b, out=c)
    reps = max(1, int(-(-cfg["matmulSeconds"] // max(1e-6, time.perf_counter() - t))))
    out = []
    for _ in range(cfg["repeats"]):
        t = time.perf_counter()
        for _ in range(reps):
            torch.mm(a, b, out=c)
        out.append(2 * n**3 * reps / (time.perf_counter() - t) / 1e9)
    return out


def time_training(model, shape, batch, steps, lr, cfg):
    n = batch * steps
    x = rand((n, *shape), 3)
    y = torch.tensor([(i * 7 + 3) % 10 for i in range(n)])
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = torch.nn.CrossEntropyLoss()

    def epoch():
        perm = torch.randperm(n)  # paralens shuffles every epoch too
        for s in range(steps):
            idx = perm[s * batch:(s + 1) * batch]
            xb, yb = x[idx], y[idx]
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            opt.step()

    t0 = time.perf_counter()
    epoch()
    out = []
    for _ in range(repeats_after(time.perf_counter() - t0, cfg)):
        t = time.perf_counter()
        epoch()
        out.append(n / (time.perf_counter() - t))
    return out


def mlp(dims):
    layers = []
    for i in range(len(dims) - 1):
        layers.append(torch.nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def cnn():
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(784, 10))


def time_xor(cfg):
    x = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])

    def run():
        t = time.perf_counter()
        m = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.Sigmoid(), torch.nn.Linear(4, 4), torch.nn.Sigmoid(), torch.nn.Linear(4, 1), torch.nn.Sigmoid())
        opt = torch.optim.SGD(m.parameters(), lr=cfg["xor"]["lr"])
        loss_fn = torch.nn.MSELoss()
        for _ in range(cfg["xor"]["epochs"]):
            opt.zero_grad()
            loss_fn(m(x), y).backward()
            opt.step()
        return time.perf_counter() - t

    run()
    return [run() for _ in range(cfg["repeats"])]


def time_token_lm(cfg, c, make_model, logits_of):
    """Tokens/s of a next-token model: Adam on one epoch of batch·steps pre-made windows of token ids
    (bench/paralens.ts epochRates), after a warm-up epoch. make_model() builds it; logits_of(model, x)
    gives its logits [B, T, V]."""
    import torch.nn.functional as F
    T, V, B, steps = c["context"], c["vocab"], c["batch"], c["steps"]
    n = B * steps
    ids = ((rand((n, T + 1), 11) + 0.5) * V).long().clamp(0, V - 1)
    x, y = ids[:, :T], ids[:, 1:]
    torch.manual_seed(0)
    model = make_model()
    opt = torch.optim.Adam(model.parameters(), lr=c["lr"])

    def epoch():
        perm = torch.randperm(n)
        for s in range(steps):
            idx = perm[s * B:(s + 1) * B]
            loss = F.cross_entropy(logits_of(model, x[idx]).reshape(B * T, V), y[idx].reshape(B * T))
            opt.zero_grad()
            loss.backward()
            opt.step()

    t0 = time.perf_counter()
    epoch()
    out = []
    for _ in range(repeats_after(time.perf_counter() - t0, cfg)):
        t = time.perf_counter()
        epoch()
        out.append(n * T / (time.perf_counter() - t))
    return out


def time_char_transformer(cfg):
    """bench/paralens.ts timeCharTransformer: the same model (bench/text_torch.py's LM)."""
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from text_torch import LM
    c = cfg["charTransformer"]
    return time_token_lm(cfg, c, lambda: LM(c["vocab"], c), lambda m, x: m(x))


def time_char_lstm(cfg):
    """bench/paralens.ts timeCharLstm: the same model (bench/char_lstm_torch.py's CharLSTM: nn.Embedding, nn.LSTM, nn.Linear), from zero states (no state carried)."""
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from char_lstm_torch import CharLSTM
    c = cfg["charLstm"]
    zero = (torch.zeros(1, c["batch"], c["h"]), torch.zeros(1, c["batch"], c["h"]))
    return time_token_lm(cfg, c, lambda: CharLSTM(c["vocab"], c["d"], c["h"]), lambda m, x: m(x, zero)[0])


def main():
    threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 1
    torch.set_num_threads(threads)
    cfg = json.load(sys.stdin)
    system = f"PyTorch {torch.__version__.split('+')[0]} ({threads} thread{'s' if threads > 1 else ''})"
    out = []

    only = cfg.get("only")

    def add(workload, unit, measure):
        """Runs measure() (a list of samples) and records its median, unless --only leaves the workload out."""
        if only is not None and only not in workload:
            return
        samples = measure()
        out.append({"workload": workload, "system": system, "value": statistics.median(samples), "unit": unit, "samples": samples})
        print(f"  {system:22} {workload:40} {statistics.median(samples):.4g} {unit}", file=sys.stderr, flush=True)

    for n in cfg["matmulSizes"]:
        add(f"matmul {n}³", "GFLOP/s", lambda: time_matmul(n, cfg))
    for r in cfg["mlp"]["runs"]:
        torch.manual_seed(0)
        add(f"MLP 784-256-256-10 train, batch {r['batch']}", "samples/s", lambda: time_training(mlp(cfg["mlp"]["dims"]), (784,), r["batch"], r["steps"], cfg["mlp"]["lr"], cfg))
    c = cfg["conv"]
    torch.manual_seed(0)
    add(f"CNN (2 conv) train, batch {c['batch']}", "samples/s", lambda: time_training(cnn(), (1, 28, 28), c["batch"], c["steps"], c["lr"], cfg))
    add(f"XOR 2-4-4-1, {cfg['xor']['epochs']} epochs", "s", lambda: time_xor(cfg))
    c = cfg["charTransformer"]
    add(f"char transformer train ({c['blocks']}×d{c['d']}, T {c['context']}, batch {c['batch']})", "tokens/s", lambda: time_char_transformer(cfg))
    c = cfg["charLstm"]
    add(f"char LSTM train (h {c['h']}, T {c['context']}, batch {c['batch']})", "tokens/s", lambda: time_char_lstm(cfg))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
