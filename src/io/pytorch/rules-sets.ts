import { named, plain, under } from './torch-module.js';
import type { TorchRuleSet } from './torch-module.js';

/**
 * Sets (src/nn/colimit) and the natural-transformation adapter (src/nn/natural).
 * A set is a per-sample tensor [n, d]; pooling reduces axis 1. A masked set carries a last
 * mask column (> 0.5 = present); an empty set pools to 0, as in src/nn/colimit/pool.ts.
 * map(f) runs f on all B·n elements as one batch.
 */
const HELPERS: Record<string, string> = {
  SetPool: `class SetPool(nn.Module):
    """sum_pool / mean_pool / max_pool over the set axis; masked: the last column marks present elements."""
    def __init__(self, op, masked):
        super().__init__()
        self.op, self.masked = op, masked

    def forward(self, x):
        if not self.masked:
            return {'sum': x.sum(1), 'mean': x.mean(1), 'max': x.amax(1)}[self.op]
        feats, present = x[..., :-1], x[..., -1:] > 0.5
        count = present.sum(1).to(x.dtype)
        if self.op == 'max':
            best = feats.masked_fill(~present, float('-inf')).amax(1)
            return torch.where(count > 0, best, torch.zeros_like(best))
        total = (feats * present.to(x.dtype)).sum(1)
        return total / count.clamp(min=1) if self.op == 'mean' else total`,
  MapSet: `class MapSet(nn.Module):
    """map(f): f on every element of a set [n, …A] → [n, …B]; masked: on the features, the mask column carried over."""
    def __init__(self, f, masked):
        super().__init__()
        self.f, self.masked = f, masked

    def forward(self, x):
        b, n = x.shape[0], x.shape[1]
        if not self.masked:
            y = self.f(x.reshape(b * n, *x.shape[2:]))
            return y.reshape(b, n, *y.shape[1:])
        y = self.f(x[..., :-1].reshape(b * n, -1)).reshape(b, n, -1)
        return torch.cat([y, x[..., -1:]], dim=2)`,
};

const pool = (op: string, masked: boolean) => () => plain(`SetPool('${op}', ${masked ? 'True' : 'False'})`, ['SetPool']);

export const setRules: TorchRuleSet = {
  helpers: HELPERS,
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
