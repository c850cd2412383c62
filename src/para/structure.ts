import { ShapeError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import type { Tensor, Shape } from '../tensor/tensor.js';
import { Morphism, par, primitive, seq, splitRows, joinRows } from './composite.js';
import { checkDom, describeShape, perPosition } from './para.js';
import type { Ctx, Lens, Para, ParamSpec } from './para.js';

const sized = (dom: Shape | undefined): readonly number[] => (dom && dom.length === 1 ? [dom[0]!] : []);

/** The identity morphism on A (no parameters; its pullback is the identity). */
export function id(n?: number | Shape): Para {
  const dom = typeof n === 'number' ? [n] : n;
  return primitive({
    kind: 'id',
    args: sized(dom),
    dom,
    cod: dom,
    positionwise: true,
    at: (d) => id(d),
    forward: (_t, x) => ({ y: x, pullback: (dy) => dy }),
  });
}

/** The copy map Δ: A → A ⊗ A of the comonoid on A. Its pullback adds the two gradients. */
export function copy(n?: number | Shape): Para {
  const dom = typeof n === 'number' ? [n] : n;
  return primitive({
    kind: 'copy',
    args: sized(dom),
    dom,
    cod: dom && [2 * dom[0]!, ...dom.slice(1)],
    at: (d) => copy(d),
    forward: (_t, x, ctx) => {
      const y = joinRows([x, x], x.batch, ctx);
      return {
        y,
        pullback: (dy) => {
          const half = x.size / x.batch;
          const [a, b] = splitRows(dy, [half, half], [x.shape.slice(1), x.shape.slice(1)], ctx);
          backend().axpy(1, b!.data, a!.data);
          return a!;
        },
      };
    },
  });
}

/** The discard map A → I (the monoidal unit, an empty vector). Its pullback sends back zeros. */
export function discard(n?: number | Shape): Para {
  const dom = typeof n === 'number' ? [n] : n;
  return primitive({
    kind: 'discard',
    args: sized(dom),
    dom,
    cod: dom && [0, ...dom.slice(1)],
    at: (d) => discard(d),
    forward: (_t, x, ctx) => ({
      y: ctx.alloc([x.batch, 0, ...x.shape.slice(2)], x.dtype),
      pullback: () => ctx.alloc(x.shape, x.dtype),
    }),
  });
}

/** Addition A ⊗ A → A (the two halves of the input summed). Its pullback copies the gradient. */
export function add(n?: number | Shape): Para {
  const dom = typeof n === 'number' ? [2 * n] : n;
  if (dom && dom[0]! % 2 !== 0) throw new ShapeError(`add expects an even first axis, got ${describeShape(dom)}`);
  const cod = dom && [dom[0]! / 2, ...dom.slice(1)];
  return primitive({
    kind: 'add',
    args: cod && cod.length === 1 ? [cod[0]!] : [],
    dom,
    cod,
    at: (d) => (d.length === 1 && d[0]! % 2 === 0 ? add(d[0]! / 2) : add(d)),
    forward: (_t, x, ctx) => {
      const half = x.size / x.batch / 2;
      const s = [x.shape[1]! / 2, ...x.shape.slice(2)];
      const [a, b] = splitRows(x, [half, half], [s, s], ctx);
      backend().axpy(1, b!.data, a!.data);
      return { y: a!, pullback: (dy) => joinRows([dy, dy], dy.batch, ctx) };
    },
  });
}

/**
 * The skip connection x ↦ x + f(x), defined as copy >> (f @ id) >> add (`composite`). It
 * prints as `residual(f)`; its children are [f]. Its lens is that composite's, computed
 * directly — y = x + f(x), dx = dy + f*(dy) — without the copies the three pieces make.
 */
export class Residual extends Morphism {
  readonly kind = 'residual';
  override readonly children: readonly Para[];
  override readonly params: readonly ParamSpec[];
  /** copy >> (f @ id) >> add, once f's domain is known. */
  readonly composite: Para | undefined;
  constructor(readonly f: Para) {
    super();
    this.children = [f];
    this.params = f.params.map((p) => ({ ...p }));
    if (f.dom) {
      if (!f.cod || f.cod.join(',') !== f.dom.join(',')) {
        throw new ShapeError(`residual(${f}) needs f: A → A, but f maps ${describeShape(f.dom)} to ${describeShape(f.cod)}`);
      }
      this.composite = seq(copy(f.dom), par(f, id(f.dom)), add(f.dom.length === 1 ? f.dom[0] : [2 * f.dom[0]!, ...f.dom.slice(1)]));
    }
  }
  get dom(): Shape | undefined {
    return this.f.dom;
  }
  get cod(): Shape | undefined {
    return this.f.dom;
  }
  at(dom: Shape): Para {
    return this.dom && !perPosition(this.dom, dom) ? checkDom(this, dom) : residual(this.f.at(dom));
  }
  forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    const f = this.f.dom ? this.f : this.f.at(x.shape.slice(1));
    const lens = f.forward(theta, x, ctx);
    return {
      y: addTensors(x, lens.y, ctx),
      pullback: (dy, dTheta, needDx = true) => {
        const df = lens.pullback(dy, dTheta, needDx);
        return needDx ? addTensors(dy, df, ctx) : df;
      },
    };
  }
  override toString(): string {
    return `residual(${this.f})`;
  }
}

/** a + b in a fresh tensor, by kernels only (so it runs where the backend's arrays live, a device included). */
export function addTensors(a: Tensor, b: Tensor, ctx: Ctx): Tensor {
  const out = ctx.alloc(a.shape, a.dtype, true),
    be = backend();
  be.copyRows(1, a.size, a.data, a.size, out.data, a.size);
  be.axpy(1, b.data, out.data);
  return out;
}

export function residual(f: Para): Para {
  return new Residual(f);
}

/**
 * A reparameterisation r: Q → P of parameter space, as a lens: given q it returns p and
 * the pullback dp ↦ dq (which adds into the dq buffers).
 */
export interface ParamMap {
  /** How the map prints as reparam's second argument: its spec form (`tie((0,2))`, `cubic(0.5)`, src/para/param-maps.ts) or, for a map built in code, a name. */
  readonly name: string;
  /** True when `name` is a spec form that parseSpec reads back; printSpec refuses a reparam by any other map. */
  readonly writable?: boolean;
  readonly params: readonly ParamSpec[];
  map(q: readonly Tensor[], ctx: Ctx): { p: Tensor[]; pullback(dp: readonly Tensor[], dq: readonly Tensor[]): void };
}

/**
 * f with its parameters P obtained from Q through r (weight tying, positivity constraints, …).
 * It prints as `reparam(f, r)`; its children are [f] and its one argument is r's name.
 */
export class Reparam extends Morphism {
  readonly kind: string = 'reparam';
  override readonly args: readonly string[];
  override readonly children: readonly Para[];
  override readonly params: readonly ParamSpec[];
  constructor(
    readonly f: Para,
    readonly r: ParamMap,
  ) {
    super();
    this.args = [r.name];
    this.children = [f];
    this.params = r.params;
  }
  get dom(): Shape | undefined {
    return this.f.dom;
  }
  get cod(): Shape | undefined {
    return this.f.cod;
  }
  at(dom: Shape): Para {
    return this.dom && !perPosition(this.dom, dom) ? checkDom(this, dom) : new Reparam(this.f.at(dom), this.r);
  }
  forward(q: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    const { p, pullback: rBack } = this.r.map(q, ctx);
    const lens = this.f.forward(p, x, ctx);
    return {
      y: lens.y,
      pullback: (dy, dq, needDx = true) => {
        if (!dq) return lens.pullback(dy, null, needDx);
        const dp = p.map((t) => ctx.alloc(t.shape, t.dtype));
        const dx = lens.pullback(dy, dp, needDx);
        rBack(dp, dq);
        return dx;
      },
    };
  }
  override toString(): string {
    return `reparam(${this.f}, ${this.r.name})`;
  }
}

export function reparam(f: Para, r: ParamMap): Para {
  return new Reparam(f, r);
}
