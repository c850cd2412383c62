// Stable formulations at extreme inputs (±1e4), in float32 and float64, on every backend
// that loads; and a non-finite gradient (with a finite loss) stops training naming the
// morphism whose pullback produced it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NonFiniteError } from '../../src/errors.js';
import { bce, mse, softmaxCrossEntropy } from '../../src/nn/loss.js';
import type { Loss } from '../../src/nn/loss.js';
import { gelu, relu, sigmoid, softplus, tanh } from '../../src/nn/activation.js';
import { softmax } from '../../src/nn/softmax.js';
import { primitive } from '../../src/para/composite.js';
import { makeCtx } from '../../src/para/para.js';
import type { Para } from '../../src/para/para.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { seq } from '../../src/para/composite.js';
import { Rng } from '../../src/random/rng.js';
import { Tensor } from '../../src/tensor/tensor.js';
import type { DType } from '../../src/tensor/tensor.js';
import { backend, setBackend } from '../../src/tensor/registry.js';
import type { Backend } from '../../src/tensor/backend.js';
import { loadWasmBackend } from '../../src/tensor/wasm-backend.js';
import { Trainer } from '../../src/train/trainer.js';
import { xor } from '../../src/data/generated.js';

const BIG = 1e4;
const DTYPES: DType[] = ['float32', 'float64'];
const finite = (t: Tensor): boolean => t.data.every(Number.isFinite);
/** Decimal digits a value of this dtype holds (float32: ~7). */
const digits = (dtype: DType): number => (dtype === 'float32' ? 6 : 9);

const backends: Backend[] = [];
let before: Backend;
beforeAll(async () => {
  before = backend();
  backends.push(before);
  try {
    backends.push(await loadWasmBackend());
  } catch {
    // no wasm here: the reference backend alone is checked
  }
});
afterAll(() => setBackend(before));

/** The loss value and its gradient for predictions `z` and targets `t`. */
function lossAt(loss: Loss, z: number[][], t: number[][], dtype: DType): { value: number; grad: number[] } {
  const L = loss.apply(Tensor.from(z).to(dtype), Tensor.from(t).to(dtype));
  const g = L.pullback();
  expect(finite(g), `${loss.name} gradient`).toBe(true);
  return { value: L.value, grad: Array.from(g.data) };
}

describe('losses at ±1e4 (float32 and float64)', () => {
  for (const dtype of DTYPES) {
    it(`bce on logits, ${dtype}: log(1+e^−|z|) form, no overflow`, () => {
      const a = lossAt(bce, [[BIG], [-BIG], [BIG], [-BIG]], [[1], [0], [0], [1]], dtype);
      // two right with margin 1e4 (≈0), two wrong by 1e4 each: mean = 2·1e4/4
      expect(a.value).toBeCloseTo((2 * BIG) / 4, 6);
      expect(a.grad).toEqual([0, 0, 0.25, -0.25].map((v) => expect.closeTo(v, digits(dtype))));
    });

    it(`softmax cross-entropy on logits, ${dtype}: log-sum-exp`, () => {
      const z = [
        [BIG, -BIG, 0],
        [BIG, -BIG, 0],
        [-BIG, -BIG, -BIG],
      ];
      const a = lossAt(
        softmaxCrossEntropy,
        z,
        [
          [1, 0, 0],
          [0, 1, 0],
          [0, 0, 1],
        ],
        dtype,
      );
      // row 1: 0; row 2: 2·1e4; row 3: log 3
      expect(a.value).toBeCloseTo((0 + 2 * BIG + Math.log(3)) / 3, 3);
      expect(a.grad.slice(0, 3)).toEqual([0, 0, 0].map((v) => expect.closeTo(v, digits(dtype))));
      expect(a.grad.slice(3, 6)).toEqual([1 / 3, -1 / 3, 0].map((v) => expect.closeTo(v, digits(dtype))));
    });

    it(`mse, ${dtype}: finite at ±1e4`, () => {
      const a = lossAt(mse, [[BIG], [-BIG]], [[-BIG], [BIG]], dtype);
      expect(a.value).toBeCloseTo(4 * BIG * BIG, -2);
      expect(a.grad).toEqual([2 * BIG, -2 * BIG].map((v) => expect.closeTo(v, 3)));
    });
  }
});

/** Expected values at −1e4, −30, 0, 30, 1e4 (exact enough for float32). */
const ACTIVATIONS: [string, () => Para, (x: number) => number][] = [
  ['sigmoid', sigmoid, (x) => 1 / (1 + Math.exp(-x))],
  ['tanh', tanh, Math.tanh],
  ['softplus', softplus, (x) => Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x)))],
  ['relu', relu, (x) => Math.max(x, 0)],
  ['gelu', gelu, (x) => (x > 10 ? x : x < -10 ? 0 : NaN)],
];
const XS = [-BIG, -30, 0, 30, BIG];

describe('activations and softmax at ±1e4 (float32 and float64, every backend)', () => {
  it('sigmoid, tanh, softplus, relu, gelu: finite values and pullbacks, the right limits', () => {
    const checked = new Set<string>();
    for (const b of backends) {
      setBackend(b);
      for (const dtype of DTYPES) {
        for (const [name, make, f] of ACTIVATIONS) {
          const m = make().at([XS.length]);
          const x = Tensor.of(XS, [1, XS.length], dtype);
          const lens = m.forward([], x, makeCtx({ training: true, rng: new Rng(0) }));
          const where = `${name} ${dtype} on ${b.name}`;
          checked.add(b.name);
          expect(finite(lens.y), `${where}: ${Array.from(lens.y.data)}`).toBe(true);
          XS.forEach((v, i) => {
            const want = f(v);
            if (!Number.isNaN(want)) expect(lens.y.data[i], `${where} at ${v}`).toBeCloseTo(want, Math.abs(want) > 100 ? 0 : 5);
          });
          const dx = lens.pullback(
            Tensor.of(
              XS.map(() => 1),
              [1, XS.length],
              dtype,
            ),
            null,
            true,
          );
          expect(finite(dx), `${where} pullback: ${Array.from(dx.data)}`).toBe(true);
        }
        const sm = softmax().at([4]);
        const x = Tensor.of([BIG, -BIG, 0, BIG, -BIG, -BIG, -BIG, -BIG], [2, 4], dtype);
        const lens = sm.forward([], x, makeCtx({ training: true, rng: new Rng(0) }));
        expect(finite(lens.y), `softmax ${dtype} on ${b.name}`).toBe(true);
        expect(Array.from(lens.y.data).map((v) => Math.round(v * 1e6) / 1e6)).toEqual([0.5, 0, 0, 0.5, 0.25, 0.25, 0.25, 0.25]);
        expect(finite(lens.pullback(Tensor.of([1, 2, 3, 4, 5, 6, 7, 8], [2, 4], dtype), null, true))).toBe(true);
      }
    }
    setBackend(before);
    expect(checked.has('js')).toBe(true);
  });
});

/** Identity forward; its pullback sends NaN back from the `from`-th call on (a broken layer). */
function poison(n: number, from: number): Para {
  let calls = 0;
  return primitive({
    kind: 'poison',
    dom: [n],
    cod: [n],
    forward(_theta, x, ctx) {
      calls++;
      const bad = calls >= from;
      return {
        y: x,
        pullback(dy) {
          const dx = ctx.alloc(dy.shape, dy.dtype);
          dx.data.set(dy.data);
          if (bad) dx.data[0] = NaN;
          return dx;
        },
      };
    },
  });
}

describe('a non-finite gradient with a finite loss stops training', () => {
  it('NonFiniteError names the epoch, the step and the morphism whose pullback produced it', () => {
    const model = seq(parseSpec('dense(2,3) >> tanh'), poison(3, 7), parseSpec('dense(3,1)'));
    const t = new Trainer(model, xor(), { loss: bce, batch: 2, seed: 1, optimizer: 'sgd', lr: 0.1 });
    let err: unknown;
    try {
      for (let e = 0; e < 10; e++) t.runEpoch();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NonFiniteError);
    const e = err as NonFiniteError;
    // 2 steps per epoch: the 7th forward is epoch 4, step 7.
    expect(e.message).toBe('a gradient became non-finite at epoch 4, step 7: the pullback of poison (factor 3 of 4) produced a non-finite gradient');
    expect([e.epoch, e.step, e.usage, e.code]).toEqual([4, 7, false, 'E_NONFINITE']);
    // The update was not applied: the parameters are still finite and the step count stayed.
    expect(t.theta.every(finite)).toBe(true);
    expect(t.step).toBe(6);
  });
});
