/**
 * The GPU workloads side by side in ONE run (bench/gpu.sh): paralens's webgpu backend,
 * jax-js 0.1.25 on its WebGPU device, and TensorFlow.js's WebGPU backend
 * (@tensorflow/tfjs-backend-webgpu, skipped with a message when it is not installed), on the
 * same Dawn adapter in Node: matmul n³ (default 1024, 2048, 4096), MLP 784-256-256-10 and CNN
 * training (paralens and jax-js), and the char transformer (bench/workloads.ts: 2 blocks of
 * d 64, T 64, batch 32, Adam; paralens and TF.js, whose model is bench/tfjs-transformer.ts).
 * On SwiftShader every number is a CPU emulation's and is printed as such.
 *
 *   node dist/bench/gpu.js [--sizes 1024,2048,4096] [--repeats 5] [--transformer-steps 5] [--json]
 */
import { tfjsCharTransformer } from './tfjs-transformer.js';
import { benchWebGpu, gpuSystem, startWebGpu } from './webgpu.js';
import { fill, median, names } from './workloads.js';
import type { CharTransformerConfig, Measurement } from './workloads.js';
import { markdownTable } from './report.js';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const sizes = (arg('sizes') ?? '1024,2048,4096').split(',').map(Number);
const repeats = Number(arg('repeats') ?? 5);
const log = (s: string): void => void process.stderr.write(s + '\n');
const MLP = { batch: 128, steps: 20 },
  CNN = { batch: 64, steps: 5 };
const CHAR: CharTransformerConfig = {
  vocab: 96,
  d: 64,
  heads: 4,
  ff: 256,
  blocks: 2,
  pos: 'rope',
  context: 64,
  batch: 32,
  steps: Number(arg('transformer-steps') ?? 5),
  lr: 0.003,
};

/** Times `run` (which resolves when the device is done) `repeats` times after a warm-up; GFLOP/s or samples/s from `work`. */
async function timed(work: number, run: () => Promise<void>): Promise<number[]> {
  await run();
  const out: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t = performance.now();
    await run();
    out.push(work / ((performance.now() - t) / 1000));
  }
  return out;
}

/** jax-js on its WebGPU device (navigator.gpu is Dawn's GPU in Node): matmul and the MLP's training step (jit of value-and-grad, then SGD). */
async function benchJax(skipped: string[]): Promise<Measurement[]> {
  const out: Measurement[] = [];
  const system = 'jax-js 0.1.25 webgpu';
  try {
    const jax = await import('@jax-js/jax');
    const got = await jax.init('webgpu');
    if (!got.includes('webgpu')) throw new Error('jax-js found no WebGPU device');
    jax.defaultDevice('webgpu');
    const np = jax.numpy;
    for (const n of sizes) {
      const a = np.array(fill(n * n, 1)).reshape([n, n]),
        b = np.array(fill(n * n, 2)).reshape([n, n]);
      const samples = await timed((2 * n ** 3) / 1e9, async () => {
        await jax.blockUntilReady(np.matmul(a.ref, b.ref)).then((c) => c.dispose());
      });
      out.push({ workload: names.matmul(n), system, value: median(samples), unit: 'GFLOP/s', samples });
      log(`  ${system} ${names.matmul(n)} ${median(samples).toPrecision(4)} GFLOP/s`);
    }
    // the MLP: params as a tree, one jitted value-and-grad per step, SGD by tree.map
    const dims = [784, 256, 256, 10],
      B = MLP.batch;
    let p: Record<string, InstanceType<typeof jax.Array>> = {};
    dims.slice(1).forEach((d, i) => {
      p[`w${i}`] = np
        .array(fill(dims[i]! * d, 10 + i))
        .reshape([dims[i]!, d])
        .mul(0.1);
      p[`b${i}`] = np.zeros([d]);
    });
    const loss = (q: typeof p, x: InstanceType<typeof jax.Array>, y: InstanceType<typeof jax.Array>) => {
      let h = x;
      for (let i = 0; i < 3; i++) {
        h = np.matmul(h, q[`w${i}`]!).add(q[`b${i}`]!);
        if (i < 2) h = jax.nn.relu(h);
      }
      return jax.nn
        .logSoftmax(h)
        .mul(y)
        .sum()
        .mul(-1 / B);
    };
    const step = jax.jit(jax.valueAndGrad(loss));
    const xs = np.array(fill(B * 784, 3)).reshape([B, 784]);
    const ys = jax.nn.oneHot(
      np.array(
        Int32Array.from({ length: B }, (_, i) => i % 10),
        { dtype: np.int32 },
      ),
      10,
    );
    const samples = await timed(MLP.batch * MLP.steps, async () => {
      for (let s = 0; s < MLP.steps; s++) {
        const [l, g] = step(jax.tree.ref(p), xs.ref, ys.ref);
        p = jax.tree.map((w: InstanceType<typeof jax.Array>, d: InstanceType<typeof jax.Array>) => w.sub(d.mul(0.01)), p, g) as typeof p;
        l.dispose();
      }
      await jax.blockUntilReady(p);
    });
    out.push({ workload: names.mlp(B), system, value: median(samples), unit: 'samples/s', samples });
    log(`  ${system} ${names.mlp(B)} ${median(samples).toPrecision(4)} samples/s`);
  } catch (e) {
    skipped.push(`${system}: ${(e as Error).message.split('\n')[0]}`);
    log(`  skipping ${system}: ${(e as Error).message.split('\n')[0]}`);
  }
  return out;
}

/** TensorFlow.js on @tensorflow/tfjs-backend-webgpu, when installed: matmul and the char transformer. */
async function benchTfjsWebGpu(skipped: string[]): Promise<Measurement[]> {
  const system = 'TF.js webgpu';
  const specifier = '@tensorflow/tfjs-backend-webgpu';
  const out: Measurement[] = [];
  try {
    const tf = (await import('@tensorflow/tfjs')) as typeof import('@tensorflow/tfjs');
    await import(/* @vite-ignore */ specifier).catch(() => {
      throw new Error(`${specifier} is not installed (npm install -D ${specifier}@4.22.0)`);
    });
    if (!(await tf.setBackend('webgpu'))) throw new Error('tf.setBackend(webgpu) failed');
    for (const n of sizes) {
      const a = tf.tensor2d(fill(n * n, 1), [n, n]),
        b = tf.tensor2d(fill(n * n, 2), [n, n]);
      const samples = await timed((2 * n ** 3) / 1e9, async () => {
        const c = tf.matMul(a, b);
        await c.data();
        c.dispose();
      });
      out.push({ workload: names.matmul(n), system, value: median(samples), unit: 'GFLOP/s', samples });
      log(`  ${system} ${names.matmul(n)} ${median(samples).toPrecision(4)} GFLOP/s`);
      tf.dispose([a, b]);
    }
    // a WebGPU backend reads back asynchronously only (its readSync needs a canvas)
    const m = tfjsCharTransformer(tf, CHAR);
    const samples = await timed(m.tokens, async () => {
      m.epoch();
      await m.probe.data();
    });
    m.dispose();
    out.push({ workload: names.charTransformer(CHAR), system, value: median(samples), unit: 'tokens/s', samples });
    log(`  ${system} ${names.charTransformer(CHAR)} ${median(samples).toPrecision(4)} tokens/s`);
  } catch (e) {
    skipped.push(`${system}: ${(e as Error).message.split('\n')[0]}`);
    log(`  skipping ${system}: ${(e as Error).message.split('\n')[0]}`);
  }
  return out;
}

async function main(): Promise<void> {
  const skipped: string[] = [];
  const be = await startWebGpu(log);
  if (!be) throw new Error('no WebGPU adapter: nothing to measure');
  log(
    `adapter: ${be.device.label}${be.device.emulated ? ' — SwiftShader, a CPU emulation: these numbers check that everything runs, they are not GPU speeds' : ''}`,
  );
  const results = await benchWebGpu(be, { matmulSizes: sizes, mlp: MLP, cnn: CNN, charTransformer: CHAR, repeats }, skipped, log);
  // the peers find Dawn where a browser has its WebGPU: navigator.gpu and the GPU* globals
  const dawn = (await import('webgpu')) as { create(o: string[]): unknown; globals: object };
  Object.assign(globalThis, dawn.globals);
  const gpu = dawn.create([]);
  if (!(globalThis as { navigator?: unknown }).navigator)
    Object.defineProperty(globalThis, 'navigator', { value: { gpu, userAgent: `Node.js ${process.version}` }, configurable: true });
  const peers = [...(await benchJax(skipped)), ...(await benchTfjsWebGpu(skipped))];
  // the peers ran on the same adapter: on SwiftShader their rows are an emulation's too
  results.push(...peers.map((m) => (be.device.emulated ? { ...m, system: `${m.system} (SwiftShader: CPU emulation)`, emulated: true } : m)));
  if (argv.includes('--json'))
    process.stdout.write(JSON.stringify({ adapter: be.device.label, emulated: be.device.emulated, system: gpuSystem(be), results, skipped }) + '\n');
  else
    process.stdout.write(
      `\nadapter: ${be.device.label}${be.device.emulated ? ' (CPU emulation)' : ''}\n\n${markdownTable(results)}\n\nskipped: ${skipped.join('; ') || 'nothing'}\n`,
    );
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`gpu bench failed: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
