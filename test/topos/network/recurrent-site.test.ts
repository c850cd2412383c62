import { describe, expect, it } from 'vitest';
import { parseSpec } from '../../../src/catalogue/index.js';
import { networkGraphOfModel } from '../../../src/topos/network/graph.js';
import { networkSite } from '../../../src/topos/network/site.js';

/**
 * The site of a recurrent layer (Belfiore–Bennequin §4.1–4.2): one step of its cell, the previous
 * state a source, and a fork wherever arrows join — the concatenation the gates read, the gates'
 * multiplications with the states, the sums.
 */
const forksOf = (spec: string): Record<string, string[]> =>
  Object.fromEntries(
    networkSite(networkGraphOfModel(parseSpec(spec))).forks.map((f) => [f.vertex.replace(/^\d+:/, ''), f.inputs.map((i) => i.replace(/^\d+:/, ''))]),
  );

describe('the site of a recurrent cell', () => {
  it('lstm: forks at [x_t, h_t−1], at the products f ⊙ c_t−1, i ⊙ g, o ⊙ tanh c_t, and at the sum c_t', () => {
    expect(forksOf('lstm(4,8)')).toEqual({
      '[x_t, h_t−1]': ['x', 'h_t−1'],
      'f ⊙ c_t−1': ['f = σ(·)', 'c_t−1'],
      'i ⊙ g': ['i = σ(·)', 'g = tanh(·)'],
      'c_t = f⊙c + i⊙g': ['f ⊙ c_t−1', 'i ⊙ g'],
      'h_t = o ⊙ tanh c_t [lstm(4,8)]': ['o = σ(·)', 'tanh c_t'],
    });
  });

  it('mgu: the gated state f ⊙ h_t−1 and the candidate reading it are forks, and so are the update products and their sum', () => {
    expect(forksOf('mgu(4,8)')).toEqual({
      '[x_t, h_t−1]': ['x', 'h_t−1'],
      'f ⊙ h_t−1': ['f = σ(·)', 'h_t−1'],
      'n = tanh(W·[x, f⊙h] + b)': ['x', 'f ⊙ h_t−1'],
      '(1 − f) ⊙ h_t−1': ['f = σ(·)', 'h_t−1'],
      'f ⊙ n': ['f = σ(·)', 'n = tanh(W·[x, f⊙h] + b)'],
      'h_t = (1−f)⊙h + f⊙n [mgu(4,8)]': ['(1 − f) ⊙ h_t−1', 'f ⊙ n'],
    });
  });

  it('beside a feed-forward network (no joins, no forks), the recurrent cell in a model adds its forks and its state sources', () => {
    expect(forksOf('dense(4,8) >> tanh >> dense(8,2)')).toEqual({});
    const site = networkSite(networkGraphOfModel(parseSpec('embedding(5,4) >> gru(4,3) >> dense(3,5)')));
    expect(site.forks).toHaveLength(6);
    expect(site.graph.vertices.filter((v) => v.endsWith('h_t−1') && !v.includes('⊙'))).toEqual(['2:h_t−1']);
    expect(site.graph.unsupported).toMatch(/drawn as one step of its cell/);
    expect(Object.keys(forksOf('rnn(2,2)'))).toEqual(['[x_t, h_t−1]']);
  });
});
