"""The ONNX corpus: ordinary PyTorch models, each written by torch.onnx.export at opsets 13 and
17, with a dynamic and with a fixed batch axis, into argv[1] (NAME.opsetN.dynamic.onnx,
NAME.opsetN.fixed.onnx) with manifest.json describing each file's input (shape, float or token
ids below a vocabulary size). Seeded, so every run writes the same files. The models are what
people write, not what paralens exports: nn.Sequential of the standard layers, x.view(x.size(0), -1),
nn.TransformerEncoderLayer, nn.MultiheadAttention, a nanoGPT block, LSTM/GRU/RNN, embedding
classifiers. Usage: python3 corpus.py OUT_DIR [--quick]"""
import json
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn

out = sys.argv[1]
quick = '--quick' in sys.argv
torch.manual_seed(0)


def mlp(act, final=None):
    layers = [nn.Linear(6, 16), act, nn.Linear(16, 12), act, nn.Linear(12, 5)]
    return nn.Sequential(*layers, *([final] if final is not None else []))


class Lambda(nn.Module):
    def __init__(self, f, inner=None):
        super().__init__()
        self.f, self.inner = f, inner

    def forward(self, x):
        return self.f(self.inner(x) if self.inner is not None else x)


class ViewCNN(nn.Module):
    """The classic PyTorch tutorial CNN: x.view(x.size(0), -1) before the classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3, padding=1)
        self.conv2 = nn.Conv2d(6, 8, 3)
        self.fc = nn.Linear(8 * 3 * 3, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.view(x.size(0), -1))


class BNCNN(nn.Module):
    """Conv, BatchNorm (folded into the conv by the exporter) and a BatchNorm after ReLU (kept)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.BatchNorm2d(8),
                                  nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU6())
        self.head = nn.Linear(8 * 4 * 4, 4)

    def forward(self, x):
        return self.head(torch.flatten(self.body(x), 1))


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.a = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                               nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8))
        self.b = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                               nn.Conv2d(16, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16))
        self.proj = nn.Sequential(nn.Conv2d(8, 16, 1, stride=2, bias=False), nn.BatchNorm2d(16))
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        x = self.stem(x)
        x = F.relu(x + self.a(x))
        x = F.relu(self.proj(x) + self.b(x))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


class NanoGPTBlock(nn.Module):
    """nanoGPT's model in small: token and position embeddings, causal self-attention with the
    mask as a registered tril buffer, the tanh GELU written out, weight-tied head."""

    def __init__(self, V=13, T=6, d=16, h=2):
        super().__init__()
        self.h = h
        self.wte, self.wpe = nn.Embedding(V, d), nn.Embedding(T, d)
        self.ln1, self.ln2, self.lnf = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.head = nn.Linear(d, V, bias=False)
        self.head.weight = self.wte.weight
        self.register_buffer('bias', torch.tril(torch.ones(T, T)).view(1, 1, T, T))

    def attn(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.h, C // self.h).transpose(1, 2)
        k = k.view(B, T, self.h, C // self.h).transpose(1, 2)
        v = v.view(B, T, self.h, C // self.h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
        y = F.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    def mlp(self, x):
        h = self.fc(x)
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        return self.proj(h)

    def forward(self, idx):
        pos = torch.arange(0, idx.size(1), dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        x = x + self.attn(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return self.head(self.lnf(x))


class Encoder(nn.Module):
    def __init__(self, norm_first=False, act='relu'):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True, norm_first=norm_first, activation=act)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(self.layer(x))


class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(12, 3, batch_first=True)
        self.out = nn.Linear(12, 2)

    def forward(self, x):
        y, _ = self.attn(x, x, x, need_weights=False)
        return self.out(y + x)


class TextCNN(nn.Module):
    """Embedding, a 1-d convolution over time, max over time, a classifier."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.conv = nn.Conv1d(8, 6, 3, padding=1)
        self.fc = nn.Linear(6, 4)

    def forward(self, ids):
        h = F.relu(self.conv(self.emb(ids).transpose(1, 2)))
        return self.fc(h.max(dim=2).values)


class BagOfEmbeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.fc = nn.Linear(8, 4)

    def forward(self, ids):
        return F.log_softmax(self.fc(self.emb(ids).mean(dim=1)), dim=-1)


class ClsTransformer(nn.Module):
    """Token embedding, a learned position table, an encoder layer, the first position classified."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 16)
        self.pos = nn.Parameter(torch.randn(1, 7, 16) * 0.1)
        self.layer = nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, activation='gelu')
        self.fc = nn.Linear(16, 3)

    def forward(self, ids):
        return self.fc(self.layer(self.emb(ids) + self.pos)[:, 0])


class Recurrent(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(5, 8, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class Plumbing(nn.Module):
    """Shape plumbing ordinary code writes: chunk, slices, squeeze/unsqueeze, permute, expand, repeat, pad, cat."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        a, b = torch.chunk(self.fc(x), 2, dim=-1)
        c = torch.cat([a * torch.sigmoid(b), x[:, 2:6]], dim=-1)
        c = c.unsqueeze(1).expand(-1, 3, -1)
        c = F.pad(c, (1, 2))
        c = c.permute(0, 2, 1).repeat(1, 1, 2)
        return c.sum(dim=-1, keepdim=True).squeeze(-1) + torch.zeros(x.shape[0], 1)


class Elementwise(nn.Module):
    """Arithmetic and comparisons: Where, Greater/Less, Abs, Sqrt, Log, Exp, Pow, Reciprocal, Min/Max, Clip."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        h = self.fc(x)
        h = torch.where(h > 0, h, 0.2 * h) + torch.where(x < -0.5, torch.ones_like(x), torch.zeros_like(x))
        h = torch.sqrt(h.abs() + 1) + torch.log(h * h + 1) - torch.exp(-h.abs())
        h = torch.maximum(h, x) - torch.minimum(h, 0.5 * x) + torch.pow(h, 2) / (torch.reciprocal(h.abs() + 2))
        return torch.clamp(h, -3, 3)


class Normalize(nn.Module):
    """F.normalize (ReduceL2), a mean over features (ReduceMean), an einsum, a softmax over a middle axis."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 5, 3))

    def forward(self, x):
        h = F.normalize(x, dim=-1)
        s = torch.einsum('bti,ijk->btjk', h, self.w)
        s = torch.softmax(s, dim=2)
        return s.mean(dim=-1) - s.amax(dim=(1, 3)).unsqueeze(1)


class Decoder(nn.Module):
    """A small convolutional decoder: ConvTranspose2d and upsampling-free strided transposed convs."""

    def __init__(self):
        super().__init__()
        self.up = nn.Sequential(nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1), nn.ReLU(),
                                nn.ConvTranspose2d(6, 2, 2, stride=2), nn.Tanh())

    def forward(self, x):
        return self.up(x)


def img(c, h, w):
    return ('float', [c, h, w])


MODELS = {
    # MLPs with every common activation
    'mlp_relu': (mlp(nn.ReLU()), ('float', [6])),
    'mlp_tanh': (mlp(nn.Tanh()), ('float', [6])),
    'mlp_sigmoid': (mlp(nn.Sigmoid()), ('float', [6])),
    'mlp_gelu': (mlp(nn.GELU()), ('float', [6])),
    'mlp_gelu_tanh': (mlp(nn.GELU(approximate='tanh')), ('float', [6])),
    'mlp_silu': (mlp(nn.SiLU()), ('float', [6])),
    'mlp_elu': (mlp(nn.ELU()), ('float', [6])),
    'mlp_selu': (mlp(nn.SELU()), ('float', [6])),
    'mlp_leaky_relu': (mlp(nn.LeakyReLU(0.2)), ('float', [6])),
    'mlp_softplus': (mlp(nn.Softplus()), ('float', [6])),
    'mlp_hardswish': (mlp(nn.Hardswish()), ('float', [6])),
    'mlp_hardsigmoid': (mlp(nn.Hardsigmoid()), ('float', [6])),
    'mlp_relu6': (mlp(nn.ReLU6()), ('float', [6])),
    'mlp_mish': (mlp(nn.Mish()), ('float', [6])),
    'mlp_log_softmax': (mlp(nn.ReLU(), nn.LogSoftmax(dim=-1)), ('float', [6])),
    'mlp_softmax': (mlp(nn.Tanh(), nn.Softmax(dim=1)), ('float', [6])),
    'mlp_batchnorm_dropout': (nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 3)), ('float', [6])),
    # CNNs
    'cnn_view': (ViewCNN(), img(1, 16, 16)),
    'cnn_batchnorm': (BNCNN(), img(3, 8, 8)),
    'cnn_padded_pool': (nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU(), nn.MaxPool2d(3, 2, padding=1), nn.AvgPool2d(3, 2, padding=1),
                                      nn.AvgPool2d(2, 1, padding=1, count_include_pad=False), nn.Flatten(), nn.Linear(4 * 4 * 4, 3)), img(2, 11, 11)),
    'cnn_ceil_pool': (nn.Sequential(nn.Conv2d(1, 3, 3), nn.Tanh(), nn.MaxPool2d(2, ceil_mode=True), nn.AvgPool2d(2, ceil_mode=True),
                                    nn.Flatten(), nn.Linear(3 * 3 * 3, 2)), img(1, 11, 11)),
    'cnn_grouped': (nn.Sequential(nn.Conv2d(4, 8, 3, groups=2, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, groups=8, padding=1), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 3)), img(4, 6, 6)),
    'cnn_nonsquare': (nn.Sequential(nn.Conv2d(2, 4, (3, 5), stride=(1, 2), padding=(1, 2)), nn.ELU(), nn.Conv2d(4, 4, 3, dilation=2),
                                    nn.MaxPool2d((2, 3)), nn.Flatten(), nn.Linear(4 * 4 * 1, 3)), img(2, 12, 16)),
    'cnn_conv1d': (nn.Sequential(nn.Conv1d(3, 6, 5, stride=2, padding=2), nn.ReLU(), nn.Conv1d(6, 6, 3, padding=1, groups=3), nn.ReLU(),
                                 nn.AdaptiveMaxPool1d(1), nn.Flatten(), nn.Linear(6, 2)), ('float', [3, 16])),
    'cnn_resnet': (ResNet(), img(3, 8, 8)),
    'cnn_decoder': (Decoder(), img(4, 3, 3)),
    # transformers and attention
    'transformer_encoder': (Encoder(), ('float', [5, 16])),
    'transformer_encoder_prenorm_gelu': (Encoder(norm_first=True, act='gelu'), ('float', [5, 16])),
    'multihead_attention': (MHA(), ('float', [4, 12])),
    'nanogpt': (NanoGPTBlock(), ('ids', [6], 13)),
    # text classifiers
    'text_cnn': (TextCNN(), ('ids', [9], 20)),
    'text_bag': (BagOfEmbeddings(), ('ids', [7], 20)),
    'text_transformer_cls': (ClsTransformer(), ('ids', [7], 20)),
    # recurrent
    'lstm': (Recurrent(nn.LSTM), ('float', [4, 5])),
    'gru': (Recurrent(nn.GRU), ('float', [4, 5])),
    'rnn': (Recurrent(nn.RNN), ('float', [4, 5])),
    # operators ordinary code writes
    'plumbing': (Plumbing(), ('float', [8])),
    'elementwise': (Elementwise(), ('float', [6])),
    'normalize_einsum': (Normalize(), ('float', [3, 4])),
}

QUICK = {'mlp_silu', 'cnn_view', 'nanogpt'}

manifest = []
for name, (net, spec) in MODELS.items():
    if quick and name not in QUICK:
        continue
    net.eval()
    for opset in (13, 17):
        for batch in ('dynamic', 'fixed'):
            B = 1 if batch == 'fixed' else 2
            x = torch.randint(0, spec[2], [B, *spec[1]]) if spec[0] == 'ids' else torch.randn(B, *spec[1])
            file = f'{name}.opset{opset}.{batch}.onnx'
            entry = {'file': file, 'model': name, 'opset': opset, 'batch': batch, 'input': spec[0], 'shape': spec[1]}
            if spec[0] == 'ids':
                entry['vocab'] = spec[2]
            dyn = {'input': {0: 'batch'}, 'output': {0: 'batch'}} if batch == 'dynamic' else None
            try:
                torch.onnx.export(net, (x,), os.path.join(out, file), opset_version=opset, input_names=['input'],
                                  output_names=['output'], dynamic_axes=dyn)
            except Exception as e:  # noqa: BLE001 -- a model the exporter refuses is listed, not written
                entry['export_error'] = f'{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ""}'
            manifest.append(entry)

with open(os.path.join(out, 'manifest.json'), 'w') as f:
    json.dump({'torch': torch.__version__, 'files': manifest}, f, indent=1)
print(f'{sum(1 for e in manifest if "export_error" not in e)} files written, {sum(1 for e in manifest if "export_error" in e)} refused by the exporter')
