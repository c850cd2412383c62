import type { Dataset } from '../data/dataset.js';
import { bce } from '../nn/loss.js';
import { parseSpec } from '../para/spec.js';
import { train } from '../train/train.js';
import type { Tensor } from '../tensor/tensor.js';
import { invarianceDefect } from './permute.js';
import { discMajoritySets } from './sets.js';

/** The DeepSets model of the set task: φ per point, masked mean pool, ρ. */
export const DEEPSETS_SPEC = 'masked_map(dense(2,32) >> relu >> dense(32,32) >> relu) >> masked_mean_pool >> dense(32,16) >> relu >> dense(16,1)';
/** The baseline: an MLP on the zero-padded concatenation of the slots (mask columns included). */
export const mlpSpec = (slots: number): string => `dense(${slots * 3},64) >> relu >> dense(64,64) >> relu >> dense(64,1)`;

export interface SetModelReport {
  spec: string;
  parameters: number;
  trainAccuracy: number;
  testAccuracy: number;
  /** Mean over held-out sets and 5 random permutations of |σ(f(πx)) − σ(f(x))|. */
  invarianceDefect: number;
  seconds: number;
}

export interface SetExperimentOptions {
  seed?: number;
  trainSets?: number;
  testSets?: number;
  epochs?: number;
  maxSize?: number;
  lr?: number;
}

const sigmoid = (v: number): number => 1 / (1 + Math.exp(-v));
const flat = (ds: Dataset): Dataset => ({ ...ds, x: ds.x.reshape([ds.x.batch, ds.x.size / ds.x.batch]) });

/**
 * DeepSets against an MLP on the zero-padded concatenation, on the disc-majority set task
 * (see sets.ts): both trained with Adam (lr 0.01, batch 64, BCE on logits) on the same
 * sets; held-out accuracy and the permutation-invariance defect of each.
 */
export function compareOnSets(opts: SetExperimentOptions = {}): { deepsets: SetModelReport; mlp: SetModelReport; trainSets: number; testSets: number; maxSize: number } {
  const seed = opts.seed ?? 0, maxSize = opts.maxSize ?? 12;
  const trainSets = opts.trainSets ?? 2000, testSets = opts.testSets ?? 1000, epochs = opts.epochs ?? 40;
  const trainDs = discMajoritySets({ count: trainSets, maxSize, seed });
  const testDs = discMajoritySets({ count: testSets, maxSize, seed: seed + 1_000_003 });
  const run = (spec: string, tr: Dataset, te: Dataset, apply: (theta: Tensor[]) => (x: Tensor) => Tensor): SetModelReport => {
    const r = train(parseSpec(spec), tr, { loss: bce, epochs, lr: opts.lr ?? 0.01, optimizer: 'adam', batch: 64, seed, test: te, evalEvery: epochs });
    return {
      spec,
      parameters: r.parameters,
      trainAccuracy: r.accuracy!,
      testAccuracy: r.testAccuracy!,
      invarianceDefect: invarianceDefect(apply(r.theta), testDs.x, { seed, post: sigmoid }),
      seconds: r.seconds,
    };
  };
  const ds = parseSpec(DEEPSETS_SPEC).at([maxSize, 3]);
  const deepsets = run(DEEPSETS_SPEC, trainDs, testDs, (theta) => (x) => ds.run(theta, x));
  const mlp = parseSpec(mlpSpec(maxSize));
  const mlpReport = run(mlpSpec(maxSize), flat(trainDs), flat(testDs), (theta) => (x) => mlp.run(theta, x.reshape([x.batch, x.size / x.batch])));
  return { deepsets, mlp: mlpReport, trainSets, testSets, maxSize };
}
