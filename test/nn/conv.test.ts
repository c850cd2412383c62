import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  avgpool2d,
  conv1d,
  conv2d,
  dense,
  flatten,
  globalavgpool,
  gradcheck,
  makeCtx,
  maxpool2d,
  parseSpec,
  relu,
  Rng,
  seq,
  ShapeError,
  Tensor,
} from '../../src/index.js';
import type { Para } from '../../src/index.js';
import { col2im, im2col, makeWindow } from '../../src/nn/im2col.js';

const randn = (shape: number[], seed: number, dtype: 'float32' | 'float64' = 'float64'): Tensor => {
  const rng = new Rng(seed);
  const t = Tensor.zeros(shape, dtype);
  for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
  return t;
};

/** Direct definition of conv2d (no im2col): y[b,o,h,w] = b_o + Σ W[o,c,i,j]·x[b,c,h·s−p+i,w·s−p+j]. */
function naiveConv2d(x: Tensor, W: Tensor, bias: Tensor, s: number, p: number): Tensor {
  const [B, C, H, Wd] = x.shape as number[];
  const [O, , k] = W.shape as number[];
  const Ho = Math.floor((H! + 2 * p - k!) / s) + 1,
    Wo = Math.floor((Wd! + 2 * p - k!) / s) + 1;
  const y = Tensor.zeros([B!, O!, Ho, Wo], 'float64');
  for (let b = 0; b < B!; b++)
    for (let o = 0; o < O!; o++)
      for (let h = 0; h < Ho; h++)
        for (let w = 0; w < Wo; w++) {
          let acc = bias.data[o]!;
          for (let c = 0; c < C!; c++)
            for (let i = 0; i < k!; i++)
              for (let j = 0; j < k!; j++) {
                const hh = h * s - p + i,
                  ww = w * s - p + j;
                if (hh >= 0 && hh < H! && ww >= 0 && ww < Wd!) acc += W.get(o, c, i, j) * x.get(b, c, hh, ww);
              }
          y.data[((b * O! + o) * Ho + h) * Wo + w] = acc;
        }
  return y;
}

describe('conv2d', () => {
  it('matches the direct definition for random geometries (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          C: fc.integer({ min: 1, max: 3 }),
          O: fc.integer({ min: 1, max: 3 }),
          k: fc.integer({ min: 1, max: 3 }),
          s: fc.integer({ min: 1, max: 2 }),
          p: fc.integer({ min: 0, max: 2 }),
          H: fc.integer({ min: 3, max: 7 }),
          W: fc.integer({ min: 3, max: 7 }),
          B: fc.integer({ min: 1, max: 3 }),
          seed: fc.nat(),
        }),
        ({ C, O, k, s, p, H, W, B, seed }) => {
          const f = conv2d(C, O, k, s, p);
          const [Wt, b] = f.init(seed, 'float64');
          const x = randn([B, C, H, W], seed + 1);
          const y = f.run([Wt!, b!], x);
          const ref = naiveConv2d(x, Wt!, b!, s, p);
          expect(y.shape).toEqual(ref.shape);
          for (let i = 0; i < y.size; i++) expect(Math.abs(y.data[i]! - ref.data[i]!)).toBeLessThan(1e-12);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('col2im is the adjoint of im2col: ⟨im2col x, c⟩ = ⟨x, col2im c⟩ (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 1 }),
        fc.nat(),
        (C, k, s, p, seed) => {
          const g = makeWindow('t', C, 6, 5, k, k, s, s, p, p);
          const rows = C * k * k,
            ld = g.Ho * g.Wo;
          const x = randn([C * 30], seed).data,
            c = randn([rows * ld], seed + 1).data;
          const col = new Float64Array(rows * ld),
            back = new Float64Array(C * 30);
          im2col(g, x, 0, col, ld, 0);
          col2im(g, c, ld, 0, back, 0);
          let l = 0,
            r = 0;
          for (let i = 0; i < col.length; i++) l += col[i]! * c[i]!;
          for (let i = 0; i < x.length; i++) r += x[i]! * back[i]!;
          expect(Math.abs(l - r)).toBeLessThan(1e-9 * (1 + Math.abs(l)));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('is shape-polymorphic in H, W and fixes its domain when composed', () => {
    const f = conv2d(1, 8, 3);
    expect(f.dom).toBeUndefined();
    const g = f.at([1, 28, 28]);
    expect(g.cod).toEqual([8, 26, 26]);
    expect(conv2d(1, 8, 3, 2, 1).at([1, 28, 28]).cod).toEqual([8, 14, 14]);
    const net = parseSpec('conv2d(1,8,3,1,1) >> relu >> maxpool2d(2) >> conv2d(8,16,3,1,1) >> relu >> maxpool2d(2) >> flatten >> dense(784,10)');
    const fixed = net.at([1, 28, 28]);
    expect(fixed.cod).toEqual([10]);
    expect(fixed.children.map((c) => c.cod)).toEqual([[8, 28, 28], [8, 28, 28], [8, 14, 14], [16, 14, 14], [16, 14, 14], [16, 7, 7], [784], [10]]);
    const theta = fixed.init(0);
    expect(fixed.run(theta, randn([2, 1, 28, 28], 3, 'float32')).shape).toEqual([2, 10]);
  });

  it('gives clear ShapeErrors: channels differ, wrong rank, kernel too big, bad composite', () => {
    expect(() => conv2d(3, 8, 3).at([1, 28, 28])).toThrow(ShapeError);
    expect(() => conv2d(3, 8, 3).at([1, 28, 28])).toThrow(/expects 3 input channels but got 1/);
    expect(() => conv2d(1, 8, 3).at([784])).toThrow(/\[C,H,W\]/);
    expect(() => conv2d(1, 8, 5).at([1, 3, 3])).toThrow(/does not fit/);
    expect(() => parseSpec('conv2d(1,8,3) >> conv2d(4,8,3)').at([1, 10, 10])).toThrow(/expects 4 input channels but got 8/);
    expect(() => parseSpec('conv2d(1,8,3) >> flatten >> dense(100,10)').at([1, 10, 10])).toThrow(ShapeError);
    expect(() =>
      conv2d(1, 8, 3)
        .at([1, 9, 9])
        .run(conv2d(1, 8, 3).init(0), Tensor.zeros([2, 1, 8, 8])),
    ).toThrow(ShapeError);
    expect(() => parseSpec('conv2d(1,0,3)')).toThrow(/out channels must be an integer/);
  });

  it('prints as a spec that parses back to the same morphism', () => {
    for (const s of ['conv2d(1,8,3,1,1)', 'conv1d(2,4,3,2,0)', 'maxpool2d(2,2)', 'avgpool2d(3,1)', 'flatten', 'globalavgpool']) {
      const f = parseSpec(s);
      expect(String(f)).toBe(s);
      expect(String(parseSpec(String(f)))).toBe(s);
    }
    expect(String(parseSpec('conv2d(1,8,3) >> maxpool2d(2)'))).toBe('conv2d(1,8,3,1,0) >> maxpool2d(2,2)');
    const p = conv2d(3, 5, 3).params;
    expect(p.map((q) => [q.name, q.shape])).toEqual([
      ['weight', [5, 3, 3, 3]],
      ['bias', [5]],
    ]);
    expect(conv1d(3, 5, 4).params.map((q) => q.shape)).toEqual([[5, 3, 4], [5]]);
  });

  it('splits big batches into chunks with the same result as one sample at a time', () => {
    const f = conv2d(2, 3, 3, 1, 1).at([2, 40, 40]);
    const theta = f.init(4, 'float64');
    const x = randn([150, 2, 40, 40], 5);
    const lens = f.forward(theta, x, makeCtx());
    const dy = randn(lens.y.shape as number[], 6);
    const dT = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
    const dx = lens.pullback(dy, dT);
    const per = lens.y.size / 150,
      xper = x.size / 150;
    for (const b of [0, 77, 149]) {
      const l1 = f.forward(theta, x.rows(b, b + 1), makeCtx());
      for (let i = 0; i < per; i++) expect(l1.y.data[i]).toBeCloseTo(lens.y.data[b * per + i]!, 12);
      const d1 = l1.pullback(dy.rows(b, b + 1), null);
      for (let i = 0; i < xper; i += 37) expect(d1.data[i]).toBeCloseTo(dx.data[b * xper + i]!, 12);
    }
    // parameter gradients accumulate over all chunks: Σ_b of the per-sample gradients
    const dT1 = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
    for (let b = 0; b < 150; b++) f.forward(theta, x.rows(b, b + 1), makeCtx()).pullback(dy.rows(b, b + 1), dT1, false);
    dT.forEach((d, k) => d.data.forEach((v, i) => expect(Math.abs(v - dT1[k]!.data[i]!)).toBeLessThan(1e-9 * (1 + Math.abs(v)))));
  });
});

describe('pooling and reshaping', () => {
  it('maxpool2d picks window maxima and routes the gradient to the first arg-max on ties', () => {
    const x = Tensor.of([1, 3, 3, 0, 2, 2, 2, 2, 5, 1, 1, 1, 0, 9, 9, 0], [1, 1, 4, 4], 'float64');
    const lens = maxpool2d(2).forward([], x, makeCtx());
    expect(Array.from(lens.y.data)).toEqual([3, 3, 9, 9]);
    const dx = lens.pullback(Tensor.of([1, 10, 100, 1000], [1, 1, 2, 2], 'float64'), null);
    expect(Array.from(dx.data)).toEqual([0, 1, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 1000, 0]);
    expect(maxpool2d(2).at([3, 7, 7]).cod).toEqual([3, 3, 3]);
    expect(maxpool2d(3, 2).at([1, 7, 7]).cod).toEqual([1, 3, 3]);
  });

  it('avgpool2d, globalavgpool and flatten compute means and reshape', () => {
    const x = Tensor.of([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], [1, 1, 4, 4], 'float64');
    expect(Array.from(avgpool2d(2).run([], x).data)).toEqual([3.5, 5.5, 11.5, 13.5]);
    expect(Array.from(globalavgpool().run([], x).data)).toEqual([8.5]);
    const f = flatten().at([1, 4, 4]);
    expect(f.cod).toEqual([16]);
    expect(f.run([], x).shape).toEqual([1, 16]);
    expect(globalavgpool().at([5, 3, 2]).cod).toEqual([5]);
    expect(() => globalavgpool().at([5])).toThrow(ShapeError);
    expect(() => maxpool2d(2).at([16])).toThrow(/\[C,H,W\]/);
  });
});

describe('every conv layer passes a float64 gradient check', () => {
  const cases: [string, Para, number[]][] = [
    ['conv2d(2,3,3)', conv2d(2, 3, 3), [2, 6, 5]],
    ['conv2d(2,3,3,2,1)', conv2d(2, 3, 3, 2, 1), [2, 7, 6]],
    ['conv2d(1,2,1)', conv2d(1, 2, 1), [1, 3, 3]],
    ['conv1d(3,2,3)', conv1d(3, 2, 3), [3, 8]],
    ['conv1d(2,4,2,2,1)', conv1d(2, 4, 2, 2, 1), [2, 9]],
    ['maxpool2d(2)', maxpool2d(2), [2, 6, 6]],
    ['maxpool2d(3,2)', maxpool2d(3, 2), [2, 7, 7]],
    ['avgpool2d(2)', avgpool2d(2), [2, 6, 6]],
    ['avgpool2d(3,1)', avgpool2d(3, 1), [1, 5, 5]],
    ['flatten', flatten(), [2, 3, 3]],
    ['globalavgpool', globalavgpool(), [3, 4, 4]],
    ['small CNN', seq(conv2d(1, 4, 3, 1, 1), relu(), maxpool2d(2), conv2d(4, 4, 3), globalavgpool(), dense(4, 3)), [1, 8, 8]],
  ];
  for (const [name, f, dom] of cases) {
    it(name, () => {
      for (const seed of [1, 2, 3]) {
        const r = gradcheck(f, { dom, seed, batch: 3 });
        expect(r.relError, `${name} seed ${seed}: analytic ${r.analytic} vs numeric ${r.numeric}`).toBeLessThan(1e-6);
      }
    });
  }
});

describe('maxpool2d and NaN', () => {
  it('propagates a NaN in a window (as PyTorch does)', () => {
    const x = Tensor.of([1, NaN, 3, 0], [1, 1, 2, 2], 'float64');
    expect(Number.isNaN(maxpool2d(2).run([], x).data[0]!)).toBe(true);
  });
});
