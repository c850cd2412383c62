/**
 * GFLOP/s of C = A·Bᵀ-style products (all four transpose variants are timed at the largest
 * size) for the reference js backend and the wasm backend — plain and relaxed SIMD, 1 and 2
 * threads. Relaxed SIMD needs `node --experimental-wasm-relaxed-simd` on Node 20; without it
 * the relaxed rows are skipped with a message.
 *
 *   node [--experimental-wasm-relaxed-simd] dist/bench/gemm-wasm.js [--sizes 128,256,512,1024] [--json]
 */
import { loadavg } from 'node:os';
import type { Backend } from '../src/tensor/backend.js';
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
  seconds: number;
  /** GFLOP per CPU-second of this process (all its threads), median sample: the speed while scheduled, which other load on the machine does not lower. */
  cpuGflops: number;
}

/** Median GFLOP/s of backend.gemm on n×n×n float32 (each sample ≥ ~0.2 s of work, `samples` samples). */
export function timeGemm(be: Backend, n: number, transA = false, transB = false, samples = 5): GemmTiming {
  const a = new Float32Array(n * n), b = new Float32Array(n * n), c = new Float32Array(n * n);
  for (let i = 0; i < a.length; i++) { a[i] = ((i * 7919) % 1000) / 1000 - 0.5; b[i] = ((i * 104729) % 1000) / 1000 - 0.5; }
  const flops = 2 * n * n * n;
  be.gemm(transA, transB, n, n, n, a, b, c, false); // warm-up
  const t0 = performance.now();
  be.gemm(transA, transB, n, n, n, a, b, c, false);
  const once = Math.max(1e-6, (performance.now() - t0) / 1000);
  const reps = Math.max(1, Math.round(0.2 / once));
  const times: number[] = [], cpu: number[] = [];
  for (let s = 0; s < samples; s++) {
    const t = performance.now(), u = process.cpuUsage();
    for (let r = 0; r < reps; r++) be.gemm(transA, transB, n, n, n, a, b, c, false);
    times.push((performance.now() - t) / 1000 / reps);
    const du = process.cpuUsage(u);
    cpu.push((du.user + du.system) / 1e6 / reps);
  }
  const median = (xs: number[]): number => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const seconds = median(times);
  return { backend: be.name, transA, transB, size: n, gflops: flops / seconds / 1e9, seconds, cpuGflops: flops / median(cpu) / 1e9 };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const si = args.indexOf('--sizes');
  const sizes = si >= 0 ? args[si + 1]!.split(',').map(Number) : [128, 256, 512, 1024];
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
  log(`node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (other processes share these cores)`);
  log(`size  ${backends.map((b) => b.name.padStart(16)).join('')}   (wall GFLOP/s (per CPU-second), A·B, median of 5)`);
  for (const n of sizes) {
    const row = backends.map((b) => (b === jsBackend && n > 512 ? undefined : timeGemm(b, n, false, false, b === jsBackend ? 3 : 5)));
    for (const r of row) if (r) results.push(r);
    log(`${String(n).padEnd(6)}${row.map((r) => (r ? `${r.gflops.toFixed(1)} (${r.cpuGflops.toFixed(1)})` : '-').padStart(16)).join('')}`);
  }
  const big = sizes[sizes.length - 1]!;
  for (const [tA, tB] of [[true, false], [false, true], [true, true]] as const) {
    const row = backends.slice(1).map((b) => timeGemm(b, big, tA, tB));
    results.push(...row);
    log(`${big} ${tA ? 'Aᵀ' : 'A'}·${tB ? 'Bᵀ' : 'B'}`.padEnd(22) + row.map((r) => `${r.gflops.toFixed(1)} (${r.cpuGflops.toFixed(1)})`.padStart(16)).join(''));
  }
  for (const b of wasm) b.dispose();
  if (json) process.stdout.write(JSON.stringify({ node: process.version, loadavg: loadavg(), results }) + '\n');
}

const entry = process.argv[1] ?? '';
if (entry.endsWith('gemm-wasm.js') || entry.endsWith('gemm-wasm.ts')) await main();
