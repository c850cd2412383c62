import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/random/rng.js';
import { gradcheck } from '../../../src/para/gradcheck.js';
import { parseSpec } from '../../../src/catalogue/index.js';
import { stringDiagram } from '../../../src/draw/diagram.js';
import { O, SO } from '../../../src/symmetry/group/group.js';
import type { Mat } from '../../../src/linalg/matrix.js';
import type { Para } from '../../../src/para/para.js';
import { Tensor } from '../../../src/tensor/tensor.js';
import { parseIrreps } from '../../../src/symmetry/irreps/irrep.js';
import { irrepsMatrix } from '../../../src/symmetry/irreps/wigner.js';
import { irrepsLinear, tensorProduct } from '../../../src/nn/equivariant/tensor-product.js';
import { irrepsGate } from '../../../src/nn/equivariant/irreps-gate.js';
import { irrepsNorm } from '../../../src/nn/equivariant/irreps-norm.js';
import { shEmbedding } from '../../../src/nn/equivariant/sh-embedding.js';
import { e3Conv } from '../../../src/nn/equivariant/e3-conv.js';
import { displace } from '../../../src/nn/equivariant/displace.js';
import { shIrreps } from '../../../src/nn/equivariant/point-cloud.js';
import { randn, relErr } from '../../symmetry/helpers.js';

/** Applies M to the last axis of x (rows of width M.rows), for each of the leading rows. */
function actRows(M: Mat, x: Tensor, offset = 0): Tensor {
  const n = M.rows,
    y = x.clone(),
    width = x.shape[x.shape.length - 1]!,
    rows = x.size / width;
  for (let r = 0; r < rows; r++)
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += M.data[i * n + j]! * x.data[r * width + offset + j]!;
      y.data[r * width + offset + i] = s;
    }
  return y;
}

/** Block-diagonal matrix of several irreps concatenated. */
function blocks(...ms: Mat[]): Mat {
  const n = ms.reduce((s, m) => s + m.rows, 0),
    out = { rows: n, cols: n, data: new Float64Array(n * n) };
  let o = 0;
  for (const m of ms) {
    for (let a = 0; a < m.rows; a++) for (let b = 0; b < m.rows; b++) out.data[(o + a) * n + o + b] = m.data[a * m.rows + b]!;
    o += m.rows;
  }
  return out;
}

/** Random non-zero parameters (biases too), in float32. */
function randomTheta(f: Para, seed: number): Tensor[] {
  const rng = new Rng(seed);
  return f.init(seed).map((t) => {
    for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
    return t;
  });
}

/** A reflection (det −1) or a rotation of O(3), alternately. */
function element(k: number, rng: Rng): Mat {
  const R = SO(3).sample(rng);
  return k % 2 ? { ...R, data: R.data.map((v, i) => (i < 3 ? -v : v)) } : R;
}

/** max over g of relErr(f(D_in(g)x), D_out(g) f(x)) for a layer on irreps vectors. */
function irrepsDefect(f: Para, inIrreps: string[], outIrreps: string, seed = 0, dims: number[] = []): number {
  const theta = randomTheta(f, seed);
  const x = randn([4, ...(dims.length ? dims : f.dom!)], seed + 1);
  const rng = new Rng(seed + 2);
  let worst = 0;
  for (let k = 0; k < 4; k++) {
    const g = element(k, rng);
    const Din = blocks(...inIrreps.map((s) => irrepsMatrix(parseIrreps(s), g)));
    const Dout = irrepsMatrix(parseIrreps(outIrreps), g);
    worst = Math.max(worst, relErr(f.run(theta, actRows(Din, x)), actRows(Dout, f.run(theta, x))));
  }
  return worst;
}

describe('tensor products on irreps', () => {
  const a = '2x0e+1x1o+1x2e',
    b = '1x0e+1x1o',
    out = '2x0e+2x1o+1x1e+1x2e+1x2o';
  it(`tensor_product(${a}, ${b}, ${out}) gradchecks and is O(3)-equivariant (rotations and reflections)`, () => {
    const f = tensorProduct(a, b, out);
    for (const seed of [1, 2, 3]) expect(gradcheck(f, { seed }).ok).toBe(true);
    expect(irrepsDefect(f, [a, b], out)).toBeLessThan(1e-5);
  });

  it('negative control: read with the wrong parities (1o as 1e) it is not equivariant under reflections', () => {
    const f = tensorProduct(a, b, out);
    expect(irrepsDefect(f, ['2x0e+1x1e+1x2e', b], out)).toBeGreaterThan(0.05);
  });

  it('SO(3) irreps (no parity): 1 ⊗ 1 → 1 is allowed, and is the cross product up to a scale', () => {
    const f = tensorProduct('1x1', '1x1', '1x1');
    expect(gradcheck(f).ok).toBe(true);
    const theta = f.init(0, 'float64');
    const u = [0.3, -1.2, 0.7],
      v = [1.1, 0.4, -0.5];
    const y = f.run(theta, Tensor.of([...u, ...v], [1, 6], 'float64')).data;
    const cross = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
    const ratio = y[0]! / cross[0]!;
    for (let c = 0; c < 3; c++) expect(y[c]).toBeCloseTo(ratio * cross[c]!, 12);
    // O(3): 1o ⊗ 1o → 1o has no path (the cross product is a pseudovector)
    expect(() => tensorProduct('1x1o', '1x1o', '1x1o')).toThrow(/no path/);
  });

  it('on n points, and as a spec that parses back, and draws', () => {
    const f = tensorProduct('1x0e+1x1o', '1x1o', '1x0e+1x1e', 4);
    expect(f.dom).toEqual([4, 7]);
    expect(gradcheck(f).ok).toBe(true);
    const g = parseSpec(String(f));
    expect(String(g)).toBe(String(f));
    expect(String(f)).toBe('tensor_product(1x0e+1x1o,1x1o,1x0e+1x1e,4)');
    expect(stringDiagram(f)).toContain('tensor_product');
  });

  it('irreps_linear: per-ℓ weights only (Schur), gradchecks, equivariant', () => {
    const f = irrepsLinear('3x0e+2x1o+1x2e', '2x0e+3x1o+1x1e');
    // weights: 0e 3·2, 1o 2·3, 2e → nothing, 1e unreached; a bias per 0e output
    expect(f.params.map((p) => p.shape)).toEqual([[12], [2]]);
    expect(gradcheck(f).ok).toBe(true);
    expect(irrepsDefect(f, ['3x0e+2x1o+1x2e'], '2x0e+3x1o+1x1e')).toBeLessThan(1e-5);
  });
});

describe('nonlinearities on irreps', () => {
  it('irreps_gate: [scalars | gates | gated] → [swish(scalars) | σ(gate)·gated], gradchecks, equivariant', () => {
    const f = irrepsGate('2x0e+1x0o', '1x1o+2x2e');
    expect([f.dom, f.cod]).toEqual([[3 + 3 + 13], [3 + 13]]);
    expect(gradcheck(f).ok).toBe(true);
    expect(irrepsDefect(f, ['2x0e+1x0o+3x0e+1x1o+2x2e'], '2x0e+1x0o+1x1o+2x2e')).toBeLessThan(1e-6);
    // negative control: swish on an odd scalar would not commute with reflections; the gate uses tanh there
    const theta: Tensor[] = [];
    const x = Tensor.of([0.5, -0.2, 0.9, 0, 0, 0, ...Array(13).fill(0)], [1, 19]);
    const y = f.run(theta, x).data;
    expect(y[2]).toBeCloseTo(Math.tanh(0.9), 6);
  });

  it('irreps_norm: v ↦ v·σ(‖v‖ + b) per copy, gradchecks, equivariant; on n points', () => {
    const f = irrepsNorm('2x0e+1x0o+2x1o+1x2e');
    expect(gradcheck(f).ok).toBe(true);
    expect(irrepsDefect(f, ['2x0e+1x0o+2x1o+1x2e'], '2x0e+1x0o+2x1o+1x2e')).toBeLessThan(1e-6);
    expect(gradcheck(irrepsNorm('1x0e+1x1o', 3)).ok).toBe(true);
  });
});

/** Applies g ∈ E(3) × S(n) to point clouds [B, n, 3 + d]: x ↦ Qx + t, features ↦ D(Q)·h, point i ↦ point π(i). */
function moveCloud(x: Tensor, n: number, Q: Mat, t: readonly number[], perm: Int32Array, D: Mat | undefined, positions = true): Tensor {
  const w = x.shape[2]!,
    B = x.batch,
    y = Tensor.zeros(x.shape, x.dtype);
  for (let b = 0; b < B; b++)
    for (let i = 0; i < n; i++) {
      const src = (b * n + i) * w,
        dst = (b * n + perm[i]!) * w;
      let o = 0;
      if (positions) {
        for (let r = 0; r < 3; r++) {
          let s = t[r]!;
          for (let c = 0; c < 3; c++) s += Q.data[r * 3 + c]! * x.data[src + c]!;
          y.data[dst + r] = s;
        }
        o = 3;
      }
      const d = w - o;
      for (let r = 0; r < d; r++) {
        let s = 0;
        for (let c = 0; c < d; c++) s += (D ? D.data[r * d + c]! : r === c ? 1 : 0) * x.data[src + o + c]!;
        y.data[dst + o + r] = s;
      }
    }
  return y;
}

describe('point clouds: spherical-harmonic edge embeddings and E(3)-equivariant message passing', () => {
  it('sh_embedding: gradchecks; equivariant under O(3), invariant under translations, permutations permute the pairs', () => {
    const n = 4,
      f = shEmbedding(n, 2, 3, 2.5);
    expect(f.cod).toEqual([12, 27]);
    expect(gradcheck(f).ok).toBe(true);
    const x = randn([2, n, 3], 3);
    const g = element(1, new Rng(4)); // a reflection
    const D = irrepsMatrix(shIrreps('O(3)', 2, 3), g);
    const perm = Int32Array.from([2, 0, 3, 1]);
    const moved = f.run([], moveCloud(x, n, g, [1.5, -2, 0.3], perm, undefined, true));
    // the pair (i, j) of the original is the pair (π(i), π(j)) of the moved cloud
    const fx = f.run([], x),
      want = Tensor.zeros(fx.shape);
    const pairIndex = (i: number, j: number): number => i * (n - 1) + (j < i ? j : j - 1);
    for (let b = 0; b < 2; b++)
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) {
          if (i === j) continue;
          const src = (b * 12 + pairIndex(i, j)) * 27,
            dst = (b * 12 + pairIndex(perm[i]!, perm[j]!)) * 27;
          for (let r = 0; r < 27; r++) {
            let s = 0;
            for (let c = 0; c < 27; c++) s += D.data[r * 27 + c]! * fx.data[src + c]!;
            want.data[dst + r] = s;
          }
        }
    expect(relErr(moved, want)).toBeLessThan(1e-5);
    // negative control: without transforming the outputs the two differ
    expect(relErr(moved, fx)).toBeGreaterThan(0.1);
  });

  const cases: [string, string, string, string, number, 'sum' | 'attention'][] = [
    ['O(3)', '1x0e+1x1o', '3x0e+2x1o', '1x0e+1x1o', 1, 'sum'],
    ['O(3)', '2x0e+1x1o', '2x0e+1x1o+1x2e', '1x1o', 2, 'attention'],
    ['SO(3)', '1x0+1x1', '2x0+1x1', '1x0+1x1', 1, 'sum'],
  ];
  for (const [G, hin, hid, hout, lmax, agg] of cases) {
    it(`e3_conv(4, ${hin}, ${hid}, ${hout}, ${lmax}${agg === 'attention' ? ', attention' : ''}): gradchecks; equivariant under ${G === 'O(3)' ? 'E(3)' : 'SE(3)'} and permutations of the points`, () => {
      const n = 4,
        f = e3Conv(n, hin, hid, hout, lmax, agg);
      for (const seed of [1, 2]) expect(gradcheck(f, { seed, batch: 2 }).ok).toBe(true);
      const theta = randomTheta(f, 5);
      const x = randn([3, n, 3 + parseIrreps(hin).dim], 6);
      const rng = new Rng(7);
      let worst = 0;
      for (let k = 0; k < 4; k++) {
        const Q = G === 'O(3)' ? element(k, rng) : SO(3).sample(rng);
        const t = [rng.normal() * 3, rng.normal() * 3, rng.normal() * 3];
        const perm = rng.shuffle(Int32Array.from([0, 1, 2, 3])) as Int32Array;
        const Din = irrepsMatrix(parseIrreps(hin), Q),
          Dout = irrepsMatrix(parseIrreps(hout), Q);
        const lhs = f.run(theta, moveCloud(x, n, Q, t, perm, Din));
        const rhs = moveCloud(f.run(theta, x), n, Q, t, perm, Dout);
        worst = Math.max(worst, relErr(lhs, rhs));
      }
      expect(worst).toBeLessThan(1e-5);
    });
  }

  it('negative control: features transformed as pseudovectors (1e) where they are vectors (1o) break equivariance under reflections', () => {
    const n = 4,
      f = e3Conv(n, '1x0e+1x1o', '3x0e+2x1o', '1x0e+1x1o', 1);
    const theta = randomTheta(f, 5),
      x = randn([3, n, 7], 6);
    const Q = element(1, new Rng(8)),
      t = [0.5, 0, -1],
      perm = Int32Array.from([0, 1, 2, 3]);
    const wrong = irrepsMatrix(parseIrreps('1x0e+1x1e'), Q),
      right = irrepsMatrix(parseIrreps('1x0e+1x1o'), Q);
    const lhs = f.run(theta, moveCloud(x, n, Q, t, perm, wrong));
    expect(relErr(lhs, moveCloud(f.run(theta, x), n, Q, t, perm, right))).toBeGreaterThan(0.05);
  });

  it('a model of e3_conv layers and displace: a spec that parses back, equivariant end to end, drawable', () => {
    const spec = 'e3_conv(5,2x0e+2x1o,4x0e+2x1o,4x0e+2x1o,1) >> e3_conv(5,4x0e+2x1o,4x0e+2x1o,1x1o,1) >> displace(5)';
    const f = parseSpec(spec);
    expect(String(f)).toBe(spec);
    expect([f.dom, f.cod]).toEqual([
      [5, 11],
      [5, 3],
    ]);
    expect(gradcheck(f, { batch: 2 }).ok).toBe(true);
    expect(gradcheck(displace(3)).ok).toBe(true);
    const theta = randomTheta(f, 1),
      x = randn([2, 5, 11], 2),
      rng = new Rng(3);
    const Q = O(3).sample(rng),
      t = [1, 2, 3],
      perm = Int32Array.from([4, 2, 0, 1, 3]);
    const lhs = f.run(theta, moveCloud(x, 5, Q, t, perm, irrepsMatrix(parseIrreps('2x0e+2x1o'), Q)));
    const rhs = moveCloud(f.run(theta, x), 5, Q, t, perm, undefined);
    expect(relErr(lhs, rhs)).toBeLessThan(1e-5);
    expect(stringDiagram(f)).toContain('e3_conv');
  });
});
