import { builtInData } from '../src/data/registry.js';
import type { Dataset } from '../src/data/dataset.js';
import { bce, mse, softmaxCrossEntropy } from '../src/nn/loss.js';
import type { Loss } from '../src/nn/loss.js';
import '../src/nn/index.js';
import '../src/markov/index.js';
import { parseSpec } from '../src/para/index.js';
import type { Para } from '../src/para/para.js';
import { Trainer } from '../src/train/trainer.js';
import type { PlaygroundState } from './state.js';
import { gridPoints } from '../src/draw/grid.js';
import type { Box } from '../src/draw/grid.js';
import { makeCtx } from '../src/para/para.js';
import type { Rng } from '../src/markov/rng.js';
import type { Tensor } from '../src/tensor/tensor.js';

/** Grid resolution of the pictures (N×N points). */
export const N = 36;

/** Probability of class 1 (one logit output) or the predicted class scaled to [0,1] (several outputs). */
function toUnit(y: Tensor, i: number): number {
  const per = y.size / y.batch;
  if (per === 1) return 1 / (1 + Math.exp(-y.data[i]!));
  let best = 0;
  for (let c = 1; c < per; c++) if (y.data[i * per + c]! > y.data[i * per + best]!) best = c;
  return best / (per - 1);
}

/** The classifier χ over an N×N grid of the box (a stochastic pass when `training`). */
export function gridOf(model: Para, theta: readonly Tensor[], box: Box, training = false, rng?: Rng): Float32Array {
  const y = model.forward(theta, gridPoints(box, N), makeCtx({ training, rng })).y;
  return Float32Array.from({ length: N * N }, (_, i) => toUnit(y, i));
}

export interface Setup {
  model: Para;
  data: Dataset;
  loss: Loss;
  /** The initial parameters (seeded), as training will start from them. */
  theta: Tensor[];
}

/** The loss that suits a data set's targets (logit losses for classification). */
export function lossFor(data: Dataset): Loss {
  if (!data.labels) return mse;
  return data.y.size / data.y.batch === 1 ? bce : softmaxCrossEntropy;
}

/**
 * Builds the model and data of a state, or returns the error message the CLI would print
 * (a spec that does not parse, shapes that do not compose or do not fit the data).
 */
export function setup(state: PlaygroundState): Setup | { error: string } {
  try {
    const data = builtInData(state.data, state.seed);
    const model = parseSpec(state.model);
    const loss = lossFor(data);
    // the Trainer checks the model against the data's shapes, as `paralens train` does
    const t = new Trainer(model, data, { loss, lr: state.lr, optimizer: state.optimizer, batch: state.batch, seed: state.seed });
    return { model: t.model, data, loss, theta: t.theta };
  } catch (e) {
    return { error: (e as Error).message };
  }
}
