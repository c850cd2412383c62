import { describe, expect, it } from 'vitest';
import {
  add,
  bce,
  copy,
  dense,
  discard,
  elementwise,
  gradcheck,
  id,
  leakyRelu,
  mse,
  par,
  parseSpec,
  residual,
  seq,
  softmax,
  softmaxCrossEntropy,
  Tensor,
  tie,
  Rng,
} from '../../src/index.js';
import type { Loss, Para } from '../../src/index.js';

const cases: [string, Para, number[]][] = [
  ['dense(3,4)', dense(3, 4), [3]],
  ['sigmoid', elementwise('sigmoid'), [5]],
  ['tanh', elementwise('tanh'), [5]],
  ['relu', elementwise('relu'), [5]],
  ['gelu', elementwise('gelu'), [5]],
  ['softplus', elementwise('softplus'), [5]],
  ['leaky_relu(0.1)', leakyRelu(0.1), [5]],
  ['softmax', softmax(), [4]],
  ['id(3)', id(3), [3]],
  ['copy(3)', copy(3), [3]],
  ['add(3)', add(3), [6]],
  ['discard(3) @ id(2)', par(discard(3), id(2)), [5]],
  ['residual(dense(3,3) >> tanh)', residual(seq(dense(3, 3), elementwise('tanh'))), [3]],
  ['dense(2,3) @ dense(4,1)', par(dense(2, 3), dense(4, 1)), [6]],
  ['seed XOR net', parseSpec('dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid'), [2]],
  ['copy >> (dense @ dense) >> add', parseSpec('copy(3) >> (dense(3,2) @ dense(3,2)) >> add(2)'), [3]],
  [
    'tied dense @ dense',
    tie(par(dense(3, 3), dense(3, 3)), [
      [0, 2],
      [1, 3],
    ]),
    [6],
  ],
];

describe('every morphism passes a float64 gradient check', () => {
  it.each(cases)('%s', (_name, f, dom) => {
    for (const seed of [1, 2, 3]) {
      const r = gradcheck(f, { dom, seed });
      expect(r.relError, `analytic ${r.analytic} vs numeric ${r.numeric}`).toBeLessThan(1e-6);
    }
  });
});

describe('losses are lenses whose pullback is the gradient', () => {
  const losses: [Loss, (rng: Rng, B: number, C: number) => Tensor][] = [
    [
      mse,
      (rng, B, C) =>
        Tensor.of(
          Array.from({ length: B * C }, () => rng.normal()),
          [B, C],
          'float64',
        ),
    ],
    [
      bce,
      (rng, B, C) =>
        Tensor.of(
          Array.from({ length: B * C }, () => rng.uniform()),
          [B, C],
          'float64',
        ),
    ],
    [
      softmaxCrossEntropy,
      (rng, B, C) => {
        const t = Tensor.zeros([B, C], 'float64');
        for (let b = 0; b < B; b++) t.data[b * C + rng.int(C)] = 1;
        return t;
      },
    ],
  ];
  it.each(losses)('$name', (loss, target) => {
    const rng = new Rng(7);
    const B = 4,
      C = 3;
    const z = Tensor.of(
      Array.from({ length: B * C }, () => 3 * rng.normal()),
      [B, C],
      'float64',
    );
    const t = target(rng, B, C);
    const g = loss.apply(z, t).pullback();
    const eps = 1e-6;
    for (let i = 0; i < z.size; i++) {
      const zp = z.clone(),
        zm = z.clone();
      zp.data[i]! += eps;
      zm.data[i]! -= eps;
      const num = (loss.apply(zp, t).value - loss.apply(zm, t).value) / (2 * eps);
      expect(g.data[i]).toBeCloseTo(num, 7);
    }
  });

  it('logit losses stay finite at extreme inputs (±1e4)', () => {
    const z = Tensor.of([1e4, -1e4, 1e4, -1e4], [2, 2], 'float64');
    const t = Tensor.of([1, 0, 0, 1], [2, 2], 'float64');
    for (const loss of [bce, softmaxCrossEntropy]) {
      const r = loss.apply(z, t);
      expect(Number.isFinite(r.value)).toBe(true);
      expect(Array.from(r.pullback().data).every(Number.isFinite)).toBe(true);
    }
    expect(softmaxCrossEntropy.apply(z, t).value).toBeCloseTo(1e4, 6);
    expect(bce.apply(Tensor.of([1e4], [1, 1]), Tensor.of([1], [1, 1])).value).toBe(0);
  });
});
