import { ShapeError } from '../../errors.js';
import { Morphism } from '../../para/composite.js';
import { checkDom, describeShape } from '../../para/para.js';
import type { Ctx, Lens, Para, ParamSpec } from '../../para/para.js';
import { shapesMatch } from '../../tensor/tensor.js';
import type { Shape, Tensor } from '../../tensor/tensor.js';

/**
 * map(f): applies f: A → B to every element of a set, Aⁿ → Bⁿ (the functor (−)ⁿ on
 * morphisms; with `masked`, the mask column rides along untouched). The n elements of the
 * B samples of a batch are one batch of B·n samples for f, so f's forward and pullback run
 * once on a reshaped view; parameter gradients of all elements add up in f's buffers.
 *
 * Per-sample shapes: plain [n, …A] → [n, …B]; masked [n, a+1] → [n, b+1] (f: [a] → [b]).
 * `map(f) >> sum_pool` is the φ-then-colimit half of DeepSets (Zaheer et al. 2017, Thm 2).
 */
export class MapSet extends Morphism {
  readonly kind: string;
  override readonly args: readonly (number | string)[];
  override readonly children: readonly Para[];
  override readonly params: readonly ParamSpec[];
  readonly dom: Shape | undefined;
  readonly cod: Shape | undefined;
  constructor(
    readonly f: Para,
    readonly n: number | undefined,
    readonly masked: boolean,
  ) {
    super();
    this.kind = masked ? 'masked_map' : 'map';
    if (n !== undefined && !(Number.isInteger(n) && n >= 0)) throw new ShapeError(`${this.kind}: the set size must be a non-negative integer, got ${n}`);
    if (masked && f.dom && f.dom.length !== 1) throw new ShapeError(`masked_map(${f}) needs f on vectors [*,a], but f takes ${describeShape(f.dom)}`);
    this.args = n === undefined ? [] : [n];
    this.children = [f];
    this.params = f.params.map((p) => ({ ...p }));
    const wrap = (s: Shape | undefined): Shape | undefined => (s && n !== undefined ? (masked ? [n, s[0]! + 1] : [n, ...s]) : undefined);
    this.dom = wrap(f.dom);
    this.cod = wrap(f.cod);
  }
  at(dom: Shape): Para {
    if (this.dom) return checkDom(this, dom);
    if (dom.length < 2) throw new ShapeError(`${this} expects sets [*,n,…] but got ${describeShape(dom)}`);
    const elem = this.masked ? [dom[1]! - 1, ...dom.slice(2)] : dom.slice(1);
    if (this.f.dom && !shapesMatch(this.f.dom, elem)) {
      throw new ShapeError(
        `${this} applies ${this.f} to elements ${describeShape(this.f.dom)} but the sets have elements ${describeShape(elem)}${this.masked ? ' (after the mask column)' : ''}`,
      );
    }
    return new MapSet(this.f.dom ? this.f : this.f.at(elem), dom[0], this.masked);
  }
  forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    if (x.rank < 3) throw new ShapeError(`${this} expects sets [*,n,…] but got rank ${x.rank - 1} samples`);
    const B = x.batch,
      n = x.shape[1]!;
    if (!this.masked) {
      const lens = this.f.forward(theta, x.reshape([B * n, ...x.shape.slice(2)]), ctx);
      return {
        y: lens.y.reshape([B, n, ...lens.y.shape.slice(1)]),
        pullback: (dy, dTheta, needDx = true) => lens.pullback(dy.reshape([B * n, ...lens.y.shape.slice(1)]), dTheta, needDx).reshape(x.shape),
      };
    }
    const w = x.shape[2]!,
      a = w - 1;
    const feats = ctx.alloc([B * n, a], x.dtype);
    for (let r = 0; r < B * n; r++) feats.data.set(x.data.subarray(r * w, r * w + a), r * a);
    const lens = this.f.forward(theta, feats, ctx);
    const b = lens.y.size / (B * n);
    const y = ctx.alloc([B, n, b + 1], x.dtype);
    for (let r = 0; r < B * n; r++) {
      y.data.set(lens.y.data.subarray(r * b, (r + 1) * b), r * (b + 1));
      y.data[r * (b + 1) + b] = x.data[r * w + a]!;
    }
    return {
      y,
      pullback: (dy, dTheta, needDx = true) => {
        const dfy = ctx.alloc([B * n, b], x.dtype);
        for (let r = 0; r < B * n; r++) dfy.data.set(dy.data.subarray(r * (b + 1), r * (b + 1) + b), r * b);
        const dfeats = lens.pullback(dfy, dTheta, needDx);
        const dx = ctx.alloc(x.shape, x.dtype);
        if (needDx) {
          for (let r = 0; r < B * n; r++) {
            dx.data.set(dfeats.data.subarray(r * a, (r + 1) * a), r * w);
            dx.data[r * w + a] = dy.data[r * (b + 1) + b]!; // the mask column is carried by the identity
          }
        }
        return dx;
      },
    };
  }
  override toString(): string {
    return `${this.kind}(${this.f}${this.n === undefined ? '' : `,${this.n}`})`;
  }
}

/** map(f): f on every element of a set [n,…A] → [n,…B]. */
export function mapSet(f: Para, n?: number): Para {
  return new MapSet(f, n, false);
}

/** masked_map(f): f on the features of every slot of a masked set [n,a+1] → [n,b+1]; the mask column is carried over. */
export function maskedMap(f: Para, n?: number): Para {
  return new MapSet(f, n, true);
}
