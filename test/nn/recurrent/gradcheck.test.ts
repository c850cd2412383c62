import { describe, expect, it } from 'vitest';
import { gradcheck, parseSpec } from '../../../src/index.js';

/**
 * Every recurrent layer, cell and combinator passes the float64 gradient check (parameters and
 * input in one random direction), at several lengths and with the pullback truncated.
 */
const specs: [string, number[]][] = [
  ['rnn(3,4)', [5, 3]],
  ['lstm(3,4)', [5, 3]],
  ['gru(3,4)', [5, 3]],
  ['mgu(3,4)', [5, 3]],
  ['mgu(2,3)', [1, 2]],
  ['lstm_cell(3,4)', [11]],
  ['gru_cell(3,4)', [7]],
  ['mgu_cell(3,4)', [7]],
  ['rnn_cell(3,4)', [7]],
  ['scan(mgu_cell(3,4))', [4, 3]],
  ['fold(lstm_cell(3,4))', [4, 3]],
  ['fold(mgu_cell(2,3))', [6, 2]],
  ['unfold(gru_cell(3,3),4)', [6]],
  ['unfold(mgu_cell(0,3),3)', [3]],
  ['bidirectional(lstm(3,4))', [5, 3]],
  ['bidirectional(mgu_cell(3,2))', [4, 3]],
  ['scan(stack(lstm_cell(3,4),gru_cell(4,2)))', [4, 3]],
  ['scan(dense(7,6) >> tanh,2)', [4, 5]],
  ['fold(dense(7,6) >> tanh,2)', [4, 5]],
  ['unfold(dense(4,4) >> sigmoid,2,2)', [4]],
  ['lstm(3,4) >> dense(4,2)', [5, 3]],
];

describe('recurrent morphisms: float64 gradient check', () => {
  for (const [spec, dom] of specs) {
    it(spec, () => {
      for (const seed of [1, 2]) {
        const r = gradcheck(parseSpec(spec), { dom, seed, batch: 2 });
        expect(r.relError, `${spec} seed ${seed}: ${r.analytic} vs ${r.numeric}`).toBeLessThan(1e-6);
      }
    });
  }
});
