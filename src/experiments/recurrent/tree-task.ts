import { parseSpec } from '../../catalogue/index.js';
import { softmaxCrossEntropy } from '../../nn/loss.js';
import { foldTrees, initAlgebra, treeAlgebra } from '../../nn/recurrent/polynomial.js';
import type { TreeAlgebra } from '../../nn/recurrent/polynomial.js';
import { optimizer } from '../../optim/by-name.js';
import { makeCtx } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { Rng } from '../../random/rng.js';
import { Tensor } from '../../tensor/tensor.js';
import { FORMULA_VOCABULARY, FORMULAS, formulaIds, formulaSet, formulaText } from './expressions.js';
import type { Formula } from './expressions.js';

/**
 * The expression-tree task: propositional formulas (expressions.ts) evaluated by a recursive
 * network — the fold of an algebra of the formulas' polynomial functor, a small network per
 * connective — and by a sequence LSTM reading the formulas written out, both trained on depths
 * 1–4 and tested on fresh formulas of depth ≤ 4 and of depths 5, 6 and 7 (never seen): the fold
 * follows the formula's structure at any depth, the sequence model must learn to parse.
 */
export interface TreeTaskOptions {
  readonly seed: number;
  /** Training formulas (depths 1–4). */
  readonly train?: number;
  /** Test formulas per test set. */
  readonly test?: number;
  readonly epochs?: number;
  readonly batch?: number;
  readonly lr?: number;
  /** The fold's state size and its connectives' hidden width. */
  readonly state?: number;
  /** The sequence LSTM's hidden size. */
  readonly lstmHidden?: number;
  readonly onEpoch?: (model: string, epoch: number, epochs: number, loss: number) => void;
}

export interface TreeTaskResult {
  readonly model: 'tree fold' | 'sequence LSTM';
  /** How the model is written: the algebra's morphisms, or the spec. */
  readonly spec: string;
  readonly parameters: number;
  /** Accuracy on held-out formulas of depth ≤ 4 (the training depths), and of depth 5, 6, 7. */
  readonly accuracy: Readonly<Record<(typeof TEST_SETS)[number], number>>;
  /** The fraction of true formulas in each test set (the accuracy of the better constant guess is the larger of it and its complement). */
  readonly truth: Readonly<Record<(typeof TEST_SETS)[number], number>>;
  readonly seconds: number;
}

/** The test sets of the task: depth ≤ 4 (the training depths) and exactly 5, 6, 7. */
export const TEST_SETS = ['depth ≤ 4', 'depth 5', 'depth 6', 'depth 7'] as const;

interface Model {
  readonly theta: Tensor[];
  /** Logits [n, 2] of the formulas, and the pullback of their gradient into dTheta. */
  forward(fs: readonly Formula[]): { y: Tensor; pullback(dy: Tensor, dTheta: Tensor[]): void };
}

function oneHot(fs: readonly Formula[]): Tensor {
  const t = Tensor.zeros([fs.length, 2]);
  fs.forEach((f, i) => (t.data[i * 2 + f.value] = 1));
  return t;
}

/** The fold of an algebra of FORMULAS, then a linear readout of the root's state. */
function treeModel(S: number, rng: Rng): { model: Model; spec: string; algebra: TreeAlgebra } {
  const connective = (arity: number): Para => parseSpec(`dense(${arity * S},${S}) >> tanh >> dense(${S},${S}) >> tanh`);
  const algebra = treeAlgebra(FORMULAS, S, [parseSpec(`dense(2,${S}) >> tanh`), connective(1), connective(2), connective(2), connective(2)]);
  const readout = parseSpec(`dense(${S},2)`);
  const theta = [...initAlgebra(algebra, rng.split()), ...readout.init(rng.split())];
  const k = algebra.params.length;
  const model: Model = {
    theta,
    forward(fs) {
      const ctx = makeCtx();
      const fold = foldTrees(
        algebra,
        theta.slice(0, k),
        fs.map((f) => f.tree),
        ctx,
      );
      const lens = readout.forward(theta.slice(k), fold.y, ctx);
      return {
        y: lens.y,
        pullback: (dy, dTheta) => {
          fold.pullback(lens.pullback(dy, dTheta.slice(k), true), dTheta.slice(0, k));
        },
      };
    },
  };
  const spec = `fold of {${FORMULAS.constructors.map((c, i) => `${c.name}: ${algebra.morphisms[i]}`).join('; ')}} >> dense(${S},2)`;
  return { model, spec, algebra };
}

/** A sequence LSTM on the written formulas (padded on the left in each batch), its final state read out. */
function sequenceModel(H: number, rng: Rng): { model: Model; spec: string } {
  const V = FORMULA_VOCABULARY.length;
  const spec = `embedding(${V},16) >> fold(lstm_cell(16,${H})) >> dense(${2 * H},2)`;
  const f = parseSpec(spec);
  const theta = f.at([1]).init(rng.split());
  const atLength = new Map<number, Para>();
  const model: Model = {
    theta,
    forward(fs) {
      const texts = fs.map((x) => formulaIds(formulaText(x.tree)));
      const T = texts.reduce((n, t) => Math.max(n, t.length), 1);
      let m = atLength.get(T);
      if (!m) atLength.set(T, (m = f.at([T])));
      const x = Tensor.zeros([fs.length, T]);
      texts.forEach((ids, i) => x.data.set(ids, i * T + T - ids.length));
      const lens = m.forward(theta, x, makeCtx());
      return { y: lens.y, pullback: (dy, dTheta) => void lens.pullback(dy, dTheta, false) };
    },
  };
  return { model, spec };
}

function accuracy(model: Model, fs: readonly Formula[]): number {
  let right = 0;
  for (let s = 0; s < fs.length; s += 250) {
    const part = fs.slice(s, s + 250);
    const y = model.forward(part).y;
    part.forEach((f, i) => (right += (y.data[i * 2 + 1]! > y.data[i * 2]! ? 1 : 0) === f.value ? 1 : 0));
  }
  return right / fs.length;
}

/** Adam on minibatches of the training formulas, reshuffled every epoch. */
function fit(
  name: string,
  model: Model,
  train: readonly Formula[],
  opts: Required<Omit<TreeTaskOptions, 'onEpoch' | 'seed'>>,
  rng: Rng,
  onEpoch?: TreeTaskOptions['onEpoch'],
): void {
  const opt = optimizer('adam', { lr: opts.lr });
  const grads = model.theta.map((t) => Tensor.zeros(t.shape, t.dtype));
  const order = Array.from(train, (_, i) => i);
  for (let e = 0; e < opts.epochs; e++) {
    rng.shuffle(order);
    let sum = 0;
    for (let s = 0; s < order.length; s += opts.batch) {
      const part = order.slice(s, s + opts.batch).map((i) => train[i]!);
      const { y, pullback } = model.forward(part);
      const L = softmaxCrossEntropy.apply(y, oneHot(part));
      for (const g of grads) g.data.fill(0);
      pullback(L.pullback(), grads);
      opt.step(model.theta, grads);
      sum += L.value * part.length;
    }
    onEpoch?.(name, e + 1, opts.epochs, sum / train.length);
  }
}

/**
 * One run of the task at a seed: the data (training formulas of depths 1–4; test sets of depth
 * ≤ 4 and 5, 6, 7) drawn from the seed, both models initialised and trained from it.
 */
export function runTreeTask(options: TreeTaskOptions): TreeTaskResult[] {
  const opts = {
    train: options.train ?? 4000,
    test: options.test ?? 500,
    epochs: options.epochs ?? 30,
    batch: options.batch ?? 32,
    lr: options.lr ?? 0.003,
    state: options.state ?? 32,
    lstmHidden: options.lstmHidden ?? 48,
  };
  const rng = new Rng(options.seed);
  const data = rng.split();
  const train = formulaSet(data, opts.train, [1, 2, 3, 4]);
  const tests = [formulaSet(data, opts.test, [1, 2, 3, 4]), ...[5, 6, 7].map((d) => formulaSet(data, opts.test, [d]))];
  const truth = tests.map((t) => t.reduce((n, f) => n + f.value, 0) / t.length);
  const runs = [
    { name: 'tree fold' as const, ...treeModel(opts.state, rng.split()) },
    { name: 'sequence LSTM' as const, ...sequenceModel(opts.lstmHidden, rng.split()) },
  ];
  return runs.map((r) => {
    const t0 = performance.now();
    fit(r.name, r.model, train, opts, rng.split(), options.onEpoch);
    const acc = tests.map((t) => accuracy(r.model, t));
    return {
      model: r.name,
      spec: r.spec,
      parameters: r.model.theta.reduce((n, t) => n + t.size, 0),
      accuracy: { 'depth ≤ 4': acc[0]!, 'depth 5': acc[1]!, 'depth 6': acc[2]!, 'depth 7': acc[3]! },
      truth: { 'depth ≤ 4': truth[0]!, 'depth 5': truth[1]!, 'depth 6': truth[2]!, 'depth 7': truth[3]! },
      seconds: (performance.now() - t0) / 1000,
    };
  });
}
