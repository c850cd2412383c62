import type { Para } from '../../para/para.js';
import type { Cell } from './cell.js';

/**
 * What a recurrent morphism is made of, for the code that draws, exports or takes apart a model
 * (pictures, the site, ONNX and PyTorch export, text training): the cell, and the combinator
 * over it — the cell itself as a morphism, its scan, fold or unfold, or both directions.
 * The morphisms are the stable primitives of src/para; this side table says what they mean.
 */
export interface RecurrentInfo {
  readonly role: 'cell' | 'scan' | 'fold' | 'unfold' | 'bidirectional';
  readonly cell: Cell;
  /** The named layer's kind (rnn, lstm, gru, mgu) when it is one (its parameters are then PyTorch's nn.LSTM's, …). */
  readonly layer?: 'rnn' | 'lstm' | 'gru' | 'mgu';
  /** unfold: the number of steps. */
  readonly steps?: number;
  /** bidirectional: the cell of the backward direction (the same cell with its own parameters). */
  readonly reverse?: Cell;
}

const infos = new WeakMap<Para, RecurrentInfo>();

/** Records what m is (done once, where m is made). */
export function describeRecurrent<P extends Para>(m: P, info: RecurrentInfo): P {
  infos.set(m, info);
  return m;
}

/** What m is, when it is a recurrent morphism. */
export function recurrentInfo(m: Para): RecurrentInfo | undefined {
  return infos.get(m);
}

/** The recurrent morphisms inside m (m included), outermost first. */
export function recurrentParts(m: Para): Para[] {
  return infos.has(m) ? [m] : m.children.flatMap(recurrentParts);
}

/** Whether m has a recurrent layer that runs over a sequence (a scan, fold, unfold or bidirectional). */
export function hasRecurrentLayers(m: Para): boolean {
  return recurrentParts(m).some((p) => infos.get(p)!.role !== 'cell');
}
