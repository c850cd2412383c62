import { vocabSize } from '../data/text.js';
import { recurrentSettings } from '../train/run.js';
import { backendInfo, backendLabel } from '../tensor/init.js';
import { backend } from '../tensor/registry.js';
import type { RowsOutcome, RunOutcome, TextOutcome } from '../train/run.js';
import type { CliIO } from './command.js';
import { fmt } from './progress.js';

/** What `paralens train` reports besides the run's own results: its checkpoints (train/node-checkpoint.ts summary) and the model file it saved. */
export interface RunExtras {
  readonly checkpoints: Record<string, unknown>;
  readonly saved?: { readonly path: string; readonly bytes: number };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};

/** Prints a finished run: one JSON object with --json, else aligned lines. */
export function printRun(io: CliIO, outcome: RunOutcome, extras: RunExtras, json: boolean): void {
  const lines = outcome.kind === 'rows' ? rowsReport(outcome, extras) : textReport(outcome, extras);
  io.out(json ? JSON.stringify(lines.json) + '\n' : lines.text.map((l) => l + '\n').join(''));
}

interface Report {
  json: Record<string, unknown>;
  text: string[];
}

function rowsReport(o: RowsOutcome, extras: RunExtras): Report {
  const { result, record } = o;
  const { train, validation, test } = o.splits;
  const extra: Record<string, unknown> = { ...extras.checkpoints, ...(extras.saved ? { saved: extras.saved.path, file_bytes: extras.saved.bytes } : {}) };
  const history = validation
    ? result.history
        .filter((h) => h.validationLoss !== undefined)
        .map((h) => ({ epoch: h.epoch, loss: h.loss, accuracy: h.accuracy, val_loss: h.validationLoss, val_accuracy: h.validationAccuracy }))
    : undefined;
  const out = {
    model: String(result.model),
    data: record.data,
    ...(record.task ? { target: record.target, task: record.task } : {}),
    rows: { train: train.x.batch, ...(validation ? { validation: validation.x.batch } : {}), ...(test ? { test: test.x.batch } : {}) },
    loss: record.loss,
    optimizer: record.optimizer,
    ...(record.schedule !== undefined ? { schedule: record.schedule } : {}),
    ...(record.val_fraction !== undefined ? { val_fraction: record.val_fraction } : {}),
    ...recurrentSettings(record),
    ...(o.scaling ? { scaling: o.scaling } : {}),
    ...(o.notes?.length ? { notes: o.notes } : {}),
    final_loss: result.finalLoss,
    accuracy: result.accuracy,
    val_loss: result.validationLoss,
    val_accuracy: result.validationAccuracy,
    test_loss: result.testLoss,
    test_accuracy: result.testAccuracy,
    epochs: result.epochs,
    seconds: result.seconds,
    // training alone, without the evaluations: the figure to set beside a benchmark's epoch
    seconds_per_epoch: median(result.history.map((h) => h.seconds)),
    parameters: result.parameters,
    backend: backendInfo(backend()),
    ...(history ? { history } : {}),
    ...extra,
  };
  const rows = [
    `${train.x.batch} training rows`,
    ...(validation ? [`${validation.x.batch} validation rows`] : []),
    ...(test ? [`${test.x.batch} test rows`] : []),
  ].join(', ');
  const target = o.preprocessing?.target;
  const what =
    target?.task === 'classify'
      ? `; classify ${target.name ?? 'y'}: ${target.classes.length} classes`
      : target?.task === 'regress'
        ? `; regress ${target.name ?? 'y'} (standardised)`
        : '';
  const also = [
    ...(out.val_accuracy !== undefined ? [`validation ${fmt(out.val_accuracy)}`] : []),
    ...(out.test_accuracy !== undefined ? [`test ${fmt(out.test_accuracy)}`] : []),
  ];
  const text = [
    `model       ${out.model}`,
    `data        ${out.data} (${rows}${what})`,
    `parameters  ${out.parameters}`,
    `epochs      ${out.epochs} (${fmt(out.seconds, 3)} s)`,
    `final loss  ${fmt(out.final_loss)}${out.val_loss !== undefined ? `  (validation ${fmt(out.val_loss)})` : ''}${out.test_loss !== undefined && out.accuracy === undefined ? `  (test ${fmt(out.test_loss)})` : ''}`,
    ...(out.accuracy !== undefined ? [`accuracy    ${fmt(out.accuracy)}${also.length ? `  (${also.join(', ')})` : ''}`] : []),
    ...(o.notes ?? []).map((n) => `note        ${n}`),
    ...Object.entries(extra).map(([k, v]) => `${k.padEnd(11)} ${String(v)}`),
  ];
  return { json: out, text };
}

function textReport(o: TextOutcome, extras: RunExtras): Report {
  const { result: r, record, corpus } = o;
  const V = vocabSize(corpus.vocabulary);
  const out: Record<string, unknown> = {
    model: String(r.model),
    data: record.data,
    loss: record.loss,
    optimizer: record.optimizer,
    vocab_size: V,
    context: record.context,
    batch: record.batch,
    ...recurrentSettings(record),
    steps: r.steps,
    bits_per_char: r.bitsPerChar,
    val_bits_per_char: r.valBitsPerChar,
    tokens_per_second: r.tokensPerSecond,
    seconds: r.seconds,
    parameters: r.parameters,
    ...(o.notes?.length ? { notes: o.notes } : {}),
    train_characters: corpus.train.length,
    val_characters: corpus.val.length,
    backend: backendInfo(backend()),
    ...extras.checkpoints,
    ...(extras.saved ? { file_bytes: extras.saved.bytes, saved: extras.saved.path } : {}),
  };
  const text = [
    `model       ${out.model}`,
    `data        ${corpus.name} (${corpus.train.length} training characters, ${corpus.val.length} validation; vocabulary ${V} ids)`,
    `parameters  ${r.parameters}`,
    `backend     ${backendLabel(backend())}`,
    `steps       ${r.steps} of ${record.batch} windows × ${record.context} characters (${fmt(r.seconds, 3)} s, ${fmt(r.tokensPerSecond, 3)} tokens/s)`,
    `bits/char   ${fmt(r.bitsPerChar)} training, ${fmt(r.valBitsPerChar)} validation`,
    ...(out.resumed_from !== undefined ? [`resumed     from step ${out.resumed_from}`] : []),
    ...(o.notes ?? []).map((n) => `note        ${n}`),
    ...(out.checkpoint !== undefined ? [`checkpoint  ${out.checkpoint} (step ${out.checkpoint_step}; ${out.checkpoints_written} written by this run)`] : []),
    ...(extras.saved ? [`saved       ${extras.saved.path} (${extras.saved.bytes} bytes)`] : []),
  ];
  return { json: out, text };
}
