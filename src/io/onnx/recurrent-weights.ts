import { quote } from '../../errors.js';
import { bidirectionalOf, recurrentLayer } from '../../nn/recurrent/index.js';
import type { RecurrentLayer } from '../../nn/recurrent/index.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import type { DType } from '../../tensor/tensor.js';
import { FileFormatError, ImportError } from '../errors.js';

/**
 * The ONNX recurrent operators and paralens's recurrent layers, weight for weight. ONNX stacks
 * the gate blocks in its own order — LSTM i, o, f, c and GRU z, r, h — where PyTorch (and
 * paralens) stack LSTM i, f, g, o and GRU r, z, n; ONNX's W [dirs, G·h, in] and R [dirs, G·h, h]
 * are PyTorch's weight_ih and weight_hh per direction with the blocks reordered, and its
 * B [dirs, 2·G·h] is bias_ih then bias_hh, each reordered likewise. GRU must be
 * linear_before_reset = 1 (PyTorch's r ⊙ (W_hn h + b_hn)); RNN is tanh.
 */

/** The ONNX operator of each named layer with one. */
export const ONNX_RECURRENT_OPS: Readonly<Partial<Record<RecurrentLayer, 'LSTM' | 'GRU' | 'RNN'>>> = { lstm: 'LSTM', gru: 'GRU', rnn: 'RNN' };

/** ONNX block k holds PyTorch block ORDER[k]. */
const ORDER: Readonly<Record<'LSTM' | 'GRU' | 'RNN', readonly number[]>> = { LSTM: [0, 3, 1, 2], GRU: [1, 0, 2], RNN: [0] };

/** Stacked blocks of `blockSize` values, permuted into dst from `at`: out block k = in block order[k] (inverse: out block order[k] = in block k). */
function permuteBlocks(
  src: ArrayLike<number>,
  order: readonly number[],
  blockSize: number,
  dst: Float32Array | Float64Array,
  at: number,
  inverse: boolean,
): void {
  order.forEach((from, k) => {
    const [s, d] = inverse ? [k, from] : [from, k];
    for (let i = 0; i < blockSize; i++) dst[at + d * blockSize + i] = src[s * blockSize + i]!;
  });
}

/** One direction's parameters in PyTorch's layout: weight_ih, weight_hh, bias_ih, bias_hh. */
export type TorchDirection = readonly [Tensor, Tensor, Tensor, Tensor];

/** ONNX's W, R and B of a layer from PyTorch's parameters of each direction (forward first). */
export function onnxRecurrentWeights(op: 'LSTM' | 'GRU' | 'RNN', directions: readonly TorchDirection[]): { W: Tensor; R: Tensor; B: Tensor } {
  const order = ORDER[op],
    G = order.length,
    D = directions.length;
  const [wih] = directions[0]!;
  const Gh = wih.shape[0]!,
    h = Gh / G,
    A = wih.shape[1]!;
  const W = new Float32Array(D * Gh * A),
    R = new Float32Array(D * Gh * h),
    B = new Float32Array(D * 2 * Gh);
  directions.forEach(([wi, wh, bi, bh], d) => {
    permuteBlocks(wi.data, order, h * A, W, d * Gh * A, false);
    permuteBlocks(wh.data, order, h * h, R, d * Gh * h, false);
    permuteBlocks(bi.data, order, h, B, d * 2 * Gh, false);
    permuteBlocks(bh.data, order, h, B, d * 2 * Gh + Gh, false);
  });
  return { W: new Tensor(W, [D, Gh, A]), R: new Tensor(R, [D, Gh, h]), B: new Tensor(B, [D, 2 * Gh]) };
}

/** What an ONNX LSTM, GRU or RNN node says, besides its weights. */
export interface OnnxRecurrentAttributes {
  readonly hidden_size?: number;
  readonly direction?: string;
  readonly linear_before_reset?: number;
  readonly activations?: readonly string[];
  readonly clip?: number;
  readonly input_forget?: number;
  readonly layout?: number;
}

/**
 * The paralens layer of an ONNX LSTM, GRU or RNN node and its parameters (PyTorch's layout,
 * θ in the layer's order): `lstm(in,h)` for a forward node, `bidirectional(lstm(in,h))` for a
 * bidirectional one; from W [dirs, G·h, in], R [dirs, G·h, h] and B [dirs, 2·G·h] (zeros when
 * absent). The layer acts on [T, in] per sample ([batch, T, in], what the node reads after the
 * Transpose of a layout-0 graph) from zero initial states, and gives ONNX's Y as [T, dirs·h]
 * (both directions side by side). What paralens's cells do not compute is refused, naming it: a
 * reverse-only direction, GRU with linear_before_reset = 0, other activations, clip, coupled
 * input and forget gates (peepholes, sequence lengths and initial states are inputs the caller
 * checks).
 */
export function recurrentFromOnnx(
  op: 'LSTM' | 'GRU' | 'RNN',
  weights: { W: Tensor; R: Tensor; B?: Tensor },
  attrs: OnnxRecurrentAttributes = {},
  dtype: DType = 'float32',
): { model: Para; theta: Tensor[] } {
  const where = `ONNX ${op}`;
  const order = ORDER[op],
    G = order.length;
  const { W, R, B } = weights;
  if (W.rank !== 3 || R.rank !== 3)
    throw new FileFormatError(`${where}: W and R must be [directions, ${G}·hidden, …], got [${W.shape.join(',')}] and [${R.shape.join(',')}]`);
  const D = W.shape[0]!,
    Gh = W.shape[1]!,
    A = W.shape[2]!,
    h = Gh / G;
  const direction = attrs.direction ?? 'forward';
  if (direction !== 'forward' && direction !== 'bidirectional')
    throw new ImportError(`${where}: direction ${quote(direction)} is not supported (paralens reads 'forward' and 'bidirectional')`);
  if ((direction === 'bidirectional' ? 2 : 1) !== D)
    throw new FileFormatError(`${where}: direction ${direction} needs W with ${direction === 'bidirectional' ? 2 : 1} directions, got ${D}`);
  if (!Number.isInteger(h) || h <= 0 || (attrs.hidden_size !== undefined && attrs.hidden_size !== h))
    throw new FileFormatError(`${where}: W [${W.shape.join(',')}] does not hold ${G} gate blocks of hidden_size ${attrs.hidden_size ?? '?'}`);
  if (R.shape[0] !== D || R.shape[1] !== Gh || R.shape[2] !== h) throw new FileFormatError(`${where}: R must be [${D},${Gh},${h}], got [${R.shape.join(',')}]`);
  if (B && (B.rank !== 2 || B.shape[0] !== D || B.shape[1] !== 2 * Gh))
    throw new FileFormatError(`${where}: B must be [${D},${2 * Gh}], got [${B.shape.join(',')}]`);
  if (op === 'GRU' && attrs.linear_before_reset !== 1)
    throw new ImportError(
      `${where}: linear_before_reset = ${attrs.linear_before_reset ?? 0} resets before the product; paralens's gru (PyTorch's) needs linear_before_reset = 1`,
    );
  const standard = { LSTM: ['Sigmoid', 'Tanh', 'Tanh'], GRU: ['Sigmoid', 'Tanh'], RNN: ['Tanh'] }[op];
  if (attrs.activations !== undefined && !Array.isArray(attrs.activations))
    throw new ImportError(`${where}: the activations attribute must be a list of names, got ${JSON.stringify(attrs.activations)}`);
  if (attrs.activations && attrs.activations.join(',') !== [...standard, ...(D === 2 ? standard : [])].join(','))
    throw new ImportError(`${where}: activations ${attrs.activations.join(', ')} are not supported (paralens computes ${standard.join(', ')})`);
  if (attrs.clip !== undefined) throw new ImportError(`${where}: the clip attribute (cell clipping) is not supported`);
  if (attrs.input_forget) throw new ImportError(`${where}: input_forget = 1 (coupled input and forget gates) is not supported`);
  if (attrs.layout) throw new ImportError(`${where}: layout = 1 (batch first) is read by the importer as layout 0 after a Transpose; give the node layout 0`);
  const kind = Object.entries(ONNX_RECURRENT_OPS).find(([, o]) => o === op)![0] as RecurrentLayer;
  const layer = recurrentLayer(kind, A, h);
  const model = D === 2 ? bidirectionalOf(layer) : layer;
  const theta: Tensor[] = [];
  for (let d = 0; d < D; d++) {
    const wih = Tensor.zeros([Gh, A], dtype),
      whh = Tensor.zeros([Gh, h], dtype),
      bih = Tensor.zeros([Gh], dtype),
      bhh = Tensor.zeros([Gh], dtype);
    permuteBlocks(W.data.subarray(d * Gh * A, (d + 1) * Gh * A), order, h * A, wih.data, 0, true);
    permuteBlocks(R.data.subarray(d * Gh * h, (d + 1) * Gh * h), order, h * h, whh.data, 0, true);
    if (B) {
      permuteBlocks(B.data.subarray(d * 2 * Gh, d * 2 * Gh + Gh), order, h, bih.data, 0, true);
      permuteBlocks(B.data.subarray(d * 2 * Gh + Gh, (d + 1) * 2 * Gh), order, h, bhh.data, 0, true);
    }
    theta.push(wih, whh, bih, bhh);
  }
  return { model, theta };
}
