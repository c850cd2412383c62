import { symmetric } from '../../equivariant/group/group.js';
import { atoms, repSize, trivial, V } from '../../equivariant/group/rep.js';
import { mixersOf } from '../../equivariant/layers/deepsets.js';
import { messagePassingMixers, parseGraph } from '../../equivariant/layers/message-passing.js';
import { ropeFrequencies } from '../../equivariant/layers/rope.js';
import { cachedBasis, toGroup, toRep } from '../../equivariant/solve/resolve.js';
import type { Sparse } from '../../linalg/sparse.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { named, plain } from './torch-module.js';
import type { TorchRuleSet } from './torch-module.js';

/**
 * The equivariant layers (src/equivariant/layers) as fixed bases times learned
 * coefficients: the derived basis of the end is a buffer (saved with the weights, never
 * trained) and the parameters are the coefficients, exactly as paralens holds them. The
 * periodic convolutions, whose derived basis is one shift per offset, are circular padding
 * followed by PyTorch's cross-correlation with the same weight [cout, cin, taps].
 */
const HELPERS: Record<string, string> = {
  EquivariantLinear: `class EquivariantLinear(nn.Module):
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
        return y if self.bias is None else y + self.bias @ self.bias_basis`,
  PointMixing: `class PointMixing(nn.Module):
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
        return y + self.bias`,
  Gated: `class Gated(nn.Module):
    """gated(G,rep): scalars through swish, every other atom scaled by σ of its gate scalar; gate_index[p] is the input column whose σ scales output p."""
    def __init__(self, n):
        super().__init__()
        self.register_buffer('gate_index', torch.zeros(n))

    def forward(self, x):
        n = self.gate_index.shape[0]
        return x[:, :n] * torch.sigmoid(x[:, self.gate_index.long()])`,
  NormGated: `class NormGated(nn.Module):
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
        return x * factor`,
  Bilinear: `class Bilinear(nn.Module):
    """bilinear(G,rep): x ↦ x ⊕ x⊗x."""
    def forward(self, x):
        return torch.cat([x, (x[:, :, None] * x[:, None, :]).flatten(1)], dim=1)`,
  RopeAttention: `class RopeAttention(nn.Module):
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
        return (a @ v) @ self.wo.T`,
  PeriodicConv: `class PeriodicConv(nn.Module):
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
        return conv(F.pad(x, [r, r] * self.rank, mode='circular'), w, self.bias)`,
};

/** The rows of a sparse basis as a dense float32 tensor [rows, ...shape]. */
function denseRows(s: Sparse, shape: readonly number[]): Tensor {
  const t = Tensor.zeros([s.rows, ...shape]);
  const per = t.size / Math.max(1, s.rows);
  for (let b = 0; b < s.rows; b++) for (let x = s.rowPtr[b]!; x < s.rowPtr[b + 1]!; x++) t.data[b * per + s.colIdx[x]!] = s.vals[x]!;
  return t;
}

/** n×n mixers stacked into [count, n, n]. */
function stack(mixers: readonly Float64Array[], n: number): Tensor {
  const t = Tensor.zeros([mixers.length, n, n]);
  mixers.forEach((m, b) => t.data.set(m, b * n * n));
  return t;
}

const pointMixing = (m: Para, mixers: readonly Float64Array[]) => {
  const [n, cin] = m.dom!, cout = m.cod![1]!;
  return named(m, `PointMixing(${n}, ${cin}, ${cout}, ${mixers.length})`, ['PointMixing'], [{ name: 'mixers', tensor: stack(mixers, n!) }]);
};

/** The atoms of gated/norm_gated's representation: the scalar positions and the non-scalar atoms' positions. */
function atomsOf(m: Para): { n: number; scalars: number[]; vec: Int32Array[] } {
  const G = toGroup(String(m.args[0])), r = toRep(String(m.args[1]));
  const as = atoms(r, G.d);
  return { n: repSize(r, G.d), scalars: as.filter((a) => a.factors.length === 0).map((a) => a.pos[0]!), vec: as.filter((a) => a.factors.length > 0).map((a) => a.pos) };
}

export const equivariantRules: TorchRuleSet = {
  helpers: HELPERS,
  rules: {
    equivariant: ({ m }) => {
      const [g, rin, rout] = m.args.map(String) as [string, string, string];
      const G = toGroup(g), ri = toRep(rin), ro = toRep(rout);
      const nIn = repSize(ri, G.d), nOut = repSize(ro, G.d);
      const basis = cachedBasis(G, ri, ro), bias = cachedBasis(G, trivial, ro);
      const buffers = [{ name: 'basis', tensor: denseRows(basis.basis, [nOut, nIn]) }];
      if (bias.dim) buffers.push({ name: 'bias_basis', tensor: denseRows(bias.basis, [nOut]) });
      return named(m, `EquivariantLinear(${nIn}, ${nOut}, ${basis.dim}, ${bias.dim})`, ['EquivariantLinear'], buffers);
    },
    set_equivariant: ({ m }) => pointMixing(m, mixersOf(cachedBasis(symmetric(m.args[0] as number), V, V))),
    message_passing: ({ m }) => pointMixing(m, messagePassingMixers(parseGraph(String(m.args[0])))),
    gated: ({ m }) => {
      const { n, scalars, vec } = atomsOf(m);
      const index = Tensor.zeros([n]);
      for (const p of scalars) index.data[p] = p;
      vec.forEach((pos, k) => pos.forEach((p) => (index.data[p] = n + k)));
      return named(m, `Gated(${n})`, ['Gated'], [{ name: 'gate_index', tensor: index }]);
    },
    norm_gated: ({ m }) => {
      const { n, scalars, vec } = atomsOf(m);
      const member = Tensor.zeros([vec.length, n]), scalar = Tensor.zeros([n]);
      vec.forEach((pos, k) => pos.forEach((p) => (member.data[k * n + p] = 1)));
      for (const p of scalars) scalar.data[p] = 1;
      return named(m, `NormGated(${n}, ${vec.length})`, ['NormGated'], [{ name: 'atoms', tensor: member }, { name: 'scalars', tensor: scalar }]);
    },
    bilinear: () => plain('Bilinear()', ['Bilinear']),
    rope_attention: ({ m }) => {
      const [T, d, period] = m.args as number[];
      const omega = ropeFrequencies(d!, period === undefined ? {} : { period });
      const cos = Tensor.zeros([T!, d! / 2]), sin = Tensor.zeros([T!, d! / 2]);
      for (let t = 0; t < T!; t++) for (let i = 0; i < d! / 2; i++) {
        cos.data[t * (d! / 2) + i] = Math.cos(t * omega[i]!);
        sin.data[t * (d! / 2) + i] = Math.sin(t * omega[i]!);
      }
      return named(m, `RopeAttention(${T}, ${d})`, ['RopeAttention'], [{ name: 'cos', tensor: cos }, { name: 'sin', tensor: sin }]);
    },
    conv1d_periodic: ({ m }) => named(m, `PeriodicConv(1, ${m.args[1]}, ${m.args[2]}, ${m.args[3]})`, ['PeriodicConv']),
    conv2d_periodic: ({ m }) => named(m, `PeriodicConv(2, ${m.args[2]}, ${m.args[3]}, ${m.args[4]})`, ['PeriodicConv']),
  },
};
