/** Runs bench/torch_bench.py (PyTorch's side of the benchmark) in a child process. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchConfig, Measurement } from './workloads.js';

export const PYTHON = '/usr/bin/python3';

/** PyTorch's version, or undefined when `import torch` fails. */
export function torchVersion(): string | undefined {
  const r = spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * The environment PyTorch runs in: OpenBLAS told the core type (SkylakeX, unless the
 * environment already sets OPENBLAS_CORETYPE) and OpenMP threads told not to spin between
 * ops; the thread count is set inside the script with torch.set_num_threads.
 */
export function torchEnv(): NodeJS.ProcessEnv {
  return { ...process.env, OPENBLAS_CORETYPE: process.env.OPENBLAS_CORETYPE ?? 'SkylakeX', OMP_WAIT_POLICY: 'PASSIVE' };
}

export function benchTorch(threads: number, cfg: BenchConfig, log: (s: string) => void): Measurement[] {
  const script = fileURLToPath(new URL('../../bench/torch_bench.py', import.meta.url));
  const r = spawnSync(PYTHON, [script, '--threads', String(threads)], { input: JSON.stringify(cfg), env: torchEnv(), encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.stderr) log(r.stderr.trimEnd());
  if (r.status !== 0) throw new Error(`bench/torch_bench.py exited ${r.status}`);
  return JSON.parse(r.stdout) as Measurement[];
}
