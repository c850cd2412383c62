/// <reference lib="webworker" />
import { boundsOf } from '../src/draw/grid.js';
import type { Box } from '../src/draw/grid.js';
import { backend } from '../src/tensor/registry.js';
import { backendLabel, init } from '../src/tensor/init.js';
import { DeviceTrainer } from '../src/train/device-trainer.js';
import type { EpochStats } from '../src/train/trainer.js';
import { gridOf, importModel, N, setup, uploadedData } from './model.js';
import type { Given } from './model.js';
import type { PlaygroundState } from './state.js';
import { gpuFallbackNote, hostNote } from './status.js';

/**
 * Messages the page sends. `run` numbers the page's requests: every message about a run carries
 * it back, so that the page can drop the late messages of a run it has moved on from.
 */
export type ToWorker =
  | { type: 'train'; run: number; state: PlaygroundState }
  | { type: 'stop' }
  | { type: 'ensemble'; run: number; state: PlaygroundState; experts: number; tol: number }
  | { type: 'preview'; state: PlaygroundState; key: string }
  // files the page was given: an ONNX model (trained from its weights while the model field holds its spec) and a CSV (state.data 'uploaded')
  | { type: 'onnx'; name: string; bytes: Uint8Array }
  | { type: 'csv'; name: string; text: string };

/** What the worker is doing: the page's status line says it. */
export type Activity = { kind: 'idle' } | { kind: 'training'; epoch: number; epochs: number } | { kind: 'ensemble'; expert: number; experts: number };

/** What the worker reports. */
type Report =
  | { type: 'error'; message: string }
  | {
      type: 'progress';
      epoch: number;
      epochs: number;
      loss: number;
      accuracy?: number;
      grid?: GridMsg;
      std?: GridMsg;
      done: boolean;
      backend: string;
      note?: string;
    }
  | { type: 'stopped'; activity: Activity }
  | { type: 'ensemble-progress'; expert: number; experts: number; backend: string }
  | { type: 'ensemble'; disagreement: GridMsg; glued: number; points: number; tol: number; experts: number; backend: string }
  | { type: 'preview'; key: string; grid?: GridMsg };

/** Messages the worker sends back: a report about the run the page numbered `run`. */
export type FromWorker = Report & { run: number };

export interface GridMsg extends Box {
  values: Float32Array;
  nx: number;
  ny: number;
}

let running = 0; // generation counter: a new run or a stop cancels the old one
const given: Given = {};
let activity: Activity = { kind: 'idle' };
let run = 0; // the page's number of the latest run asked for

/** Posts a message about the current run. */
const post = (m: Report): void => (self as unknown as Worker).postMessage({ ...m, run } satisfies FromWorker);
const fail = (e: unknown): void => {
  activity = { kind: 'idle' };
  post({ type: 'error', message: (e as Error).message ?? String(e) });
};

/**
 * Trains a state's model, posting a frame about 150 times a run. On a GPU (the webgpu backend)
 * the run is resident on the device (DeviceTrainer): epochs are awaited, and only the
 * statistics and, for each frame's picture, the parameters come back. A model the device
 * cannot run (a layer on host arrays: dropout, Bayesian layers …) trains on the host backend,
 * and the status line says why.
 */
function train(state: PlaygroundState): void {
  const gen = ++running;
  const s = setup(state, 0, given);
  if ('error' in s) return post({ type: 'error', message: s.error });
  const { trainer, data, link } = s;
  const box = data.x.shape[1] === 2 ? boundsOf(data.x, 0.15) : undefined;
  const perFrame = Math.max(1, Math.ceil(state.epochs / 150)); // about 150 frames a run
  const device = backend().device;
  let onDevice: DeviceTrainer | undefined,
    note = fallback;
  if (device) {
    try {
      onDevice = new DeviceTrainer(trainer, device);
    } catch (e) {
      note = hostNote(e);
    }
  }
  const epoch = (): EpochStats | Promise<EpochStats> => (onDevice ? onDevice.runEpoch() : trainer.runEpoch());
  const chunk = async (): Promise<void> => {
    if (gen !== running) return;
    try {
      const start = performance.now();
      let stats = await epoch();
      while (trainer.epoch < state.epochs && trainer.epoch % perFrame !== 0 && performance.now() - start < 100) stats = await epoch();
      if (gen !== running) return;
      const done = trainer.epoch >= state.epochs;
      activity = done ? { kind: 'idle' } : { kind: 'training', epoch: trainer.epoch, epochs: state.epochs };
      const withStd = state.uncertainty !== 'off' && (done || trainer.epoch % (perFrame * 10) === 0);
      const theta = onDevice && box ? await onDevice.hostTheta() : trainer.theta;
      const g = box && gridOf(trainer.model, theta, box, link, withStd ? 16 : 0, state.seed);
      const grid = g && box ? { ...box, values: g.chi, nx: N, ny: N } : undefined;
      const std = g?.std && box ? { ...box, values: g.std, nx: N, ny: N } : undefined;
      post({
        type: 'progress',
        epoch: trainer.epoch,
        epochs: state.epochs,
        loss: stats.loss,
        accuracy: stats.accuracy,
        grid,
        std,
        done,
        backend: backendLabel(backend()),
        ...(note ? { note } : {}),
      });
      if (!done) setTimeout(chunk, 12);
    } catch (e) {
      fail(e); // e.g. the loss became NaN: the message names the epoch and the morphism
    }
  };
  void chunk();
}

/**
 * χ before training, over the plane of 2-D data: built here, off the page's thread, once the
 * page has checked the state's cost (plan). `key` says which state it answers.
 */
function preview(state: PlaygroundState, key: string): void {
  const s = setup(state, 0, given);
  if ('error' in s || s.data.x.shape[1] !== 2) return post({ type: 'preview', key });
  const box = boundsOf(s.data.x, 0.15);
  post({ type: 'preview', key, grid: { ...box, values: gridOf(s.trainer.model, s.trainer.theta, box, s.link).chi, nx: N, ny: N } });
}

/**
 * Trains `experts` copies from different seeds and reports, over the plane, where their
 * sections glue: the largest pairwise disagreement at each point, and how many grid points
 * satisfy the sheaf condition within `tol` (seed 000, sheaf gluing of ensembles).
 */
async function ensemble(state: PlaygroundState, experts: number, tol: number): Promise<void> {
  const gen = ++running;
  const grids: Float32Array[] = [];
  let box: Box | undefined;
  for (let k = 0; k < experts; k++) {
    activity = { kind: 'ensemble', expert: k + 1, experts };
    post({ type: 'ensemble-progress', expert: k + 1, experts, backend: backendLabel(backend()) });
    await new Promise((resolve) => setTimeout(resolve, 0)); // let a Stop in between experts
    if (gen !== running) return;
    const s = setup(state, k + 1, given);
    if ('error' in s) return fail(new Error(s.error));
    if (s.data.x.shape[1] !== 2) return fail(new Error('the sheaf view needs 2-D data'));
    box ??= boundsOf(s.data.x, 0.15);
    for (let e = 0; e < state.epochs; e++) s.trainer.runEpoch();
    grids.push(gridOf(s.trainer.model, s.trainer.theta, box, s.link).chi);
  }
  if (!box) return;
  const dis = new Float32Array(N * N);
  let glued = 0;
  for (let i = 0; i < N * N; i++) {
    let lo = Infinity,
      hi = -Infinity;
    for (const g of grids) {
      lo = Math.min(lo, g[i]!);
      hi = Math.max(hi, g[i]!);
    }
    dis[i] = hi - lo;
    if (hi - lo <= tol) glued++;
  }
  activity = { kind: 'idle' };
  post({ type: 'ensemble', disagreement: { ...box, values: dis, nx: N, ny: N }, glued, points: N * N, tol, experts, backend: backendLabel(backend()) });
}

// A GPU where the browser offers a WebGPU adapter; else the fast backend where it loads — its
// worker thread too when the page is cross-origin isolated (web/vite.config.ts sends the
// headers) — else the reference one, with the reason in the status line. Messages wait for
// it, in order.
let fallback: string | undefined;
const hasWebGpu = 'gpu' in navigator;
const fast = (hasWebGpu ? init({ backend: 'webgpu' }) : Promise.reject(new Error('no WebGPU'))).catch((e: unknown) => {
  fallback = gpuFallbackNote(e, hasWebGpu);
  if (hasWebGpu) console.info('paralens: WebGPU did not start:', e); // the whole message, for the curious
  return init();
});

self.onmessage = async (e: MessageEvent<ToWorker>): Promise<void> => {
  await fast;
  const m = e.data;
  if (m.type === 'train' || m.type === 'ensemble') run = m.run;
  try {
    if (m.type === 'train') train(m.state);
    else if (m.type === 'preview') preview(m.state, m.key);
    else if (m.type === 'onnx') given.imported = importModel(m.name, m.bytes);
    else if (m.type === 'csv') given.data = uploadedData(m.name, m.text);
    else if (m.type === 'ensemble') await ensemble(m.state, m.experts, m.tol);
    else {
      // stop: cancel the run and say where it stood
      running++;
      post({ type: 'stopped', activity });
      activity = { kind: 'idle' };
    }
  } catch (err) {
    fail(err);
  }
};
