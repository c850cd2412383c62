import { quote } from '../../errors.js';
import { recurrentInfo } from '../../nn/recurrent/index.js';
import type { RecurrentLayer } from '../../nn/recurrent/index.js';
import { ExportError } from '../errors.js';
import type { OnnxRule } from './rule.js';
import { ONNX_RECURRENT_OPS, onnxRecurrentWeights } from './recurrent-weights.js';
import type { TorchDirection } from './recurrent-weights.js';

/**
 * ONNX rules for the recurrent layers: a scan of an LSTM, GRU or RNN cell (lstm(in,h), gru,
 * rnn, scan(lstm_cell(…)), …) and bidirectional(…) of one become that operator (opset 14+,
 * layout 0): the input [B, T, in] transposed to [T, B, in], W, R and B in ONNX's gate order
 * (onnx-recurrent-weights.ts), zero initial states, and Y [T, dirs, B, h] brought back to
 * [B, T, dirs·h] (one direction: Squeeze and Transpose, as PyTorch writes it; two: side by side,
 * as bidirectional concatenates them). mgu, folds,
 * unfolds and cells alone have no ONNX operator and are refused by name.
 */
const recurrent: OnnxRule = ({ m, theta, x, g }) => {
  const info = recurrentInfo(m);
  const kind = info?.cell.kind.replace(/_cell$/, '') as RecurrentLayer | undefined;
  const op = kind && ONNX_RECURRENT_OPS[kind];
  if (!info || !op || (info.role !== 'scan' && info.role !== 'bidirectional'))
    throw new ExportError(
      `cannot export layer ${quote(m)} to ONNX: only the scans of lstm, gru and rnn cells (and bidirectional ones) have ONNX operators (LSTM, GRU, RNN)`,
    );
  if (x.name === null) throw new ExportError(`cannot export layer ${quote(m)} to ONNX: its input is empty`);
  const D = info.role === 'bidirectional' ? 2 : 1,
    k = info.cell.params.length,
    H = info.cell.output,
    T = m.dom![0]!;
  const directions = Array.from({ length: D }, (_, d) => theta.slice(d * k, (d + 1) * k).map((p) => p.tensor) as unknown as TorchDirection);
  const { W, R, B } = onnxRecurrentWeights(op, directions);
  const name = (hint: string, tensor: typeof W): string => g.weight({ name: g.fresh(`${kind}_${hint}`), tensor });
  const [xt] = g.node('Transpose', [x.name], { perm: { ints: [1, 0, 2] } });
  const [Y] = g.node(op, [xt!, name('W', W), name('R', R), name('B', B)], {
    hidden_size: { i: H },
    ...(D === 2 ? { direction: { s: 'bidirectional' } } : {}),
    ...(op === 'GRU' ? { linear_before_reset: { i: 1 } } : {}),
  });
  if (D === 1) {
    // as PyTorch writes it: the axis of directions squeezed, then batch first again
    const [ys] = g.node('Squeeze', [Y!, g.int64('axes', [1])]);
    const [y] = g.node('Transpose', [ys!], { perm: { ints: [1, 0, 2] } });
    return { name: y!, shape: [T, H] };
  }
  const [yt] = g.node('Transpose', [Y!], { perm: { ints: [2, 0, 1, 3] } });
  const [y] = g.node('Reshape', [yt!, g.int64('shape', [0, T, D * H])]);
  return { name: y!, shape: [T, D * H] };
};

/** The rules of this file by layer kind (registered by the exporter, src/io/onnx.ts). */
export const recurrentRules: Readonly<Record<string, OnnxRule>> = {
  lstm: recurrent,
  gru: recurrent,
  rnn: recurrent,
  scan: recurrent,
  bidirectional: recurrent,
};
