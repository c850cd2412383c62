import { describe, expect, it } from 'vitest';
import { gradcheck } from '../../../src/para/gradcheck.js';
import { makeCtx } from '../../../src/para/para.js';
import { Rng } from '../../../src/random/rng.js';
import { SO } from '../../../src/symmetry/group/group.js';
import { parseIrreps } from '../../../src/symmetry/irreps/irrep.js';
import { irrepsMatrix } from '../../../src/symmetry/irreps/wigner.js';
import { Tensor } from '../../../src/tensor/tensor.js';
import { aggregate, cloudEdges, nodeAttributes } from '../../../src/nn/equivariant/cloud-graph.js';
import { e3Conv } from '../../../src/nn/equivariant/e3-conv.js';
import { shIrreps } from '../../../src/nn/equivariant/point-cloud.js';
import { steerable, tensorProductOf } from '../../../src/nn/equivariant/tensor-product.js';
import { par, seq } from '../../../src/para/composite.js';
import { copy, id } from '../../../src/para/structure.js';
import { TensorProductPlan } from '../../../src/nn/equivariant/tp-kernel.js';
import { Defined } from '../../../src/para/definition.js';
import type { Para } from '../../../src/para/para.js';
import { mapSet } from '../../../src/nn/colimit/map.js';
import { randn } from '../../symmetry/helpers.js';

/** f on each of 3 rows [3, a] → [3, b] (map). */
const mapRows = (f: Para): Para => mapSet(f, 3);

// The pieces e3_conv is composed of (src/nn/equivariant/e3-conv.ts): each a lens of its own,
// gradient-checked in float64; e3_conv's own checks (gradient, equivariance) are in irreps-layers.test.ts.
describe("the lenses of a point cloud's complete graph", () => {
  it.each([
    ['cloud_edges(4,2) on 4 points with 3 features', () => cloudEdges(4, 2, 3)],
    ['cloud_edges(2,0) on 2 points with 1 feature', () => cloudEdges(2, 0, 1)],
    ['node_attributes(4,2) on 4 points with 2 features', () => nodeAttributes(4, 2, 2)],
    ['node_attributes(3,1) on 3 points, positions only', () => nodeAttributes(3, 1, 0)],
    ['aggregate(4,sum) of 5-wide messages', () => aggregate(4, 5, 'sum')],
    ['aggregate(4,attention,2) of 5-wide messages', () => aggregate(4, 5, 'attention', 2)],
  ])('%s passes a float64 gradient check', (_name, make) => {
    const f = make();
    for (const seed of [1, 2, 3]) expect(gradcheck(f, { seed, batch: 2 }).ok).toBe(true);
  });

  it('cloud_edges: edge (i, j) holds h_i, h_j, the distance and Y(r_ij), in the order i, then j ≠ i', () => {
    const f = cloudEdges(3, 1, 1);
    // points at 0, e_x and 2e_y, features 10, 20, 30
    const x = Tensor.of([0, 0, 0, 10, 1, 0, 0, 20, 0, 2, 0, 30], [1, 3, 4], 'float64');
    const y = f.run([], x);
    expect(y.shape).toEqual([1, 6, 2 + 1 + 4]);
    const row = (e: number): number[] => Array.from(y.data.subarray(e * 7, (e + 1) * 7));
    // edge 0 is (0, 1): r = e_x, ‖r‖ = 1, Y₀ = 1 and Y₁ ∝ (the direction), 'component' normalised: |Y₁|² = 3
    expect(row(0).slice(0, 3)).toEqual([10, 20, 1]);
    expect(row(0)[3]).toBeCloseTo(1, 14);
    expect(
      row(0)
        .slice(4)
        .reduce((s, v) => s + v * v, 0),
    ).toBeCloseTo(3, 12);
    // edge 3 is (1, 2): r = 2e_y − e_x
    expect(row(3).slice(0, 3)).toEqual([20, 30, Math.sqrt(5)]);
  });

  it('node_attributes: b_i is the mean of the harmonics of the edges into i; invariant under translations, rotating with the cloud', () => {
    const f = nodeAttributes(4, 2, 1);
    const x = randn([2, 4, 4], 3, 'float64');
    const y = f.run([], x);
    const edges = cloudEdges(4, 2, 1).run([], x);
    for (let b = 0; b < 2; b++)
      for (let i = 0; i < 4; i++)
        for (let k = 0; k < 9; k++) {
          let mean = 0;
          for (let q = 0; q < 3; q++) mean += edges.data[((b * 4 + i) * 3 + q) * 12 + 3 + k]! / 3;
          expect(y.data[(b * 4 + i) * 13 + 4 + k]).toBeCloseTo(mean, 12);
        }
    const Q = SO(3).sample(new Rng(4)),
      D = irrepsMatrix(shIrreps('SO(3)', 2), Q);
    const moved = x.clone();
    for (let p = 0; p < 8; p++)
      for (let a = 0; a < 3; a++) {
        let v = 7 * (a + 1); // a translation
        for (let c = 0; c < 3; c++) v += Q.data[a * 3 + c]! * x.data[p * 4 + c]!;
        moved.data[p * 4 + a] = v;
      }
    const ym = f.run([], moved);
    for (let p = 0; p < 8; p++)
      for (let k = 0; k < 9; k++) {
        let v = 0;
        for (let c = 0; c < 9; c++) v += D.data[k * 9 + c]! * y.data[p * 13 + 4 + c]!;
        expect(ym.data[p * 13 + 4 + k]).toBeCloseTo(v, 10);
      }
  });

  it('aggregate(sum) adds the messages into each point; attention weights sum to one, so equal messages pass unchanged', () => {
    const m = Tensor.of(
      Array.from({ length: 12 }, (_, i) => i),
      [1, 6, 2],
      'float64',
    );
    expect(Array.from(aggregate(3, 2, 'sum').run([], m).data)).toEqual([0 + 2, 1 + 3, 4 + 6, 5 + 7, 8 + 10, 9 + 11]);
    const same = Tensor.of([1, 2, 1, 2, 3, 4, 3, 4, 5, 6, 5, 6], [1, 6, 2], 'float64');
    const f = aggregate(3, 2, 'attention', 1);
    expect(Array.from(f.run(f.init(1, 'float64'), same).data)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('steerable is the tensor product beside its attributes, (id @ copy) >> (tensor_product @ id), bit for bit, and gradient-checked', () => {
    const plan = new TensorProductPlan(parseIrreps('2x0e+1x1o'), shIrreps('O(3)', 1), parseIrreps('1x0e+2x1o+1x1e'));
    const f = steerable(plan, 3),
      composite = mapRows(seq(par(id(5), copy(4)), par(tensorProductOf(plan), id(4))));
    expect([f.dom, f.cod]).toEqual([composite.dom, composite.cod]);
    for (const dtype of ['float64', 'float32'] as const) {
      const theta = f.init(3, dtype),
        x = randn([2, 3, 9], 4, dtype),
        dy = randn([2, 3, 14], 5, dtype);
      const run = (g: typeof f) => {
        const lens = g.forward(theta, x, makeCtx());
        const dTheta = theta.map((t) => Tensor.zeros(t.shape, dtype));
        const dx = lens.pullback(dy, dTheta);
        return [lens.y, dx, ...dTheta].map((t) => Array.from(t.data));
      };
      expect(run(f)).toEqual(run(composite));
    }
    for (const seed of [1, 2]) expect(gradcheck(f, { seed, batch: 2 }).ok).toBe(true);
  });

  it("a tensor product without paths is a layer too (e3_conv's update may have none to an output): it maps to its bias", () => {
    const plan = new TensorProductPlan(parseIrreps('2x0e'), parseIrreps('1x0e'), parseIrreps('1x1o'));
    expect(plan.paths).toHaveLength(0);
    const f = tensorProductOf(plan);
    expect(Array.from(f.run(f.init(0), Tensor.of([1, 2, 3], [1, 3])).data)).toEqual([0, 0, 0]);
  });

  it('e3_conv is the composite of these lenses: a definition whose expansion it runs, with its own parameter names', () => {
    const f = e3Conv(4, '1x0e+1x1o', '3x0e+2x1o', '1x0e+1x1o', 1, 'attention');
    expect(f).toBeInstanceOf(Defined);
    expect(String(f.children[0])).toContain('cloud_edges(4,1) >> map(');
    expect(f.params.map((p) => p.name)).toEqual([
      'tp1.weight',
      'tp1.bias',
      'tp2.weight',
      'tp2.bias',
      'attention',
      'tp3.weight',
      'tp3.bias',
      'tp4.weight',
      'tp4.bias',
    ]);
    const theta = f.init(2, 'float64'),
      x = randn([2, 4, 7], 5, 'float64');
    expect(Array.from(f.run(theta, x).data)).toEqual(Array.from(f.children[0]!.forward(theta, x, makeCtx()).y.data));
  });
});
