"""PyTorch's side of the char-LSTM comparison (bench/char-lstm.ts, and the 'char LSTM train'
workload of `npm run bench`): the same model as paralens's spec

  embedding(V,d) >> lstm(d,h) >> dense(h,V)

with paralens's initialisations (embedding N(0,1); LSTM U(−1/√h, 1/√h), PyTorch's own; the head
Glorot-uniform with a zero bias), trained the same way as `paralens train` trains a recurrent
model on text: B streams read their segment of the first 90 % of the text in consecutive windows
of T characters from a seeded random start (⌊N/B⌋ characters a segment; a stream that would leave
its segment starts over at its beginning with a zero state), the LSTM's state carried from each
window to the next (detached: the gradient stops at the window's start, and every --bptt K steps
inside it), Adam on the mean token cross-entropy, optionally the gradient clipped to a global
norm. Validation bits per character as paralens measures a recurrent model: the last 10 % cut
into 32 contiguous segments read side by side in windows of T with the state carried, every
character but the first predicted once. Reads a JSON config on stdin, prints one JSON object.

  python3 bench/char_lstm_torch.py < config.json
  config: {text?: path of a UTF-8 file | fortunes_dir?, threads, steps, batch, context, d, h, lr,
           seed, eval (bool), bptt?, clip?, time_steps?}
"""
import json
import math
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_torch import corpus, read_text  # noqa: E402


class CharLSTM(torch.nn.Module):
    def __init__(self, V, d, h):
        super().__init__()
        self.embedding = torch.nn.Embedding(V, d)
        self.lstm = torch.nn.LSTM(d, h, batch_first=True)
        self.head = torch.nn.Linear(h, V)
        torch.nn.init.xavier_uniform_(self.head.weight)
        torch.nn.init.zeros_(self.head.bias)

    def forward(self, x, state, bptt=None):
        e = self.embedding(x)
        if not bptt or bptt >= x.shape[1]:
            y, state = self.lstm(e, state)
        else:
            # truncated: the state is detached every bptt steps inside the window
            ys = []
            for t0 in range(0, x.shape[1], bptt):
                if t0 > 0:
                    state = tuple(s.detach() for s in state)
                y, state = self.lstm(e[:, t0 : t0 + bptt], state)
                ys.append(y)
            y = torch.cat(ys, 1)
        return self.head(y), state


def streams(n, T, B, rng):
    seg = n // B
    if seg < T + 1:
        raise SystemExit(f"{n} characters cannot hold {B} streams of windows of {T}")
    return seg, [b * seg + rng.randrange(seg - T) for b in range(B)]


def train(cfg, ids_train, V):
    torch.manual_seed(cfg["seed"])
    rng = random.Random(cfg["seed"])
    T, B, h = cfg["context"], cfg["batch"], cfg["h"]
    model = CharLSTM(V, cfg["d"], h)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    seg, pos = streams(len(ids_train), T, B, rng)
    state = (torch.zeros(1, B, h), torch.zeros(1, B, h))
    steps = cfg["steps"]
    tail = max(1, math.ceil(steps / 10))
    tail_bits, seconds = 0.0, 0.0
    for s in range(steps):
        x = torch.empty(B, T, dtype=torch.long)
        y = torch.empty(B, T, dtype=torch.long)
        for b in range(B):
            p = pos[b]
            if p + T + 1 > (b + 1) * seg:
                p = b * seg
                state[0][:, b] = 0
                state[1][:, b] = 0
            x[b] = ids_train[p : p + T]
            y[b] = ids_train[p + 1 : p + T + 1]
            pos[b] = p + T
        t0 = time.perf_counter()
        logits, state = model(x, state, cfg.get("bptt"))
        state = tuple(t.detach() for t in state)
        loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        if cfg.get("clip"):
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
        opt.step()
        seconds += time.perf_counter() - t0
        bits = loss.item() / math.log(2)
        if s >= steps - tail:
            tail_bits += bits
        if (s + 1) % 100 == 0 or s + 1 == steps:
            print(f"  pytorch step {s + 1}/{steps}: {bits:.3f} bits/char", file=sys.stderr)
    return model, tail_bits / tail, seconds


@torch.no_grad()
def stream_bits_per_char(model, ids, T, V):
    P = len(ids) - 1
    E = min(32, P)
    L = math.ceil(P / E)
    h = model.lstm.hidden_size
    state = (torch.zeros(1, E, h), torch.zeros(1, E, h))
    nats, count = 0.0, 0
    for c0 in range(0, L, T):
        x = torch.zeros(E, T, dtype=torch.long)
        valid = torch.zeros(E, T, dtype=torch.bool)
        target = torch.zeros(E, T, dtype=torch.long)
        for e in range(E):
            a = e * L + c0
            n = max(0, min(T, min((e + 1) * L, P) - a))
            x[e, :n] = ids[a : a + n]
            target[e, :n] = ids[a + 1 : a + n + 1]
            valid[e, :n] = True
        logits, state = model(x, state)
        ce = F.cross_entropy(logits.reshape(-1, V), target.reshape(-1), reduction="none").reshape(E, T)
        nats += ce[valid].double().sum().item()
        count += int(valid.sum())
    return nats / count / math.log(2)


def main():
    cfg = json.loads(sys.stdin.read())
    torch.set_num_threads(cfg.get("threads", 1))
    ids_train, ids_val, V = corpus(read_text(cfg))
    model, bits, seconds = train(cfg, ids_train, V)
    out = {
        "system": f"PyTorch {torch.__version__} ({torch.get_num_threads()} thread{'s' if torch.get_num_threads() > 1 else ''})",
        "tokens_per_second": cfg["batch"] * cfg["context"] * cfg["steps"] / seconds,
        "bits_per_char": bits,
        "seconds": seconds,
        "parameters": sum(p.numel() for p in model.parameters()),
    }
    if cfg.get("eval", True):
        model.eval()
        out["val_bits_per_char"] = stream_bits_per_char(model, ids_val, cfg["context"], V)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
