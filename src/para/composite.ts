import { clip, RangeArgError, ShapeError } from '../errors.js';
import { Rng } from '../random/rng.js';
import { backend } from '../tensor/registry.js';
import { Tensor, sizeOf, shapesMatch } from '../tensor/tensor.js';
import type { DType, Shape } from '../tensor/tensor.js';
import { checkDom, describeShape, makeCtx, perPosition } from './para.js';
import type { Ctx, Lens, Para, ParamSpec } from './para.js';

/** Shared behaviour of every morphism: composition methods, initialisation, printing. */
export abstract class Morphism implements Para {
  abstract readonly kind: string;
  abstract readonly dom: Shape | undefined;
  abstract readonly cod: Shape | undefined;
  readonly args: readonly (number | string)[] = [];
  readonly children: readonly Para[] = [];
  readonly params: readonly ParamSpec[] = [];
  abstract at(dom: Shape): Para;
  abstract forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens;

  then(g: Para): Para {
    return seq(this, g);
  }
  tensor(g: Para): Para {
    return par(this, g);
  }
  init(seed: number | Rng = 0, dtype: DType = 'float32'): Tensor[] {
    const rng = typeof seed === 'number' ? new Rng(seed) : seed;
    return this.params.map((p) => {
      const t = Tensor.zeros(p.shape, dtype);
      p.init(rng, t.data);
      return t;
    });
  }
  run(theta: readonly Tensor[], x: Tensor, ctx: Partial<Ctx> = {}): Tensor {
    return this.forward(theta, x, makeCtx(ctx)).y;
  }
  toString(): string {
    return this.args.length ? `${this.kind}(${this.args.join(',')})` : this.kind;
  }
}

/** What a primitive morphism is made of. */
export interface PrimitiveDef {
  kind: string;
  args?: readonly (number | string)[];
  dom?: Shape;
  cod?: Shape;
  params?: readonly ParamSpec[];
  /** For a morphism that takes any shape: the same morphism fixed to `dom`. */
  at?: (dom: Shape) => Para;
  forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens;
  /**
   * It acts on each position of a sequence separately (dense, norms, activations, embedding, id):
   * fixed to a vector domain, `at` also takes [..., dom] (through def.at) — the layer on vectors
   * lifted to sequences of them. (Decoding, src/train/decode.ts, also reads it: such a layer
   * runs on each new stretch of positions as it is.)
   */
  positionwise?: boolean;
}

/** The largest parameter tensor a layer may declare (2²⁷ elements, 512 MiB as float32). */
export const MAX_PARAM_ELEMENTS = 2 ** 27;

export class Primitive extends Morphism {
  readonly kind: string;
  override readonly args: readonly (number | string)[];
  readonly dom: Shape | undefined;
  readonly cod: Shape | undefined;
  override readonly params: readonly ParamSpec[];
  /** What it is made of (read by the rules that look at a primitive from outside, e.g. decoding). */
  readonly def: PrimitiveDef;
  constructor(def: PrimitiveDef) {
    super();
    this.def = def;
    this.kind = def.kind;
    this.args = def.args ?? [];
    this.dom = def.dom;
    this.cod = def.cod;
    this.params = def.params ?? [];
    for (const p of this.params) {
      if (sizeOf(p.shape) > MAX_PARAM_ELEMENTS) {
        throw new RangeArgError(`${this}: parameter ${p.name} of shape [${p.shape.join(',')}] has more than ${MAX_PARAM_ELEMENTS} elements`);
      }
    }
  }
  at(dom: Shape): Para {
    if (this.dom && !(this.def.positionwise && this.def.at && perPosition(this.dom, dom))) return checkDom(this, dom);
    if (!this.def.at) throw new ShapeError(`${this} cannot be fixed to domain ${describeShape(dom)}`);
    return this.def.at(dom);
  }
  forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    return this.def.forward(theta, x, ctx);
  }
}

/** A primitive morphism from its forward-and-pullback and its shapes. */
export function primitive(def: PrimitiveDef): Para {
  return new Primitive(def);
}

/** Prefixes child i's parameter names with `i.` and records where its slice of θ starts. */
function collectParams(children: readonly Para[]): { params: ParamSpec[]; offsets: number[] } {
  const params: ParamSpec[] = [];
  const offsets: number[] = [];
  children.forEach((c, i) => {
    offsets.push(params.length);
    for (const p of c.params) params.push({ ...p, name: `${i}.${p.name}` });
  });
  offsets.push(params.length);
  return { params, offsets };
}

/** Sequential composite f₁ >> f₂ >> … >> fₙ (flattened: composition is associative). */
export class Seq extends Morphism {
  readonly kind = 'seq';
  override readonly children: readonly Para[];
  override readonly params: readonly ParamSpec[];
  private readonly offsets: number[];
  constructor(children: readonly Para[]) {
    super();
    this.children = children;
    ({ params: this.params, offsets: this.offsets } = collectParams(children));
  }
  get dom(): Shape | undefined {
    return this.children[0]!.dom;
  }
  get cod(): Shape | undefined {
    return this.children[this.children.length - 1]!.cod;
  }
  at(dom: Shape): Para {
    if (this.dom && !perPosition(this.dom, dom)) return checkDom(this, dom);
    const [first, ...rest] = this.children;
    return seq(first!.at(dom), ...rest);
  }
  /** Backprop: the forward runs the children in order, the pullback composes their pullbacks in reverse. */
  forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    const { children, offsets } = this;
    const lenses: Lens[] = new Array(children.length);
    let y = x;
    for (let i = 0; i < children.length; i++) {
      lenses[i] = children[i]!.forward(theta.slice(offsets[i], offsets[i + 1]), y, ctx);
      y = lenses[i]!.y;
    }
    return {
      y,
      pullback: (dy, dTheta, needDx = true) => {
        let d = dy;
        for (let i = children.length - 1; i >= 0; i--) {
          d = lenses[i]!.pullback(d, dTheta && dTheta.slice(offsets[i], offsets[i + 1]), i > 0 || needDx);
        }
        return d;
      },
    };
  }
  override toString(): string {
    // ⊗ binds tighter than >>, but a product inside a composite reads better bracketed
    return this.children.map((c) => (c.kind === 'seq' || c.kind === 'par' ? `(${c})` : String(c))).join(' >> ');
  }
}

/** g made to follow a morphism with codomain `cod` (its domain checked, or fixed when g takes any); `before` names what precedes for the error. */
function follow(cod: Shape | undefined, g: Para, before: () => Para): Para {
  if (!cod) return g;
  if (!g.dom) return g.at(cod);
  if (shapesMatch(cod, g.dom)) return g;
  // the message is made only when it is thrown (printing a large morphism costs its size)
  const mismatch = (): ShapeError => new ShapeError(`${clip(g)} expects ${describeShape(g.dom)} but got ${describeShape(cod)} from ${clip(before())}`);
  if (!perPosition(g.dom, cod)) throw mismatch();
  // a layer on vectors after a layer on sequences of them: it acts per position, if it can
  try {
    return g.at(cod);
  } catch (e) {
    if (e instanceof ShapeError) throw mismatch();
    throw e;
  }
}

/**
 * Sequential composition f₁ >> … >> fₙ; shapes are checked here, not when data first flows.
 * One pass over the factors (nested composites flattened: composition is associative).
 */
export function seq(...ms: Para[]): Para {
  return seqOf(ms);
}

/** `seq` of a list (no spread of a long list into arguments: the spec parser composes up to 10⁵ layers). */
export function seqOf(ms: readonly Para[]): Para {
  if (ms.length === 0) throw new ShapeError('seq needs at least one morphism');
  if (ms.length === 1) return ms[0]!;
  const parts: Para[] = [];
  for (const m of ms) {
    const g = parts.length ? follow(parts[parts.length - 1]!.cod, m, () => (parts.length === 1 ? parts[0]! : new Seq(parts))) : m;
    for (const c of g.kind === 'seq' ? g.children : [g]) parts.push(c);
  }
  return new Seq(parts);
}

/** Concatenation of per-sample shapes along their first axis (the monoidal product on objects). */
export function concatShapes(shapes: readonly Shape[], where: string | (() => string)): Shape {
  if (shapes.length === 0) return [0];
  const rest = shapes[0]!.slice(1);
  let n = 0;
  for (const s of shapes) {
    if (s.length !== rest.length + 1 || !shapesMatch(s.slice(1), rest)) {
      throw new ShapeError(
        `${typeof where === 'string' ? where : where()}: cannot place ${shapes.map(describeShape).join(' and ')} side by side (trailing axes differ)`,
      );
    }
    n += s[0]!;
  }
  return [n, ...rest];
}

/**
 * Monoidal product f₁ @ … @ fₙ: the input's first per-sample axis is split into the
 * children's domains, each child runs on its part, the outputs are concatenated.
 */
export class Par extends Morphism {
  readonly kind = 'par';
  override readonly children: readonly Para[];
  override readonly params: readonly ParamSpec[];
  private readonly offsets: number[];
  readonly dom: Shape | undefined;
  readonly cod: Shape | undefined;
  constructor(children: readonly Para[]) {
    super();
    this.children = children;
    ({ params: this.params, offsets: this.offsets } = collectParams(children));
    const doms = children.map((c) => c.dom);
    const cods = children.map((c) => c.cod);
    this.dom = doms.every((d) => d) ? concatShapes(doms as Shape[], () => String(this)) : undefined;
    this.cod = cods.every((d) => d) ? concatShapes(cods as Shape[], () => String(this)) : undefined;
  }
  at(dom: Shape): Para {
    if (this.dom) return checkDom(this, dom);
    const unknown = this.children.filter((c) => !c.dom);
    const known = this.children.filter((c) => c.dom).reduce((n, c) => n + c.dom![0]!, 0);
    if (unknown.length !== 1 || dom[0]! - known < 0) {
      throw new ShapeError(`${this} cannot split ${describeShape(dom)} among its factors: give the factors' sizes, e.g. id(${dom[0]})`);
    }
    const part = [dom[0]! - known, ...dom.slice(1)];
    return par(...this.children.map((c) => (c.dom ? c : c.at(part))));
  }
  forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    const self = this.dom ? this : (this.at(x.shape.slice(1)) as Par);
    const { children, offsets } = self;
    const B = x.batch;
    const inner = sizeOf(x.shape.slice(2));
    const inSizes = children.map((c) => c.dom![0]! * inner);
    const parts = splitRows(
      x,
      inSizes,
      children.map((c) => c.dom!),
      ctx,
    );
    const lenses = children.map((c, i) => c.forward(theta.slice(offsets[i], offsets[i + 1]), parts[i]!, ctx));
    const y = joinRows(
      lenses.map((l) => l.y),
      B,
      ctx,
    );
    return {
      y,
      pullback: (dy, dTheta, needDx = true) => {
        const outSizes = lenses.map((l) => l.y.size / B);
        const dys = splitRows(
          dy,
          outSizes,
          lenses.map((l) => l.y.shape.slice(1)),
          ctx,
        );
        const dxs = lenses.map((l, i) => l.pullback(dys[i]!, dTheta && dTheta.slice(offsets[i], offsets[i + 1]), needDx));
        return joinRows(dxs, B, ctx);
      },
    };
  }
  override toString(): string {
    return this.children.map((c) => (c.kind === 'seq' || c.kind === 'par' ? `(${c})` : String(c))).join(' @ ');
  }
}

/** Splits each sample of a batch into consecutive parts of the given sizes. */
export function splitRows(x: Tensor, sizes: readonly number[], shapes: readonly Shape[], ctx: Ctx): Tensor[] {
  const B = x.batch;
  const per = x.size / B;
  let off = 0;
  return sizes.map((n, i) => {
    const t = ctx.alloc([B, ...shapes[i]!], x.dtype, true);
    backend().copyRows(B, n, x.data.subarray(off), per, t.data, n);
    off += n;
    return t;
  });
}

/** Concatenates the samples of several batches side by side (the inverse of splitRows). */
export function joinRows(parts: readonly Tensor[], B: number, ctx: Ctx): Tensor {
  const sizes = parts.map((p) => p.size / B);
  const per = sizes.reduce((a, b) => a + b, 0);
  const shape = concatShapes(
    parts.map((p) => p.shape.slice(1)),
    'joinRows',
  );
  const y = ctx.alloc([B, ...shape], parts[0]?.dtype ?? 'float32', true);
  let off = 0;
  parts.forEach((p, i) => {
    const n = sizes[i]!;
    backend().copyRows(B, n, p.data, n, y.data.subarray(off), per);
    off += n;
  });
  return y;
}

/** The monoidal product f₁ @ … @ fₙ (flattened: ⊗ is strictly associative on concatenated shapes). */
export function par(...ms: Para[]): Para {
  return parOf(ms);
}

/** `par` of a list. */
export function parOf(ms: readonly Para[]): Para {
  if (ms.length === 0) throw new ShapeError('par needs at least one morphism');
  if (ms.length === 1) return ms[0]!;
  return new Par(ms.flatMap((m) => (m.kind === 'par' ? m.children : [m])));
}
