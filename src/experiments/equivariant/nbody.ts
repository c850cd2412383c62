import type { Dataset } from '../../data/dataset.js';
import { mse } from '../../nn/loss.js';
import type { Para } from '../../para/para.js';
import { Rng } from '../../random/rng.js';
import { parseSpec } from '../../catalogue/index.js';
import { Tensor } from '../../tensor/tensor.js';
import { Trainer } from '../../train/trainer.js';
import { scheduleByName } from '../../optim/schedule.js';
import { O } from '../../symmetry/group/group.js';
import type { Mat } from '../../linalg/matrix.js';
import { NBODY, NBODY_CLOUD_IRREPS, NBODY_SEEDS, nbodyDataset, nbodySamples } from '../../data/nbody.js';
import type { NBodyFormat, NBodySamples } from '../../data/nbody.js';

export { NBODY, nbodyDataset, nbodySamples } from '../../data/nbody.js';
export type { NBodyFormat, NBodySamples } from '../../data/nbody.js';

/** The published test MSEs (EGNN Table 2; SEGNN Table 2), for the table beside ours. */
export const NBODY_PUBLISHED: readonly { model: string; mse: number; source: string }[] = [
  { model: 'Linear', mse: 0.0819, source: 'EGNN Table 2' },
  { model: 'SE(3)-Transformer', mse: 0.0244, source: 'EGNN Table 2' },
  { model: 'Tensor Field Network', mse: 0.0155, source: 'EGNN Table 2' },
  { model: 'GNN', mse: 0.0107, source: 'EGNN Table 2' },
  { model: 'Radial Field', mse: 0.0104, source: 'EGNN Table 2' },
  { model: 'EGNN', mse: 0.0071, source: 'EGNN Table 2' },
  { model: 'SEGNN', mse: 0.0043, source: 'SEGNN Table 2 (0.0045 in its first version)' },
];

/** The models of the benchmark. */
export type NBodyModel = 'attention' | 'segnn' | 'segnn-attention' | 'gnn' | 'mlp' | 'linear';

export interface NBodyModelOptions {
  /** Hidden irreps of the equivariant model (default 32x0e+32x1o, SEGNN's 64 weight-balanced features with lmax 1). */
  readonly hidden?: string;
  /** Message-passing layers (default 4). */
  readonly layers?: number;
  /** Largest ℓ of the edge and node attributes (default 1). */
  readonly lmax?: number;
  /** Channels of the GNN and the MLP (default 64 and 128). */
  readonly width?: number;
  /** Heads of the attention model (default 4). */
  readonly heads?: number;
}

/** The spec string of each model (every model is an ordinary spec: it prints and parses back). */
export function nbodySpec(model: NBodyModel, o: NBodyModelOptions = {}): string {
  const n = NBODY.particles;
  const layers = o.layers ?? 4;
  switch (model) {
    case 'attention': {
      // the derived points attention: embed, `layers` attention layers on points(n), read out one vector
      const h = o.hidden ?? '64x0e+16x1o',
        heads = o.heads ?? 4;
      const att = Array.from({ length: layers }, () => `attention(${h},${heads},points(${n}))`);
      return [`points_linear(${n},${NBODY_CLOUD_IRREPS},${h})`, ...att, `points_linear(${n},${h},1x1o)`, `displace(${n})`].join(' >> ');
    }
    case 'segnn':
    case 'segnn-attention': {
      const h = o.hidden ?? '32x0e+32x1o',
        l = o.lmax ?? 1,
        att = model === 'segnn-attention' ? ',attention' : '';
      const convs = [`e3_conv(${n},${NBODY_CLOUD_IRREPS},${h},${h},${l}${att})`];
      for (let k = 1; k < layers - 1; k++) convs.push(`e3_conv(${n},${h},${h},${h},${l}${att})`);
      convs.push(`e3_conv(${n},${h},${h},1x1o,${l}${att})`);
      return [...convs, `displace(${n})`].join(' >> ');
    }
    case 'gnn': {
      const w = o.width ?? 64,
        g = `complete(${n})`;
      const parts = [`message_passing(${g},7,${w}) >> relu`];
      for (let k = 1; k < layers; k++) parts.push(`message_passing(${g},${w},${w}) >> relu`);
      parts.push(`message_passing(${g},${w},3)`);
      return parts.join(' >> ');
    }
    case 'mlp': {
      const w = o.width ?? 128;
      return `dense(${7 * n},${w}) >> relu >> dense(${w},${w}) >> relu >> dense(${w},${w}) >> relu >> dense(${w},${3 * n})`;
    }
    case 'linear':
      return `dense(${7 * n},${3 * n})`;
  }
}

export const formatOf = (m: NBodyModel): NBodyFormat =>
  m === 'segnn' || m === 'segnn-attention' || m === 'attention' ? 'cloud' : m === 'gnn' ? 'nodes' : 'flat';

/** A random element of E(3) × S(5): an orthogonal Q (rotation or reflection), a translation t and a permutation π of the particles. */
export interface E3Element {
  readonly Q: Mat;
  readonly t: readonly number[];
  readonly perm: Int32Array;
}

export function randomE3(rng: Rng): E3Element {
  return {
    Q: O(3).sample(rng),
    t: [rng.normal() * 2, rng.normal() * 2, rng.normal() * 2],
    perm: rng.shuffle(Int32Array.from({ length: NBODY.particles }, (_, i) => i)) as Int32Array,
  };
}

/** g·samples: positions and targets ↦ Q·x + t, velocities ↦ Q·v, charges kept, particles permuted (particle π(i) of the result is particle i). */
export function transformSamples(s: NBodySamples, g: E3Element): NBodySamples {
  const n = NBODY.particles;
  const mv = (src: Float64Array, shift: boolean): Float64Array => {
    const out = new Float64Array(src.length);
    for (let b = 0; b < s.count; b++)
      for (let i = 0; i < n; i++) {
        const p = (b * n + i) * 3,
          q = (b * n + g.perm[i]!) * 3;
        for (let r = 0; r < 3; r++) {
          let v = shift ? g.t[r]! : 0;
          for (let c = 0; c < 3; c++) v += g.Q.data[r * 3 + c]! * src[p + c]!;
          out[q + r] = v;
        }
      }
    return out;
  };
  const charges = new Float64Array(s.charges.length);
  for (let b = 0; b < s.count; b++) for (let i = 0; i < n; i++) charges[b * n + g.perm[i]!] = s.charges[b * n + i]!;
  return { count: s.count, positions: mv(s.positions, true), velocities: mv(s.velocities, false), targets: mv(s.targets, true), charges };
}

/** The model's predictions (positions, [count, 5, 3] flattened) in chunks of `chunk` samples. */
function nbodyPredict(model: Para, theta: readonly Tensor[], ds: Dataset, chunk = 200): Float64Array {
  const out = new Float64Array(ds.y.size);
  const per = ds.y.size / ds.y.batch;
  for (let s = 0; s < ds.x.batch; s += chunk) {
    const e = Math.min(ds.x.batch, s + chunk);
    out.set(model.run(theta, ds.x.rows(s, e)).data, s * per);
  }
  return out;
}

const meanSq = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
  return s / a.length;
};

/**
 * The equivariance defect of a trained model, in the units of the test MSE: the mean over
 * samples and `elements` random g ∈ E(3) × S(5) of |f(g·x) − g·f(x)|² per coordinate. An exactly
 * equivariant model has float32 rounding here; a model that is not has its error's size.
 */
export function nbodyEquivarianceDefect(model: Para, theta: readonly Tensor[], s: NBodySamples, format: NBodyFormat, rng: Rng, elements = 3): number {
  const fx = nbodyPredict(model, theta, nbodyDataset(s, format));
  let total = 0;
  for (let k = 0; k < elements; k++) {
    const g = randomE3(rng);
    const gs = transformSamples(s, g);
    const fgx = nbodyPredict(model, theta, nbodyDataset(gs, format));
    // g·f(x): the predictions transformed like targets
    const gfx = transformSamples({ ...s, targets: fx }, g).targets;
    total += meanSq(fgx, gfx);
  }
  return total / elements;
}

export interface NBodyRunOptions extends NBodyModelOptions {
  readonly epochs?: number;
  readonly batch?: number;
  readonly lr?: number;
  readonly seed?: number;
  /** Training trajectories (default 3000). */
  readonly train?: number;
  /** Validation and test trajectories (default 2000 each). */
  readonly valid?: number;
  readonly test?: number;
  /** Evaluate on the validation set every this many epochs (default 5, as EGNN and SEGNN). */
  readonly evalEvery?: number;
  /** The learning rate over training, by name (`scheduleByName`): constant (EGNN, SEGNN), cosine (to 0 over all steps), step, warmup. */
  readonly schedule?: string;
  /** The data seed (default 43, EGNN's nbody_small seed; our generator differs from NumPy's). */
  readonly dataSeed?: number;
  readonly onEpoch?: (e: { epoch: number; trainLoss: number; validMSE?: number; seconds: number }) => void;
}

export interface NBodyResult {
  readonly model: NBodyModel;
  readonly spec: string;
  readonly parameters: number;
  readonly seed: number;
  readonly epochs: number;
  readonly bestEpoch: number;
  readonly validMSE: number;
  readonly testMSE: number;
  readonly equivarianceDefect: number;
  readonly seconds: number;
}

/** The first k samples (all of them when there are fewer). */
function headSamples(s: NBodySamples, k: number): NBodySamples {
  const c = Math.min(k, s.count),
    n = NBODY.particles;
  return {
    count: c,
    positions: s.positions.subarray(0, c * n * 3),
    velocities: s.velocities.subarray(0, c * n * 3),
    charges: s.charges.subarray(0, c * n),
    targets: s.targets.subarray(0, c * n * 3),
  };
}

/** Samples of the three splits, made once per data seed and size (each split its own stream). */
const splitCache = new Map<string, { train: NBodySamples; valid: NBodySamples; test: NBodySamples }>();
function nbodySplits(train: number, valid: number, test: number, dataSeed: number): { train: NBodySamples; valid: NBodySamples; test: NBodySamples } {
  const key = `${train},${valid},${test},${dataSeed}`;
  let s = splitCache.get(key);
  if (!s) {
    s = { train: nbodySamples(train, dataSeed), valid: nbodySamples(valid, dataSeed + 1), test: nbodySamples(test, dataSeed + 2) };
    splitCache.clear();
    splitCache.set(key, s);
  }
  return s;
}

/**
 * Trains one model with Adam (lr 5e-4, batch 100 as EGNN and SEGNN) on the training
 * trajectories, validates every `evalEvery` epochs, and reports the test MSE of the
 * parameters with the best validation MSE, the equivariance defect of those parameters
 * (on 200 test samples) and the training time.
 */
export function nbodyRun(model: NBodyModel, opts: NBodyRunOptions = {}): NBodyResult {
  const t0 = performance.now();
  const seed = opts.seed ?? 0,
    epochs = opts.epochs ?? 1000,
    every = opts.evalEvery ?? 5;
  const splits = nbodySplits(opts.train ?? NBODY.train, opts.valid ?? NBODY.valid, opts.test ?? NBODY.test, opts.dataSeed ?? NBODY_SEEDS.train);
  const format = formatOf(model);
  const train = nbodyDataset(splits.train, format, 'nbody-train');
  const valid = nbodyDataset(splits.valid, format, 'nbody-valid');
  const test = nbodyDataset(splits.test, format, 'nbody-test');
  const spec = nbodySpec(model, opts);
  const f = parseSpec(spec);
  const batch = opts.batch ?? 100,
    steps = epochs * Math.ceil(train.x.batch / batch);
  const trainer = new Trainer(f, train, {
    loss: mse,
    optimizer: 'adam',
    lr: opts.lr ?? 5e-4,
    batch,
    seed,
    optimizerOptions: opts.schedule && opts.schedule !== 'constant' ? { schedule: scheduleByName(opts.schedule, steps) } : {},
  });
  let best = { epoch: -1, valid: Infinity, theta: trainer.theta.map((t) => t.clone()) };
  const validate = (epoch: number): number => {
    const v = meanSq(nbodyPredict(trainer.model, trainer.theta, valid), valid.y.data);
    if (v < best.valid) best = { epoch, valid: v, theta: trainer.theta.map((t) => t.clone()) };
    return v;
  };
  for (let e = 1; e <= epochs; e++) {
    const st = trainer.runEpoch();
    const v = e % every === 0 || e === epochs ? validate(e) : undefined;
    opts.onEpoch?.({ epoch: e, trainLoss: st.loss, validMSE: v, seconds: (performance.now() - t0) / 1000 });
  }
  const testMSE = meanSq(nbodyPredict(trainer.model, best.theta, test), test.y.data);
  const defect = nbodyEquivarianceDefect(trainer.model, best.theta, headSamples(splits.test, 200), format, new Rng(seed + 99));
  return {
    model,
    spec,
    parameters: trainer.theta.reduce((s, t) => s + t.size, 0),
    seed,
    epochs,
    bestEpoch: best.epoch,
    validMSE: best.valid,
    testMSE,
    equivarianceDefect: defect,
    seconds: (performance.now() - t0) / 1000,
  };
}
