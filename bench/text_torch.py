"""PyTorch's side of the char-transformer benchmark (bench/text.ts and the 'char transformer'
workload of `npm run bench`): the same model as paralens's spec

  embedding(V,d) >> transformer(d,heads,ff,pos) × blocks >> layernorm(d) >> dense(d,V)

(pre-norm blocks, causal multi-head attention with interleaved RoPE / relative-distance bias /
absolute table / none, GELU tanh), trained the same way: Adam, B random windows of T
characters per step from the first 90 % of the text, vocabulary = the training text's sorted
characters plus one unknown id; validation bits per character over non-overlapping windows of
the last 10 % (and one aligned to the end). Reads a JSON config on stdin, prints one JSON object.

  python3 bench/text_torch.py < config.json
  config: {text?: path of a UTF-8 file | fortunes_dir?, threads, steps, batch, context, d, heads,
           ff, blocks, pos, lr, seed, eval (bool), time_steps?}
"""
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F


def read_text(cfg):
    if cfg.get("text"):
        with open(cfg["text"], encoding="utf-8") as f:
            return f.read()
    d = cfg.get("fortunes_dir", "/usr/share/games/fortunes")
    names = sorted(n for n in os.listdir(d) if not n.endswith(".dat") and os.path.isfile(os.path.join(d, n)) and not os.path.islink(os.path.join(d, n)))
    out = []
    for n in names:
        with open(os.path.join(d, n), encoding="utf-8") as f:
            out.append(f.read())
    return "".join(out)


def corpus(text):
    n_train = int(len(text) * 0.9)
    train, val = text[:n_train], text[n_train:]
    vocab = sorted(set(train))
    index = {c: i for i, c in enumerate(vocab)}
    unk = len(vocab)
    enc = lambda s: torch.tensor([index.get(c, unk) for c in s], dtype=torch.long)
    return enc(train), enc(val), len(vocab) + 1


def parse_pos(text):
    name, _, rest = text.partition("(")
    n = int(rest[:-1]) if rest else None
    if name == "relative" and n is None:
        n = 32
    return name, n


class Attention(torch.nn.Module):
    def __init__(self, d, heads, pos):
        super().__init__()
        self.d, self.h, self.dh = d, heads, d // heads
        self.kind, self.n = parse_pos(pos)
        self.wq, self.wk, self.wv, self.wo = (torch.nn.Linear(d, d, bias=False) for _ in range(4))
        if self.kind == "relative":
            self.bias = torch.nn.Parameter(torch.zeros(heads, self.n + 1))
        if self.kind == "absolute":
            self.table = torch.nn.Parameter(torch.randn(self.n, d) * 0.02)

    def forward(self, x):
        B, T, d = x.shape
        xq = x + self.table[:T] if self.kind == "absolute" else x
        q = self.wq(xq).view(B, T, self.h, self.dh).transpose(1, 2)
        k = self.wk(xq).view(B, T, self.h, self.dh).transpose(1, 2)
        v = self.wv(x).view(B, T, self.h, self.dh).transpose(1, 2)
        if self.kind == "rope":
            q, k = rope(q), rope(k)
        s = q @ k.transpose(-1, -2) / math.sqrt(self.dh)
        i = torch.arange(T)[:, None]
        j = torch.arange(T)[None, :]
        if self.kind == "relative":
            s = s + self.bias[:, (i - j).clamp(0, self.n)]
        s = s.masked_fill(j > i, float("-inf"))
        o = (F.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, T, d)
        return self.wo(o)


_rope_cache = {}


def rope(x):
    B, H, T, dh = x.shape
    key = (T, dh)
    if key not in _rope_cache:
        omega = torch.tensor([10000.0 ** (-2 * i / dh) for i in range(dh // 2)])
        theta = torch.arange(T, dtype=torch.float32)[:, None] * omega[None, :]
        _rope_cache[key] = (torch.cos(theta), torch.sin(theta))
    c, s = _rope_cache[key]
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * c - b * s, a * s + b * c], dim=-1).reshape(B, H, T, dh)


class Block(torch.nn.Module):
    def __init__(self, d, heads, ff, pos):
        super().__init__()
        self.ln1, self.att = torch.nn.LayerNorm(d), Attention(d, heads, pos)
        self.ln2, self.fc1, self.fc2 = torch.nn.LayerNorm(d), torch.nn.Linear(d, ff), torch.nn.Linear(ff, d)

    def forward(self, x):
        x = x + self.att(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class LM(torch.nn.Module):
    def __init__(self, V, cfg):
        super().__init__()
        d = cfg["d"]
        self.emb = torch.nn.Embedding(V, d)
        self.blocks = torch.nn.Sequential(*[Block(d, cfg["heads"], cfg["ff"], cfg["pos"]) for _ in range(cfg["blocks"])])
        self.ln, self.head = torch.nn.LayerNorm(d), torch.nn.Linear(d, V)

    def forward(self, x):
        return self.head(self.ln(self.blocks(self.emb(x))))


def val_bits(model, ids, T):
    n = len(ids) - 1
    starts = list(range(0, n - T + 1, T))
    windows = [(s, 0) for s in starts]
    rest = n - (starts[-1] + T if starts else 0)
    if rest > 0:
        windows.append((n - T, T - rest))
    nats, count = 0.0, 0
    model.eval()
    with torch.no_grad():
        for w0 in range(0, len(windows), 32):
            part = windows[w0:w0 + 32]
            x = torch.stack([ids[s:s + T] for s, _ in part])
            y = torch.stack([ids[s + 1:s + T + 1] for s, _ in part])
            lp = F.log_softmax(model(x), dim=-1).gather(-1, y[..., None])[..., 0]
            for b, (_, f) in enumerate(part):
                nats -= lp[b, f:].sum().item()
                count += T - f
    model.train()
    return nats / count / math.log(2)


def main():
    cfg = json.load(sys.stdin)
    torch.set_num_threads(cfg.get("threads", 1))
    torch.manual_seed(cfg.get("seed", 0))
    train, val, V = corpus(read_text(cfg))
    model = LM(V, cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    B, T, steps = cfg["batch"], cfg["context"], cfg["steps"]
    g = torch.Generator().manual_seed(cfg.get("seed", 0))

    def step():
        s = torch.randint(0, len(train) - T, (B,), generator=g)
        x = torch.stack([train[i:i + T] for i in s.tolist()])
        y = torch.stack([train[i + 1:i + T + 1] for i in s.tolist()])
        loss = F.cross_entropy(model(x).view(B * T, V), y.view(B * T))
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    # every step trains; the clock starts after the first `warm` (allocation, first-call costs)
    warm = min(cfg.get("warmup", 2), steps - 1)
    tail, tail_n = 0.0, max(1, math.ceil(steps / 10))
    t = time.perf_counter()
    for k in range(steps):
        if k == warm:
            t = time.perf_counter()
        L = step()
        if k >= steps - tail_n:
            tail += L / math.log(2)
    seconds = time.perf_counter() - t
    timed = steps - warm
    out = {"system": f"PyTorch {torch.__version__.split('+')[0]} ({cfg.get('threads', 1)} thread{'s' if cfg.get('threads', 1) > 1 else ''})",
           "steps": steps, "seconds": seconds, "tokens_per_second": B * T * timed / seconds, "bits_per_char": tail / tail_n,
           "parameters": sum(p.numel() for p in model.parameters())}
    if cfg.get("eval"):
        out["val_bits_per_char"] = val_bits(model, val, T)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
