import type { Para } from '../../para/para.js';
import { argLines, plain, under } from './torch-module.js';
import type { TorchModule, TorchRuleSet } from './torch-module.js';

/**
 * Para's own structure as PyTorch: `>>` is nn.Sequential (child i is submodule `i`, as in
 * the paralens names), `@` is Par (split the first per-sample axis into the factors'
 * domains, run each, concatenate), `residual(f)` is x + f(x), and the comonoid/monoid maps
 * copy, add, discard and id are one line each.
 */
const HELPERS: Record<string, string> = {
  Par: `class Par(nn.ModuleList):
    """f₁ @ … @ fₙ: axis 1 split into the factors' input sizes, each factor on its part, outputs concatenated."""
    def __init__(self, sizes, *factors):
        super().__init__(factors)
        self.sizes = list(sizes)

    def forward(self, x):
        parts = torch.split(x, self.sizes, dim=1)
        return torch.cat([f(p) for f, p in zip(self, parts)], dim=1)`,
  Residual: `class Residual(nn.Module):
    """residual(f): x ↦ x + f(x)."""
    def __init__(self, body):
        super().__init__()
        self.body = body

    def forward(self, x):
        return x + self.body(x)`,
  Copy: `class Copy(nn.Module):
    """copy: Δ, x ↦ (x, x) side by side along axis 1."""
    def forward(self, x):
        return torch.cat([x, x], dim=1)`,
  AddHalves: `class AddHalves(nn.Module):
    """add: the two halves of axis 1 summed."""
    def forward(self, x):
        a, b = torch.chunk(x, 2, dim=1)
        return a + b`,
  Discard: `class Discard(nn.Module):
    """discard: to the monoidal unit, an empty axis 1."""
    def forward(self, x):
        return x[:, :0]`,
};

/** The submodules of a composite, registered as `0`, `1`, …: names and buffers prefixed by position. */
function indexed(children: readonly TorchModule[]): Pick<TorchModule, 'params' | 'buffers' | 'helpers' | 'aliases'> {
  const parts = children.map((c, i) => under(String(i), c));
  return {
    params: parts.flatMap((p) => p.params),
    buffers: parts.flatMap((p) => p.buffers),
    helpers: children.flatMap((c) => c.helpers),
    aliases: parts.flatMap((p) => p.aliases),
  };
}

export const structureRules: TorchRuleSet = {
  helpers: HELPERS,
  rules: {
    seq: ({ m, emit }) => {
      const cs = m.children.map(emit);
      return { code: `nn.Sequential(\n${argLines(cs)}\n)`, ...indexed(cs) };
    },
    par: ({ m, emit }) => {
      const cs = m.children.map(emit);
      const sizes = m.children.map((c: Para) => c.dom![0]!);
      const inner = indexed(cs);
      return { code: `Par([${sizes.join(', ')}],\n${argLines(cs)}\n)`, ...inner, helpers: ['Par', ...inner.helpers] };
    },
    residual: ({ m, emit }) => {
      const body = emit(m.children[0]!);
      return { code: `Residual(${body.code})`, ...under('body', body), helpers: ['Residual', ...body.helpers] };
    },
    id: () => plain('nn.Identity()'),
    copy: () => plain('Copy()', ['Copy']),
    add: () => plain('AddHalves()', ['AddHalves']),
    discard: () => plain('Discard()', ['Discard']),
  },
};
