import { ShapeError } from '../../errors.js';
import type { Para } from '../../para/para.js';
import { bidirectional } from './bidirectional.js';
import type { Cell } from './cell.js';
import { gruCell } from './gru.js';
import { describeRecurrent, recurrentInfo } from './known.js';
import { sequenceLayer } from './layers.js';
import { lstmCell } from './lstm.js';
import { mguCell } from './mgu.js';
import { cellMorphism, cellOf } from './morphism.js';
import { rnnCell } from './rnn.js';
import { stack } from './stack.js';
import { unfold } from './unfold.js';

/** The named recurrent layers: rnn (tanh), lstm, gru, mgu. */
export type RecurrentLayer = 'rnn' | 'lstm' | 'gru' | 'mgu';
export const RECURRENT_LAYERS: readonly RecurrentLayer[] = ['rnn', 'lstm', 'gru', 'mgu'];

/** Each named layer's cell, with PyTorch's parameter names carrying `suffix`. */
export const CELLS: Readonly<Record<RecurrentLayer, (inDim: number, h: number, suffix?: string) => Cell>> = {
  rnn: rnnCell,
  lstm: lstmCell,
  gru: gruCell,
  mgu: mguCell,
};

/**
 * lstm(in,h), gru(in,h), rnn(in,h), mgu(in,h): [T, in] → [T, h], the scan of the cell from the
 * zero state — PyTorch's nn.LSTM (batch_first) and its kin, with their parameter names
 * (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0) and gate orders.
 */
export function recurrentLayer(kind: RecurrentLayer, inDim: number, h: number): Para {
  return sequenceLayer(CELLS[kind](inDim, h, '_l0'), 'scan', { kind, args: [inDim, h], layer: kind });
}

export const rnn = (inDim: number, h: number): Para => recurrentLayer('rnn', inDim, h);
export const lstm = (inDim: number, h: number): Para => recurrentLayer('lstm', inDim, h);
export const gru = (inDim: number, h: number): Para => recurrentLayer('gru', inDim, h);
export const mgu = (inDim: number, h: number): Para => recurrentLayer('mgu', inDim, h);

/** A cell as its Para morphism S ⊗ A → S ⊗ B (lstm_cell(in,h) …), remembered as a cell. */
export function cellAsMorphism(cell: Cell): Para {
  return describeRecurrent(cellMorphism(cell), { role: 'cell', cell });
}

/** rnn_cell(in,h), lstm_cell(in,h), gru_cell(in,h), mgu_cell(in,h): [S + in] → [S + h] (PyTorch's nn.LSTMCell's names). */
export function namedCell(kind: RecurrentLayer, inDim: number, h: number): Para {
  return cellAsMorphism(CELLS[kind](inDim, h));
}

/**
 * The cell a morphism stands for: a cell morphism (lstm_cell(…), stack(…), a named layer's
 * cell), or any morphism f: [S + A] → [S + B] read with the state size S given.
 */
export function cellFrom(f: Para, S?: number, where = 'scan'): Cell {
  const info = recurrentInfo(f);
  if (S === undefined) {
    if (info && (info.role === 'cell' || info.role === 'scan')) return info.cell;
    throw new ShapeError(`${where}(${f}): ${f} is not a cell; give its state size, e.g. ${where}(${f},S) for f: [S+A] → [S+B]`);
  }
  return cellOf(f, S);
}

const cellArgs = (f: Para, S?: number): (number | string)[] => (S === undefined ? [String(f)] : [String(f), S]);

/** scan(f[,S]): [T, A] → [T, B], every output of the cell f along the sequence. */
export function scan(f: Para, S?: number): Para {
  return sequenceLayer(cellFrom(f, S, 'scan'), 'scan', { kind: 'scan', args: cellArgs(f, S) });
}

/** fold(f[,S]): [T, A] → [S], the final state: the catamorphism. */
export function fold(f: Para, S?: number): Para {
  return sequenceLayer(cellFrom(f, S, 'fold'), 'fold', { kind: 'fold', args: cellArgs(f, S) });
}

/** unfold(f,T[,S]): [S + A] → [T, B], the anamorphism (output fed back as the next input). */
export function unfoldOf(f: Para, T: number, S?: number): Para {
  return unfold(cellFrom(f, S, 'unfold'), T);
}

/** bidirectional(f): f a named layer (lstm(…): PyTorch's bidirectional nn.LSTM) or a cell. */
export function bidirectionalOf(f: Para): Para {
  const info = recurrentInfo(f);
  if (!info || (info.role !== 'cell' && info.role !== 'scan'))
    throw new ShapeError(`bidirectional(${f}): expected a recurrent layer such as lstm(4,8), or a cell such as gru_cell(4,8)`);
  return bidirectional(info.cell, { kind: 'bidirectional', args: [String(f)], layer: info.layer });
}

/** stack(c₁,…,cₙ) as a cell morphism. */
export function stackOf(fs: readonly Para[]): Para {
  return cellAsMorphism(stack(fs.map((f) => cellFrom(f, undefined, 'stack'))));
}
