import { OPERATORS, PENDING_OPERATORS } from '../../ops/vocabulary.js';
import { RECURRENT_OPERATORS } from './evaluate.js';
import { IMPORT_RULES, READ_WHILE_IMPORTING } from './rules.js';

/**
 * The operators import reads, from the rules themselves: every operator lens of the vocabulary
 * (src/ops/vocabulary.ts) with how its ONNX inputs are read, and the operators evaluated while
 * reading. `paralens import --help` and the table of docs/onnx.md are made from this.
 */

/** Inputs that an import rule reads as attributes (known when the model is read), by operator. */
const STATIC_INPUTS: Readonly<Record<string, string>> = {
  Reshape: 'shape',
  Squeeze: 'axes',
  Unsqueeze: 'axes',
  Split: 'split',
  Slice: 'starts, ends, axes, steps',
  Pad: 'pads, constant_value, axes',
  Clip: 'min, max',
  Expand: 'shape',
  Tile: 'repeats',
  ConstantOfShape: 'shape',
  Range: 'start, limit, delta',
  Dropout: 'ratio, training_mode',
  Trilu: 'k',
  ReduceSum: 'axes',
  ReduceMean: 'axes',
  ReduceMax: 'axes',
  ReduceMin: 'axes',
  ReduceProd: 'axes',
  ReduceL1: 'axes',
  ReduceL2: 'axes',
  ReduceSumSquare: 'axes',
  ReduceLogSumExp: 'axes',
};

export interface OperatorRow {
  readonly name: string;
  readonly doc: string;
  /** Attributes of the lens (ONNX's names). */
  readonly attrs: readonly string[];
  /** ONNX inputs import reads when the model is read (they become attributes). */
  readonly known: string | undefined;
  /** Whether import reads it by its own rule (rather than attribute for attribute). */
  readonly ownRule: boolean;
}

export function operatorRows(): OperatorRow[] {
  return OPERATORS.map((d) => ({
    name: d.name,
    doc: d.doc,
    attrs: Object.keys(d.attrs),
    known: STATIC_INPUTS[d.name],
    ownRule: Object.hasOwn(IMPORT_RULES, d.name),
  })).sort((a, b) => a.name.localeCompare(b.name));
}

/** Every ONNX operator import reads, sorted. */
export function importableOperators(): string[] {
  return [...new Set([...OPERATORS.map((d) => d.name), ...READ_WHILE_IMPORTING, ...RECURRENT_OPERATORS])].sort();
}

/** The operator table of docs/onnx.md (markdown), generated from the rules. */
export function operatorTableMarkdown(): string {
  const rows = operatorRows().map(
    (r) => `| \`${r.name}\` | ${r.doc.replace(/\|/g, '\\|')} | ${r.attrs.length ? r.attrs.map((a) => `\`${a}\``).join(', ') : '—'} | ${r.known ?? '—'} |`,
  );
  const read = READ_WHILE_IMPORTING.filter((n) => !OPERATORS.some((d) => d.name === n)).map((n) => `\`${n}\``);
  const pending = Object.entries(PENDING_OPERATORS).map(([n, why]) => `| \`${n}\` | ${why} |`);
  return [
    '| operator | lens | attributes | inputs read when the model is read |',
    '|---|---|---|---|',
    ...rows,
    '',
    `Evaluated while reading (they never become boxes): ${read.join(', ')}.`,
    '',
    `Read as paralens's recurrent layers (layout 0, zero initial states, whole sequences; Y only): ${RECURRENT_OPERATORS.map((n) => `\`${n}\` → \`${n.toLowerCase()}\``).join(', ')} — a bidirectional node as \`bidirectional(…)\`; GRU with \`linear_before_reset = 1\` (PyTorch's).`,
    '',
    '| not read | why |',
    '|---|---|',
    ...pending,
  ].join('\n');
}
