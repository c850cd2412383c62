import { xor } from '../../data/generated.js';
import { mse } from '../../nn/loss.js';
import { parseSpec } from '../../catalogue/index.js';
import { Trainer } from '../../train/trainer.js';
import { checkDropProbability } from '../../nn/markov/dropout.js';

/** Seed 000, exercise 2: two Para layers (dense + sigmoid) with a dropout lens between them. */
export const exercise2Spec = (p: number, hidden = 8): string =>
  p > 0 ? `dense(2,${hidden}) >> sigmoid >> dropout(${p}) >> dense(${hidden},1) >> sigmoid` : `dense(2,${hidden}) >> sigmoid >> dense(${hidden},1) >> sigmoid`;

export interface Exercise2Result {
  readonly stochasticSpec: string;
  readonly deterministicSpec: string;
  /** Training loss (mean MSE over the epoch's per-sample steps, masks sampled) per epoch. */
  readonly stochastic: number[];
  readonly deterministic: number[];
  /** MSE of the trained networks in evaluation mode (dropout = identity). */
  readonly evalLoss: { stochastic: number; deterministic: number };
  /** Evaluation-mode predictions on the four XOR inputs. */
  readonly predictions: { stochastic: number[]; deterministic: number[] };
}

/**
 * Exercise 2 of seed 000: dense >> sigmoid >> dropout(p) >> dense >> sigmoid trained on XOR by
 * per-sample SGD (as the seed trains), next to the same network without dropout from the same
 * initial parameters (the dropout layer has none, so θ₀ is shared). The stochastic curve is
 * noisier and stays higher: each step trains a random subnetwork.
 */
export function exercise2(opts: { p?: number; epochs?: number; lr?: number; seed?: number; hidden?: number } = {}): Exercise2Result {
  const p = opts.p ?? 0.2,
    epochs = opts.epochs ?? 3000,
    lr = opts.lr ?? 0.5,
    seed = opts.seed ?? 0,
    hidden = opts.hidden ?? 8;
  checkDropProbability(p);
  const data = xor();
  const run = (spec: string): { curve: number[]; trainer: Trainer } => {
    const trainer = new Trainer(parseSpec(spec), data, { loss: mse, lr, batch: 1, seed });
    const curve: number[] = [];
    for (let e = 0; e < epochs; e++) curve.push(trainer.runEpoch().loss);
    return { curve, trainer };
  };
  const sto = run(exercise2Spec(p, hidden)),
    det = run(exercise2Spec(0, hidden));
  const preds = (t: Trainer): number[] => Array.from(t.model.run(t.theta, data.x).data);
  return {
    stochasticSpec: exercise2Spec(p, hidden),
    deterministicSpec: exercise2Spec(0, hidden),
    stochastic: sto.curve,
    deterministic: det.curve,
    evalLoss: { stochastic: sto.trainer.evaluate(data).loss, deterministic: det.trainer.evaluate(data).loss },
    predictions: { stochastic: preds(sto.trainer), deterministic: preds(det.trainer) },
  };
}
