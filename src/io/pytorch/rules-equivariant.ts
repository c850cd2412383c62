import { symmetric } from '../../symmetry/group/group.js';
import { repSize, trivial, V } from '../../symmetry/group/rep.js';
import { mixersOf } from '../../nn/equivariant/deepsets.js';
import { messagePassingMixers, parseGraph } from '../../nn/equivariant/message-passing.js';
import { cachedBasis, toGroup, toRep } from '../../symmetry/solve/resolve.js';
import type { Sparse } from '../../linalg/sparse.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { named } from './torch-module.js';
import type { TorchRuleSet } from './torch-module.js';

/**
 * The equivariant layers (src/nn/equivariant) as fixed bases times learned
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
  const [n, cin] = m.dom!,
    cout = m.cod![1]!;
  return named(m, `PointMixing(${n}, ${cin}, ${cout}, ${mixers.length})`, ['PointMixing'], [{ name: 'mixers', tensor: stack(mixers, n!) }]);
};

export const equivariantRules: TorchRuleSet = {
  helpers: HELPERS,
  rules: {
    equivariant: ({ m }) => {
      const [g, rin, rout] = m.args.map(String) as [string, string, string];
      const G = toGroup(g),
        ri = toRep(rin),
        ro = toRep(rout);
      const nIn = repSize(ri, G.d),
        nOut = repSize(ro, G.d);
      const basis = cachedBasis(G, ri, ro),
        bias = cachedBasis(G, trivial, ro);
      const buffers = [{ name: 'basis', tensor: denseRows(basis.basis, [nOut, nIn]) }];
      if (bias.dim) buffers.push({ name: 'bias_basis', tensor: denseRows(bias.basis, [nOut]) });
      return named(m, `EquivariantLinear(${nIn}, ${nOut}, ${basis.dim}, ${bias.dim})`, ['EquivariantLinear'], buffers);
    },
    set_equivariant: ({ m }) => pointMixing(m, mixersOf(cachedBasis(symmetric(m.args[0] as number), V, V))),
    message_passing: ({ m }) => pointMixing(m, messagePassingMixers(parseGraph(String(m.args[0])))),
    conv1d_periodic: ({ m }) => named(m, `PeriodicConv(1, ${m.args[1]}, ${m.args[2]}, ${m.args[3]})`, ['PeriodicConv']),
    conv2d_periodic: ({ m }) => named(m, `PeriodicConv(2, ${m.args[2]}, ${m.args[3]}, ${m.args[4]})`, ['PeriodicConv']),
  },
};
