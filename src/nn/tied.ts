import { ShapeError } from '../errors.js';
import { tie } from '../para/param-maps.js';
import { Reparam } from '../para/structure.js';
import { perPosition } from '../para/para.js';
import type { Para } from '../para/para.js';
import type { Shape } from '../tensor/tensor.js';

/** Every primitive of f (through composites and wrappers that keep their child's parameters) with the index of its first parameter in f.params. */
function leaves(f: Para, first = 0, out: { leaf: Para; first: number }[] = []): { leaf: Para; first: number }[] {
  if (f.kind === 'seq' || f.kind === 'par') {
    let k = first;
    for (const c of f.children) {
      leaves(c, k, out);
      k += c.params.length;
    }
  } else if (f.children.length === 1 && f.children[0]!.params.length === f.params.length && f.kind !== 'reparam' && f.kind !== 'tied') {
    leaves(f.children[0]!, first, out);
  } else {
    out.push({ leaf: f, first });
  }
  return out;
}

/**
 * tied(f): f with the table of its first embedding(V,d) and the weight of its last dense(d,V)
 * — the language-model head — one shared parameter (Press & Wolf 2017), through the
 * reparametrisation `tie`: the head reads the embedding's table as its [V, d] weight, and the
 * pullback adds both gradients into it. The head keeps its own bias.
 */
export function tied(f: Para): Para {
  const all = leaves(f);
  const emb = all.find((l) => l.leaf.kind === 'embedding');
  if (!emb) throw new ShapeError(`tied(${f}): there is no embedding(V,d) to tie`);
  const [V, d] = emb.leaf.args as number[];
  const head = [...all].reverse().find((l) => l.leaf.kind === 'dense' && l.leaf.args[0] === d && l.leaf.args[1] === V);
  if (!head) throw new ShapeError(`tied(${f}): there is no dense(${d},${V}) head to tie to embedding(${V},${d})`);
  return new Tied(f, [[emb.first, head.first]]);
}

class Tied extends Reparam {
  override readonly kind = 'tied';
  // tied(f) takes the morphism only: the tie is found in it
  override readonly args: readonly string[] = [];
  constructor(
    f: Para,
    private readonly groups: number[][],
  ) {
    const r = (tie(f, groups) as Reparam).r;
    super(f, r);
  }
  override at(dom: Shape): Para {
    return this.dom && !perPosition(this.dom, dom) ? super.at(dom) : new Tied(this.f.at(dom), this.groups);
  }
  override toString(): string {
    return `tied(${this.f})`;
  }
}
