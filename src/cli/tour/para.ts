import { xor } from '../../data/generated.js';
import { stratifiedSplit } from '../../data/dataset.js';
import { iris } from '../../data/registry.js';
import { mse, softmaxCrossEntropy } from '../../nn/loss.js';
import { parseSpec } from '../../catalogue/index.js';
import { train } from '../../train/train.js';
import type { TrainResult } from '../../train/train.js';
import { fmt, table } from '../progress.js';
import { stringDiagram } from '../../draw/diagram.js';
import { heatMap, linePlot } from '../../draw/plot.js';
import { gridValues } from '../../draw/grid.js';
import type { TourSection } from './section.js';

/** The seed's XOR network: input(2) → hidden(4) → hidden(4) → output(1), sigmoid throughout. */
export const XOR_SPEC = 'dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid';
export const XOR_RELU_SPEC = 'dense(2,4) >> relu >> dense(4,4) >> relu >> dense(4,1) >> sigmoid';

const trainedXorRuns = new Map<number, TrainResult>();
/** Seed 000's XOR recipe (XOR_SPEC, MSE, per-sample SGD, lr 0.5, 6000 epochs), trained once per seed for the sections that show it. */
export function trainedXor(seed: number): TrainResult {
  let r = trainedXorRuns.get(seed);
  if (!r) trainedXorRuns.set(seed, (r = train(parseSpec(XOR_SPEC), xor(), { loss: mse, epochs: 6000, lr: 0.5, batch: 1, seed })));
  return r;
}

/**
 * Exercise 1 of seed 000: epochs until the XOR loss falls below `target`, and the number of
 * dead ReLU units (hidden units that output 0 on all four inputs) at the end.
 */
export function epochsToTarget(
  spec: string,
  seed: number,
  opts: { lr: number; maxEpochs: number; target: number },
): { epochs: number | undefined; dead: number } {
  const r = train(parseSpec(spec), xor(), { loss: mse, lr: opts.lr, batch: 1, seed, epochs: opts.maxEpochs, targetLoss: opts.target });
  const reached = r.history[r.history.length - 1]!.loss < opts.target ? r.history.length : undefined;
  // hidden activations after each relu, factor by factor
  let dead = 0,
    h = xor().x,
    off = 0;
  for (const c of r.model.children) {
    h = c.run(r.theta.slice(off, off + c.params.length), h);
    off += c.params.length;
    if (c.kind !== 'relu') continue;
    const units = h.size / h.batch;
    for (let u = 0; u < units; u++) {
      let alive = false;
      for (let b = 0; b < h.batch; b++) if (h.data[b * units + u]! > 0) alive = true;
      if (!alive) dead++;
    }
  }
  return { epochs: reached, dead };
}

export const section: TourSection = {
  id: 'para',
  title: 'Para categories and lenses: layers, composition, backprop',
  async run({ seed }) {
    const lines: string[] = [];
    // XOR as in the seed: per-sample SGD, MSE, 6000 epochs
    const r = trainedXor(seed);
    const curves = [XOR_SPEC, XOR_RELU_SPEC].map((spec, i) =>
      train(parseSpec(spec), xor(), { loss: mse, epochs: 1500, lr: i ? 0.1 : 0.5, batch: 1, seed }).history.map((h) => h.loss),
    );
    const pred = r.model.run(r.theta, xor().x);
    lines.push(`XOR, ${XOR_SPEC}`);
    lines.push(`  per-sample SGD, lr 0.5, 6000 epochs in ${fmt(r.seconds, 3)} s; final MSE ${fmt(r.finalLoss)}`);
    lines.push(
      table(
        ['x1', 'x2', 'target', 'prediction'],
        [
          [0, 0, 0],
          [0, 1, 1],
          [1, 0, 1],
          [1, 1, 0],
        ].map((row, i) => [...row, fmt(pred.data[i]!)]),
      ),
    );

    // exercise 1: ReLU hidden layers vs all-sigmoid
    const seeds = [0, 1, 2, 3, 4];
    const opts = { lr: 0.5, maxEpochs: 6000, target: 0.01 };
    const ex = seeds.map((s) => ({
      seed: s,
      sigmoid: epochsToTarget(XOR_SPEC, s + seed, opts),
      relu: epochsToTarget(XOR_RELU_SPEC, s + seed, { ...opts, lr: 0.1 }),
    }));
    lines.push('');
    lines.push('Exercise 1: epochs to reach MSE < 0.01 (per-sample SGD; sigmoid lr 0.5, ReLU lr 0.1; — = not within 6000)');
    lines.push(
      table(
        ['seed', 'all-sigmoid', 'ReLU hidden', 'dead ReLU units (of 8)'],
        ex.map((e) => [e.seed + seed, e.sigmoid.epochs ?? '—', e.relu.epochs ?? '—', e.relu.dead]),
      ),
    );

    // Iris: 4 → 16 → 3, stratified 80/20
    const split = stratifiedSplit(iris(), 0.2, seed);
    const ir = train(parseSpec('dense(4,16) >> relu >> dense(16,3)'), split.train, {
      loss: softmaxCrossEntropy,
      epochs: 200,
      lr: 0.01,
      optimizer: 'adam',
      batch: 16,
      seed,
      test: split.test,
      evalEvery: 200,
    });
    lines.push('');
    lines.push(`Iris, dense(4,16) >> relu >> dense(16,3), softmax cross-entropy, Adam lr 0.01, batch 16, 200 epochs:`);
    lines.push(
      `  training accuracy ${fmt(ir.accuracy)}, held-out accuracy ${fmt(ir.testAccuracy)} (${split.train.x.batch}/${split.test.x.batch} rows, ${fmt(ir.seconds, 3)} s)`,
    );
    const figures = [
      {
        caption:
          'The seed XOR network as a string diagram in Para. What to see: data flows left to right, labelled with its shape; parameter wires (dashed) enter each dense box from above.',
        svg: stringDiagram(r.model),
      },
      {
        caption:
          'The trained XOR network over the input plane (blue: output 0, orange: 1), with the four training points in their target colours. What to see: each point sits in a region of its own colour — the network has learnt XOR.',
        svg: heatMap(gridValues(r.model, r.theta, { x0: -0.5, x1: 1.5, y0: -0.5, y1: 1.5 }), {
          title: 'XOR: χ(x) = network output',
          label: 'network output',
          points: [
            [0, 0, 0],
            [0, 1, 1],
            [1, 0, 1],
            [1, 1, 0],
          ].map(([x, y, l]) => ({ x: x!, y: y!, label: l! })),
        }),
      },
      {
        caption:
          'Exercise 1: XOR training loss on a log scale, all-sigmoid (lr 0.5) against ReLU hidden layers (lr 0.1), per-sample SGD. What to see: the long plateau of the sigmoid net before its loss falls, and where each curve ends.',
        svg: linePlot(
          [
            { name: 'all-sigmoid', values: curves[0]! },
            { name: 'ReLU hidden', values: curves[1]! },
          ],
          { title: 'XOR training loss', log: true, ylabel: 'MSE' },
        ),
      },
    ];
    return {
      lines,
      figures,
      data: {
        xor: { predictions: Array.from(pred.data), final_loss: r.finalLoss, seconds: r.seconds },
        exercise1: ex,
        iris: { accuracy: ir.accuracy, test_accuracy: ir.testAccuracy, seconds: ir.seconds },
      },
      summary: [
        ['layer = morphism (P, F, F*) in Para', 'dense(), primitive() — src/para, src/nn'],
        ['network = composite fₙ ∘ … ∘ f₁', 'seq() / >> , par() / @'],
        ['backprop = reverse composite of pullbacks', 'Seq.forward(…).pullback'],
        ['SGD step = endomorphism on parameters', 'SGD.step — src/optim'],
        ['training = iterating the endomorphism', 'Trainer.runEpoch, train() — src/train'],
      ],
    };
  },
};
