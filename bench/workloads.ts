/**
 * The workloads of `npm run bench`, defined once and handed unchanged to every system
 * (paralens on each backend, TensorFlow.js cpu and wasm, PyTorch via bench/torch_bench.py),
 * so that every system runs the same shapes, batch sizes and number of steps.
 */
export interface BenchConfig {
  /** Timed repeats per measurement; the median is reported. */
  repeats: number;
  /** n for the n×n×n float32 products. */
  matmulSizes: number[];
  /** Minimum seconds of work per matmul sample (the number of products per sample is calibrated to it). */
  matmulSeconds: number;
  /** MLP 784-256-256-10 (ReLU), softmax cross-entropy, plain SGD: one entry per batch size. */
  mlp: { dims: number[]; lr: number; runs: { batch: number; steps: number }[] };
  /** The small CNN on [1,28,28] images: conv(1→8,3,pad 1) relu maxpool2 conv(8→16,3,pad 1) relu maxpool2 flatten dense(784,10). */
  conv: { batch: number; steps: number; lr: number };
  /** Seed 000's XOR: 2-4-4-1 sigmoid, MSE, full-batch SGD. */
  xor: { epochs: number; lr: number };
  /** The Fashion-MNIST MLP 784-256-256-10 epoch (60 000 images, SGD): by the Trainer in this process and by the `paralens train` command. */
  fashion: { epochs: number; batch: number; lr: number };
  /**
   * A character-level transformer: embedding(vocab,d) >> transformer(d,heads,ff,pos) × blocks >>
   * layernorm(d) >> dense(d,vocab), Adam, `batch` windows of `context` token ids per step
   * (synthetic ids: the speed does not depend on the text), token cross-entropy.
   */
  charTransformer: CharTransformerConfig;
  /**
   * A character-level LSTM: embedding(vocab,d) >> lstm(d,h) >> dense(h,vocab), Adam, `batch`
   * windows of `context` token ids per step (synthetic ids), token cross-entropy — issue 30's row.
   */
  charLstm: CharLstmConfig;
  /** SEGNN on N-body-sized clouds (nbodySpec('segnn'): 4 × e3_conv, 32x0e+32x1o, lmax 1, on 5 points), Adam, MSE: `clouds` synthetic clouds per epoch, `batch` per step. */
  segnn: { clouds: number; batch: number; lr: number };
  /** Run only the workloads whose names contain this (`npm run bench -- --only transformer`); all when absent. */
  only?: string;
}

export interface CharTransformerConfig {
  vocab: number;
  d: number;
  heads: number;
  ff: number;
  blocks: number;
  pos: string;
  context: number;
  batch: number;
  steps: number;
  lr: number;
}

export interface CharLstmConfig {
  vocab: number;
  d: number;
  h: number;
  context: number;
  batch: number;
  steps: number;
  lr: number;
}

/** The char LSTM as a paralens spec (or, with `cell`, the same model around another recurrent cell). */
export function charLstmSpec(c: CharLstmConfig, cell: 'lstm' | 'mgu' = 'lstm'): string {
  return `embedding(${c.vocab},${c.d}) >> ${cell}(${c.d},${c.h}) >> dense(${c.h},${c.vocab})`;
}

/** The char transformer as a paralens spec. */
export function charTransformerSpec(c: CharTransformerConfig): string {
  return [
    `embedding(${c.vocab},${c.d})`,
    ...Array.from({ length: c.blocks }, () => `transformer(${c.d},${c.heads},${c.ff},${c.pos})`),
    `layernorm(${c.d})`,
    `dense(${c.d},${c.vocab})`,
  ].join(' >> ');
}

/** Token ids in 0 … vocab−1 for `windows` windows of context + 1 (inputs and next-token targets), from `fill`. */
export function tokenWindows(windows: number, c: Pick<CharTransformerConfig, 'vocab' | 'context'>, seed: number): Float32Array {
  return fill(windows * (c.context + 1), seed).map((v) => Math.min(c.vocab - 1, Math.floor((v + 0.5) * c.vocab)));
}

export function benchConfig(quick: boolean): BenchConfig {
  return quick
    ? {
        repeats: 3,
        matmulSizes: [128, 256, 512],
        matmulSeconds: 0.05,
        mlp: {
          dims: [784, 256, 256, 10],
          lr: 0.01,
          runs: [
            { batch: 128, steps: 5 },
            { batch: 1, steps: 100 },
          ],
        },
        conv: { batch: 64, steps: 3, lr: 0.01 },
        xor: { epochs: 1000, lr: 0.5 },
        fashion: { epochs: 1, batch: 128, lr: 0.05 },
        charTransformer: { vocab: 96, d: 64, heads: 4, ff: 256, blocks: 2, pos: 'rope', context: 64, batch: 32, steps: 3, lr: 0.003 },
        charLstm: { vocab: 96, d: 64, h: 256, context: 64, batch: 32, steps: 3, lr: 0.003 },
        segnn: { clouds: 50, batch: 25, lr: 0.0005 },
      }
    : {
        repeats: 5,
        matmulSizes: [128, 256, 512, 1024],
        matmulSeconds: 0.2,
        mlp: {
          dims: [784, 256, 256, 10],
          lr: 0.01,
          runs: [
            { batch: 128, steps: 20 },
            { batch: 1, steps: 300 },
          ],
        },
        conv: { batch: 64, steps: 5, lr: 0.01 },
        xor: { epochs: 6000, lr: 0.5 },
        fashion: { epochs: 3, batch: 128, lr: 0.05 },
        charTransformer: { vocab: 96, d: 64, heads: 4, ff: 256, blocks: 2, pos: 'rope', context: 64, batch: 32, steps: 10, lr: 0.003 },
        charLstm: { vocab: 96, d: 64, h: 256, context: 64, batch: 32, steps: 10, lr: 0.003 },
        segnn: { clouds: 500, batch: 25, lr: 0.0005 },
      };
}

/** One measured number: `value` in `unit` (higher is better unless `unit` is 's'). */
export interface Measurement {
  workload: string;
  system: string;
  value: number;
  unit: 'GFLOP/s' | 'samples/s' | 'tokens/s' | 's';
  /** The per-repeat values the median was taken over. */
  samples: number[];
  /** Measured on an emulated device (SwiftShader): a correctness run, kept out of the speed-up tables. */
  emulated?: boolean;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Deterministic pseudo-random floats in [-0.5, 0.5) (the same recipe in every peer's driver). */
export function fill(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = s / 4294967296 - 0.5;
  }
  return out;
}

/** Workload names as they appear in the table. */
export const names = {
  matmul: (n: number) => `matmul ${n}³`,
  mlp: (batch: number) => `MLP 784-256-256-10 train, batch ${batch}`,
  conv: (batch: number) => `CNN (2 conv) train, batch ${batch}`,
  xor: (epochs: number) => `XOR 2-4-4-1, ${epochs} epochs`,
  fashionEpoch: (batch: number) => `Fashion-MNIST MLP 784-256-256-10 epoch, batch ${batch}`,
  fashionRun: (epochs: number, batch: number) => `Fashion-MNIST MLP 784-256-256-10, ${epochs} epochs with evaluation, batch ${batch}`,
  cliProcess: (epochs: number, what: 'wall' | 'CPU') => `paralens train process, ${epochs} Fashion-MNIST epoch${epochs === 1 ? '' : 's'}: ${what} time`,
  segnn: (batch: number) => `SEGNN 4×e3_conv (N-body) train, batch ${batch}`,
  charTransformer: (c: CharTransformerConfig) => `char transformer train (${c.blocks}×d${c.d}, T ${c.context}, batch ${c.batch})`,
  /** The derived seq attention against the hand-written relative one at the same parameters (issue 31: within 1.2× of relative's tokens/s). */
  derivedAttention: (c: CharTransformerConfig, pos: string) =>
    `derived seq attention vs relative: char transformer train, ${pos} (${c.blocks}×d${c.d}, T ${c.context}, batch ${c.batch})`,
  charLstm: (c: CharLstmConfig) => `char LSTM train (h ${c.h}, T ${c.context}, batch ${c.batch})`,
  /** The char LSTM's model and windows with MGU as the cell (its fused wasm kernels, src/tensor/wasm/assembly/mgu.ts). */
  charMgu: (c: CharLstmConfig) => `char MGU train (h ${c.h}, T ${c.context}, batch ${c.batch})`,
};

/** The two position parts the derived-attention rows compare: the kernels the solver derives for seq(T,causal), and relative(T − 1) (the same space, written by hand). */
export const derivedAttentionPositions = (c: CharTransformerConfig): string[] => [`seq(${c.context},causal)`, `relative(${c.context - 1})`];

/**
 * Runs one measurement for `system` and records its median in `out`; a workload the system
 * cannot run (e.g. a kernel TF.js-wasm lacks) is logged and listed in `skipped`, never faked.
 */
export function recorder(system: string, out: Measurement[], skipped: string[], log: (s: string) => void, only?: string) {
  return (workload: string, unit: Measurement['unit'], measure: () => number[]): void => {
    if (only !== undefined && !workload.includes(only)) return;
    try {
      const samples = measure();
      out.push({ workload, system, value: median(samples), unit, samples });
      log(`  ${system.padEnd(22)} ${workload.padEnd(40)} ${median(samples).toPrecision(4)} ${unit}`);
    } catch (e) {
      const why = `${system}: ${workload}: ${(e as Error).message.split('\n')[0]}`;
      skipped.push(why);
      log(`  skipping ${why}`);
    }
  };
}

/**
 * How many timed repeats follow a warm-up that took `warmSeconds`: the configured number,
 * but fewer (never below 3) when a system is so slow that they would take over a minute.
 */
export function repeatsAfter(warmSeconds: number, cfg: BenchConfig): number {
  return Math.max(Math.min(3, cfg.repeats), Math.min(cfg.repeats, Math.floor(60 / Math.max(1e-9, warmSeconds))));
}

/** Items per second of `run` (which handles `items` items and waits for them), timed after one warm-up run. */
export function ratesAfterWarmUp(run: () => void, items: number, cfg: BenchConfig): number[] {
  const t0 = performance.now();
  run();
  const repeats = repeatsAfter((performance.now() - t0) / 1000, cfg);
  const out: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t = performance.now();
    run();
    out.push(items / ((performance.now() - t) / 1000));
  }
  return out;
}
