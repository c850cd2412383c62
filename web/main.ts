/// <reference types="vite/client" />
import { stringDiagram } from '../src/draw/diagram.js';
import { heatMap, linePlot } from '../src/draw/plot.js';
import { esc } from '../src/draw/svg.js';
import { marchingSquares } from '../src/topos/gluing/boundary.js';
import { dataOf, gridOf, importModel, N, plan, uncertaintySpec, uploadedData } from './model.js';
import type { Given } from './model.js';
import { boundsOf } from '../src/draw/grid.js';
import { DATA_SETS, decodeState, defaultModel, encodeState, OPTIMIZERS, UNCERTAINTY } from './state.js';
import type { PlaygroundState } from './state.js';
import { modelAfterDataChange } from './data-change.js';
import type { FromWorker, GridMsg, ToWorker } from './worker.js';
import TrainingWorker from './worker.ts?worker&inline';
import { whereItRuns } from './status.js';

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
for (const [sel, opts] of [
  [fields.data, DATA_SETS],
  [fields.optimizer, OPTIMIZERS],
  [fields.uncertainty, UNCERTAINTY],
] as const) {
  sel.innerHTML = opts.map((o) => `<option value="${o}">${o}</option>`).join('');
}

let state: PlaygroundState;
/** Files the page was given (an ONNX model, a CSV): kept here and in the worker, never in the link. */
const given: Given = {};
let losses: number[] = [];
let lossEpochs: number[] = [];
// inline: the built page carries its worker (a Blob URL), so it runs from file:// too (web/single-file.ts)
const worker = new TrainingWorker();
const send = (m: ToWorker): void => worker.postMessage(m);
/** The number of the latest run asked of the worker: messages about an older run are dropped. */
let run = 0;
/** The setup (its link) whose run the loss, std and sheaf views show; undefined while they show none. */
let viewsOf: string | undefined;

/**
 * The status line says what is happening: idle, training, done, stopped, failed, training an
 * ensemble, ensemble finished; and on a second, smaller line where it runs (web/status.ts).
 * `data-state` carries the state for tests and styles.
 */
type State = 'idle' | 'training' | 'done' | 'stopped' | 'failed' | 'ensemble' | 'ensemble-done';
function setStatus(st: State, text: string, where?: { backend: string; note?: string }): void {
  const el = $('status');
  el.dataset.state = st;
  el.textContent = text;
  if (!where) return;
  const line = document.createElement('span');
  line.className = 'where';
  line.textContent = whereItRuns(where.backend, where.note);
  el.append(line);
  el.dataset.backend = where.backend;
  if (where.note) el.dataset.backendNote = where.note;
}
/** Where the last report said the work runs (kept on the line when a run stops). */
const lastWhere = (): { backend: string; note?: string } | undefined => {
  const d = $('status').dataset;
  return d.backend ? { backend: d.backend, note: d.backendNote } : undefined;
};

/** A new run starts: the marks of the previous one go (a test waiting for done must not see the last run's). */
function startRun(st: State, text: string): number {
  const d = $('status').dataset;
  for (const k of ['firstLoss', 'loss', 'epoch', 'done', 'sheaf']) delete d[k];
  setStatus(st, text, lastWhere());
  viewsOf = encodeState(state);
  return ++run;
}

/**
 * The views follow the setup in the form: when it changes, the run drawn so far (or still
 * training) is no longer the model shown, so it is stopped and its loss, std and sheaf pictures
 * cleared; the boundary is redrawn untrained by validate().
 */
function followSetup(): void {
  if (viewsOf === undefined || viewsOf === encodeState(state)) return;
  viewsOf = undefined;
  run++; // the old run's late messages are dropped from here on
  send({ type: 'stop' });
  losses = [];
  lossEpochs = [];
  lastProgress = undefined;
  for (const id of ['loss', 'uncertainty-view', 'sheaf']) $(id).innerHTML = '';
  setStatus('idle', 'not trained yet: the setup changed', lastWhere());
}

/** The caption that names what a view shows: the model and the data it was trained on. */
const ofModel = (s: PlaygroundState): string => `<code>${esc(s.model)}</code> on ${s.data}`;

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

/**
 * Checks the spec against the data exactly as the CLI does, and its cost, from shapes alone
 * (plan: nothing is built on this thread); shows the message next to the field. The picture of
 * χ before training is made by the worker and shown when it comes back for this state.
 */
function validate(): boolean {
  const p = plan(state, given);
  const err = $('model-error');
  if ('error' in p) {
    err.textContent = p.error;
    $('diagram').innerHTML = '';
    return false;
  }
  err.textContent = '';
  if (p.data.x.shape[1] === 2) {
    previewKey = encodeState(state);
    send({ type: 'preview', state, key: previewKey });
  } else $('boundary').innerHTML = '<p>(no picture for data with more than two inputs)</p>';
  $('diagram').innerHTML = stringDiagram(p.model) + '<figcaption>the model as a string diagram in Para</figcaption>';
  return true;
}

/** The state whose χ-before-training picture the page waits for. */
let previewKey: string | undefined;

/** Reads the form into `state` (the URL hash too) and checks the setup; true when it can train. */
function onChange(e?: Event): boolean {
  const before = state;
  state = read();
  if (e?.target === fields.data && before && before.data !== state.data) {
    const next = modelAfterDataChange(before, state, given);
    state.model = next.model;
    fields.model.value = state.model;
    $('model-note').textContent = next.note;
  } else if (e?.target === fields.model && before?.model !== state.model) $('model-note').textContent = '';
  // (only an edit clears the note: the change event a blur fires on the model field repeats the
  // last input, and clearing the note then would move the buttons under the pointer mid-click)
  if (e?.target === fields.uncertainty && state.uncertainty !== 'off' && state.data !== 'uploaded') {
    // MC dropout and Bayesian shading need stochastic layers: start from a net that has them
    state.model = uncertaintySpec(state.uncertainty, state.data, state.seed);
    fields.model.value = state.model;
    $('model-note').textContent = `a net with ${state.uncertainty === 'bayes' ? 'Bayesian layers' : 'dropout'} for the ${state.uncertainty} shading`;
  }
  history.replaceState(null, '', encodeState(state));
  followSetup();
  return validate();
}

/** The data set's points for the heat map, made once per data set and seed (not on every progress message). */
let scatter: { key: string; points: { x: number; y: number; label: number }[] } | undefined;
function dataPoints(): { x: number; y: number; label: number }[] {
  const key = `${state.data}|${state.seed}|${given.data?.name ?? ''}`;
  if (scatter?.key !== key) {
    const ds = dataOf(state, given);
    const points =
      ds.x.shape[1] === 2 ? Array.from({ length: ds.x.batch }, (_, i) => ({ x: ds.x.data[2 * i]!, y: ds.x.data[2 * i + 1]!, label: ds.labels![i]! })) : [];
    scatter = { key, points };
  }
  return scatter.points;
}

/** Output classes of the current data set (2 for one logit). */
function classCount(): number {
  const ds = dataOf(state, given);
  return ds.classes?.length ?? 2;
}

/**
 * χ over the plane: a diverging map with the boundary χ⁻¹(½) traced for one logit, class
 * regions in pale class colours for several; the data's points on top.
 */
function drawGrid(g: GridMsg, title: string): string {
  const k = classCount();
  const points = dataPoints();
  if (k > 2)
    return heatMap(
      { ...g, values: Float32Array.from(g.values, (v) => Math.round(v * (k - 1))) },
      { title, points, classes: k, classNames: dataOf(state, given).classes?.map((c) => (/^\d+$/.test(c) ? `class ${c}` : c)) },
    );
  // the values sit at cell centres: the level set's grid runs from the first centre to the last
  const hx = (g.x1 - g.x0) / g.nx / 2,
    hy = (g.y1 - g.y0) / g.ny / 2;
  const lines = marchingSquares({ x0: g.x0 + hx, x1: g.x1 - hx, y0: g.y0 + hy, y1: g.y1 - hy, nx: g.nx, ny: g.ny, values: Float64Array.from(g.values) }, 0.5);
  return heatMap(g, { title, points, lines, label: 'χ(x) = P(class 1)' });
}

/** The largest value, rounded up to a nice number: the std map's own colour scale. */
function niceMax(values: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < values.length; i++) m = Math.max(m, values[i]!);
  if (!(m > 0)) return 1;
  const mag = Math.pow(10, Math.floor(Math.log10(m)));
  return [1, 2, 2.5, 5, 10].map((f) => f * mag).find((v) => v >= m)!;
}

let lastProgress: { epoch: number; epochs: number; loss: number; accuracy?: number } | undefined;
const progressText = (p: { epoch: number; epochs: number; loss: number; accuracy?: number }): string =>
  `epoch ${p.epoch}/${p.epochs}  loss ${p.loss.toPrecision(4)}${p.accuracy !== undefined ? `  accuracy ${p.accuracy.toFixed(3)}` : ''}`;

worker.onerror = (e: ErrorEvent): void => {
  // an Event without a message: the worker's script did not load
  setStatus('failed', `failed: ${e.message ?? 'the training worker did not start'}`);
};

worker.onmessage = (e: MessageEvent<FromWorker>): void => {
  const m = e.data;
  // a preview answers a state, not a run: its key says whether the page still wants it
  if (m.type === 'preview') {
    if (m.key === previewKey && m.grid) $('boundary').innerHTML = drawGrid(m.grid, 'χ before training');
    return;
  }
  if (m.run !== run) return; // a run the page has moved on from
  if (m.type === 'error') {
    $('model-error').textContent = m.message;
    setStatus('failed', 'failed: ' + m.message, lastWhere());
    return;
  }
  if (m.type === 'stopped') {
    const a = m.activity;
    setStatus(
      'stopped',
      a.kind === 'training'
        ? `stopped at epoch ${a.epoch}/${a.epochs}${lastProgress ? `  loss ${lastProgress.loss.toPrecision(4)}` : ''}`
        : a.kind === 'ensemble'
          ? `stopped while training expert ${a.expert} of ${a.experts}`
          : 'stopped: nothing was running',
      lastWhere(),
    );
    return;
  }
  if (m.type === 'ensemble-progress') {
    setStatus('ensemble', `training expert ${m.expert} of ${m.experts}…`, { backend: m.backend });
    return;
  }
  if (m.type === 'ensemble') {
    $('sheaf').innerHTML =
      heatMap(m.disagreement, {
        title: `ensemble disagreement (glues where ≤ ${m.tol})`,
        lo: 0,
        hi: 1,
        map: 'sequential',
        label: "max − min of the experts' χ",
      }) +
      `<figcaption>${m.glued} of ${m.points} grid points satisfy the sheaf condition (all ${m.experts} experts of ${ofModel(state)} within ${m.tol}); elsewhere no global section exists</figcaption>`;
    $('status').dataset.sheaf = String(m.glued);
    setStatus('ensemble-done', `ensemble finished: ${m.experts} experts; ${m.glued} of ${m.points} grid points glue`, { backend: m.backend });
    return;
  }
  losses.push(m.loss);
  lossEpochs.push(m.epoch);
  lastProgress = m;
  const status = $('status');
  if (losses.length === 1) status.dataset.firstLoss = String(m.loss);
  // the backend, and why it is not the GPU when the worker fell back
  setStatus(m.done ? 'done' : 'training', m.done ? `done: ${progressText(m)}` : `training: ${progressText(m)}`, { backend: m.backend, note: m.note });
  status.dataset.epoch = String(m.epoch);
  status.dataset.loss = String(m.loss);
  status.dataset.done = String(m.done);
  $('loss').innerHTML =
    linePlot([{ name: '', values: losses, x: lossEpochs }], {
      title: 'training loss',
      xlabel: 'epoch',
      ylabel: 'loss (log scale)',
      log: true,
      markers: false,
    }) + `<figcaption>the training loss of ${ofModel(state)}</figcaption>`;
  if (m.grid) $('boundary').innerHTML = drawGrid(m.grid, 'χ: the classifier over the plane');
  if (m.std)
    $('uncertainty-view').innerHTML = heatMap(m.std, {
      title: `predictive std (${state.uncertainty})`,
      lo: 0,
      hi: niceMax(m.std.values),
      map: 'sequential',
      label: 'std of P(class) over samples',
    });
};

$('train').addEventListener('click', () => {
  if (!onChange()) return;
  losses = [];
  lossEpochs = [];
  lastProgress = undefined;
  for (const id of ['loss', 'uncertainty-view']) $(id).innerHTML = '';
  send({ type: 'train', run: startRun('training', 'training: starting…'), state });
});
$('stop').addEventListener('click', () => send({ type: 'stop' }));
$('ensemble').addEventListener('click', () => {
  if (!onChange()) return;
  $('sheaf').innerHTML = '';
  send({ type: 'ensemble', run: startRun('ensemble', 'training expert 1 of 5…'), state, experts: 5, tol: 0.15 });
});
for (const f of Object.values(fields)) f.addEventListener('change', onChange);

/** An .onnx file: imported here (its spec into the model field, its diagram drawn) and in the worker, which trains from its weights. */
$<HTMLInputElement>('onnx-file').addEventListener('change', async (e) => {
  const file = (e.target as HTMLInputElement).files?.[0];
  if (!file) return;
  const bytes = new Uint8Array(await file.arrayBuffer());
  try {
    given.imported = importModel(file.name, bytes);
  } catch (err) {
    $('model-error').textContent = `${file.name}: ${(err as Error).message}`;
    return;
  }
  send({ type: 'onnx', name: file.name, bytes });
  fields.model.value = given.imported.spec;
  onChange();
  $('model-note').textContent = [`imported ${file.name}: trains from its weights`, ...given.imported.notes].join('; ');
});

/** A CSV file: its rows become the data set 'uploaded' (header row, the target last), here and in the worker. */
$<HTMLInputElement>('csv-file').addEventListener('change', async (e) => {
  const file = (e.target as HTMLInputElement).files?.[0];
  if (!file) return;
  const text = await file.text();
  try {
    given.data = uploadedData(file.name, text);
  } catch (err) {
    $('model-error').textContent = `${file.name}: ${(err as Error).message}`;
    return;
  }
  send({ type: 'csv', name: file.name, text });
  let option = fields.data.querySelector<HTMLOptionElement>('option[value="uploaded"]');
  if (!option) {
    option = document.createElement('option');
    option.value = 'uploaded';
    fields.data.append(option);
  }
  option.textContent = `${file.name} (uploaded)`;
  const before = fields.data.value;
  fields.data.value = 'uploaded';
  if (before !== 'uploaded') fields.data.dispatchEvent(new Event('change'));
  else onChange();
});
fields.model.addEventListener('input', onChange);

function load(): void {
  const { state: s, notices } = decodeState(location.hash);
  state = s;
  fill(s);
  showNotice(notices);
  followSetup();
  validate();
}
window.addEventListener('hashchange', load);
load();
