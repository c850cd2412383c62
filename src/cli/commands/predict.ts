import { readTableFile } from '../../data/node.js';
import { applyPreprocessing, modelInputs, targetValues } from '../../data/preprocessing.js';
import type { Preprocessing } from '../../data/preprocessing.js';
import type { Table } from '../../data/table.js';
import { requireNumbers } from '../../data/tabular.js';
import type { Para } from '../../para/para.js';
import { DataError, quote } from '../../errors.js';
import { loadModel } from '../../io/node.js';
import type { TrainingSettings } from '../../io/model-file.js';
import { readsLogits } from '../../nn/link.js';
import type { Link } from '../../nn/link.js';
import { lossByName, lossNames } from '../../nn/loss.js';
import { softmaxRows } from '../../nn/softmax.js';
import { applyUnary } from '../../tensor/js-backend.js';
import { Tensor, sizeOf } from '../../tensor/tensor.js';
import type { Shape } from '../../tensor/tensor.js';
import { predictClasses } from '../../train/metrics.js';
import { predict } from '../../train/trainer.js';
import { parseDecimal, UsageError } from '../args.js';
import type { Flags, ParsedFlags } from '../args.js';
import { defineCommand } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { dataFlags, dataForms, inputsOf, loadData, loadTable, savedScaling } from '../data.js';
import { describeScaling } from '../../data/arrays.js';
import { fmt, isSilent, Progress, table } from '../progress.js';

/** Rows 'x1,x2;x1,x2' as a [B, ...dom] tensor; every row must hold prod(dom) numbers. */
function parseInputRows(text: string, dom: Shape): Tensor {
  const d = sizeOf(dom);
  const rows = text
    .split(';')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  if (rows.length === 0) throw new DataError(`predict: --input has no rows; expected e.g. "0,1;1,0" (${d} numbers per row)`);
  const x = Tensor.zeros([rows.length, ...dom]);
  rows.forEach((r, i) => {
    const f = r.split(',').map((s) => s.trim());
    if (f.length !== d) throw new DataError(`predict: --input row ${i + 1} has ${f.length} numbers, the model expects ${d}`);
    f.forEach((s, j) => {
      const v = parseDecimal(s);
      const where = `predict: --input row ${i + 1}, value ${j + 1}`;
      if (v === undefined) throw new DataError(`${where}: ${quote(s)} is not a decimal number`);
      // the model computes in float32: beyond ±3.4e38 the value would silently become ±Infinity
      if (!Number.isFinite(Math.fround(v))) throw new DataError(`${where}: ${quote(s)} is outside the float32 range (±3.4e38)`);
      x.data[i * d + j] = v;
    });
  });
  return x;
}

/**
 * A table of features (and optionally a last label column) as inputs [B, ...dom] and labels,
 * for a model trained without a preprocessing (on a built-in set): the columns in order.
 */
function tableInputs(t: Table, dom: Shape): { x: Tensor; labels?: string[] } {
  const d = sizeOf(dom),
    width = t.columns.length;
  if (width !== d && width !== d + 1)
    throw new DataError(`predict: ${t.name} has ${width} columns, the model expects ${d} features (or ${d} and a label column)`);
  const features = t.columns.slice(0, d);
  requireNumbers(
    t,
    features.map((c) => c.name),
  );
  const x = Tensor.zeros([t.rows, ...dom]);
  features.forEach((c, j) => {
    for (let i = 0; i < t.rows; i++) x.data[i * d + j] = c.numbers[i]!;
  });
  const l = width > d ? t.columns[d]! : undefined;
  return { x, ...(l ? { labels: Array.from({ length: t.rows }, (_, i) => l.texts?.[i] ?? String(l.numbers[i])) } : {}) };
}

/**
 * Inputs a model with a preprocessing takes from --input rows: the raw values of its numeric
 * columns (a table's) or arrays, mapped as in training (standardised, or scaled).
 */
function inlineInputs(pre: Preprocessing, text: string, dom: Shape): Rows {
  if (pre.input === 'table') {
    const cat = pre.features.find((f) => f.type === 'categorical');
    if (cat)
      throw new DataError(
        `predict: the model takes the categorical column '${cat.name}'; give the rows in a CSV file (--csv FILE) with a header naming the columns`,
      );
  }
  const raw = parseInputRows(text, dom);
  // numbers already in [0,1] for a model trained on 8-bit pixels are not divided by 255 again
  const { preprocessing, scalingNote } = savedScaling(pre, { kind: 'float', data: raw.data }, '--input');
  return { x: modelInputs(preprocessing, raw), scaling: scalingOf(preprocessing, scalingNote) };
}

/** What the rows to predict are: model inputs, and where the file has the target, the class names or the values in the target's units. */
interface Rows {
  x: Tensor;
  labels?: string[];
  values?: Tensor;
  /** How array inputs were scaled (data/arrays.ts describeScaling), and why when not as in training. */
  scaling?: string;
}

/** The scaling an array preprocessing applies, in words, with the reason it differs from training's. */
function scalingOf(p: Preprocessing | undefined, note: string | undefined): string | undefined {
  return p?.input === 'array' ? `${describeScaling(p)}${note ? ` (${note})` : ''}` : undefined;
}

/** Where predict reads its rows: exactly one of --input, --csv and --data. */
type RowSource = { readonly input: string } | FileSource;
type FileSource = { readonly csv: string } | { readonly data: string };

function rowSource(flags: ParsedFlags<typeof predictFlags>): RowSource {
  const given = [
    flags.input !== undefined && { input: flags.input },
    flags.csv !== undefined && { csv: flags.csv },
    flags.data !== undefined && { data: flags.data },
  ].filter((s) => s !== false);
  const [source] = given;
  if (given.length !== 1 || !source) throw new UsageError('predict: give exactly one of --input "x1,x2;x1,x2", --csv FILE or --data NAME|PATH');
  return source;
}

/** Rows from a file (--csv, --data) for a model trained with a preprocessing: read and mapped exactly as its training data was. */
async function preprocessedRows(pre: Preprocessing, source: FileSource, dataDir: string | undefined, model: Para): Promise<Rows> {
  const opts = { seed: 0, model, preprocessing: pre, dataDir };
  if ('csv' in source && pre.input === 'array') {
    // a CSV of raw values for a model trained on arrays: the columns in order, scaled as in training
    const r = tableInputs(readTableFile(source.csv), model.dom!);
    const { preprocessing, scalingNote } = savedScaling(pre, { kind: 'float', data: r.x.data }, source.csv);
    return { ...r, x: modelInputs(preprocessing, r.x), scaling: scalingOf(preprocessing, scalingNote) };
  }
  const l = 'csv' in source ? loadTable(source.csv, opts) : await loadData(source.data, opts);
  const raw = l.test ?? l.data;
  const p = l.preprocessing ?? pre;
  const ds = applyPreprocessing(p, raw);
  const x = ds.x.reshape([ds.x.batch, ...model.dom!]);
  const scaling = scalingOf(p, l.scalingNote);
  if (ds.y === ds.x) return { x, scaling };
  if (pre.target?.task === 'regress') return { x, values: raw.y, scaling };
  return { x, scaling, ...(ds.labels && ds.classes ? { labels: Array.from(ds.labels, (c) => ds.classes![c]!) } : {}) };
}

/**
 * Rows for a model file without a preprocessing (trained on a built-in set, or written by
 * train.py on data of its own): a CSV's columns in order, or a --data set as it is. Labels read
 * as class indices (an IDX file's 0 … K−1) are named by the file's classes, as the model's
 * outputs are, so that accuracy compares names with names.
 */
async function plainRows(source: FileSource, dataDir: string | undefined, model: Para, classes: readonly string[] | undefined): Promise<Rows> {
  if ('csv' in source) return tableInputs(readTableFile(source.csv), model.dom!);
  const l = await loadData(source.data, { seed: 0, model, dataDir });
  const d = inputsOf(l);
  const ds = d.test ?? d;
  const p = l.preprocessing;
  const scaling = scalingOf(p?.input === 'array' ? { ...p, standardize: false } : undefined, undefined);
  const x = ds.x.reshape([ds.x.batch, ...model.dom!]);
  if (!ds.labels || !ds.classes) return { x, scaling };
  const indices = ds.classes.every((c, i) => c === String(i));
  const names = indices && classes && classes.length >= ds.classes.length ? classes : ds.classes;
  return { x, scaling, labels: Array.from(ds.labels, (c) => names[c]!) };
}

/**
 * The class of each output row, when the model was trained as a classifier (its file records
 * the classes), and — for a model trained on logits (bce, softmax-cross-entropy) — the
 * probability it gives that class: σ(z) or softmax(z)_c.
 */
export function classify(y: Tensor, settings: TrainingSettings): { classes: string[]; probability?: number[] } | undefined {
  const names = Array.isArray(settings.classes) ? settings.classes.map(String) : undefined;
  if (!names) return undefined;
  const B = y.batch,
    k = y.size / B;
  const link = linkOfSettings(settings);
  // one output: a logit under the sigmoid link, a probability otherwise
  const predicted = predictClasses(y, link === 'sigmoid');
  const soft = k === 1 ? undefined : new Float64Array(y.size);
  if (soft) softmaxRows(y.data, B, k, soft);
  const classes: string[] = [],
    probability: number[] = [];
  for (let b = 0; b < B; b++) {
    const c = predicted[b]!;
    let p: number;
    if (soft) p = soft[b * k + c]!;
    else {
      const s = applyUnary('sigmoid', y.data[b]!);
      p = c === 1 ? s : 1 - s;
    }
    classes.push(names[c] ?? String(c));
    probability.push(p);
  }
  return readsLogits(link) ? { classes, probability } : { classes };
}

/** The output link of the loss a model file was trained with; identity when it names no loss we know. */
function linkOfSettings(settings: TrainingSettings): Link {
  const name = settings.loss;
  return typeof name === 'string' && lossNames().includes(name) ? lossByName(name).link : 'identity';
}

const predictFlags = {
  ...runtimeFlags,
  load: { type: 'string', help: 'model file written by paralens train --save' },
  input: { type: 'string', help: 'input rows: numbers separated by commas, rows by semicolons' },
  csv: { type: 'string', help: 'CSV file of input rows (header naming the columns for a model trained on a CSV)' },
  data: { type: 'string', help: `data to predict: ${dataForms()}` },
  'data-dir': dataFlags()['data-dir']!,
} as const satisfies Flags;

export const command = defineCommand({
  name: 'predict',
  summary: 'run a saved model on inputs given inline, in a CSV file or a data set',
  usage: 'paralens predict --load FILE.safetensors (--input "x1,x2;x1,x2" | --csv FILE | --data NAME|PATH) [--json]',
  description: `Loads a model saved by paralens train --save FILE (the file is validated before use) and prints its
outputs for each input row. A model trained on your own file keeps the file's preprocessing: its
columns are found by name in --csv / --data (in any order; the target column may be missing),
numeric ones standardised with the training statistics, categories one-hot encoded, pixels scaled;
--input rows are raw values of its numeric columns, in training order. For a classifier the predicted
class and its probability are printed, for a regression the prediction in the target's units; when
the rows carry the target, accuracy (or RMSE) is reported. A model trained on a built-in set reads a
CSV's columns in order, one more column being a label. --data with a test split of its own
(fashion-mnist, idx:DIR with train and test files) predicts the test rows.`,
  flags: predictFlags,
  async run(flags, io) {
    if (!flags.load) throw new UsageError('predict: --load FILE is required (a model saved with paralens train --save FILE)');
    const source = rowSource(flags);
    const { model, theta, settings, preprocessing: pre } = await loadModel(flags.load);
    if (!model.dom) throw new DataError(`predict: ${model} takes inputs of any shape and the file records none`);
    let rows: Rows;
    if ('input' in source) rows = pre ? inlineInputs(pre, source.input, model.dom) : { x: parseInputRows(source.input, model.dom) };
    else {
      const classes = Array.isArray(settings.classes) ? settings.classes.map(String) : undefined;
      rows = pre ? await preprocessedRows(pre, source, flags['data-dir'], model) : await plainRows(source, flags['data-dir'], model, classes);
    }
    const { x, labels, values, scaling } = rows;
    const progress = new Progress(io, 'predict', isSilent(flags));
    progress.update(0, x.batch, 'rows');
    const all = predict(model, theta, x);
    progress.update(x.batch, x.batch, 'rows');
    progress.done();
    const k = all.size / all.batch;
    const perRow = (t: Tensor): number[][] => Array.from({ length: t.batch }, (_, b) => Array.from(t.data.subarray(b * k, (b + 1) * k)));
    const outputs = perRow(all);
    const y = Tensor.of(all.data, [all.batch, k]);
    const regression = pre?.target?.task === 'regress';
    const predictions = regression ? perRow(targetValues(pre, y)) : undefined;
    const cls = regression ? undefined : classify(y, settings);
    const classes = cls?.classes,
      probability = cls?.probability;
    const accuracy = classes && labels ? classes.filter((c, i) => c === labels![i]).length / classes.length : undefined;
    let rmse: number | undefined;
    if (predictions && values) {
      let se = 0;
      predictions.forEach((p, i) => p.forEach((v, j) => (se += (v - values.data[i * k + j]!) ** 2)));
      rmse = Math.sqrt(se / (predictions.length * k));
    }
    if (flags.json) {
      const extra = {
        ...(predictions ? { predictions } : {}),
        ...(classes ? { classes } : {}),
        ...(probability ? { probability } : {}),
        ...(accuracy !== undefined ? { accuracy } : {}),
        ...(rmse !== undefined ? { rmse } : {}),
      };
      io.out(JSON.stringify({ model: String(model), ...(scaling ? { scaling } : {}), rows: outputs.length, outputs, ...extra }) + '\n');
      return 0;
    }
    const header = [
      'row',
      regression ? 'prediction' : 'output',
      ...(classes ? ['class'] : []),
      ...(probability ? ['p'] : []),
      ...(labels ? ['label'] : []),
      ...(values ? ['target'] : []),
    ];
    const lines = outputs.map((o, i) => [
      String(i + 1),
      (predictions ? predictions[i]! : o).map((v) => fmt(v)).join(' '),
      ...(classes ? [classes[i]!] : []),
      ...(probability ? [fmt(probability[i]!, 3)] : []),
      ...(labels ? [labels[i]!] : []),
      ...(values ? [Array.from(values.data.subarray(i * k, (i + 1) * k), (v) => fmt(v)).join(' ')] : []),
    ]);
    io.out(`model  ${model}\n${scaling ? `inputs ${scaling}\n` : ''}\n${table(header, lines)}\n`);
    if (accuracy !== undefined) io.out(`\naccuracy ${fmt(accuracy)} (${Math.round(accuracy * outputs.length)}/${outputs.length})\n`);
    if (rmse !== undefined) io.out(`\nRMSE ${fmt(rmse)} (${outputs.length} rows, in the target's units)\n`);
    return 0;
  },
});
