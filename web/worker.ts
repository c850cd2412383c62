/// <reference lib="webworker" />
import { boundsOf } from '../src/draw/grid.js';
import type { Box } from '../src/draw/grid.js';
import { Rng } from '../src/markov/rng.js';
import type { Para } from '../src/para/para.js';
import type { Tensor } from '../src/tensor/tensor.js';
import { Trainer } from '../src/train/trainer.js';
import { gridOf, N, setup } from './model.js';
import type { PlaygroundState } from './state.js';

/** Messages the page sends. */
export type ToWorker = { type: 'train'; state: PlaygroundState } | { type: 'stop' } | { type: 'ensemble'; state: PlaygroundState; experts: number; tol: number };

/** Messages the worker sends back. */
export type FromWorker =
  | { type: 'error'; message: string }
  | { type: 'progress'; epoch: number; epochs: number; loss: number; accuracy?: number; grid?: GridMsg; std?: GridMsg; done: boolean }
  | { type: 'ensemble'; disagreement: GridMsg; glued: number; points: number; tol: number };

export interface GridMsg extends Box {
  values: Float32Array;
  nx: number;
  ny: number;
}

let running = 0; // generation counter: a new run or a stop cancels the old one

/** Predictive spread: the standard deviation over stochastic forward passes (MC dropout, Bayesian sampling). */
function stdGrid(model: Para, theta: readonly Tensor[], box: Box, seed: number, samples = 16): Float32Array {
  const rng = new Rng(seed + 7);
  const s = new Float64Array(N * N), s2 = new Float64Array(N * N);
  for (let k = 0; k < samples; k++) {
    const g = gridOf(model, theta, box, true, rng.split());
    for (let i = 0; i < g.length; i++) {
      s[i] += g[i]!;
      s2[i] += g[i]! * g[i]!;
    }
  }
  return Float32Array.from({ length: N * N }, (_, i) => Math.sqrt(Math.max(0, s2[i]! / samples - (s[i]! / samples) ** 2)));
}

const post = (m: FromWorker): void => (self as unknown as Worker).postMessage(m);

function train(state: PlaygroundState): void {
  const gen = ++running;
  const s = setup(state);
  if ('error' in s) return post({ type: 'error', message: s.error });
  const trainer = new Trainer(s.model, s.data, { loss: s.loss, lr: state.lr, optimizer: state.optimizer, batch: state.batch, seed: state.seed });
  const twoD = s.data.x.shape[1] === 2;
  const box = twoD ? boundsOf(s.data.x, 0.15) : undefined;
  const perFrame = Math.max(1, Math.ceil(state.epochs / 150));
  const chunk = (): void => {
    if (gen !== running) return;
    // about 150 frames per run, so that the page can show training as it happens
    const start = performance.now();
    let stats = trainer.runEpoch();
    while (trainer.epoch < state.epochs && trainer.epoch % perFrame !== 0 && performance.now() - start < 100) stats = trainer.runEpoch();
    const done = trainer.epoch >= state.epochs;
    const grid = box && { ...box, values: gridOf(trainer.model, trainer.theta, box), nx: N, ny: N };
    const std = box && state.uncertainty !== 'off' && (done || trainer.epoch % 20 === 0) ? { ...box, values: stdGrid(trainer.model, trainer.theta, box, state.seed), nx: N, ny: N } : undefined;
    post({ type: 'progress', epoch: trainer.epoch, epochs: state.epochs, loss: stats.loss, accuracy: stats.accuracy, grid, std, done });
    if (!done) setTimeout(chunk, 12);
  };
  try {
    chunk();
  } catch (e) {
    post({ type: 'error', message: (e as Error).message });
  }
}

/**
 * Trains `experts` copies from different seeds and reports, over the plane, where their
 * sections glue: the largest pairwise disagreement at each point, and how many grid points
 * satisfy the sheaf condition within `tol` (seed 000, sheaf gluing of ensembles).
 */
function ensemble(state: PlaygroundState, experts: number, tol: number): void {
  const gen = ++running;
  const s = setup(state);
  if ('error' in s) return post({ type: 'error', message: s.error });
  if (s.data.x.shape[1] !== 2) return post({ type: 'error', message: 'the sheaf view needs 2-D data' });
  const box = boundsOf(s.data.x, 0.15);
  const grids: Float32Array[] = [];
  for (let k = 0; k < experts && gen === running; k++) {
    const t = new Trainer(s.model, s.data, { loss: s.loss, lr: state.lr, optimizer: state.optimizer, batch: state.batch, seed: state.seed + 1 + k });
    for (let e = 0; e < state.epochs; e++) t.runEpoch();
    grids.push(gridOf(t.model, t.theta, box));
  }
  const dis = new Float32Array(N * N);
  let glued = 0;
  for (let i = 0; i < N * N; i++) {
    let lo = Infinity, hi = -Infinity;
    for (const g of grids) {
      lo = Math.min(lo, g[i]!);
      hi = Math.max(hi, g[i]!);
    }
    dis[i] = hi - lo;
    if (hi - lo <= tol) glued++;
  }
  post({ type: 'ensemble', disagreement: { ...box, values: dis, nx: N, ny: N }, glued, points: N * N, tol });
}

self.onmessage = (e: MessageEvent<ToWorker>): void => {
  const m = e.data;
  try {
    if (m.type === 'train') train(m.state);
    else if (m.type === 'ensemble') ensemble(m.state, m.experts, m.tol);
    else running++;
  } catch (err) {
    post({ type: 'error', message: (err as Error).message });
  }
};
