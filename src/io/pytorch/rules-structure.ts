import type { Para } from '../../para/para.js';
import { argLines, plain, under } from './torch-module.js';
import type { TorchModule, TorchRuleSet } from './torch-module.js';

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

/**
 * Para's own structure as PyTorch: `>>` is nn.Sequential (child i is submodule `i`, as in
 * the paralens names), `@` is Par (split the first per-sample axis into the factors'
 * domains, run each, concatenate), `residual(f)` is x + f(x), and the comonoid/monoid maps
 * copy, add, discard and id are one line each.
 * Their Python classes are in python/layers.py.
 */
export const structureRules: TorchRuleSet = {
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
