/**
 * TensorFlow.js's side of `npm run bench` (4.22, devDependencies): the same workloads on its
 * 'cpu' and 'wasm' backends, written the fast way a TF.js user would — variables, a manual
 * loop of `optimizer.minimize` (no `model.fit` overhead), data tensors created before timing.
 * The wasm backend's .wasm files are loaded from node_modules via `setWasmPaths`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { timeTfjsCharTransformer } from './tfjs-transformer.js';
import { fill, names, ratesAfterWarmUp, recorder } from './workloads.js';
import type { BenchConfig, Measurement } from './workloads.js';

type TF = typeof import('@tensorflow/tfjs');
type T = import('@tensorflow/tfjs').Tensor;

/** Loads TF.js and selects `backend`; undefined (with the reason) when it cannot. */
export async function loadTfjs(backend: 'cpu' | 'wasm'): Promise<{ tf: TF; note: string } | { error: string }> {
  try {
    const tf = await import('@tensorflow/tfjs');
    let note = `@tensorflow/tfjs ${tf.version.tfjs}, backend ${backend}`;
    if (backend === 'wasm') {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      const require = createRequire(import.meta.url);
      wasm.setWasmPaths(join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + '/');
    }
    if (!(await tf.setBackend(backend))) return { error: `TensorFlow.js backend '${backend}' did not initialise` };
    await tf.ready();
    if (backend === 'wasm')
      note += ` (SIMD ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT')}, threads ${tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT') ? 'yes' : 'no: 1 thread in Node'})`;
    return { tf, note };
  } catch (e) {
    return { error: `TensorFlow.js ${backend} unavailable: ${(e as Error).message.split('\n')[0]}` };
  }
}

/** A 2-d or 4-d float32 tensor of deterministic values. */
const data = (tf: TF, shape: number[], seed: number): T =>
  tf.tensor(
    fill(
      shape.reduce((a, b) => a * b, 1),
      seed,
    ),
    shape,
  );

function timeMatmul(tf: TF, n: number, cfg: BenchConfig): number[] {
  const a = data(tf, [n, n], 1),
    b = data(tf, [n, n], 2);
  const once = (): void => {
    const c = tf.matMul(a, b);
    c.dataSync();
    c.dispose();
  };
  once();
  let t = performance.now();
  once();
  const reps = Math.max(1, Math.ceil(cfg.matmulSeconds / Math.max(1e-6, (performance.now() - t) / 1000)));
  const out: number[] = [];
  for (let r = 0; r < cfg.repeats; r++) {
    t = performance.now();
    for (let i = 0; i < reps; i++) once();
    out.push((2 * n ** 3 * reps) / ((performance.now() - t) / 1000) / 1e9);
  }
  tf.dispose([a, b]);
  return out;
}

/** Dense layer variables [in,out] (U(±1/√in), as PyTorch) and zero biases. */
function denseVars(tf: TF, dims: number[]): { W: import('@tensorflow/tfjs').Variable[]; b: import('@tensorflow/tfjs').Variable[] } {
  const W = dims.slice(1).map((o, i) => tf.variable(tf.randomUniform([dims[i]!, o], -1 / Math.sqrt(dims[i]!), 1 / Math.sqrt(dims[i]!), 'float32', 7)));
  const b = dims.slice(1).map((o) => tf.variable(tf.zeros([o])));
  return { W, b };
}

/** Samples/s of `steps` minimize steps over pre-made batches, after one warm-up pass. */
function timeSteps(
  tf: TF,
  makeBatch: (s: number) => [T, T],
  steps: number,
  batch: number,
  lossOf: (x: T, y: T) => import('@tensorflow/tfjs').Scalar,
  lr: number,
  cfg: BenchConfig,
  sync: () => void,
): number[] {
  const batches = Array.from({ length: steps }, (_, s) => makeBatch(s));
  const opt = tf.train.sgd(lr);
  const epoch = (): void => {
    for (const [x, y] of batches) opt.minimize(() => lossOf(x, y), false);
    sync();
  };
  const out = ratesAfterWarmUp(epoch, steps * batch, cfg);
  tf.dispose(batches.flat());
  opt.dispose();
  return out;
}

const labels = (tf: TF, batch: number, s: number): T =>
  tf
    .oneHot(
      tf.tensor1d(
        Array.from({ length: batch }, (_, i) => (i * 7 + s) % 10),
        'int32',
      ),
      10,
    )
    .toFloat();

export function benchTfjs(tf: TF, system: string, cfg: BenchConfig, skipped: string[], log: (s: string) => void): Measurement[] {
  const out: Measurement[] = [];
  const add = recorder(system, out, skipped, log, cfg.only);
  for (const n of cfg.matmulSizes) add(names.matmul(n), 'GFLOP/s', () => timeMatmul(tf, n, cfg));

  const { dims, lr } = cfg.mlp;
  for (const { batch, steps } of cfg.mlp.runs) {
    const { W, b } = denseVars(tf, dims);
    const mlp = (x: T, y: T): import('@tensorflow/tfjs').Scalar => {
      let h = x;
      W.forEach((w, i) => {
        h = tf.add(tf.matMul(h, w), b[i]!);
        if (i < W.length - 1) h = tf.relu(h);
      });
      return tf.losses.softmaxCrossEntropy(y, h) as import('@tensorflow/tfjs').Scalar;
    };
    add(names.mlp(batch), 'samples/s', () =>
      timeSteps(
        tf,
        (s) => [data(tf, [batch, 784], 100 + s), labels(tf, batch, s)],
        steps,
        batch,
        mlp,
        lr,
        cfg,
        () => W[0]!.dataSync(),
      ),
    );
    tf.dispose([...W, ...b]);
  }

  {
    const { batch, steps } = cfg.conv;
    const f1 = tf.variable(tf.randomUniform([3, 3, 1, 8], -1 / 3, 1 / 3, 'float32', 1)),
      c1 = tf.variable(tf.zeros([8]));
    const f2 = tf.variable(tf.randomUniform([3, 3, 8, 16], -1 / Math.sqrt(72), 1 / Math.sqrt(72), 'float32', 2)),
      c2 = tf.variable(tf.zeros([16]));
    const { W, b } = denseVars(tf, [784, 10]);
    const cnn = (x: T, y: T): import('@tensorflow/tfjs').Scalar => {
      type T4 = import('@tensorflow/tfjs').Tensor4D;
      let h = tf.maxPool(tf.relu(tf.add(tf.conv2d(x as T4, f1 as T4, 1, 'same'), c1)) as T4, 2, 2, 'valid');
      h = tf.maxPool(tf.relu(tf.add(tf.conv2d(h, f2 as T4, 1, 'same'), c2)) as T4, 2, 2, 'valid');
      const z = tf.add(tf.matMul(tf.reshape(h, [batch, 784]), W[0]!), b[0]!);
      return tf.losses.softmaxCrossEntropy(y, z) as import('@tensorflow/tfjs').Scalar;
    };
    add(names.conv(batch), 'samples/s', () =>
      timeSteps(
        tf,
        (s) => [data(tf, [batch, 28, 28, 1], 200 + s), labels(tf, batch, s)],
        steps,
        batch,
        cnn,
        cfg.conv.lr,
        cfg,
        () => f1.dataSync(),
      ),
    );
    tf.dispose([f1, c1, f2, c2, ...W, ...b]);
  }

  {
    const x = tf.tensor2d([
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ]),
      y = tf.tensor2d([[0], [1], [1], [0]]);
    const run = (): number => {
      const t = performance.now();
      const { W, b } = denseVars(tf, [2, 4, 4, 1]);
      const opt = tf.train.sgd(cfg.xor.lr);
      for (let e = 0; e < cfg.xor.epochs; e++) {
        opt.minimize(() => {
          let h: T = x;
          W.forEach((w, i) => (h = tf.sigmoid(tf.add(tf.matMul(h, w), b[i]!))));
          return tf.losses.meanSquaredError(y, h) as import('@tensorflow/tfjs').Scalar;
        }, false);
      }
      W[0]!.dataSync();
      const s = (performance.now() - t) / 1000;
      tf.dispose([...W, ...b]);
      opt.dispose();
      return s;
    };
    run();
    add(names.xor(cfg.xor.epochs), 's', () => Array.from({ length: cfg.repeats }, run));
    tf.dispose([x, y]);
  }
  add(names.charTransformer(cfg.charTransformer), 'tokens/s', () => timeTfjsCharTransformer(tf, cfg));
  return out;
}
