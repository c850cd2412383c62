import { DataError } from '../errors.js';
import { primitive } from '../para/composite.js';
import { checkInput } from '../para/para.js';
import type { Para } from '../para/para.js';
import { backend } from '../tensor/registry.js';
import type { Data, Shape } from '../tensor/tensor.js';
import { requirePositive } from './conv2d.js';
import { normal } from './initializers.js';

/**
 * Token ids travel as float32 (or float64) numbers holding integers, exact up to 2²⁴: every id
 * must be an integer in 0 … V−1. Checked before any row is read; the error names the first id
 * that is not and where it is.
 */
export function checkTokenIds(where: string, ids: Data, V: number): void {
  for (let i = 0; i < ids.length; i++) {
    const v = ids[i]!;
    if (!(Number.isInteger(v) && v >= 0 && v < V)) {
      throw new DataError(`${where}: token id ${v} at index ${i} is not an integer in 0…${V - 1} (the vocabulary has V = ${V} ids)`);
    }
  }
}

/**
 * embedding(V,d): token ids [*, …] → vectors [*, …, d], row id of a table W: [V, d]
 * (PyTorch's nn.Embedding, initialised N(0,1) as there). Pullback: the rows of dy are
 * scatter-added into dW at their ids; the ids get no gradient (dx = 0). Takes ids of any
 * shape (a sequence [T]) until composed. Both are the backend's (gatherRows, scatterRows).
 */
export function embedding(V: number, d: number, dom?: Shape): Para {
  const where = `embedding(${V},${d})`;
  requirePositive(where, 'vocabulary size V', V);
  requirePositive(where, 'width d', d);
  if (V > 2 ** 24) throw new DataError(`${where}: ids travel as float32, exact up to 2^24 = ${2 ** 24}; V = ${V} is larger`);
  const self: Para = primitive({
    kind: 'embedding',
    args: [V, d],
    dom,
    cod: dom && [...dom, d],
    params: [{ name: 'weight', shape: [V, d], init: normal(1) }],
    positionwise: true,
    at: (s) => embedding(V, d, s),
    forward: ([W], x, ctx) => {
      if (dom) checkInput(self, x);
      const be = backend();
      // ids on a device cannot be read here: trainLanguageModelAsync checks the vocabulary
      // against the table on the host first (an id past it would read robust-access values)
      if (!be.device?.holds(x.data)) checkTokenIds(where, x.data, V);
      const y = ctx.alloc([...x.shape, d], x.dtype, true);
      be.gatherRows(x.data, W!.data, d, y.data);
      return {
        y,
        pullback: (dy, dTheta) => {
          if (dTheta) be.scatterRows(dy.data, x.data, d, dTheta[0]!.data);
          return ctx.alloc(x.shape, x.dtype);
        },
      };
    },
  });
  return self;
}
