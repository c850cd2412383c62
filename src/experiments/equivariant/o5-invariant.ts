import type { Dataset } from '../../data/dataset.js';
import { RangeArgError } from '../../errors.js';
import { Rng } from '../../random/rng.js';
import { elementwise } from '../../nn/activation.js';
import { dense } from '../../nn/dense.js';
import { seq } from '../../para/composite.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import type { BenchmarkTask } from './benchmark.js';
import { bilinear, bilinearRep, emlp } from '../../nn/equivariant/gated.js';
import { O } from '../../symmetry/group/group.js';
import { parseRep } from '../../symmetry/group/parse-rep.js';

/**
 * EMLP's O(5)-invariant synthetic regression (Finzi et al. 2021 §7.1):
 * f(x₁, x₂) = sin(‖x₁‖) − ‖x₂‖³/2 + x₁ᵀx₂ / (‖x₁‖‖x₂‖), x₁, x₂ ~ N(0, I₅); input rep 2V, output T(0).
 */
export function o5Data(N: number, seed: number | Rng = 0): Dataset {
  if (!(Number.isInteger(N) && N > 0)) throw new RangeArgError(`o5: the number of samples must be a positive integer, got ${N}`);
  const rng = typeof seed === 'number' ? new Rng(seed) : seed;
  const x = Tensor.zeros([N, 10]),
    y = Tensor.zeros([N, 1]);
  for (let s = 0; s < N; s++) {
    const X = x.data.subarray(s * 10, (s + 1) * 10);
    for (let i = 0; i < 10; i++) X[i] = rng.normal();
    let n1 = 0,
      n2 = 0,
      d = 0;
    for (let i = 0; i < 5; i++) {
      n1 += X[i]! ** 2;
      n2 += X[5 + i]! ** 2;
      d += X[i]! * X[5 + i]!;
    }
    n1 = Math.sqrt(n1);
    n2 = Math.sqrt(n2);
    y.data[s] = Math.sin(n1) - n2 ** 3 / 2 + d / (n1 * n2);
  }
  return { name: 'o5', x, y };
}

/** bilinear(2V) supplies the invariants ‖x₁‖², ‖x₂‖², x₁·x₂; an O(5)-EMLP on 2V ⊕ 2V⊗2V maps them to T(0). */
export function o5EMLP(hidden = '16T(0)+4V'): Para {
  const G = O(5),
    rin = parseRep('2V');
  return seq(bilinear(G, rin), emlp(G, bilinearRep(rin), hidden, 'T(0)', 2));
}

/** Plain MLP 10 → 32 → 32 → 1. */
export function o5MLP(h = 32): Para {
  return seq(dense(10, h), elementwise('relu'), dense(h, h), elementwise('relu'), dense(h, 1));
}

export const o5Task: BenchmarkTask = {
  name: 'o5',
  group: () => O(5),
  repIn: '2V',
  repOut: 'T(0)',
  data: (N, seed) => o5Data(N, seed),
  emlp: () => o5EMLP(),
  mlp: () => o5MLP(),
};
