/**
 * jax-js's side of `npm run bench` (@jax-js/jax 0.1.25, devDependencies): the same workloads on
 * its Wasm device, written the fast way its README shows — a pure loss, `grad` of it, and the
 * whole SGD step under `jit` (one compiled, fused program per step), data arrays made before
 * timing, `blockUntilReady` to finish each timed run. Node 20 has no `globalThis.navigator`,
 * which jax-js reads for the number of Wasm threads: it is defined here with the core count.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fill, names, ratesAfterWarmUp, recorder, repeatsAfter } from './workloads.js';
import type { BenchConfig, Measurement } from './workloads.js';

type Jax = typeof import('@jax-js/jax');
type A = import('@jax-js/jax').Array;
/** A network's parameters: weight and bias arrays, alternating. */
type Params = A[];

/** Loads jax-js and starts its Wasm device; the reason when it cannot. */
export async function loadJaxjs(): Promise<{ jax: Jax; note: string } | { error: string }> {
  try {
    const g = globalThis as { navigator?: { hardwareConcurrency?: number } };
    g.navigator ??= { hardwareConcurrency: availableParallelism() };
    const jax = await import('@jax-js/jax');
    const devices = await jax.init('wasm');
    if (!devices.includes('wasm')) return { error: `jax-js: no Wasm device (devices: ${devices.join(', ')})` };
    jax.defaultDevice('wasm');
    // the package exports no ./package.json: read it beside the entry point
    const entry = createRequire(import.meta.url).resolve('@jax-js/jax');
    const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string };
    return {
      jax,
      note: `@jax-js/jax ${version}, device wasm (navigator.hardwareConcurrency = ${g.navigator.hardwareConcurrency}), jit(SGD step of grad(loss))`,
    };
  } catch (e) {
    return { error: `jax-js unavailable: ${(e as Error).message.split('\n')[0]}` };
  }
}

/** A float32 array of deterministic values in the given shape. */
const data = (jax: Jax, shape: number[], seed: number, scale = 1): A => {
  const v = fill(
    shape.reduce((a, b) => a * b, 1),
    seed,
  );
  if (scale !== 1) for (let i = 0; i < v.length; i++) v[i]! *= scale;
  return jax.numpy.array(v).reshape(shape);
};

function timeMatmul(jax: Jax, n: number, cfg: BenchConfig): number[] {
  const { numpy: np } = jax;
  const a = data(jax, [n, n], 1),
    b = data(jax, [n, n], 2);
  const mm = jax.jit((x: A, y: A) => np.dot(x, y));
  // dataSync finishes the product (and frees its result)
  const once = (): void => void mm(a.ref, b.ref).dataSync();
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
  a.dispose();
  b.dispose();
  return out;
}

/** Dense layers [in,out] with U(±1/√in) weights (as PyTorch) and zero biases. */
function denseParams(jax: Jax, dims: number[], seed: number): Params {
  return dims.slice(1).flatMap((o, i) => [data(jax, [dims[i]!, o], seed + i, 2 / Math.sqrt(dims[i]!)), jax.numpy.zeros([o])]);
}

/**
 * Samples/s of `steps` SGD steps over pre-made batches after one warm-up pass: params ← step(params, x, y)
 * with step = jit(p ↦ p − lr·grad(loss)(p)), as a JAX user writes the update.
 */
function timeSteps(jax: Jax, params: Params, loss: (p: Params, x: A, y: A) => A, batches: [A, A][], lr: number, cfg: BenchConfig): number[] {
  const { tree } = jax;
  const step = jax.jit((p: Params, x: A, y: A): Params => {
    const g = jax.grad(loss)(tree.ref(p), x, y) as Params;
    return p.map((w, i) => w.sub(g[i]!.mul(lr)));
  });
  let p = params;
  const epoch = (): void => {
    for (const [x, y] of batches) p = step(p, x.ref, y.ref);
    p[0]!.ref.dataSync();
  };
  const batch = batches[0]![0].shape[0]!;
  const out = ratesAfterWarmUp(epoch, batches.length * batch, cfg);
  tree.dispose(p);
  for (const [x, y] of batches) (x.dispose(), y.dispose());
  return out;
}

const labels = (jax: Jax, batch: number, s: number): A =>
  jax.nn.oneHot(
    jax.numpy.array(
      Int32Array.from({ length: batch }, (_, i) => (i * 7 + s) % 10),
      { dtype: jax.numpy.int32 },
    ),
    10,
  );

/** Softmax cross-entropy of logits z against one-hot rows y, mean over the batch. */
const crossEntropy = (jax: Jax, z: A, y: A, batch: number): A =>
  jax.nn
    .logSoftmax(z)
    .mul(y)
    .sum()
    .mul(-1 / batch);

export function benchJaxjs(jax: Jax, system: string, cfg: BenchConfig, skipped: string[], log: (s: string) => void): Measurement[] {
  const { numpy: np, nn, lax } = jax;
  const out: Measurement[] = [];
  const add = recorder(system, out, skipped, log);
  for (const n of cfg.matmulSizes) add(names.matmul(n), 'GFLOP/s', () => timeMatmul(jax, n, cfg));

  const { dims, lr } = cfg.mlp;
  for (const { batch, steps } of cfg.mlp.runs) {
    const mlp = (p: Params, x: A, y: A): A => {
      let h = x;
      for (let k = 0; k < p.length; k += 2) {
        h = np.dot(h, p[k]!).add(p[k + 1]!);
        if (k < p.length - 2) h = nn.relu(h);
      }
      return crossEntropy(jax, h, y, batch);
    };
    add(names.mlp(batch), 'samples/s', () =>
      timeSteps(
        jax,
        denseParams(jax, dims, 7),
        mlp,
        Array.from({ length: steps }, (_, s) => [data(jax, [batch, 784], 100 + s), labels(jax, batch, s)]),
        lr,
        cfg,
      ),
    );
  }

  {
    const { batch, steps } = cfg.conv;
    const pool = (x: A): A => lax.reduceWindow(x, np.max, [2, 2], [2, 2]);
    const cnn = (p: Params, x: A, y: A): A => {
      let h = pool(nn.relu(lax.convGeneralDilated(x, p[0]!, [1, 1], 'SAME').add(p[1]!)));
      h = pool(nn.relu(lax.convGeneralDilated(h, p[2]!, [1, 1], 'SAME').add(p[3]!)));
      return crossEntropy(jax, np.dot(h.reshape([batch, 784]), p[4]!).add(p[5]!), y, batch);
    };
    const params = (): Params => [
      data(jax, [8, 1, 3, 3], 1, 2 / 3),
      np.zeros([8, 1, 1]),
      data(jax, [16, 8, 3, 3], 2, 2 / Math.sqrt(72)),
      np.zeros([16, 1, 1]),
      data(jax, [784, 10], 3, 2 / 28),
      np.zeros([10]),
    ];
    add(names.conv(batch), 'samples/s', () =>
      timeSteps(
        jax,
        params(),
        cnn,
        Array.from({ length: steps }, (_, s) => [data(jax, [batch, 1, 28, 28], 200 + s), labels(jax, batch, s)]),
        cfg.conv.lr,
        cfg,
      ),
    );
  }

  {
    const x = np.array([
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ]),
      y = np.array([[0], [1], [1], [0]]);
    const loss = (p: Params, xs: A, ys: A): A => {
      let h = xs;
      for (let k = 0; k < p.length; k += 2) h = nn.sigmoid(np.dot(h, p[k]!).add(p[k + 1]!));
      return np.square(h.sub(ys)).mean();
    };
    const step = jax.jit((p: Params, xs: A, ys: A): Params => {
      const g = jax.grad(loss)(jax.tree.ref(p), xs, ys) as Params;
      return p.map((w, i) => w.sub(g[i]!.mul(cfg.xor.lr)));
    });
    const run = (epochs = cfg.xor.epochs): number => {
      const t = performance.now();
      let p = denseParams(jax, [2, 4, 4, 1], 11);
      for (let e = 0; e < epochs; e++) {
        p = step(p, x.ref, y.ref);
        // wait for the work now and then: dispatched steps pile up in memory otherwise (2 GB after 15 min)
        if (e % 100 === 99) p[0]!.ref.dataSync();
      }
      p[0]!.ref.dataSync();
      const s = (performance.now() - t) / 1000;
      jax.tree.dispose(p);
      return s;
    };
    add(names.xor(cfg.xor.epochs), 's', () => {
      // a step costs jax-js a fixed ~10 ms here whatever its size: a run of 6000 takes over a
      // minute, so beyond 30 s the warm-up run (compilation included) is the one sample
      const probe = run(200) * (cfg.xor.epochs / 200);
      if (probe > 120)
        throw new Error(
          `a step costs jax-js ${((probe / cfg.xor.epochs) * 1000).toFixed(1)} ms here: ${cfg.xor.epochs} epochs would take about ${Math.round(probe)} s (estimated from 200 steps; not run)`,
        );
      const warm = run();
      return warm > 30 ? [warm] : Array.from({ length: repeatsAfter(warm, cfg) }, () => run());
    });
    x.dispose();
    y.dispose();
  }
  return out;
}
