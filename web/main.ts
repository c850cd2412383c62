import { stringDiagram } from '../src/draw/diagram.js';
import { heatMap, linePlot } from '../src/draw/plot.js';
import { builtInData } from '../src/data/registry.js';
import { gridOf, N, setup, uncertaintySpec } from './model.js';
import { boundsOf } from '../src/draw/grid.js';
import { DATA_SETS, decodeState, defaultModel, encodeState, OPTIMIZERS, UNCERTAINTY } from './state.js';
import type { PlaygroundState } from './state.js';
import type { FromWorker, GridMsg, ToWorker } from './worker.js';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const fields = {
  data: $<HTMLSelectElement>('data'),
  model: $<HTMLTextAreaElement>('model'),
  lr: $<HTMLInputElement>('lr'),
  optimizer: $<HTMLSelectElement>('optimizer'),
  batch: $<HTMLInputElement>('batch'),
  epochs: $<HTMLInputElement>('epochs'),
  seed: $<HTMLInputElement>('seed'),
  uncertainty: $<HTMLSelectElement>('uncertainty'),
};
for (const [sel, opts] of [[fields.data, DATA_SETS], [fields.optimizer, OPTIMIZERS], [fields.uncertainty, UNCERTAINTY]] as const) {
  sel.innerHTML = opts.map((o) => `<option value="${o}">${o}</option>`).join('');
}

let state: PlaygroundState;
let losses: number[] = [];
let lossEpochs: number[] = [];
const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
const send = (m: ToWorker): void => worker.postMessage(m);

function showNotice(lines: string[]): void {
  const n = $('notice');
  n.hidden = lines.length === 0;
  n.textContent = lines.join(' · ');
}

function fill(s: PlaygroundState): void {
  fields.data.value = s.data;
  fields.model.value = s.model;
  fields.lr.value = String(s.lr);
  fields.optimizer.value = s.optimizer;
  fields.batch.value = String(s.batch);
  fields.epochs.value = String(s.epochs);
  fields.seed.value = String(s.seed);
  fields.uncertainty.value = s.uncertainty;
}

function read(): PlaygroundState {
  return {
    data: fields.data.value,
    model: fields.model.value.trim(),
    lr: Number(fields.lr.value),
    optimizer: fields.optimizer.value,
    batch: Math.max(1, Math.round(Number(fields.batch.value)) || 1),
    epochs: Math.max(1, Math.round(Number(fields.epochs.value)) || 1),
    seed: Math.max(0, Math.round(Number(fields.seed.value)) || 0),
    uncertainty: fields.uncertainty.value as PlaygroundState['uncertainty'],
  };
}

/** Checks the spec against the data exactly as the CLI does; shows the message next to the field. */
function validate(): boolean {
  const s = setup(state);
  const err = $('model-error');
  if ('error' in s) {
    err.textContent = s.error;
    $('diagram').innerHTML = '';
    return false;
  }
  err.textContent = '';
  if (s.data.x.shape[1] === 2) {
    const box = boundsOf(s.data.x, 0.15);
    $('boundary').innerHTML = drawGrid({ ...box, values: gridOf(s.trainer.model, s.trainer.theta, box, s.link).chi, nx: N, ny: N }, 'χ before training', true);
  } else $('boundary').innerHTML = '<p>(no picture for data with more than two inputs)</p>';
  $('diagram').innerHTML = stringDiagram(s.trainer.model) + '<figcaption>the model as a string diagram in Para</figcaption>';
  return true;
}

/** Reads the form into `state` (the URL hash too) and checks the setup; true when it can train. */
function onChange(e?: Event): boolean {
  const before = state;
  state = read();
  if (e?.target === fields.data && before && before.data !== state.data) {
    state.model = state.uncertainty === 'off' ? defaultModel(state.data) : uncertaintySpec(state.uncertainty, state.data, state.seed);
    fields.model.value = state.model;
  }
  if (e?.target === fields.uncertainty && state.uncertainty !== 'off') {
    // MC dropout and Bayesian shading need stochastic layers: start from a net that has them
    state.model = uncertaintySpec(state.uncertainty, state.data, state.seed);
    fields.model.value = state.model;
  }
  history.replaceState(null, '', encodeState(state));
  return validate();
}

/** The data set's points for the heat map, made once per data set and seed (not on every progress message). */
let scatter: { key: string; points: { x: number; y: number; label: number }[] } | undefined;
function dataPoints(): { x: number; y: number; label: number }[] {
  const key = `${state.data}|${state.seed}`;
  if (scatter?.key !== key) {
    const ds = builtInData(state.data, state.seed);
    const points = ds.x.shape[1] === 2 ? Array.from({ length: ds.x.batch }, (_, i) => ({ x: ds.x.data[2 * i]!, y: ds.x.data[2 * i + 1]!, label: ds.labels![i]! })) : [];
    scatter = { key, points };
  }
  return scatter.points;
}

function drawGrid(g: GridMsg, title: string, points: boolean, lines?: number[][][]): string {
  return heatMap(g, { title, points: points ? dataPoints() : [], lines: lines as never });
}

worker.onerror = (e: ErrorEvent): void => {
  $('status').textContent = 'stopped: ' + e.message;
};

worker.onmessage = (e: MessageEvent<FromWorker>): void => {
  const m = e.data;
  if (m.type === 'error') {
    $('model-error').textContent = m.message;
    $('status').textContent = 'stopped: ' + m.message;
    return;
  }
  if (m.type === 'ensemble') {
    $('sheaf').innerHTML = heatMap(m.disagreement, { title: `ensemble disagreement (glues where ≤ ${m.tol})`, lo: 0, hi: 1 }) +
      `<figcaption>${m.glued} of ${m.points} grid points satisfy the sheaf condition (all 5 experts within ${m.tol}); elsewhere no global section exists</figcaption>`;
    $('status').dataset.sheaf = String(m.glued);
    return;
  }
  losses.push(m.loss);
  lossEpochs.push(m.epoch);
  if (losses.length === 1) $('status').dataset.firstLoss = String(m.loss);
  const status = $('status');
  status.textContent = `epoch ${m.epoch}/${m.epochs}  loss ${m.loss.toPrecision(4)}${m.accuracy !== undefined ? `  accuracy ${m.accuracy.toFixed(3)}` : ''}${m.done ? '  (done)' : ''}  · ${m.backend}${m.note ? ` (${m.note})` : ''}`;
  status.dataset.backend = m.backend;
  if (m.note) status.dataset.backendNote = m.note;
  status.dataset.epoch = String(m.epoch);
  status.dataset.loss = String(m.loss);
  status.dataset.done = String(m.done);
  $('loss').innerHTML = linePlot([{ name: 'training loss', values: losses, x: lossEpochs }], { title: 'loss', xlabel: 'epoch', log: true });
  if (m.grid) $('boundary').innerHTML = drawGrid(m.grid, 'χ: the classifier over the plane', true);
  if (m.std) $('uncertainty-view').innerHTML = heatMap(m.std, { title: `predictive std (${state.uncertainty})`, lo: 0, hi: 0.5 });
};

$('train').addEventListener('click', () => {
  if (!onChange()) return;
  losses = [];
  lossEpochs = [];
  $('status').textContent = 'training…';
  send({ type: 'train', state });
});
$('stop').addEventListener('click', () => send({ type: 'stop' }));
$('ensemble').addEventListener('click', () => {
  if (!onChange()) return;
  $('status').textContent = 'training 5 experts…';
  send({ type: 'ensemble', state, experts: 5, tol: 0.15 });
});
for (const f of Object.values(fields)) f.addEventListener('change', onChange);
fields.model.addEventListener('input', () => onChange());

function load(): void {
  const { state: s, notices } = decodeState(location.hash);
  state = s;
  fill(s);
  showNotice(notices);
  validate();
}
window.addEventListener('hashchange', load);
load();
