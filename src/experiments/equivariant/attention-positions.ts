import { RangeArgError } from '../../errors.js';
import { vocabSize } from '../../data/text.js';
import type { TextCorpus } from '../../data/text.js';
import { attention } from '../../nn/attention.js';
import type { Mask } from '../../nn/attention.js';
import { makeCtx } from '../../para/para.js';
import { parseSpec } from '../../catalogue/index.js';
import { Rng } from '../../random/rng.js';
import { Tensor } from '../../tensor/tensor.js';
import { trainLanguageModel } from '../../train/language-model.js';
import { bitsPerChar, shiftDefect } from '../../train/text-metrics.js';

/**
 * Seed 001's thesis as an experiment: attention whose position mechanism is the answer of an
 * end (rope: SO(2); relative: translations; none: S(n)) against one that is not (absolute),
 * on the same model and data.
 */

/** The position mechanisms compared, the last the non-equivariant baseline. */
const POSITIONS = ['rope', 'relative', 'none', 'absolute'] as const;

const relDiff = (a: Tensor, b: Tensor): number => {
  let num = 0,
    den = 0;
  for (let i = 0; i < a.size; i++) {
    num += (a.data[i]! - b.data[i]!) ** 2;
    den += a.data[i]! ** 2;
  }
  return Math.sqrt(num / Math.max(den, 1e-300));
};

/**
 * The equivariance defects of one random attention layer per mechanism and mask (float64,
 * unit-scale weights, T = 8): ‖f_s(x) − f(x)‖/‖f(x)‖ for a shift s of every position, and
 * ‖f(σx) − σf(x)‖/‖f(x)‖ for a permutation σ of the sequence. A claimed symmetry shows as
 * rounding error; a broken one as a number of order one.
 */
export function layerDefects(seed = 0): { position: string; mask: Mask; shift: number; permutation: number }[] {
  const T = 8,
    d = 8,
    rng = new Rng(seed);
  const sigma = rng.shuffle(Array.from({ length: T }, (_, i) => i)) as number[];
  const permute = (x: Tensor): Tensor => {
    const y = Tensor.zeros(x.shape, x.dtype);
    for (let b = 0; b < x.batch; b++)
      for (let t = 0; t < T; t++) y.data.set(x.data.subarray((b * T + sigma[t]!) * d, (b * T + sigma[t]! + 1) * d), (b * T + t) * d);
    return y;
  };
  const out: { position: string; mask: Mask; shift: number; permutation: number }[] = [];
  for (const mask of ['none', 'causal'] as const) {
    for (const pos of ['rope', 'relative', 'none', 'absolute(32)']) {
      const f = attention(d, 2, pos, mask).at([T, d]);
      const theta = f.params.map((p) =>
        Tensor.of(
          Array.from({ length: p.shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
          p.shape,
          'float64',
        ),
      );
      const x = Tensor.of(
        Array.from({ length: 2 * T * d }, () => rng.normal()),
        [2, T, d],
        'float64',
      );
      const y = f.run(theta, x);
      const shifted = f.forward(theta, x, makeCtx({ positionOffset: 13 })).y;
      out.push({ position: pos, mask, shift: relDiff(y, shifted), permutation: relDiff(permute(y), f.run(theta, permute(x))) });
    }
  }
  return out;
}

export interface PositionStudyOptions {
  d: number;
  heads: number;
  ff: number;
  blocks: number;
  /** Training context T (absolute gets a table of T positions). */
  context: number;
  batch: number;
  steps: number;
  lr: number;
  seed: number;
  /** Evaluation contexts (validation bits per char at each): T and longer ones (length generalisation). */
  lengths: readonly number[];
  /** Characters of validation text to evaluate on (default: all). */
  valCharacters?: number;
}

export interface PositionStudyRow {
  position: string;
  spec: string;
  /** Validation bits per char at each evaluation context; null where the model cannot go (absolute beyond its table). */
  valBitsPerChar: Record<number, number | null>;
  /** shiftDefect at context T/2 with every window moved by T/2. */
  shiftDefect: number;
  tokensPerSecond: number;
}

/** The same model with each position mechanism trained on the same text, then evaluated at every length and for its shift defect. */
export function positionStudy(
  corpus: TextCorpus,
  opts: PositionStudyOptions,
  onStep?: (position: string, step: number, steps: number) => void,
): PositionStudyRow[] {
  if (opts.context < 2 || opts.context % 2) throw new RangeArgError(`the study's context must be even and ≥ 2, got ${opts.context}`);
  const V = vocabSize(corpus.vocabulary);
  const val = opts.valCharacters ? corpus.val.subarray(0, opts.valCharacters) : corpus.val;
  return POSITIONS.map((name) => {
    const pos = name === 'absolute' ? `absolute(${opts.context})` : name;
    const blocks = Array.from({ length: opts.blocks }, () => `transformer(${opts.d},${opts.heads},${opts.ff},${pos})`);
    const spec = [`embedding(${V},${opts.d})`, ...blocks, `layernorm(${opts.d})`, `dense(${opts.d},${V})`].join(' >> ');
    const r = trainLanguageModel(
      parseSpec(spec),
      { ...corpus, val },
      {
        context: opts.context,
        batch: opts.batch,
        steps: opts.steps,
        lr: opts.lr,
        optimizer: 'adam',
        seed: opts.seed,
        onStep: onStep && ((s, n) => onStep(pos, s, n)),
      },
    );
    const model = parseSpec(spec);
    const valBitsPerChar: Record<number, number | null> = {};
    for (const T of opts.lengths)
      valBitsPerChar[T] = name === 'absolute' && T > opts.context ? null : T === opts.context ? r.valBitsPerChar : bitsPerChar(model, r.theta, val, T, V);
    const half = opts.context / 2;
    return { position: pos, spec, valBitsPerChar, shiftDefect: shiftDefect(model, r.theta, val, half, V, half), tokensPerSecond: r.tokensPerSecond };
  });
}
