"""Writes, with PyTorch's own exporter (torch.onnx.export, opset 17, a dynamic batch axis), the
models test/io/onnx-finetune.full.test.ts fine-tunes with `paralens train --init`, into argv[1]:
a small CNN on 8×8 images, an MLP ending in Softmax and one ending in LogSoftmax, an embedding
text classifier (token ids), and two next-character models on windows of 16 ids — a
transformer block (nn.TransformerEncoderLayer) and an LSTM; and the data they train on:
img.npz (float images in [0,1], 3 classes, as torchvision's ToTensor gives them) and ids.npz
(token ids, 3 classes). Seeded, so every run writes the same files."""
import os
import sys

import numpy as np
import torch
from torch import nn

out = sys.argv[1]
torch.manual_seed(0)
rng = np.random.default_rng(0)
V, T = 40, 16


class TextClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed, self.out = nn.Embedding(20, 8), nn.Linear(8, 3)

    def forward(self, ids):
        return self.out(self.embed(ids).mean(1))


class Block(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.embed = nn.Embedding(V, d)
        self.block = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0, batch_first=True)
        self.out = nn.Linear(d, V)

    def forward(self, ids):
        return self.out(self.block(self.embed(ids)))


class CharLSTM(nn.Module):
    def __init__(self, d=16, h=24):
        super().__init__()
        self.embed, self.rnn, self.out = nn.Embedding(V, d), nn.LSTM(d, h, batch_first=True), nn.Linear(h, V)

    def forward(self, ids):
        return self.out(self.rnn(self.embed(ids))[0])


MODELS = {
    'cnn': (nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 3)), torch.rand(2, 1, 8, 8)),
    'mlp_softmax': (nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3), nn.Softmax(dim=1)), torch.randn(2, 4)),
    'mlp_log_softmax': (nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3), nn.LogSoftmax(dim=1)), torch.randn(2, 4)),
    'text_classifier': (TextClassifier(), torch.randint(0, 20, (2, 7))),
    'block': (Block(), torch.randint(0, V, (2, T))),
    'lstm': (CharLSTM(), torch.randint(0, V, (2, T))),
}
for name, (net, x) in MODELS.items():
    net.eval()
    torch.onnx.export(net, (x,), os.path.join(out, f'{name}.onnx'), opset_version=17, input_names=['input'], output_names=['output'],
                      dynamic_axes={'input': {0: 'batch'}, 'output': {0: 'batch'}})

# images: a bright band of rows whose place is the class, on noise; floats in [0,1]
y = rng.integers(0, 3, 300)
x = rng.random((300, 1, 8, 8)).astype(np.float32) * 0.5
for i, c in enumerate(y):
    x[i, 0, 3 * c:3 * c + 2, :] += 0.5
np.savez(os.path.join(out, 'img.npz'), x=x, y=y)
# the same images as 8-bit pixels
np.savez(os.path.join(out, 'img8.npz'), x=np.round(x * 255).astype(np.uint8), y=y)
# token ids: the class is which of three ids the sequence holds most of
ids = rng.integers(3, 20, (300, 7))
label = rng.integers(0, 3, 300)
ids[:, :3] = label[:, None]
np.savez(os.path.join(out, 'ids.npz'), x=ids.astype(np.int64), y=label)
