import { ShapeError } from '../errors.js';
import { Rng } from '../random/rng.js';
import { freshAlloc } from '../tensor/memory.js';
import { Tensor, shapeString, shapesMatch } from '../tensor/tensor.js';
import type { DType, Data, Shape } from '../tensor/tensor.js';

/**
 * Where a forward pass runs: training or evaluation mode, the randomness it may use,
 * and the memory it allocates from. Layers allocate outputs and gradients with
 * `ctx.alloc`, so a training loop can hand them an arena that reuses buffers across steps.
 */
export interface Ctx {
  readonly training: boolean;
  readonly rng: Rng;
  /**
   * A zeroed tensor — or, with `overwrite`, one whose values are unspecified because the
   * caller writes every element before it reads any (an arena then skips zeroing it).
   */
  alloc(shape: Shape, dtype: DType, overwrite?: boolean): Tensor;
  /**
   * Where the sequences of this pass start: layers that see absolute position (attention's
   * position mechanisms) place position t at t + positionOffset (default 0). The shift group
   * acts here: a translation-equivariant model gives the same output for every offset.
   */
  readonly positionOffset?: number;
}

/**
 * A lens at a point (θ, x): the output y = F(θ, x) and the pullback
 * F*(θ, x, −): dy ↦ (dθ, dx). The pullback *adds* dθ into `dTheta` (buffers shaped like
 * θ; `null` when parameter gradients are not wanted) and returns dx. When `needDx` is
 * false the caller does not use dx and the layer may skip computing it (returning any
 * tensor of the right shape, typically zeros).
 */
export interface Lens {
  readonly y: Tensor;
  pullback(dy: Tensor, dTheta: readonly Tensor[] | null, needDx?: boolean): Tensor;
}

/** Fills a freshly allocated parameter tensor; fan-in and fan-out are known to the layer. */
export type Initializer = (rng: Rng, out: Data) => void;

/** One parameter tensor of a morphism: its name (unique within the morphism), shape and initialiser. */
export interface ParamSpec {
  readonly name: string;
  readonly shape: Shape;
  readonly init: Initializer;
  /**
   * A constant kept with the parameters rather than in the spec (an imported mask, running
   * statistics): no gradient reaches it, and gradcheck holds it fixed (it need not be smooth
   * in it: a mask read as a condition is not).
   */
  readonly frozen?: boolean;
}

/**
 * A morphism A → B of Para: parameters P (`params`), a forward map F: P×A → B and its
 * pullback F*: P×A×dB → dP×dA (both in `forward`). Shapes are per sample; tensors carry a
 * batch axis first. A morphism whose `dom` is undefined accepts any shape (an elementwise
 * map, `id`, `copy` …) and is fixed to one by `at(dom)`, which composition does for you.
 *
 * `toString()` is the morphism's spec string; `parseSpec(f.toString())` rebuilds it.
 */
export interface Para {
  /** The layer or combinator name as written in spec strings (`dense`, `seq`, `par`, …). */
  readonly kind: string;
  /** Arguments as written in the spec string, e.g. [2, 4] for dense(2,4). */
  readonly args: readonly (number | string)[];
  /** Sub-morphisms of a combinator (empty for a primitive). */
  readonly children: readonly Para[];
  readonly dom: Shape | undefined;
  readonly cod: Shape | undefined;
  readonly params: readonly ParamSpec[];
  /** This morphism with its domain fixed to `dom` (throws a ShapeError if it cannot take it). */
  at(dom: Shape): Para;
  forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens;
  /** Sequential composite this >> g. */
  then(g: Para): Para;
  /** Monoidal product this @ g. */
  tensor(g: Para): Para;
  /** Fresh parameters drawn from the initialisers with a seeded generator. */
  init(seed?: number | Rng, dtype?: DType): Tensor[];
  /** Forward only, in evaluation mode. */
  run(theta: readonly Tensor[], x: Tensor, ctx?: Partial<Ctx>): Tensor;
  toString(): string;
}

/** A context for evaluation or one-off computations: fresh memory, a fixed seed. */
export function makeCtx(opts: Partial<Ctx> = {}): Ctx {
  return { training: opts.training ?? false, rng: opts.rng ?? new Rng(0), alloc: opts.alloc ?? freshAlloc, positionOffset: opts.positionOffset ?? 0 };
}

/** The shapes of a morphism's parameters, as zero tensors (e.g. gradient buffers). */
export function zerosLike(theta: readonly Tensor[]): Tensor[] {
  return theta.map((t) => Tensor.zeros(t.shape, t.dtype));
}

export function describeShape(s: Shape | undefined): string {
  return s ? `[*,${s.join(',')}]` : '[*,…]';
}

/**
 * Whether a morphism on per-sample shape `own` is asked, by `dom`, to act on each position of
 * a sequence of such: dom has more axes and ends in `own` (dense(64,V) on [T,64]).
 */
export function perPosition(own: Shape, dom: Shape): boolean {
  return dom.length > own.length && shapesMatch(dom.slice(dom.length - own.length), own);
}

/** Checks that `f` can take domain `dom`; returns f unchanged. */
export function checkDom(f: Para, dom: Shape): Para {
  if (f.dom && !shapesMatch(f.dom, dom)) {
    throw new ShapeError(`${f} expects ${describeShape(f.dom)} but got ${describeShape(dom)}`);
  }
  return f;
}

/** Throws unless x is a batch of `dom`-shaped samples. */
export function checkInput(f: Para, x: Tensor): void {
  if (f.dom && (x.rank !== f.dom.length + 1 || !shapesMatch(x.shape.slice(1), f.dom))) {
    throw new ShapeError(`${f} expects ${describeShape(f.dom)} but got ${shapeString(x.shape)}`);
  }
}
