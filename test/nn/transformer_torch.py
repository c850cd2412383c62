"""PyTorch (float64) reference for test/nn/transformer-torch.test.ts.

Reads a JSON list of cases on stdin: {tree, params: [[values], shape]..., x, xshape, ids, dy}
where tree is the morphism as {kind, args, children} (seq, residual, transformer, embedding,
dense, gelu, layernorm, rmsnorm, attention). Builds the same function from torch operations
(attention written out: projections, interleaved RoPE, relative-distance biases, an absolute
position table, the causal mask, softmax), runs it on x, pulls dy back, and prints y, dx and
every parameter gradient as flat lists.
"""
import json
import math
import sys

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
EPS = 1e-5


def parse_position(text):
    name, _, rest = text.partition("(")
    n = int(rest[:-1]) if rest else None
    return name, n


def rope(x, offset=0):
    """Interleaved RoPE on [B, H, T, dh]: pair (2i, 2i+1) at position t rotated by t·10000^(−2i/dh)."""
    B, H, T, dh = x.shape
    omega = torch.tensor([10000.0 ** (-2 * i / dh) for i in range(dh // 2)])
    theta = (torch.arange(T, dtype=torch.float64) + offset)[:, None] * omega[None, :]
    c, s = torch.cos(theta), torch.sin(theta)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * c - b * s, a * s + b * c], dim=-1).reshape(B, H, T, dh)


def attention(args, p):
    d, H, pos = args[0], args[1], args[2]
    causal = len(args) < 4 or args[3] != "none"
    kind, n = parse_position(pos)
    if kind == "relative" and n is None:
        n = 32
    Wq, Wk, Wv, Wo = [next(p) for _ in range(4)]
    extra = next(p) if kind in ("relative", "absolute") else None
    dh = d // H

    def f(x):
        B, T, _ = x.shape
        xq = x + extra[:T] if kind == "absolute" else x
        q = (xq @ Wq.T).view(B, T, H, dh).transpose(1, 2)
        k = (xq @ Wk.T).view(B, T, H, dh).transpose(1, 2)
        v = (x @ Wv.T).view(B, T, H, dh).transpose(1, 2)
        if kind == "rope":
            q, k = rope(q), rope(k)
        s = q @ k.transpose(-1, -2) / math.sqrt(dh)
        i = torch.arange(T)[:, None]
        j = torch.arange(T)[None, :]
        if kind == "relative":
            bucket = (i - j).clamp(0, n) if causal else (j - i).clamp(-n, n) + n
            s = s + extra[:, bucket]
        if causal:
            s = s.masked_fill(j > i, float("-inf"))
        o = (F.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, T, d)
        return o @ Wo.T

    return f


def build(node, p):
    kind, args, children = node["kind"], node["args"], node["children"]
    if kind == "seq":
        fs = [build(c, p) for c in children]

        def run(x):
            for g in fs:
                x = g(x)
            return x

        return run
    if kind == "residual":
        g = build(children[0], p)
        return lambda x: x + g(x)
    if kind == "transformer":
        return build(children[0], p)
    if kind == "embedding":
        W = next(p)
        return lambda x: W[x.long()]
    if kind == "dense":
        W, b = next(p), next(p)
        return lambda x: x @ W.T + b
    if kind == "gelu":
        return lambda x: F.gelu(x, approximate="tanh")
    if kind == "layernorm":
        g, b = next(p), next(p)
        return lambda x: F.layer_norm(x, (args[0],), g, b, eps=EPS)
    if kind == "rmsnorm":
        g = next(p)
        return lambda x: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * g
    if kind == "attention":
        return attention(args, p)
    raise ValueError(kind)


def main():
    out = []
    for case in json.load(sys.stdin):
        params = [torch.tensor(v).reshape(s).requires_grad_(True) for v, s in case["params"]]
        f = build(case["tree"], iter(params))
        x = torch.tensor(case["x"]).reshape(case["xshape"])
        if not case["ids"]:
            x.requires_grad_(True)
        y = f(x)
        y.backward(torch.tensor(case["dy"]).reshape(y.shape))
        out.append({
            "y": y.detach().flatten().tolist(),
            "dx": None if case["ids"] else x.grad.flatten().tolist(),
            "dparams": [q.grad.flatten().tolist() if q.grad is not None else [0.0] * q.numel() for q in params],
        })
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
