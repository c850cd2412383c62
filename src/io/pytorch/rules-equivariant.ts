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

/**
 * The equivariant layers (src/nn/equivariant) as fixed bases times learned
 * coefficients: the derived basis of the end is a buffer (saved with the weights, never
 * trained) and the parameters are the coefficients, exactly as paralens holds them. The
 * periodic convolutions, whose derived basis is one shift per offset, are circular padding
 * followed by PyTorch's cross-correlation with the same weight [cout, cin, taps].
 * Their Python classes are in python/layers.py.
 */
export const equivariantRules: TorchRuleSet = {
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
