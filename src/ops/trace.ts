import { SpecError } from '../errors.js';
import { Morphism } from '../para/composite.js';
import { makeCtx } from '../para/para.js';
import type { Ctx, Initializer, Lens, Para, ParamSpec } from '../para/para.js';
import { Tensor } from '../tensor/tensor.js';
import type { Shape } from '../tensor/tensor.js';
import { GraphBuilder } from './builder.js';
import { BATCH } from './dim.js';
import type { SymShape } from './dim.js';
import { defaultInit, OpGraph } from './graph.js';
import type { Attrs } from './op.js';
import { operator } from './vocabulary.js';

/**
 * Tracing: a layer written as a forward over symbolic values built from the operator lenses
 * (`ops.mul(x, ops.sigmoid(x))`) records the operator graph it computes, and that graph is a
 * Para morphism whose pullback is the composite of the operators' pullbacks — the layer needs
 * no backward code (JAX's tracing, tinygrad's lazy ops). On tensors instead of symbols the same
 * functions compute at once.
 */

/** A value in a traced forward: a wire of the graph being built, with its shape (B the batch). */
export class Sym {
  constructor(
    readonly builder: GraphBuilder,
    readonly wire: number,
    readonly shape: SymShape,
  ) {}
  toString(): string {
    return `Sym(${this.builder.nameOf(this.wire)})`;
  }
}

/** What an operator may be given: a symbolic value, a tensor, or a number (a scalar constant). */
export type OpValue = Sym | Tensor | number;

const tracing: GraphBuilder[] = [];

/** The builder the values belong to (a traced call), or undefined when all are concrete. */
function builderOf(xs: readonly OpValue[]): GraphBuilder | undefined {
  for (const x of xs) if (x instanceof Sym) return x.builder;
  return undefined;
}

const asTensor = (v: Tensor | number): Tensor => (typeof v === 'number' ? Tensor.of([v], []) : v);

/**
 * Applies the operator `name` (ONNX's name) with attributes to the inputs: on symbolic values it
 * adds a box to the traced graph and returns its outputs as symbols; on tensors it computes
 * them (the forward of the operator's lens).
 */
export function apply(name: string, inputs: readonly OpValue[], attrs: Attrs = {}): OpValue[] {
  const def = operator(name);
  if (!def) throw new SpecError(`no operator ${name} in the vocabulary`);
  const op = def.make(attrs);
  const b = builderOf(inputs);
  if (!b) {
    const xs = inputs.map((v) => asTensor(v as Tensor | number));
    const ctx = { ...makeCtx(), batch: xs[0]?.shape[0] ?? 1 };
    return [...op.forward(xs, ctx).ys];
  }
  const wires = inputs.map((v) => (v instanceof Sym ? v : constant(b, v)));
  const shapes = op.shapes(wires.map((w) => w.shape));
  const outs = b.op(
    op,
    wires.map((w) => w.wire),
  );
  return outs.map((w, i) => new Sym(b, w, shapes[i]!));
}

function constant(b: GraphBuilder, v: Tensor | number): Sym {
  const t = asTensor(v);
  return new Sym(b, b.constant(t), t.shape);
}

/** A trainable parameter of the layer being traced (inside `trace` or a `layer`'s forward only). */
export function param(shape: Shape, init: Initializer = defaultInit(shape), name = 'w'): Sym {
  const b = tracing[tracing.length - 1];
  if (!b) throw new SpecError('ops.param: parameters exist only inside a traced forward (trace, layer)');
  return new Sym(b, b.param(shape, name, init), shape);
}

/** The graph that `forward` computes on per-sample inputs of shape `dom`. */
export function trace(forward: (x: Sym) => Sym, dom: Shape): OpGraph {
  const b = new GraphBuilder();
  tracing.push(b);
  try {
    const y = forward(new Sym(b, b.input, [BATCH, ...dom]));
    if (!(y instanceof Sym) || y.builder !== b) throw new SpecError('a traced forward must return a value computed from its input');
    return b.build(y.wire, dom);
  } finally {
    tracing.pop();
  }
}

/**
 * A layer defined by a traced forward: `tracedLayer('silu', (x) => ops.mul(x, ops.sigmoid(x)))`.
 * It prints as its name (with its numeric arguments), takes any shape until composed, and on a
 * fixed domain is the traced graph (its one child, so pictures can open it up).
 */
export class TracedLayer extends Morphism {
  override readonly children: readonly Para[];
  override readonly params: readonly ParamSpec[];
  readonly body: OpGraph | undefined;
  constructor(
    readonly kind: string,
    override readonly args: readonly number[],
    private readonly fn: (x: Sym, ...args: number[]) => Sym,
    dom?: Shape,
  ) {
    super();
    this.body = dom ? trace((x) => fn(x, ...args), dom) : undefined;
    this.children = this.body ? [this.body] : [];
    this.params = this.body ? this.body.params : [];
  }
  get dom(): Shape | undefined {
    return this.body?.dom;
  }
  get cod(): Shape | undefined {
    return this.body?.cod;
  }
  at(dom: Shape): Para {
    return this.dom && this.dom.join(',') === dom.join(',') ? this : new TracedLayer(this.kind, this.args, this.fn, dom);
  }
  forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    return (this.body ?? (this.at(x.shape.slice(1)) as TracedLayer).body!).forward(theta, x, ctx);
  }
  hostOnlyParts(): string[] {
    return this.body ? this.body.hostOnlyParts() : [this.kind];
  }
}
