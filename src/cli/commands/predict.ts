import { promises as fs } from 'node:fs';
import { parseCsv } from '../../data/csv.js';
import { DataError } from '../../errors.js';
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
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { fmt, Progress, table } from '../progress.js';

/** Rows 'x1,x2;x1,x2' as a [B, ...dom] tensor; every row must hold prod(dom) numbers. */
function parseInputRows(text: string, dom: Shape): Tensor {
  const d = sizeOf(dom);
  const rows = text.split(';').map((r) => r.trim()).filter((r) => r !== '');
  if (rows.length === 0) throw new DataError(`predict: --input has no rows; expected e.g. "0,1;1,0" (${d} numbers per row)`);
  const x = Tensor.zeros([rows.length, ...dom]);
  rows.forEach((r, i) => {
    const f = r.split(',').map((s) => s.trim());
    if (f.length !== d) throw new DataError(`predict: --input row ${i + 1} has ${f.length} numbers, the model expects ${d}`);
    f.forEach((s, j) => {
      const v = Number(s);
      if (s === '' || !Number.isFinite(v)) throw new DataError(`predict: --input row ${i + 1}, value ${j + 1}: '${s}' is not a finite number`);
      x.data[i * d + j] = v;
    });
  });
  return x;
}

/** A CSV of features (and optionally a last label column) as inputs [B, ...dom] and labels. */
function readCsvInputs(text: string, name: string, dom: Shape): { x: Tensor; labels?: string[] } {
  const d = sizeOf(dom);
  const first = text.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '' && !l.startsWith('#'));
  const width = first === undefined ? 0 : first.split(',').length;
  if (width === d) {
    const plain = parseCsv(text, { name, label: null });
    return { x: plain.x.reshape([plain.x.batch, ...dom]) };
  }
  if (width !== d + 1) throw new DataError(`predict: ${name} has ${width} columns, the model expects ${d} features (or ${d} and a label column)`);
  const ds = parseCsv(text, { name });
  return { x: ds.x.reshape([ds.x.batch, ...dom]), labels: Array.from(ds.labels!, (l) => ds.classes![l]!) };
}

/**
 * The class of each output row, when the model was trained as a classifier (its file records
 * the classes), and — for a model trained on logits (bce, softmax-cross-entropy) — the
 * probability it gives that class: σ(z) or softmax(z)_c.
 */
export function classify(y: Tensor, settings: TrainingSettings): { classes: string[]; probability?: number[] } | undefined {
  const names = Array.isArray(settings.classes) ? (settings.classes as unknown[]).map(String) : undefined;
  if (!names) return undefined;
  const B = y.batch, k = y.size / B;
  const link = linkOfSettings(settings);
  // one output: a logit under the sigmoid link, a probability otherwise
  const predicted = predictClasses(y, link === 'sigmoid');
  const soft = k === 1 ? undefined : new Float64Array(y.size);
  if (soft) softmaxRows(y.data, B, k, soft);
  const classes: string[] = [], probability: number[] = [];
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

export const command: Command = {
  name: 'predict',
  summary: 'run a saved model on inputs given inline or in a CSV file',
  usage: 'paralens predict --load FILE.safetensors (--input "x1,x2;x1,x2" | --csv FILE) [--json]',
  description: `Loads a model saved by paralens train --save FILE (the file is validated before use) and prints its
outputs for each input row. For a model trained on a labelled data set the predicted class is printed
too; a CSV with one more column than the model's inputs is read as features and a label, and the
accuracy is reported.`,
  flags: {
    ...runtimeFlags,
    load: { type: 'string', help: 'model file written by paralens train --save' },
    input: { type: 'string', help: 'input rows: numbers separated by commas, rows by semicolons' },
    csv: { type: 'string', help: 'CSV file of input rows (optional header; an extra last column is a label)' },
  },
  async run(flags, io) {
    if (!flags.load) throw new UsageError('predict: --load FILE is required (a model saved with paralens train --save FILE)');
    if ((flags.input === undefined) === (flags.csv === undefined)) throw new UsageError('predict: give exactly one of --input "x1,x2;x1,x2" or --csv FILE');
    const json = Boolean(flags.json);
    const { model, theta, settings } = await loadModel(flags.load as string);
    if (!model.dom) throw new DataError(`predict: ${model} takes inputs of any shape and the file records none`);
    let x: Tensor;
    let labels: string[] | undefined;
    if (flags.csv !== undefined) {
      const text = await fs.readFile(flags.csv as string, 'utf8').catch((e: NodeJS.ErrnoException) => {
        throw new DataError(`predict: cannot read ${flags.csv}: ${e.code ?? e.message}`);
      });
      ({ x, labels } = readCsvInputs(text, flags.csv as string, model.dom));
    } else x = parseInputRows(flags.input as string, model.dom);
    const progress = new Progress(io, 'predict', json);
    progress.update(0, x.batch, 'rows');
    const all = predict(model, theta, x);
    progress.update(x.batch, x.batch, 'rows');
    progress.done();
    const k = all.size / all.batch;
    const outputs: number[][] = Array.from({ length: all.batch }, (_, b) => Array.from(all.data.subarray(b * k, (b + 1) * k)));
    const y = Tensor.of(all.data, [all.batch, k]);
    const cls = classify(y, settings);
    const classes = cls?.classes, probability = cls?.probability;
    const accuracy = classes && labels ? classes.filter((c, i) => c === labels![i]).length / classes.length : undefined;
    if (json) {
      const extra = { ...(classes ? { classes } : {}), ...(probability ? { probability } : {}), ...(accuracy !== undefined ? { accuracy } : {}) };
      io.out(JSON.stringify({ model: String(model), rows: outputs.length, outputs, ...extra }) + '\n');
      return 0;
    }
    const header = ['row', 'output', ...(classes ? ['class'] : []), ...(probability ? ['p'] : []), ...(labels ? ['label'] : [])];
    const rows = outputs.map((o, i) => [
      String(i + 1),
      o.map((v) => fmt(v)).join(' '),
      ...(classes ? [classes[i]!] : []),
      ...(probability ? [fmt(probability[i]!, 3)] : []),
      ...(labels ? [labels[i]!] : []),
    ]);
    io.out(`model  ${model}\n\n${table(header, rows)}\n`);
    if (accuracy !== undefined) io.out(`\naccuracy ${fmt(accuracy)} (${Math.round(accuracy * outputs.length)}/${outputs.length})\n`);
    return 0;
  },
};
