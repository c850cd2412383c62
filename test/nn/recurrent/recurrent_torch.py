"""PyTorch (float64) reference for test/nn/recurrent/torch.test.ts.

Reads a JSON list of cases on stdin: {kind, in, h, params: [[values], shape]..., x, xshape, s0, dy, ds}
with kind rnn | lstm | gru (PyTorch's nn.RNN, nn.LSTM, nn.GRU, batch_first, one layer) or mgu
(the minimal gated unit written out in torch operations, gates f, n laid out like nn.GRU's).
Loads the parameters, runs the layer from the initial state s0 (h0, and c0 for lstm, side by
side per sequence), pulls back dy (to every output) and ds (to the final state), and prints y,
the final state, dx, ds0 and every parameter gradient as flat lists.
"""
import json
import sys

import torch

torch.set_default_dtype(torch.float64)


def mgu(params, x, h0):
    w_ih, w_hh, b_ih, b_hh = params
    H = h0.shape[-1]
    h, ys = h0, []
    for t in range(x.shape[1]):
        xg = x[:, t] @ w_ih.T + b_ih
        f = torch.sigmoid(xg[:, :H] + h @ w_hh[:H].T + b_hh[:H])
        n = torch.tanh(xg[:, H:] + (f * h) @ w_hh[H:].T + b_hh[H:])
        h = (1 - f) * h + f * n
        ys.append(h)
    return torch.stack(ys, 1), h


def run(case):
    kind, A, H = case["kind"], case["in"], case["h"]
    x = torch.tensor(case["x"]).reshape(case["xshape"]).requires_grad_()
    B = x.shape[0]
    parts = 2 if kind == "lstm" else 1
    s0 = torch.tensor(case["s0"]).reshape(B, parts, H).transpose(0, 1).contiguous().requires_grad_()
    if kind == "mgu":
        params = [torch.tensor(v).reshape(s).requires_grad_() for v, s in case["params"]]
        y, hn = mgu(params, x, s0[0])
        state = [hn]
    else:
        net = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[kind](A, H, batch_first=True)
        with torch.no_grad():
            for p, (v, s) in zip(net.parameters(), case["params"]):
                p.copy_(torch.tensor(v).reshape(s))
        params = list(net.parameters())
        if kind == "lstm":
            y, (hn, cn) = net(x, (s0[0:1], s0[1:2]))
            state = [hn[0], cn[0]]
        else:
            y, hn = net(x, s0[0:1])
            state = [hn[0]]
    s = torch.stack(state, 1).reshape(B, -1)
    dy = torch.tensor(case["dy"]).reshape(y.shape)
    ds = torch.tensor(case["ds"]).reshape(s.shape)
    ((y * dy).sum() + (s * ds).sum()).backward()
    flat = lambda t: t.detach().reshape(-1).tolist()  # noqa: E731
    return {
        "y": flat(y),
        "s": flat(s),
        "dx": flat(x.grad),
        "ds0": flat(s0.grad.transpose(0, 1)),
        "dparams": [flat(p.grad) for p in params],
    }


print(json.dumps([run(c) for c in json.loads(sys.stdin.read())]))
