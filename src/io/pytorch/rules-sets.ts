import { named, plain, under } from './torch-module.js';
import type { TorchRuleSet } from './torch-module.js';

const pool = (op: string, masked: boolean) => () => plain(`SetPool('${op}', ${masked ? 'True' : 'False'})`, ['SetPool']);

/**
 * Sets (src/nn/colimit) and the natural-transformation adapter (src/nn/natural).
 * A set is a per-sample tensor [n, d]; pooling reduces axis 1. A masked set carries a last
 * mask column (> 0.5 = present); an empty set pools to 0, as in src/nn/colimit/pool.ts.
 * map(f) runs f on all B·n elements as one batch.
 * Their Python classes are in python/layers.py.
 */
export const setRules: TorchRuleSet = {
  rules: {
    ...Object.fromEntries(
      ['sum', 'mean', 'max'].flatMap((op) => [
        [`${op}_pool`, pool(op, false)],
        [`masked_${op}_pool`, pool(op, true)],
      ]),
    ),
    map: ({ m, emit }) => {
      const f = emit(m.children[0]!);
      return { code: `MapSet(${f.code}, False)`, ...under('f', f), helpers: ['MapSet', ...f.helpers] };
    },
    masked_map: ({ m, emit }) => {
      const f = emit(m.children[0]!);
      return { code: `MapSet(${f.code}, True)`, ...under('f', f), helpers: ['MapSet', ...f.helpers] };
    },
    adapter: ({ m }) => named(m, `nn.Linear(${m.args[0]}, ${m.args[1]}, bias=False)`),
  },
};
