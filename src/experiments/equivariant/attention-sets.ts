import type { Dataset } from '../../data/dataset.js';
import { closePairSets } from '../../colimit/sets.js';
import { invarianceDefect } from '../../colimit/permute.js';
import { parseSpec } from '../../catalogue/index.js';
import { bce } from '../../nn/loss.js';
import { applyUnary } from '../../tensor/js-backend.js';
import { train } from '../../train/train.js';
import { DEEPSETS_SUM_SPEC } from '../colimit/set-experiment.js';

/**
 * Attention derived for set(n) against DeepSets on a permutation task: n = 6 points uniform in
 * [0,1]², label 1 when two of them are closer than r = 0.12 (then about half the sets are
 * positive: 15 pairs, each close with probability ≈ πr²). The label is a function of pairs,
 * which attention's scores see directly and DeepSets' Σφ(x) has to encode; both models are
 * invariant under permutations of the points (the attention model by its derived kernels
 * αI + β11ᵀ and a mean pool), and the defect of each is measured.
 */
export const SET_TASK = { size: 6, radius: 0.12, trainSets: 4000, testSets: 2000 } as const;

/** The set attention model: a point embedding (a small MLP per point), two transformer blocks on set(6), a mean pool and one logit. */
export const SET_ATTENTION_SPEC = `map(dense(3,32) >> relu >> dense(32,32),${SET_TASK.size}) >> transformer(32,4,64,set(${SET_TASK.size})) >> transformer(32,4,64,set(${SET_TASK.size})) >> layernorm(32) >> mean_pool >> dense(32,1)`;

/** DeepSets at about the attention model's parameter count (φ and ρ three times wider). */
export const DEEPSETS_WIDE_SPEC = 'masked_map(dense(2,96) >> relu >> dense(96,96) >> relu) >> masked_sum_pool >> dense(96,64) >> relu >> dense(64,1)';

export const SET_MODELS = { attention: SET_ATTENTION_SPEC, deepsets: DEEPSETS_SUM_SPEC, 'deepsets-wide': DEEPSETS_WIDE_SPEC } as const;
export type SetModel = keyof typeof SET_MODELS;

export interface SetAttentionRow {
  readonly model: SetModel;
  readonly spec: string;
  readonly seed: number;
  readonly parameters: number;
  readonly trainAccuracy: number;
  readonly testAccuracy: number;
  /** Mean over held-out sets and 5 random permutations of |σ(f(πx)) − σ(f(x))|. */
  readonly invarianceDefect: number;
  readonly seconds: number;
}

/** The fixed-size close-pair sets of one seed: training and held-out (x [N, 6, 3] = (x₁, x₂, mask = 1)). */
export function setTaskData(seed: number): { train: Dataset; test: Dataset } {
  const opts = { maxSize: SET_TASK.size, minSize: SET_TASK.size, radius: SET_TASK.radius };
  return {
    train: closePairSets({ ...opts, count: SET_TASK.trainSets, seed }),
    test: closePairSets({ ...opts, count: SET_TASK.testSets, seed: seed + 1_000_003 }),
  };
}

/** Trains one model on one seed's sets with Adam (lr 3e-3, batch 64, BCE on the logit) and reports its accuracies and defect. */
export function setAttentionRun(model: SetModel, seed: number, epochs: number, lr = 3e-3): SetAttentionRow {
  const { train: tr, test: te } = setTaskData(seed);
  const spec = SET_MODELS[model];
  const f = parseSpec(spec).at([SET_TASK.size, 3]);
  const r = train(f, tr, { loss: bce, epochs, lr, optimizer: 'adam', batch: 64, seed, test: te, evalEvery: epochs });
  const sigmoid = (v: number): number => applyUnary('sigmoid', v);
  return {
    model,
    spec,
    seed,
    parameters: r.parameters,
    trainAccuracy: r.accuracy!,
    testAccuracy: r.testAccuracy!,
    invarianceDefect: invarianceDefect((x) => f.run(r.theta, x), te.x, { seed, post: sigmoid }),
    seconds: r.seconds,
  };
}
