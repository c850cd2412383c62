import { atoms, repSize } from '../../symmetry/group/rep.js';
import { ropeFrequencies } from '../../nn/equivariant/rope.js';
import { toGroup, toRep } from '../../symmetry/solve/resolve.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { named, plain } from './torch-module.js';
import type { TorchRuleSet } from './torch-module.js';

/**
 * The equivariant nonlinear layers (src/nn/equivariant/gated.ts, norm.ts, rope.ts): what
 * is fixed by the group — which gate scales which output, which positions form an atom, the
 * rotations R_m of RoPE — is a buffer; what is learned (norm biases, attention projections)
 * is a parameter under paralens's name. emlp is a composite of equivariant and gated, so it
 * needs no rule of its own.
 */
const HELPERS: Record<string, string> = {
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
};

/** The atoms of gated/norm_gated's representation: the scalar positions and the non-scalar atoms' positions. */
function atomsOf(m: Para): { n: number; scalars: number[]; vec: Int32Array[] } {
  const G = toGroup(String(m.args[0])),
    r = toRep(String(m.args[1]));
  const as = atoms(r, G.d);
  return {
    n: repSize(r, G.d),
    scalars: as.filter((a) => a.factors.length === 0).map((a) => a.pos[0]!),
    vec: as.filter((a) => a.factors.length > 0).map((a) => a.pos),
  };
}

export const equivariantNonlinearRules: TorchRuleSet = {
  helpers: HELPERS,
  rules: {
    gated: ({ m }) => {
      const { n, scalars, vec } = atomsOf(m);
      const index = Tensor.zeros([n]);
      for (const p of scalars) index.data[p] = p;
      vec.forEach((pos, k) => pos.forEach((p) => (index.data[p] = n + k)));
      return named(m, `Gated(${n})`, ['Gated'], [{ name: 'gate_index', tensor: index }]);
    },
    norm_gated: ({ m }) => {
      const { n, scalars, vec } = atomsOf(m);
      const member = Tensor.zeros([vec.length, n]),
        scalar = Tensor.zeros([n]);
      vec.forEach((pos, k) => pos.forEach((p) => (member.data[k * n + p] = 1)));
      for (const p of scalars) scalar.data[p] = 1;
      return named(
        m,
        `NormGated(${n}, ${vec.length})`,
        ['NormGated'],
        [
          { name: 'atoms', tensor: member },
          { name: 'scalars', tensor: scalar },
        ],
      );
    },
    bilinear: () => plain('Bilinear()', ['Bilinear']),
    rope_attention: ({ m }) => {
      const [T, d, period] = m.args as number[];
      const omega = ropeFrequencies(d!, period === undefined ? {} : { period });
      const cos = Tensor.zeros([T!, d! / 2]),
        sin = Tensor.zeros([T!, d! / 2]);
      for (let t = 0; t < T!; t++)
        for (let i = 0; i < d! / 2; i++) {
          cos.data[t * (d! / 2) + i] = Math.cos(t * omega[i]!);
          sin.data[t * (d! / 2) + i] = Math.sin(t * omega[i]!);
        }
      return named(
        m,
        `RopeAttention(${T}, ${d})`,
        ['RopeAttention'],
        [
          { name: 'cos', tensor: cos },
          { name: 'sin', tensor: sin },
        ],
      );
    },
  },
};
