import { xor } from '../../data/generated.js';
import { Rng } from '../../random/rng.js';
import { mse } from '../../nn/loss.js';
import { seq } from '../../para/composite.js';
import { parseSpec } from '../../catalogue/index.js';
import { Tensor } from '../../tensor/tensor.js';
import { train } from '../../train/train.js';
import { Trainer } from '../../train/trainer.js';
import { adapter } from '../../nn/natural/adapter.js';
import { gaussianNoise, identity, permuteFeatures, representationFunctor } from '../../natural/functor.js';
import type { InputMorphism } from '../../natural/functor.js';
import { naturalityDefect } from '../../natural/naturality.js';
import type { NaturalityReport } from '../../natural/naturality.js';
import { pairwiseDistances, spearman } from '../../linalg/rank.js';

/** The seed's XOR teacher: 2 → 4 → 4 → 1, sigmoid throughout. */
export const XOR_TEACHER = 'dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid';

/** x ↦ 1 − x on every feature: the bit flip of XOR's inputs (it permutes the four points). */
export const flipBits: InputMorphism = {
  name: 'flip bits',
  apply: (x) => {
    const y = x.clone();
    for (let i = 0; i < y.size; i++) y.data[i] = 1 - y.data[i]!;
    return y;
  },
};

export interface Exercise4Result {
  teacherLoss: number;
  lossBefore: number;
  lossAfter: number;
  steps: number;
  /** Spearman ρ of the 6 pairwise distances of the XOR inputs: teacher hidden vs adapter output, before and after. */
  rankCorrelationBefore: number;
  rankCorrelationAfter: number;
  /** Spearman ρ between the target (student) space and the learned adapter's output. */
  rankCorrelationTarget: number;
  /** Spearman ρ between the teacher's hidden space and the target P·h itself: the most the adapter can inherit. */
  rankCorrelationTeacherTarget: number;
  naturalityBefore: NaturalityReport[];
  naturalityAfter: NaturalityReport[];
  adapterWeight: number[];
  projection: number[];
}

/**
 * Exercise 4 of seed 000: learn the natural transformation η: F ⇒ G from the XOR
 * teacher's 4-dimensional hidden representation F to a 2-dimensional target G (a fixed
 * random linear projection P of the teacher's hidden layer), by gradient descent on
 * ‖η(h(x)) − P h(x)‖² through adapter(4,2)'s pullback. Reports the loss before and after,
 * whether the learned map preserves the pairwise structure of the four inputs (rank
 * correlation of pairwise distances) and the naturality defect along the input arrows
 * (swap the two inputs, flip the bits, add noise).
 */
export function exercise4(opts: { seed?: number; steps?: number; lr?: number } = {}): Exercise4Result {
  const seed = opts.seed ?? 0,
    steps = opts.steps ?? 2000,
    lr = opts.lr ?? 0.5;
  const data = xor();
  const teacher = train(parseSpec(XOR_TEACHER), data, { loss: mse, epochs: 6000, lr: 0.5, batch: 1, seed });
  const body = seq(...teacher.model.children.slice(0, 4)); // dense >> sigmoid >> dense >> sigmoid: the 4-dim hidden layer
  const bodyTheta = teacher.theta.slice(0, body.params.length);
  const x = data.x.to('float64');
  const h = body.run(bodyTheta, x).to('float64');
  const rng = new Rng(seed + 11);
  const P = Tensor.of(
    Array.from({ length: 8 }, () => rng.normal() / 2),
    [2, 4],
    'float64',
  );
  const proj = adapter(4, 2);
  const z = proj.run([P], h);
  const eta = adapter(4, 2);
  const theta = eta.init(seed + 12, 'float64');
  const lossOf = (): number => mse.apply(eta.run(theta, h), z).value;
  const rho = (): number => spearman(pairwiseDistances(h.data, 4), pairwiseDistances(eta.run(theta, h).data, 4));
  const F = representationFunctor('teacher hidden', body, bodyTheta);
  const G = representationFunctor('student (P·h)', seq(body, proj), [...bodyTheta, P]);
  const arrows = [identity, permuteFeatures([1, 0]), flipBits, gaussianNoise(0.05, seed)];
  const naturalityBefore = naturalityDefect(eta, theta, F, G, arrows, x);
  const lossBefore = lossOf(),
    rankCorrelationBefore = rho();
  // full-batch gradient descent on the four rows in order: one epoch of the core Trainer is one step
  const trainer = new Trainer(eta, { name: 'P·h', x: h, y: z }, { loss: mse, optimizer: 'sgd', lr, batch: 4, shuffle: false, theta });
  for (let s = 0; s < steps; s++) trainer.runEpoch();
  return {
    teacherLoss: teacher.finalLoss,
    lossBefore,
    lossAfter: lossOf(),
    steps,
    rankCorrelationBefore,
    rankCorrelationAfter: rho(),
    rankCorrelationTeacherTarget: spearman(pairwiseDistances(h.data, 4), pairwiseDistances(z.data, 4)),
    rankCorrelationTarget: spearman(pairwiseDistances(z.data, 4), pairwiseDistances(eta.run(theta, h).data, 4)),
    naturalityBefore,
    naturalityAfter: naturalityDefect(eta, theta, F, G, arrows, x),
    adapterWeight: Array.from(theta[0]!.data),
    projection: Array.from(P.data),
  };
}
