import { BINARY_OPS } from './binary.js';
import { CONV_OPS } from './conv.js';
import { EINSUM_OPS } from './einsum.js';
import { GENERATE_OPS } from './generate.js';
import { JOIN_OPS } from './join.js';
import { MATMUL_OPS } from './matmul.js';
import { NORM_OPS } from './norm.js';
import type { OpDef } from './op.js';
import { POOL_OPS } from './pool.js';
import { REDUCE_OPS } from './reduce.js';
import { RESHAPE_OPS } from './reshape.js';
import { SELECT_OPS } from './select.js';
import { SOFTMAX_OPS } from './softmax.js';
import { UNARY_OPS } from './unary.js';

/**
 * The operator vocabulary: every operator lens, by its ONNX name, in one list (nothing
 * registers itself by being imported). Spec strings, ONNX import, `paralens import --help` and
 * the operator table of docs/onnx.md all read this list.
 */
export const OPERATORS: readonly OpDef[] = [
  ...UNARY_OPS,
  ...BINARY_OPS,
  ...MATMUL_OPS,
  ...EINSUM_OPS,
  ...REDUCE_OPS,
  ...SOFTMAX_OPS,
  ...CONV_OPS,
  ...POOL_OPS,
  ...NORM_OPS,
  ...RESHAPE_OPS,
  ...JOIN_OPS,
  ...SELECT_OPS,
  ...GENERATE_OPS,
];

/**
 * The operators that are layers in a spec string (Erf, Clip(max(6)), …): one input, and an
 * output that keeps the batch axis first (Shape's does not). The catalogue, the ONNX export
 * rules and the drawing rules all read this list.
 */
export const LAYER_OPERATORS: readonly OpDef[] = OPERATORS.filter((def) => def.inputs[0] <= 1 && def.inputs[1] >= 1 && def.name !== 'Shape');

const byName = new Map(OPERATORS.map((d) => [d.name, d]));

/** The operator of this ONNX name, if the vocabulary has it. */
export function operator(name: string): OpDef | undefined {
  return byName.get(name);
}

/**
 * Operators ordinary models use that import does not read, with why. (ONNX's LSTM, GRU and RNN
 * are read as paralens's recurrent layers: src/io/onnx/evaluate.ts.)
 */
export const PENDING_OPERATORS: Readonly<Record<string, string>> = {
  Loop: 'a loop whose trip count the data decides is not a fixed composite',
  Scan: 'a loop whose trip count the data decides is not a fixed composite',
};
