import { atoms, repSize } from '../../symmetry/group/rep.js';
import { ropeFrequencies } from '../../nn/equivariant/rope.js';
import { toGroup, toRep } from '../../symmetry/solve/resolve.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { named, plain } from './torch-module.js';
import type { TorchRuleSet } from './torch-module.js';

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

/**
 * The equivariant nonlinear layers (src/nn/equivariant/gated.ts, norm.ts, rope.ts): what
 * is fixed by the group — which gate scales which output, which positions form an atom, the
 * rotations R_m of RoPE — is a buffer; what is learned (norm biases, attention projections)
 * is a parameter under paralens's name. emlp is a composite of equivariant and gated, so it
 * needs no rule of its own.
 * Their Python classes are in python/layers.py.
 */
export const equivariantNonlinearRules: TorchRuleSet = {
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
