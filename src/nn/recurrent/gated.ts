import { RangeArgError } from '../../errors.js';
import type { ParamSpec } from '../../para/para.js';
import { torchDefaultUniform } from '../initializers.js';

/** Checks a gated cell's sizes: positive integers (the input may be 0: a cell that only unfolds). */
export function checkSizes(kind: string, inDim: number, h: number): void {
  if (!(Number.isInteger(inDim) && inDim >= 0 && Number.isInteger(h) && h > 0)) {
    throw new RangeArgError(`${kind}(in,h) needs an integer input size ≥ 0 and a positive integer hidden size, got ${kind}(${inDim},${h})`);
  }
}

/**
 * PyTorch's parameters of a recurrent layer with `gates` gate blocks (nn.RNN 1, nn.LSTM 4,
 * nn.GRU 3; mgu 2): weight_ih [gates·h, in], weight_hh [gates·h, h], bias_ih and bias_hh
 * [gates·h], all U(−1/√h, 1/√h) as PyTorch initialises them. `suffix` is PyTorch's: '' for a
 * cell (nn.LSTMCell), '_l0' for a layer (nn.LSTM), '_l0_reverse' for its backward direction.
 */
export function gatedParams(inDim: number, h: number, gates: number, suffix = ''): ParamSpec[] {
  const init = torchDefaultUniform(h);
  return [
    { name: `weight_ih${suffix}`, shape: [gates * h, inDim], init },
    { name: `weight_hh${suffix}`, shape: [gates * h, h], init },
    { name: `bias_ih${suffix}`, shape: [gates * h], init },
    { name: `bias_hh${suffix}`, shape: [gates * h], init },
  ];
}
