"""PyTorch modules for the paralens layers that torch.nn has no class for, one class each.

`paralens export --format pytorch` copies the classes a model uses into its model.py, in order
of first use (src/io/pytorch/model-py.ts); the rules that name them are src/io/pytorch/rules-*.ts.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn


# Para's structure: @, residual(f), copy, add, discard (src/io/pytorch/rules-structure.ts)
class Par(nn.ModuleList):
    """f₁ @ … @ fₙ: axis 1 split into the factors' input sizes, each factor on its part, outputs concatenated."""
    def __init__(self, sizes, *factors):
        super().__init__(factors)
        self.sizes = list(sizes)

    def forward(self, x):
        parts = torch.split(x, self.sizes, dim=1)
        return torch.cat([f(p) for f, p in zip(self, parts)], dim=1)


class Residual(nn.Module):
    """residual(f): x ↦ x + f(x)."""
    def __init__(self, body):
        super().__init__()
        self.body = body

    def forward(self, x):
        return x + self.body(x)


class Copy(nn.Module):
    """copy: Δ, x ↦ (x, x) side by side along axis 1."""
    def forward(self, x):
        return torch.cat([x, x], dim=1)


class AddHalves(nn.Module):
    """add: the two halves of axis 1 summed."""
    def forward(self, x):
        a, b = torch.chunk(x, 2, dim=1)
        return a + b


class Discard(nn.Module):
    """discard: to the monoidal unit, an empty axis 1."""
    def forward(self, x):
        return x[:, :0]


# the layers of src/nn (src/io/pytorch/rules-nn.ts)
class GlobalAvgPool(nn.Module):
    """globalavgpool: [C, …] → [C], the mean of each channel."""
    def forward(self, x):
        return x.flatten(2).mean(2)


# the stochastic layers (src/io/pytorch/rules-stochastic.ts)
class BayesDense(nn.Module):
    """bayes_dense(in,out): Gaussian weights N(μ, softplus(ρ)²), sampled by reparameterisation in training; the means in evaluation."""
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight_mu = nn.Parameter(torch.zeros(n_out, n_in))
        self.weight_rho = nn.Parameter(torch.zeros(n_out, n_in))
        self.bias_mu = nn.Parameter(torch.zeros(n_out))
        self.bias_rho = nn.Parameter(torch.zeros(n_out))

    def noise(self, shape):
        return torch.randn(shape, dtype=self.weight_mu.dtype, device=self.weight_mu.device)

    def forward(self, x):
        w, b = self.weight_mu, self.bias_mu
        if self.training:
            w = w + F.softplus(self.weight_rho) * self.noise(w.shape)
            b = b + F.softplus(self.bias_rho) * self.noise(b.shape)
        return F.linear(x, w, b)


# layers on sets (src/io/pytorch/rules-sets.ts)
class SetPool(nn.Module):
    """sum_pool / mean_pool / max_pool over the set axis; masked: the last column marks present elements."""
    def __init__(self, op, masked):
        super().__init__()
        self.op, self.masked = op, masked

    def forward(self, x):
        if not self.masked:
            return {'sum': x.sum(1), 'mean': x.mean(1), 'max': x.amax(1)}[self.op]
        feats, present = x[..., :-1], x[..., -1:] > 0.5
        count = present.sum(1).to(x.dtype)
        if self.op == 'max':
            best = feats.masked_fill(~present, float('-inf')).amax(1)
            return torch.where(count > 0, best, torch.zeros_like(best))
        total = (feats * present.to(x.dtype)).sum(1)
        return total / count.clamp(min=1) if self.op == 'mean' else total


class MapSet(nn.Module):
    """map(f): f on every element of a set [n, …A] → [n, …B]; masked: on the features, the mask column carried over."""
    def __init__(self, f, masked):
        super().__init__()
        self.f, self.masked = f, masked

    def forward(self, x):
        b, n = x.shape[0], x.shape[1]
        if not self.masked:
            y = self.f(x.reshape(b * n, *x.shape[2:]))
            return y.reshape(b, n, *y.shape[1:])
        y = self.f(x[..., :-1].reshape(b * n, -1)).reshape(b, n, -1)
        return torch.cat([y, x[..., -1:]], dim=2)


# equivariant layers with derived bases (src/io/pytorch/rules-equivariant.ts)
class EquivariantLinear(nn.Module):
    """equivariant(G,in,out): W = Σ_k coef_k·basis_k over the derived basis of Hom_G(in,out); bias = Σ_k bias_k·bias_basis_k."""
    def __init__(self, n_in, n_out, dim, dim_bias):
        super().__init__()
        self.register_buffer('basis', torch.zeros(dim, n_out, n_in))
        self.coef = nn.Parameter(torch.zeros(dim))
        if dim_bias:
            self.register_buffer('bias_basis', torch.zeros(dim_bias, n_out))
            self.bias = nn.Parameter(torch.zeros(dim_bias))
        else:
            self.bias = None

    def forward(self, x):
        y = x @ torch.einsum('k,koi->oi', self.coef, self.basis).T
        return y if self.bias is None else y + self.bias @ self.bias_basis


class PointMixing(nn.Module):
    """set_equivariant / message_passing: y = Σ_b M_b·X·Λ_bᵀ + bias, with the n×n mixers M_b the derived basis (a buffer)."""
    def __init__(self, n, c_in, c_out, count):
        super().__init__()
        self.register_buffer('mixers', torch.zeros(count, n, n))
        self.count = count
        for b in range(count):
            setattr(self, f'lambda{b}', nn.Parameter(torch.zeros(c_out, c_in)))
        self.bias = nn.Parameter(torch.zeros(c_out))

    def forward(self, x):
        y = sum(self.mixers[b] @ (x @ getattr(self, f'lambda{b}').T) for b in range(self.count))
        return y + self.bias


class PeriodicConv(nn.Module):
    """conv1d_periodic / conv2d_periodic: cross-correlation on a periodic grid (circular padding), weight [cout, cin, taps]."""
    def __init__(self, rank, c_in, c_out, k):
        super().__init__()
        self.rank, self.k = rank, k
        self.weight = nn.Parameter(torch.zeros(c_out, c_in, k ** rank))
        self.bias = nn.Parameter(torch.zeros(c_out))

    def forward(self, x):
        r = self.k // 2
        w = self.weight.reshape(*self.weight.shape[:2], *([self.k] * self.rank))
        conv = F.conv1d if self.rank == 1 else F.conv2d
        return conv(F.pad(x, [r, r] * self.rank, mode='circular'), w, self.bias)


# equivariant nonlinearities and RoPE attention (src/io/pytorch/rules-equivariant-nonlinear.ts)
class Gated(nn.Module):
    """gated(G,rep): scalars through swish, every other atom scaled by σ of its gate scalar; gate_index[p] is the input column whose σ scales output p."""
    def __init__(self, n):
        super().__init__()
        self.register_buffer('gate_index', torch.zeros(n))

    def forward(self, x):
        n = self.gate_index.shape[0]
        return x[:, :n] * torch.sigmoid(x[:, self.gate_index.long()])


class NormGated(nn.Module):
    """norm_gated(G,rep): scalars through swish, every other atom v scaled by σ(‖v‖ + bias); atoms[k] marks the positions of atom k."""
    def __init__(self, n, count):
        super().__init__()
        self.register_buffer('atoms', torch.zeros(count, n))
        self.register_buffer('scalars', torch.zeros(n))
        if count:
            self.bias = nn.Parameter(torch.zeros(count))

    def forward(self, x):
        factor = self.scalars * torch.sigmoid(x)
        if self.atoms.shape[0]:
            q = (x * x) @ self.atoms.T
            norm = torch.where(q > 0, q, torch.ones_like(q)).sqrt() * (q > 0)  # a zero vector: gradient 0, not NaN
            factor = factor + torch.sigmoid(norm + self.bias) @ self.atoms
        return x * factor


class Bilinear(nn.Module):
    """bilinear(G,rep): x ↦ x ⊕ x⊗x."""
    def forward(self, x):
        return torch.cat([x, (x[:, :, None] * x[:, None, :]).flatten(1)], dim=1)


class RopeAttention(nn.Module):
    """rope_attention(T,d[,P]): single-head self-attention, RoPE on q and k (interleaved pairs rotated by the angles m·ω_i, fixed cos/sin buffers [T, d/2])."""
    def __init__(self, t, d):
        super().__init__()
        for name in ('wq', 'wk', 'wv', 'wo'):
            setattr(self, name, nn.Parameter(torch.zeros(d, d)))
        self.register_buffer('cos', torch.zeros(t, d // 2))
        self.register_buffer('sin', torch.zeros(t, d // 2))

    def rope(self, x):
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack([a * self.cos - b * self.sin, a * self.sin + b * self.cos], dim=-1).flatten(-2)

    def forward(self, x):
        q, k, v = self.rope(x @ self.wq.T), self.rope(x @ self.wk.T), x @ self.wv.T
        a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(x.shape[-1]), dim=-1)
        return (a @ v) @ self.wo.T


# sequence layers (src/io/pytorch/rules-sequence.ts)
class Embedding(nn.Module):
    """embedding(V,d): token ids (as floats, like paralens's) → rows of a learned table [V, d]."""
    def __init__(self, v, d):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(v, d))

    def forward(self, x):
        return F.embedding(x.long(), self.weight)


class RMSNorm(nn.Module):
    """rmsnorm(d): gain ⊙ x/√(mean(x²) + 1e-5) over the last axis."""
    def __init__(self, d):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.gain * x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-5)


class Attention(nn.Module):
    """attention(d,heads,pos[,mask]): multi-head self-attention on [T, d]; softmax(Q_h·K_hᵀ/√dh + bias_h) with queries seeing keys j ≤ i when causal."""
    def __init__(self, d, heads, t, causal, kind, extra=None):
        super().__init__()
        self.heads, self.causal, self.kind = heads, causal, kind
        for name in ('wq', 'wk', 'wv', 'wo'):
            setattr(self, name, nn.Parameter(torch.zeros(d, d)))
        if kind == 'relative':
            self.distance_bias = nn.Parameter(torch.zeros(*extra))
            self.register_buffer('buckets', torch.zeros(t, t))
        elif kind == 'absolute':
            self.position = nn.Parameter(torch.zeros(*extra))
        elif kind == 'rope':
            self.register_buffer('cos', torch.zeros(t, d // heads // 2))
            self.register_buffer('sin', torch.zeros(t, d // heads // 2))

    def rope(self, x):
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack([a * self.cos - b * self.sin, a * self.sin + b * self.cos], dim=-1).flatten(-2)

    def forward(self, x):
        b, t, d = x.shape
        h, dh = self.heads, d // self.heads
        xq = x + self.position[:t] if self.kind == 'absolute' else x
        split = lambda z: z.reshape(b, t, h, dh).transpose(1, 2)  # noqa: E731
        q, k, v = split(xq @ self.wq.T), split(xq @ self.wk.T), split(x @ self.wv.T)
        if self.kind == 'rope':
            q, k = self.rope(q), self.rope(k)
        s = q @ k.transpose(-1, -2) / math.sqrt(dh)
        if self.kind == 'relative':
            s = s + self.distance_bias[:, self.buckets.long()]
        if self.causal:
            s = s.masked_fill(torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1), float('-inf'))
        return (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(b, t, d) @ self.wo.T


class Tied(nn.Module):
    """tied(f): f with its embedding's table and its head's weight one Parameter (the gradients add)."""
    def __init__(self, f, source, target):
        super().__init__()
        self.f = f
        *path, name = target.split('.')
        setattr(self.f.get_submodule('.'.join(path)), name, self.f.get_parameter(source))

    def forward(self, x):
        return self.f(x)


# the recurrent layers: lstm, gru, rnn as torch.nn's own, mgu written out (src/io/pytorch/rules-recurrent.ts)
class LSTM(nn.LSTM):
    """lstm(in,h): nn.LSTM (batch_first) from zero states, its outputs only (so that it composes in nn.Sequential)."""
    def __init__(self, i, h, bidirectional=False):
        super().__init__(i, h, batch_first=True, bidirectional=bidirectional)

    def forward(self, x):
        return super().forward(x)[0]


class GRU(nn.GRU):
    """gru(in,h): nn.GRU (batch_first) from zero states, its outputs only (so that it composes in nn.Sequential)."""
    def __init__(self, i, h, bidirectional=False):
        super().__init__(i, h, batch_first=True, bidirectional=bidirectional)

    def forward(self, x):
        return super().forward(x)[0]


class RNN(nn.RNN):
    """rnn(in,h): nn.RNN (batch_first, tanh) from zero states, its outputs only (so that it composes in nn.Sequential)."""
    def __init__(self, i, h, bidirectional=False):
        super().__init__(i, h, batch_first=True, bidirectional=bidirectional)

    def forward(self, x):
        return super().forward(x)[0]


class MGU(nn.Module):
    """mgu(in,h): the minimal gated unit (Zhou et al. 2016) from the zero state, gates f, n laid out as nn.GRU lays out its own:
    f = σ(x·W_ifᵀ + b_if + h·W_hfᵀ + b_hf), n = tanh(x·W_inᵀ + b_in + (f ⊙ h)·W_hnᵀ + b_hn), h′ = (1 − f) ⊙ h + f ⊙ n."""
    def __init__(self, i, h, bidirectional=False):
        super().__init__()
        self.hidden_size = h
        self.suffixes = ['_l0', '_l0_reverse'] if bidirectional else ['_l0']
        for s in self.suffixes:
            self.register_parameter('weight_ih' + s, nn.Parameter(torch.zeros(2 * h, i)))
            self.register_parameter('weight_hh' + s, nn.Parameter(torch.zeros(2 * h, h)))
            self.register_parameter('bias_ih' + s, nn.Parameter(torch.zeros(2 * h)))
            self.register_parameter('bias_hh' + s, nn.Parameter(torch.zeros(2 * h)))

    def scan(self, x, s):
        w_ih, w_hh, b_ih, b_hh = (getattr(self, n + s) for n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh'))
        H = self.hidden_size
        xg = x @ w_ih.T + b_ih
        h, ys = x.new_zeros(x.shape[0], H), []
        for t in range(x.shape[1]):
            f = torch.sigmoid(xg[:, t, :H] + h @ w_hh[:H].T + b_hh[:H])
            n = torch.tanh(xg[:, t, H:] + (f * h) @ w_hh[H:].T + b_hh[H:])
            h = (1 - f) * h + f * n
            ys.append(h)
        return torch.stack(ys, 1)

    def forward(self, x):
        y = self.scan(x, '_l0')
        if len(self.suffixes) == 1:
            return y
        return torch.cat([y, self.scan(x.flip(1), '_l0_reverse').flip(1)], -1)
