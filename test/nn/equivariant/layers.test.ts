import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/random/rng.js';
import { gradcheck } from '../../../src/para/gradcheck.js';
import { parseSpec } from '../../../src/catalogue/index.js';
import { equivariantLinear } from '../../../src/nn/equivariant/linear.js';
import { bilinear, emlp, gated, withGates } from '../../../src/nn/equivariant/gated.js';
import { normGated } from '../../../src/nn/equivariant/norm.js';
import { deepsetsLayer } from '../../../src/nn/equivariant/deepsets.js';
import { messagePassing, messagePassingMixers, parseGraph, adjacency } from '../../../src/nn/equivariant/message-passing.js';
import { conv1dPeriodic, conv2dPeriodic } from '../../../src/nn/equivariant/conv.js';
import { parseGroup } from '../../../src/symmetry/group/parse-group.js';
import { parseRep } from '../../../src/symmetry/group/parse-rep.js';
import { repMatrix } from '../../../src/symmetry/group/rep.js';
import type { Para } from '../../../src/para/para.js';
import { act, permuteAxis, randn, relErr } from '../../symmetry/helpers.js';

/** f(ρ_in(g)x) = ρ_out(g)f(x) for random g, in float32. */
function checkRepEquivariance(f: Para, G: string, rin: string, rout: string, seed = 0): number {
  const g = parseGroup(G);
  const theta = f.init(seed);
  // non-zero biases and coefficients everywhere
  const rng = new Rng(seed + 7);
  for (const t of theta) for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
  const x = randn([5, f.dom![0]!], seed + 1);
  let worst = 0;
  for (let s = 0; s < 3; s++) {
    const el = g.sample(rng);
    const gi = repMatrix(parseRep(rin), el),
      go = repMatrix(parseRep(rout), el);
    worst = Math.max(worst, relErr(f.run(theta, act(gi, x)), act(go, f.run(theta, x))));
  }
  return worst;
}

describe('equivariantLinear', () => {
  const cases: [string, string, string][] = [
    ['S(5)', 'V', 'V'],
    ['S(4)', 'T(2)', 'V+T(0)'],
    ['O(3)', '2V+T(0)', 'T(2)'],
    ['SO(3)', 'T(2)', 'V'],
    ['O(1,3)', 'V', 'V+T(0)'],
    ['D(6)', 'V', 'V'],
    ['SO(2)', '3V', '2V'],
  ];
  for (const [G, i, o] of cases) {
    it(`${G}: ${i} → ${o} is equivariant and gradchecks`, () => {
      const f = equivariantLinear(G, i, o);
      expect(checkRepEquivariance(f, G, i, o)).toBeLessThan(1e-5);
      expect(gradcheck(f).ok).toBe(true);
    });
  }
  it('prints as a spec that parses back to the same layer', () => {
    const f = equivariantLinear('O(3)', '5T(0)+5V', 'T(2)');
    const g = parseSpec(String(f));
    expect(String(g)).toBe(String(f));
    expect(g.params.map((p) => p.shape)).toEqual(f.params.map((p) => p.shape));
    expect(String(f)).toBe('equivariant(O(3),5T0+5V,T2)');
  });
  it('has as many parameters as the end has dimensions (S(5), V → V: 2 + bias 1)', () => {
    const f = parseSpec('equivariant(S(5),V,V)');
    expect(f.params.map((p) => p.shape[0])).toEqual([2, 1]);
  });
});

describe('EMLP pieces: gated, bilinear, emlp', () => {
  it('gated(O(3), 2T0+2V+T2) is equivariant and gradchecks', () => {
    const G = parseGroup('O(3)'),
      rep = '2T0+2V+T2';
    const f = gated(G, rep);
    const rin = `${rep}+3T0`;
    expect(f.dom![0]).toBe(2 + 6 + 9 + 3);
    expect(checkRepEquivariance(f, 'O(3)', rin, rep)).toBeLessThan(1e-5);
    expect(gradcheck(f).ok).toBe(true);
    expect(String(withGates(parseRep(rep), 3).kind)).toBe('sum');
  });
  it('norm_gated(O(3), 2T0+2V+T2) is equivariant and gradchecks; refused for the Lorentz group', () => {
    const f = normGated('O(3)', '2T0+2V+T2');
    expect(f.params[0]!.shape).toEqual([3]);
    expect(checkRepEquivariance(f, 'O(3)', '2T0+2V+T2', '2T0+2V+T2')).toBeLessThan(1e-5);
    expect(gradcheck(f).ok).toBe(true);
    expect(() => normGated('O(1,3)', 'V')).toThrow(/does not preserve norms/);
    const m = emlp('SO(3)', '2V', 'T0+2V', 'V', 2, { nonlinearity: 'norm' });
    expect(checkRepEquivariance(m, 'SO(3)', '2V', 'V')).toBeLessThan(1e-5);
    expect(gradcheck(m).ok).toBe(true);
    expect(String(parseSpec(String(m)))).toBe(String(m));
  });
  it('bilinear(O(3), T0+V) is equivariant and gradchecks', () => {
    const f = bilinear('O(3)', 'T0+V');
    expect(checkRepEquivariance(f, 'O(3)', 'T0+V', '(T0+V)+(T0+V)*(T0+V)')).toBeLessThan(1e-5);
    expect(gradcheck(f).ok).toBe(true);
  });
  it('emlp(O(3), 3T0+3V, 4T0+2V+T2, T2) is equivariant end to end and gradchecks', () => {
    const f = emlp('O(3)', '3T0+3V', '4T0+2V+T2', 'T2', 2, { bilinear: true });
    expect(checkRepEquivariance(f, 'O(3)', '3T0+3V', 'T2')).toBeLessThan(1e-5);
    expect(gradcheck(f).ok).toBe(true);
    expect(String(parseSpec(String(f)))).toBe(String(f));
  });
  it('emlp for the Lorentz group O(1,3) (non-orthogonal V) is equivariant', () => {
    const f = emlp('O(1,3)', '2V', '2T0+2V', 'V', 1);
    expect(checkRepEquivariance(f, 'O(1,3)', '2V', 'V', 3)).toBeLessThan(1e-4);
  });
});

describe('DeepSets layer from the S(n) end', () => {
  it('is permutation equivariant and gradchecks', () => {
    const f = deepsetsLayer(6, 3, 4);
    const theta = f.init(1);
    const x = randn([4, 6, 3], 2);
    const rng = new Rng(3);
    for (let k = 0; k < 3; k++) {
      const sigma = rng.shuffle(Int32Array.from({ length: 6 }, (_, i) => i));
      expect(relErr(f.run(theta, permuteAxis(x, 1, sigma)), permuteAxis(f.run(theta, x), 1, sigma))).toBeLessThan(1e-5);
    }
    expect(gradcheck(f).ok).toBe(true);
    expect(String(parseSpec('set_equivariant(6,3,4)'))).toBe('set_equivariant(6,3,4)');
  });
});

describe('message passing = S(n) end restricted to the adjacency', () => {
  it('the mixers span {I, A} for a cycle graph', () => {
    const g = parseGraph('cycle(6)');
    const M = messagePassingMixers(g);
    expect(M.length).toBe(2);
    const A = adjacency(g);
    for (const m of M) {
      // each mixer is αI + βA
      const alpha = m[0]!,
        beta = m[1]!;
      for (let t = 0; t < 36; t++) expect(m[t]!).toBeCloseTo((Math.floor(t / 6) === t % 6 ? alpha : 0) + beta * A[t]!, 12);
    }
  });
  it('builds on large graphs too (400 vertices: 160,000 entries per mixer)', () => {
    const M = messagePassingMixers(parseGraph('cycle(400)'));
    expect(M.length).toBe(2);
  });
  it('is equivariant under the graph automorphisms D(6) of the hexagon, not under all of S(6)', () => {
    const f = messagePassing('cycle(6)', 2, 3);
    const theta = f.init(0);
    const x = randn([3, 6, 2], 5);
    const D6 = parseGroup('D(6)');
    const rng = new Rng(9);
    for (let k = 0; k < 4; k++) {
      const s = D6.samplePerm!(rng);
      expect(relErr(f.run(theta, permuteAxis(x, 1, s)), permuteAxis(f.run(theta, x), 1, s))).toBeLessThan(1e-5);
    }
    const swap = [1, 0, 2, 3, 4, 5]; // not an automorphism of the cycle
    expect(relErr(f.run(theta, permuteAxis(x, 1, swap)), permuteAxis(f.run(theta, x), 1, swap))).toBeGreaterThan(1e-3);
    expect(gradcheck(f).ok).toBe(true);
  });
  it('relabelling graph and features together commutes: f_{σA}(σx) = σ f_A(x)', () => {
    const edges: [number, number][] = [
      [0, 1],
      [1, 2],
      [2, 3],
      [1, 3],
      [3, 4],
    ];
    const sigma = [3, 0, 4, 1, 2];
    const f = messagePassing({ n: 5, edges }, 2, 2);
    const fs = messagePassing({ n: 5, edges: edges.map(([i, j]) => [sigma[i]!, sigma[j]!] as [number, number]) }, 2, 2);
    const theta = f.init(4);
    const x = randn([2, 5, 2], 6);
    // both layers' mixers are αI + βA with the same α, β, so the same θ applies
    expect(relErr(fs.run(theta, permuteAxis(x, 1, sigma)), permuteAxis(f.run(theta, x), 1, sigma))).toBeLessThan(1e-5);
    expect(String(parseSpec('message_passing((0-1,1-2,2-0),2,3)'))).toBe('message_passing((0-1,1-2,2-0),2,3)');
  });
});

describe('convolution derived from the translation group', () => {
  it('conv1d_periodic: cyclic-shift equivariant, gradchecks, and equals circular cross-correlation', () => {
    const n = 10,
      f = conv1dPeriodic(n, 2, 3, 3);
    const theta = f.init(2);
    for (let i = 0; i < 3; i++) theta[1]!.data[i] = i - 1;
    const x = randn([2, 2, n], 3);
    for (const s of [1, 4, 7]) {
      const sh = Array.from({ length: n }, (_, i) => (i + s) % n);
      expect(relErr(f.run(theta, permuteAxis(x, 2, sh)), permuteAxis(f.run(theta, x), 2, sh))).toBeLessThan(1e-5);
    }
    const y = f.run(theta, x);
    const W = theta[0]!.data;
    for (let b = 0; b < 2; b++)
      for (let o = 0; o < 3; o++)
        for (let q = 0; q < n; q++) {
          let s = theta[1]!.data[o]!;
          for (let c = 0; c < 2; c++) for (let j = 0; j < 3; j++) s += W[(o * 2 + c) * 3 + j]! * x.data[(b * 2 + c) * n + ((q + j - 1 + n) % n)]!;
          expect(y.data[(b * 3 + o) * n + q]).toBeCloseTo(s, 5);
        }
    expect(gradcheck(f).ok).toBe(true);
  });
  it('conv2d_periodic: 2-D shift equivariant, gradchecks, taps in PyTorch order', () => {
    const h = 5,
      w = 6,
      f = conv2dPeriodic(h, w, 2, 2, 3);
    const theta = f.init(1);
    const x = randn([2, 2, h, w], 8);
    const shift = (a: number, b: number) => Array.from({ length: h * w }, (_, i) => ((Math.floor(i / w) + a) % h) * w + (((i % w) + b) % w));
    const flat = (t: typeof x) => t.reshape([2, 2, h * w]);
    for (const [a, b] of [
      [1, 0],
      [2, 3],
      [4, 5],
    ] as const) {
      const s = shift(a, b);
      expect(relErr(flat(f.run(theta, permuteAxis(flat(x), 2, s).reshape(x.shape))), permuteAxis(flat(f.run(theta, x)), 2, s))).toBeLessThan(1e-5);
    }
    // one tap: weight[0,0,0,2] multiplies x[c=0, r−1, c+1]
    const y = f.run(theta, x);
    const W = theta[0]!.data;
    let s = theta[1]!.data[0]!;
    const r = 2,
      c = 3;
    for (let ci = 0; ci < 2; ci++)
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 3; j++) s += W[(0 * 2 + ci) * 9 + i * 3 + j]! * x.data[ci * h * w + ((r + i - 1 + h) % h) * w + ((c + j - 1 + w) % w)]!;
    expect(y.data[r * w + c]).toBeCloseTo(s, 5);
    expect(gradcheck(f).ok).toBe(true);
  });
});
