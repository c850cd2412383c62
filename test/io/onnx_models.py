"""Writes ONNX models with PyTorch's own exporter (torch.onnx.export, opset 17) into argv[1]:
an MLP, a CNN, a residual network (identity and projection shortcuts), a transformer, one with
GELU and Hardswish (which the exporter writes out) and one with an operator paralens does not
read yet (LSTM); for each, a random input batch and PyTorch's output on it (NAME.io.safetensors:
x, y). Seeded, so every run writes the same models."""
import json
import os
import struct
import sys

import torch
from torch import nn

out = sys.argv[1]
torch.manual_seed(0)


class Residual(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return x + self.f(x)


class Attention(nn.Module):
    """Causal multi-head self-attention on [T, d], written plainly (no nn.MultiheadAttention)."""
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        for name in ('wq', 'wk', 'wv', 'wo'):
            setattr(self, name, nn.Parameter(torch.randn(d, d) / d ** 0.5))

    def forward(self, x):
        b, t, d = x.shape
        h, dh = self.heads, d // self.heads
        split = lambda z: z.reshape(b, t, h, dh).transpose(1, 2)  # noqa: E731
        q, k, v = split(x @ self.wq.T), split(x @ self.wk.T), split(x @ self.wv.T)
        s = (q @ k.transpose(-1, -2)) / dh ** 0.5
        s = s.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float('-inf'))
        return (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(b, t, d) @ self.wo.T


class LastStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 3, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0][:, -1]


class Cumulative(nn.Module):
    """A running sum over the features (ONNX CumSum, which import does not read)."""
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return torch.cumsum(self.fc(x), 1)


class TwoBranch(nn.Module):
    def __init__(self, f, g):
        super().__init__()
        self.f, self.g = f, g

    def forward(self, x):
        return self.f(x) + self.g(x)


NETS = {
    'mlp': (nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8), nn.Tanh(), nn.Linear(8, 3)), (6, 4)),
    'cnn': (nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(3, 4, 3), nn.Sigmoid(),
                          nn.AvgPool2d(2), nn.Flatten(), nn.Linear(4, 10)), (6, 1, 8, 8)),
    'resnet': (nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(),
                             Residual(nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1))), nn.ReLU(),
                             nn.Conv2d(4, 6, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                             TwoBranch(nn.Linear(6, 10), nn.Sequential(nn.Linear(6, 10), nn.Tanh())), nn.LeakyReLU(0.1),
                             Residual(nn.Sequential(nn.Linear(10, 10), nn.Softplus()))), (6, 1, 8, 8)),
    'projection': (nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), TwoBranch(nn.Conv2d(4, 6, 3, stride=2, padding=1), nn.Conv2d(4, 6, 1, stride=2)),
                                 nn.Flatten(), nn.Linear(96, 2)), (2, 1, 8, 8)),
    'transformer': (nn.Sequential(nn.Embedding(11, 8), Residual(nn.Sequential(nn.LayerNorm(8), Attention(8, 2))),
                                  Residual(nn.Sequential(nn.LayerNorm(8), nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))),
                                  nn.LayerNorm(8), nn.Linear(8, 11)), (6, 5)),
    'activations': (nn.Sequential(nn.Linear(4, 4), nn.GELU(), nn.Linear(4, 4), nn.Hardswish()), (6, 4)),
    'lstm': (LastStep(), (6, 5, 4)),
    'unsupported': (Cumulative(), (6, 4)),
}


def write_safetensors(path, tensors):
    header, blobs, at = {}, [], 0
    for name, t in tensors.items():
        b = t.detach().contiguous().numpy().tobytes()
        header[name] = {'dtype': 'F32', 'shape': list(t.shape), 'data_offsets': [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    text = json.dumps(header).encode()
    text += b' ' * (-len(text) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))


for name, (net, shape) in NETS.items():
    net.eval()
    x = torch.randint(0, 11, shape) if name == 'transformer' else torch.randn(*shape)
    # the attention's reshapes and mask are constants only when the shapes are fixed (no dynamic axes)
    dynamic = {} if name == 'transformer' else {'input': {0: 'batch'}, 'output': {0: 'batch'}}
    torch.onnx.export(net, x, os.path.join(out, f'{name}.onnx'), opset_version=17, input_names=['input'], output_names=['output'], dynamic_axes=dynamic)
    with torch.no_grad():
        write_safetensors(os.path.join(out, f'{name}.io.safetensors'), {'x': x.float(), 'y': net(x)})
