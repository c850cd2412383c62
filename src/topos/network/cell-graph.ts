import type { RecurrentInfo } from '../../nn/recurrent/index.js';

/**
 * One step of a gated recurrent cell as a graph of layers, as Belfiore–Bennequin draw the cells
 * of LSTM, GRU and MGU (§4.1–4.2): the input x_t and the previous state (h_t−1, and c_t−1 for the
 * LSTM) are sources; every vertex where several arrows join — the concatenation [x_t, h_t−1] the
 * gates read, each product of a gate with a state (⊙) and each sum — has several inputs and so
 * becomes a fork of the site, the multiplications among them. `x` names the layer's input; the
 * last vertex is the cell's output h_t.
 */
export interface CellGraph {
  /** The previous state's parts, sources of the graph besides x. */
  readonly sources: readonly string[];
  /** The vertices in order, each with what it reads (x, a source, or an earlier vertex). */
  readonly vertices: readonly { readonly name: string; readonly reads: readonly string[] }[];
}

const join = '[x_t, h_t−1]';

export const CELL_GRAPHS: Readonly<Record<string, CellGraph>> = {
  rnn_cell: {
    sources: ['h_t−1'],
    vertices: [
      { name: join, reads: ['x', 'h_t−1'] },
      { name: 'h_t = tanh(·)', reads: [join] },
    ],
  },
  lstm_cell: {
    sources: ['h_t−1', 'c_t−1'],
    vertices: [
      { name: join, reads: ['x', 'h_t−1'] },
      { name: 'i = σ(·)', reads: [join] },
      { name: 'f = σ(·)', reads: [join] },
      { name: 'g = tanh(·)', reads: [join] },
      { name: 'o = σ(·)', reads: [join] },
      { name: 'f ⊙ c_t−1', reads: ['f = σ(·)', 'c_t−1'] },
      { name: 'i ⊙ g', reads: ['i = σ(·)', 'g = tanh(·)'] },
      { name: 'c_t = f⊙c + i⊙g', reads: ['f ⊙ c_t−1', 'i ⊙ g'] },
      { name: 'tanh c_t', reads: ['c_t = f⊙c + i⊙g'] },
      { name: 'h_t = o ⊙ tanh c_t', reads: ['o = σ(·)', 'tanh c_t'] },
    ],
  },
  gru_cell: {
    sources: ['h_t−1'],
    vertices: [
      { name: join, reads: ['x', 'h_t−1'] },
      { name: 'r = σ(·)', reads: [join] },
      { name: 'z = σ(·)', reads: [join] },
      { name: 'r ⊙ (W_hn·h + b_hn)', reads: ['r = σ(·)', 'h_t−1'] },
      { name: 'n = tanh(W_in·x + b_in + r ⊙ ·)', reads: ['x', 'r ⊙ (W_hn·h + b_hn)'] },
      { name: '(1 − z) ⊙ n', reads: ['z = σ(·)', 'n = tanh(W_in·x + b_in + r ⊙ ·)'] },
      { name: 'z ⊙ h_t−1', reads: ['z = σ(·)', 'h_t−1'] },
      { name: 'h_t = (1−z)⊙n + z⊙h', reads: ['(1 − z) ⊙ n', 'z ⊙ h_t−1'] },
    ],
  },
  mgu_cell: {
    sources: ['h_t−1'],
    vertices: [
      { name: join, reads: ['x', 'h_t−1'] },
      { name: 'f = σ(·)', reads: [join] },
      { name: 'f ⊙ h_t−1', reads: ['f = σ(·)', 'h_t−1'] },
      { name: 'n = tanh(W·[x, f⊙h] + b)', reads: ['x', 'f ⊙ h_t−1'] },
      { name: '(1 − f) ⊙ h_t−1', reads: ['f = σ(·)', 'h_t−1'] },
      { name: 'f ⊙ n', reads: ['f = σ(·)', 'n = tanh(W·[x, f⊙h] + b)'] },
      { name: 'h_t = (1−f)⊙h + f⊙n', reads: ['(1 − f) ⊙ h_t−1', 'f ⊙ n'] },
    ],
  },
};

/** The step graph of a recurrent layer's cell, when it is one of the named cells. */
export function cellGraphOf(info: RecurrentInfo): CellGraph | undefined {
  return CELL_GRAPHS[info.cell.kind];
}
