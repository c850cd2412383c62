import type { Dataset } from '../../data/dataset.js';
import { bce } from '../../nn/loss.js';
import { parseSpec } from '../../catalogue/index.js';
import { train } from '../../train/train.js';
import { applyUnary } from '../../tensor/js-backend.js';
import type { Tensor } from '../../tensor/tensor.js';
import { invarianceDefect } from '../../colimit/permute.js';
import { closePairSets, discMajoritySets, setSizes } from '../../colimit/sets.js';
import type { SetTaskOptions } from '../../colimit/sets.js';

export type SetTask = 'disc-majority' | 'close-pair';

/** The DeepSets model of the set task: φ per point, masked mean pool, ρ. */
export const DEEPSETS_SPEC = 'masked_map(dense(2,32) >> relu >> dense(32,32) >> relu) >> masked_mean_pool >> dense(32,16) >> relu >> dense(16,1)';
/** For close-pair, sum pooling: the set size (the number of pairs) matters. */
export const DEEPSETS_SUM_SPEC = 'masked_map(dense(2,32) >> relu >> dense(32,32) >> relu) >> masked_sum_pool >> dense(32,16) >> relu >> dense(16,1)';

const tasks: Record<SetTask, { make: (o: SetTaskOptions) => Dataset; spec: string }> = {
  'disc-majority': { make: discMajoritySets, spec: DEEPSETS_SPEC },
  'close-pair': { make: closePairSets, spec: DEEPSETS_SUM_SPEC },
};

export const setTaskNames = (): SetTask[] => Object.keys(tasks) as SetTask[];
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
  task?: SetTask;
  seed?: number;
  trainSets?: number;
  testSets?: number;
  epochs?: number;
  maxSize?: number;
  lr?: number;
}

/**
 * The held-out accuracy of the best rule "label = 1 iff the set has at least (or at most) s
 * points", s chosen on the training sets: what the set size alone tells.
 */
export function sizeBaseline(train: Dataset, test: Dataset): number {
  const score = (ds: Dataset, s: number, above: boolean): number => {
    const sizes = setSizes(ds.x);
    let ok = 0;
    sizes.forEach((n, i) => ((above ? n >= s : n <= s) ? 1 : 0) === ds.labels![i] && ok++);
    return ok / sizes.length;
  };
  const n = train.x.shape[1]!;
  let best = { s: 0, above: true, acc: -1 };
  for (let s = 0; s <= n + 1; s++)
    for (const above of [true, false]) {
      const acc = score(train, s, above);
      if (acc > best.acc) best = { s, above, acc };
    }
  return score(test, best.s, best.above);
}

const sigmoid = (v: number): number => applyUnary('sigmoid', v);
const flat = (ds: Dataset): Dataset => ({ ...ds, x: ds.x.reshape([ds.x.batch, ds.x.size / ds.x.batch]) });

/**
 * DeepSets against an MLP on the zero-padded concatenation, on a set task (see sets.ts): both trained with Adam (lr 0.01, batch 64, BCE on logits) on the same
 * sets; held-out accuracy and the permutation-invariance defect of each.
 */
export function compareOnSets(opts: SetExperimentOptions = {}): {
  task: SetTask;
  deepsets: SetModelReport;
  mlp: SetModelReport;
  trainSets: number;
  testSets: number;
  maxSize: number;
  positiveRate: number;
  sizeBaseline: number;
} {
  const task = opts.task ?? 'disc-majority';
  const { make, spec } = tasks[task];
  const seed = opts.seed ?? 0,
    maxSize = opts.maxSize ?? 12;
  const trainSets = opts.trainSets ?? 2000,
    testSets = opts.testSets ?? 1000,
    epochs = opts.epochs ?? 40;
  const trainDs = make({ count: trainSets, maxSize, seed });
  const testDs = make({ count: testSets, maxSize, seed: seed + 1_000_003 });
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
  const ds = parseSpec(spec).at([maxSize, 3]);
  const deepsets = run(spec, trainDs, testDs, (theta) => (x) => ds.run(theta, x));
  const mlp = parseSpec(mlpSpec(maxSize));
  const mlpReport = run(mlpSpec(maxSize), flat(trainDs), flat(testDs), (theta) => (x) => mlp.run(theta, x.reshape([x.batch, x.size / x.batch])));
  const positiveRate = testDs.labels!.reduce((a, b) => a + b, 0) / testSets;
  return { task, deepsets, mlp: mlpReport, trainSets, testSets, maxSize, positiveRate, sizeBaseline: sizeBaseline(trainDs, testDs) };
}
