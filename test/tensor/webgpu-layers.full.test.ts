// Every layer with a device path, on the webgpu backend: its forward and pullback run on device
// arrays (float32), and the pullback's directional derivative ⟨dθ, vθ⟩ + ⟨dx, vx⟩ is checked
// against float64 central differences of the reference forward (gradcheck's test, with the
// device's pullback); training on the device follows wasm's loss curve; what has no device
// path is refused by name. Without an adapter: skipped with the reason, failing under CI=true.
import { afterAll, describe, expect, it } from 'vitest';
import { DeviceSupportError } from '../../src/errors.js';
import { moons } from '../../src/data/index.js';
import type { Dataset } from '../../src/data/dataset.js';
import { oneHot } from '../../src/data/dataset.js';
import { mse, softmaxCrossEntropy } from '../../src/nn/loss.js';
import { makeCtx } from '../../src/para/para.js';
import { Arena } from '../../src/tensor/memory.js';
import type { Para } from '../../src/para/para.js';
import { Rng } from '../../src/random/rng.js';
import { layerNames, parseSpec } from '../../src/catalogue/index.js';
import { deviceKinds, hostOnlyParts } from '../../src/tensor/device-layers.js';
import { jsBackend } from '../../src/tensor/js-backend.js';
import { setBackend } from '../../src/tensor/registry.js';
import { Tensor } from '../../src/tensor/tensor.js';
import type { Shape } from '../../src/tensor/tensor.js';
import { createWasmBackend } from '../../src/tensor/wasm-backend.js';
import { textCorpus, vocabSize } from '../../src/data/text.js';
import { trainLanguageModelAsync } from '../../src/train/language-model.js';
import type { LanguageModelResult } from '../../src/train/language-model.js';
import { trainAsync } from '../../src/train/train.js';
import type { TrainRunOptions } from '../../src/train/train.js';
import { describeWith, webgpuBackend } from '../peer/available.js';

const { peer, value: gpu } = await webgpuBackend();

const randn = (shape: Shape, rng: Rng): Tensor => {
  const t = Tensor.zeros(shape, 'float64');
  for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
  return t;
};
const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

// spec, per-sample input shape (and for an embedding, the vocabulary its integer inputs come from)
const LAYERS: readonly [string, Shape, number?][] = [
  ['dense(5,7)', [5]],
  ['dense(5,7) >> relu', [5]],
  ['dense(5,7) >> sigmoid', [5]],
  ['dense(5,7) >> tanh', [5]],
  ['sigmoid', [6]],
  ['tanh', [6]],
  ['relu', [6]],
  ['gelu', [6]],
  ['softplus', [6]],
  ['softmax', [6]],
  ['conv2d(2,3,3,1,1)', [2, 6, 6]],
  ['conv2d(2,3,3,2,0) >> relu', [2, 7, 7]],
  ['conv1d(2,3,3,1,1)', [2, 9]],
  ['maxpool2d(2)', [2, 6, 6]],
  ['maxpool2d(3,2)', [2, 7, 7]],
  ['avgpool2d(2)', [2, 6, 6]],
  ['avgpool2d(3,2)', [2, 7, 7]],
  ['flatten >> dense(18,4)', [2, 3, 3]],
  ['copy(4) >> (dense(4,3) @ dense(4,3)) >> add(3)', [4]],
  ['residual(dense(4,4) >> tanh)', [4]],
  ['copy(3) >> (discard(3) @ id(3))', [3]],
  ['layernorm(6)', [4, 6]],
  ['rmsnorm(6)', [4, 6]],
  ['embedding(7,5)', [6], 7],
  ['attention(8,2,rope)', [5, 8]],
  ['attention(8,2,none)', [5, 8]],
  ['attention(8,2,none,none)', [5, 8]],
  ['transformer(8,2,16,rope)', [5, 8]],
  ['embedding(7,8) >> transformer(8,2,16,rope) >> layernorm(8) >> dense(8,7)', [5], 7],
];

describe('the device layers (src/tensor/device-layers.ts)', () => {
  it('every kind declared to run on a device that a spec can name is checked below, and every model below is declared', () => {
    const named = new Set(layerNames());
    const used = new Set(LAYERS.flatMap(([spec]) => kinds(parseSpec(spec))));
    expect(deviceKinds().filter((k) => named.has(k) && !used.has(k))).toEqual([]);
    for (const [spec] of LAYERS) expect(hostOnlyParts(parseSpec(spec)), spec).toEqual([]);
  });
});

/** The kinds of every morphism in f. */
function kinds(f: Para): string[] {
  return [f.kind, ...f.children.flatMap(kinds)];
}

describeWith(peer, 'layers on the webgpu backend', () => {
  const be = gpu!;
  const dev = be.device;
  const toDevice = (t: Tensor): Tensor => {
    const d = dev.alloc(t.size);
    dev.write(d, t.data);
    return new Tensor(d, t.shape);
  };
  afterAll(() => setBackend(jsBackend));

  it.each(LAYERS)(
    '%s: the device pullback agrees with float64 central differences of the reference forward',
    async (spec, dom, vocab) => {
      const f = parseSpec(spec).at(dom) as Para;
      const rng = new Rng(5);
      const B = 3;
      // inputs away from ties and kinks: a maximum or a relu at 0 has no derivative to check;
      // token ids are not perturbed (they have no derivative)
      const x = randn([B, ...dom], rng);
      if (vocab) x.data.forEach((_, i) => (x.data[i] = Math.floor(rng.uniform() * vocab)));
      const theta = f.init(rng.split(), 'float64');
      const vx = vocab ? Tensor.zeros(x.shape, 'float64') : randn(x.shape, rng),
        vt = theta.map((t) => randn(t.shape, rng));
      setBackend(jsBackend);
      const r = randn(f.forward(theta, x, makeCtx()).y.shape, rng);
      // on the device, in float32
      setBackend(be);
      const arena = new Arena(dev);
      const ctx = makeCtx({ alloc: arena.alloc });
      const thetaD = theta.map((t) => toDevice(t));
      const lens = f.forward(thetaD, toDevice(x), ctx);
      const dTheta = theta.map((t) => new Tensor(dev.alloc(t.size), t.shape));
      const dx = lens.pullback(toDevice(r), dTheta);
      const [y, dxv, ...dts] = await Promise.all([lens.y, dx, ...dTheta].map((t) => dev.read(t.data as Float32Array)));
      setBackend(jsBackend);
      const yRef = f.forward(theta, x, makeCtx()).y;
      for (let i = 0; i < yRef.size; i++) expect(Math.abs(y![i]! - yRef.data[i]!)).toBeLessThan(1e-4 * (1 + Math.abs(yRef.data[i]!)));
      const analytic = dot(dxv!, vx.data) + dts.reduce((s, d, i) => s + dot(d!, vt[i]!.data), 0);
      const at = (h: number): number => {
        const xs = x.clone(),
          ts = theta.map((t) => t.clone());
        for (let i = 0; i < xs.size; i++) xs.data[i]! += h * vx.data[i]!;
        ts.forEach((t, k) => {
          for (let i = 0; i < t.size; i++) t.data[i]! += h * vt[k]!.data[i]!;
        });
        return dot(r.data, f.forward(ts, xs, makeCtx()).y.data);
      };
      const numeric = (at(1e-6) - at(-1e-6)) / 2e-6;
      expect(Math.abs(analytic - numeric) / Math.max(1e-8, Math.abs(analytic) + Math.abs(numeric))).toBeLessThan(1e-4);
    },
    60_000,
  );

  /** The loss per epoch of a training run on a backend. */
  const curve = async (
    spec: string,
    data: Dataset,
    opts: Omit<TrainRunOptions, 'loss'> & { loss: TrainRunOptions['loss'] },
    on: typeof be | Awaited<ReturnType<typeof createWasmBackend>>,
  ): Promise<{ losses: number[]; acc?: number; theta: Tensor[] }> => {
    setBackend(on);
    try {
      const r = await trainAsync(parseSpec(spec), data, opts);
      return { losses: r.history.map((h) => h.loss), acc: r.accuracy, theta: r.theta };
    } finally {
      setBackend(jsBackend);
    }
  };

  it("an MLP (sgd, mse) and a small CNN (adam, softmax cross-entropy) follow wasm's loss curves on the device", async () => {
    const wasm = await createWasmBackend({ threads: 1 });
    const data = moons(256, 0.1, 3);
    const mlp = 'dense(2,16) >> tanh >> dense(16,16) >> relu >> dense(16,1) >> sigmoid';
    const o1 = { loss: mse, epochs: 3, lr: 0.1, batch: 64, seed: 1 };
    const [a, b] = [await curve(mlp, data, o1, wasm), await curve(mlp, data, o1, be)];
    a.losses.forEach((l, i) => expect(Math.abs(b.losses[i]! - l)).toBeLessThan(1e-4 * Math.max(1, l)));
    b.theta.forEach((t, i) => t.data.forEach((v, j) => expect(Math.abs(v - a.theta[i]!.data[j]!)).toBeLessThan(1e-4)));
    // images: class c has a bright c-th quadrant
    const rng = new Rng(9),
      N = 96,
      x = Tensor.zeros([N, 1, 8, 8]),
      labels = new Int32Array(N);
    for (let s = 0; s < N; s++) {
      const c = (labels[s] = s % 4);
      for (let i = 0; i < 64; i++) x.data[s * 64 + i] = 0.3 * rng.normal() + ((i >> 3 < 4 ? 0 : 2) + ((i & 7) < 4 ? 0 : 1) === c ? 1 : 0);
    }
    const images: Dataset = { name: 'quadrants', x, y: oneHot(labels, 4), labels, classes: ['0', '1', '2', '3'] } as Dataset;
    const cnn = 'conv2d(1,4,3,1,1) >> relu >> maxpool2d(2) >> flatten >> dense(64,4)';
    const o2 = { loss: softmaxCrossEntropy, epochs: 4, lr: 0.01, batch: 32, seed: 2, optimizer: 'adam' };
    const [c, d] = [await curve(cnn, images, o2, wasm), await curve(cnn, images, o2, be)];
    c.losses.forEach((l, i) => expect(Math.abs(d.losses[i]! - l)).toBeLessThan(2e-4 * Math.max(1, l)));
    expect(d.acc).toBe(c.acc);
    expect(d.losses[3]!).toBeLessThan(d.losses[0]!);
    wasm.dispose();
  }, 300_000);

  it("a small char transformer follows wasm's loss curve on the device, and comes back with the same parameters", async () => {
    const wasm = await createWasmBackend({ threads: 1 });
    const corpus = textCorpus('lines', 'the cat sat on the mat; the dog sat on the log. '.repeat(12));
    const spec = 'embedding(vocab,16) >> transformer(16,2,32,rope) >> layernorm(16) >> dense(16,vocab)';
    const run = async (on: typeof be | typeof wasm): Promise<{ bits: number[]; r: LanguageModelResult }> => {
      setBackend(on);
      try {
        const bits: number[] = [];
        const model = parseSpec(spec, { constants: { vocab: vocabSize(corpus.vocabulary) } });
        const r = await trainLanguageModelAsync(model, corpus, {
          context: 16,
          batch: 4,
          steps: 8,
          lr: 0.01,
          optimizer: 'adam',
          seed: 3,
          onStep: (s, _n, b) => (bits[s - 1] = b),
        });
        return { bits, r };
      } finally {
        setBackend(jsBackend);
      }
    };
    const dispatches = be.dispatches();
    const [a, b] = [await run(wasm), await run(be)];
    expect(be.dispatches() - dispatches).toBeGreaterThan(8 * 50);
    expect(b.bits).toHaveLength(8);
    a.bits.forEach((l, i) => expect(Math.abs(b.bits[i]! - l)).toBeLessThan(1e-3 * Math.max(1, l)));
    expect(b.bits[7]!).toBeLessThan(b.bits[0]!);
    expect(Math.abs(b.r.valBitsPerChar - a.r.valBitsPerChar)).toBeLessThan(1e-3 * a.r.valBitsPerChar);
    b.r.theta.forEach((t, i) => t.data.forEach((v, j) => expect(Math.abs(v - a.r.theta[i]!.data[j]!)).toBeLessThan(1e-3)));
    wasm.dispose();
  }, 300_000);

  it('a layer, loss or optimiser without a device path is refused by name, before training', async () => {
    const data = moons(32, 0.1, 1);
    setBackend(be);
    try {
      await expect(trainAsync(parseSpec('dense(2,4) >> leaky_relu(0.1) >> dense(4,1)'), data, { loss: mse, epochs: 1 })).rejects.toThrow(DeviceSupportError);
      await expect(trainAsync(parseSpec('dense(2,4) >> leaky_relu(0.1) >> dense(4,1)'), data, { loss: mse, epochs: 1 })).rejects.toThrow(
        /no device path for leaky_relu\(0.1\)/,
      );
      await expect(trainAsync(parseSpec('dense(2,1)'), data, { loss: mse, epochs: 1, optimizer: 'momentum' })).rejects.toThrow(/optimiser momentum/);
      // learned positions are added by host loops
      const corpus = textCorpus('lines', 'abcabcabd '.repeat(20));
      const absolute = parseSpec('embedding(vocab,8) >> attention(8,2,absolute(8)) >> dense(8,vocab)', { constants: { vocab: vocabSize(corpus.vocabulary) } });
      await expect(trainLanguageModelAsync(absolute, corpus, { context: 8, batch: 2, steps: 1 })).rejects.toThrow(
        /no device path for attention\(8,2,absolute\(8\)\)/,
      );
      // ids beyond the embedding's table are refused on the host before the device sees them
      const small = parseSpec('embedding(3,8) >> dense(8,vocab)', { constants: { vocab: vocabSize(corpus.vocabulary) } });
      await expect(trainLanguageModelAsync(small, corpus, { context: 8, batch: 2, steps: 1 })).rejects.toThrow(
        /token id \d+ at index 0 is not an integer in 0…2/,
      );
    } finally {
      setBackend(jsBackend);
    }
  });
});
