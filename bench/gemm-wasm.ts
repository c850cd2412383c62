/**
 * GFLOP/s of n×n×n products C = op(A)·op(B) (A·B at every size, the other three transpose
 * variants at the largest) for the reference js backend and the wasm backend — plain and
 * relaxed SIMD, 1 and 2 threads. Relaxed SIMD needs `node --experimental-wasm-relaxed-simd`
 * on Node 20; without it the relaxed columns are skipped with a message.
 *
 * Then the per-call cost of small kernels, and the small-model check: the seed's XOR
 * (2-4-4-1, batch 4, 6000 epochs), whose calls are all below the wasm backend's size
 * thresholds, must not be slower on 'wasm' than on 'js'.
 *
 *   node [--experimental-wasm-relaxed-simd] dist/bench/gemm-wasm.js [--sizes 128,256,512,1024] [--best] [--json]
 */
import { loadavg } from 'node:os';
import type { Backend } from '../src/tensor/backend.js';
import { setBackend } from '../src/tensor/registry.js';
import { parseSpec } from '../src/catalogue/index.js';
import { mse } from '../src/nn/index.js';
import { xor } from '../src/data/index.js';
import { train } from '../src/train/index.js';
import { jsBackend } from '../src/tensor/js-backend.js';
import { createWasmBackend } from '../src/tensor/wasm-backend.js';
import type { WasmBackend } from '../src/tensor/wasm-backend.js';
import { relaxedSimdSupported } from '../src/tensor/wasm/instance.js';

export interface GemmTiming {
  backend: string;
  transA: boolean;
  transB: boolean;
  size: number;
  /** Wall-clock GFLOP/s (median sample). */
  gflops: number;
  /** Wall-clock GFLOP/s of the fastest sample: on a shared machine, the moments both cores were free. */
  bestGflops: number;
  seconds: number;
  /** GFLOP per CPU-second of this process (all its threads), median sample: the speed while scheduled, which other load on the machine does not lower. */
  cpuGflops: number;
}

/** GFLOP/s of backend.gemm on n×n×n float32: `samples` samples of ≥ `sampleSeconds` of work each. */
export function timeGemm(be: Backend, n: number, transA = false, transB = false, samples = 5, sampleSeconds = 0.2): GemmTiming {
  const a = new Float32Array(n * n),
    b = new Float32Array(n * n),
    c = new Float32Array(n * n);
  for (let i = 0; i < a.length; i++) {
    a[i] = ((i * 7919) % 1000) / 1000 - 0.5;
    b[i] = ((i * 104729) % 1000) / 1000 - 0.5;
  }
  const flops = 2 * n * n * n;
  be.gemm(transA, transB, n, n, n, a, b, c, false); // warm-up
  const t0 = performance.now();
  be.gemm(transA, transB, n, n, n, a, b, c, false);
  const once = Math.max(1e-6, (performance.now() - t0) / 1000);
  const reps = Math.max(1, Math.round(sampleSeconds / once));
  const times: number[] = [],
    cpu: number[] = [];
  for (let s = 0; s < samples; s++) {
    const t = performance.now(),
      u = process.cpuUsage();
    for (let r = 0; r < reps; r++) be.gemm(transA, transB, n, n, n, a, b, c, false);
    times.push((performance.now() - t) / 1000 / reps);
    const du = process.cpuUsage(u);
    cpu.push((du.user + du.system) / 1e6 / reps);
  }
  const median = (xs: number[]): number => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const seconds = median(times);
  return {
    backend: be.name,
    transA,
    transB,
    size: n,
    gflops: flops / seconds / 1e9,
    bestGflops: flops / times[0]! / 1e9,
    seconds,
    cpuGflops: flops / median(cpu) / 1e9,
  };
}

/** Median CPU microseconds per call of f (after a warm-up), 5 samples of `reps` calls. */
function perCall(f: () => void, reps: number): number {
  for (let i = 0; i < reps; i++) f();
  const xs: number[] = [];
  for (let s = 0; s < 5; s++) {
    const u = process.cpuUsage();
    for (let i = 0; i < reps; i++) f();
    const d = process.cpuUsage(u);
    xs.push((d.user + d.system) / reps);
  }
  return xs.sort((x, y) => x - y)[2]!;
}

/**
 * Per-call cost of small kernels on js and on a wasm backend with no size thresholds: where
 * the copy into wasm memory outweighs the arithmetic (the thresholds in wasm-backend.ts).
 */
export function smallCallCosts(eager: Backend): { call: string; jsMicros: number; wasmMicros: number }[] {
  const rows: { call: string; jsMicros: number; wasmMicros: number }[] = [];
  for (const d of [2, 4, 8, 16]) {
    const a = new Float32Array(d * d).fill(0.5),
      c = new Float32Array(d * d);
    const call = (be: Backend) => () => be.gemm(false, true, d, d, d, a, a, c, false);
    rows.push({ call: `gemm ${d}×${d}×${d}`, jsMicros: perCall(call(jsBackend), 20000), wasmMicros: perCall(call(eager), 20000) });
  }
  for (const op of ['relu', 'sigmoid'] as const) {
    for (const n of [64, 256, 1024]) {
      const x = Float32Array.from({ length: n }, (_, i) => Math.sin(i)),
        y = new Float32Array(n);
      const call = (be: Backend) => () => be.unary(op, x, y);
      rows.push({ call: `${op} n=${n}`, jsMicros: perCall(call(jsBackend), 20000), wasmMicros: perCall(call(eager), 20000) });
    }
  }
  return rows;
}

/**
 * Median CPU milliseconds of the seed's XOR training on each backend (CPU time, so that other
 * jobs on the machine do not blur a small difference), runs alternating in order.
 */
export function timeXor(backends: readonly Backend[], runs = 21): Record<string, number> {
  const spec = parseSpec('dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid');
  const times = new Map<string, number[]>(backends.map((b) => [b.name, []]));
  for (let r = 0; r < runs; r++) {
    for (const be of r % 2 ? backends : [...backends].reverse()) {
      setBackend(be);
      const u = process.cpuUsage();
      train(spec, xor(), { loss: mse, epochs: 6000, lr: 0.5, batch: 4, seed: 0 });
      const d = process.cpuUsage(u);
      times.get(be.name)!.push((d.user + d.system) / 1000);
    }
  }
  setBackend(jsBackend);
  return Object.fromEntries([...times].map(([name, ts]) => [name, ts.sort((x, y) => x - y)[Math.floor(ts.length / 2)]!]));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const si = args.indexOf('--sizes');
  const sizes = si >= 0 ? args[si + 1]!.split(',').map(Number) : [128, 256, 512, 1024];
  // --best: 15 short samples, and the fastest one printed instead of the median (a loaded machine)
  const best = args.includes('--best');
  const [samples, sampleSeconds] = best ? [15, 0.05] : [5, 0.2];
  const wall = (r: GemmTiming): number => (best ? r.bestGflops : r.gflops);
  const log = (s: string): void => void (json ? process.stderr : process.stdout).write(s + '\n');
  const backends: Backend[] = [jsBackend];
  const wasm: WasmBackend[] = [];
  const flavours: ('plain' | 'relaxed')[] = ['plain'];
  if (relaxedSimdSupported()) flavours.push('relaxed');
  else log('relaxed SIMD: not supported by this runtime (Node 20: run with --experimental-wasm-relaxed-simd); skipped');
  for (const simd of flavours) {
    for (const threads of [1, 2]) {
      const be = await createWasmBackend({ simd, threads, name: `wasm-${simd}-${threads}t`, minGemmVolume: 0 });
      wasm.push(be);
      backends.push(be);
    }
  }
  const results: GemmTiming[] = [];
  log(
    `node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other processes share these cores)`,
  );
  log(`size  ${backends.map((b) => b.name.padStart(16)).join('')}   (wall GFLOP/s (per CPU-second), A·B, ${best ? 'wall: best of 15' : 'median of 5'})`);
  for (const n of sizes) {
    const row = backends.map((b) => (b === jsBackend && n > 512 ? undefined : timeGemm(b, n, false, false, b === jsBackend ? 3 : samples, sampleSeconds)));
    for (const r of row) if (r) results.push(r);
    log(`${String(n).padEnd(6)}${row.map((r) => (r ? `${wall(r).toFixed(1)} (${r.cpuGflops.toFixed(1)})` : '-').padStart(16)).join('')}`);
  }
  const big = sizes[sizes.length - 1]!;
  for (const [tA, tB] of [
    [true, false],
    [false, true],
    [true, true],
  ] as const) {
    const row = backends.slice(1).map((b) => timeGemm(b, big, tA, tB, samples, sampleSeconds));
    results.push(...row);
    log(`${big} ${tA ? 'Aᵀ' : 'A'}·${tB ? 'Bᵀ' : 'B'}`.padEnd(22) + row.map((r) => `${wall(r).toFixed(1)} (${r.cpuGflops.toFixed(1)})`.padStart(16)).join(''));
  }
  const shares = wasm
    .filter((b) => b.threads > 1)
    .map((b) => {
      const st = b.threadStats();
      return `${b.name} ${((100 * st.chunksByWorkers) / Math.max(1, st.chunks)).toFixed(0)}%`;
    });
  if (shares.length) log(`share of the chunks of shared products run by the worker thread: ${shares.join(', ')}`);
  const eager = await createWasmBackend({ threads: 1, name: 'wasm-eager', minGemmVolume: 0, minElements: 0 });
  const small = smallCallCosts(eager);
  log('small calls, CPU µs per call (js / wasm without size thresholds):');
  log(small.map((r) => `  ${r.call.padEnd(16)} ${r.jsMicros.toFixed(2).padStart(7)} / ${r.wasmMicros.toFixed(2)}`).join('\n'));
  const defaultWasm = await createWasmBackend();
  const xorMs = timeXor([jsBackend, defaultWasm]);
  log(`XOR 2-4-4-1, batch 4, 6000 epochs, CPU ms (median of 21): js ${xorMs['js']!.toFixed(1)}, wasm ${xorMs['wasm']!.toFixed(1)}`);
  for (const b of [...wasm, eager, defaultWasm]) b.dispose();
  if (json) process.stdout.write(JSON.stringify({ node: process.version, loadavg: loadavg(), results, small, xorMs }) + '\n');
}

const entry = process.argv[1] ?? '';
if (entry.endsWith('gemm-wasm.js') || entry.endsWith('gemm-wasm.ts')) await main();
