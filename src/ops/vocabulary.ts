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

const byName = new Map(OPERATORS.map((d) => [d.name, d]));

/** The operator of this ONNX name, if the vocabulary has it. */
export function operator(name: string): OpDef | undefined {
  return byName.get(name);
}

/**
 * Operators ordinary models use that are not yet operator lenses, with why: the recurrent
 * layers are being built in src/nn (rnn, lstm, gru with PyTorch's layout); ONNX's RNN, LSTM and
 * GRU map onto them (gate order iofc → ifgo, W and R per direction, the two biases summed) once
 * they land, in src/io/onnx/rewrite-recurrent.ts.
 */
export const PENDING_OPERATORS: Readonly<Record<string, string>> = {
  LSTM: 'not yet: the recurrent layers (lstm, gru, rnn in src/nn) are being built; ONNX LSTM maps onto lstm(in,h)',
  GRU: 'not yet: ONNX GRU maps onto gru(in,h) once the recurrent layers land',
  RNN: 'not yet: ONNX RNN maps onto rnn(in,h) once the recurrent layers land',
  Loop: 'a loop whose trip count the data decides is not a fixed composite',
  Scan: 'a loop whose trip count the data decides is not a fixed composite',
};
