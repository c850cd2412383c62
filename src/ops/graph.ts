import { hostOnlyParts } from '../tensor/device-layers.js';
import { ShapeError } from '../errors.js';
import { Morphism } from '../para/composite.js';
import { describeShape } from '../para/para.js';
import type { Ctx, Initializer, Lens, Para, ParamSpec } from '../para/para.js';
import { backend } from '../tensor/registry.js';
import { sizeOf, Tensor } from '../tensor/tensor.js';
import type { Shape } from '../tensor/tensor.js';
import { BATCH, dimEquals, isBatch, printShape } from './dim.js';
import type { SymShape } from './dim.js';
import { printNumber } from './op.js';
import type { Op, OpCtx, OpLens } from './op.js';

/**
 * An operator graph as a morphism of Para: a directed acyclic string diagram whose boxes are
 * operator lenses (src/ops/op.ts) and layers (any Para morphism, a box of one input and one
 * output), whose sources are the input x, parameters and constants, and whose wiring is copies
 * (a value read twice is copied, so the gradients at a fan-out are summed), products (an
 * operator of n inputs reads their product) and composition. The forward runs the boxes in
 * their order (a topological one); the pullback runs their pullbacks in the reverse order,
 * adding each input's gradient into its value's — backprop on a DAG, with no backward code
 * beyond the boxes' own.
 *
 * It prints as `graph(stmt, …)`: one statement per box, `SOURCE >> box >> … >> NAME`, a source
 * being a wire, a product of wires `(a @ b)`, or nothing for a box of no inputs; the graph's
 * input is `x` and its output the last statement's. `Param(16,6) >> w` is a parameter,
 * `Constant(0.5) >> c` a constant written out, `Constant(shape(1,1,6,6)) >> m` a constant
 * stored with the parameters (and never trained). src/catalogue/graph.ts reads it back.
 */
export type GraphNode =
  | { readonly kind: 'op'; readonly op: Op; readonly inputs: readonly number[]; readonly outputs: readonly number[] }
  | { readonly kind: 'layer'; readonly layer: Para; readonly input: number; readonly output: number }
  | { readonly kind: 'param'; readonly shape: Shape; readonly init: Initializer; readonly output: number }
  | { readonly kind: 'constant'; readonly value: Tensor; readonly stored: boolean; readonly output: number };

/** The most boxes a graph may have (an import or a spec with more is refused before it is built). */
export const MAX_GRAPH_NODES = 100_000;

/** A literal constant is written into the spec when it has at most this many entries; larger ones are stored with the parameters. */
export const MAX_LITERAL = 16;

/** A wire name as spec strings write it. */
export const WIRE = /^[A-Za-z_][A-Za-z0-9_.]*$/;

export class OpGraph extends Morphism {
  readonly kind = 'graph';
  override readonly params: readonly ParamSpec[];
  override readonly children: readonly Para[];
  readonly dom: Shape | undefined;
  readonly cod: Shape | undefined;
  /** The symbolic shape of every value (when the domain is fixed). */
  readonly shapes: readonly SymShape[] | undefined;
  private readonly offsets: readonly number[];
  /** Per value: does it depend (through differentiable inputs) on the input x, on a parameter? */
  private readonly onInput: readonly boolean[];
  private readonly onParam: readonly boolean[];

  readonly nodes: readonly GraphNode[];

  /**
   * `fixedBatch`: the graph computes on batches of exactly this many rows (an ONNX file exported
   * with a fixed batch whose shape arithmetic cannot be read for any batch); it runs on a batch
   * of any multiple of it, that many rows at a time. It prints as the statement `batch(N)`.
   */
  constructor(
    given: readonly GraphNode[],
    readonly names: readonly string[],
    readonly output: number,
    dom?: Shape,
    readonly fixedBatch?: number,
  ) {
    super();
    const lead = fixedBatch ?? BATCH;
    const fixed = dom ? fixLayers(given, names, [lead, ...dom]) : undefined;
    const nodes = fixed ? fixed.nodes : given;
    this.nodes = nodes;
    if (nodes.length > MAX_GRAPH_NODES) throw new ShapeError(`a graph of ${nodes.length} boxes is larger than ${MAX_GRAPH_NODES}`);
    const defined = new Set<number>([0]);
    for (const n of nodes) {
      for (const v of inputsOf(n)) if (!defined.has(v)) throw new ShapeError(`graph: the wire ${names[v] ?? v} is read before it is written`);
      for (const v of outputsOf(n)) {
        if (defined.has(v)) throw new ShapeError(`graph: the wire ${names[v] ?? v} is written twice`);
        defined.add(v);
      }
    }
    if (!defined.has(output)) throw new ShapeError('graph: its output is never written');
    const params: ParamSpec[] = [];
    const offsets: number[] = [];
    nodes.forEach((n) => {
      offsets.push(params.length);
      if (n.kind === 'param' || (n.kind === 'constant' && n.stored)) {
        const value = n.kind === 'constant' ? n.value : undefined;
        params.push({
          name: names[n.output]!,
          shape: n.kind === 'param' ? n.shape : n.value.shape,
          init: value ? (_rng, out) => out.set(value.data) : (n as { init: Initializer }).init,
          ...(value ? { frozen: true } : {}),
        });
      } else if (n.kind === 'layer') {
        for (const p of n.layer.params) params.push({ ...p, name: `${names[n.output]}.${p.name}` });
      }
    });
    offsets.push(params.length);
    this.params = params;
    this.offsets = offsets;
    this.children = nodes.flatMap((n) => (n.kind === 'layer' ? [n.layer] : []));
    const values = names.length;
    const onInput = new Array<boolean>(values).fill(false),
      onParam = new Array<boolean>(values).fill(false);
    onInput[0] = true;
    for (const n of nodes) {
      if (n.kind === 'param') onParam[n.output] = true;
      else if (n.kind === 'layer') {
        onInput[n.output] = onInput[n.input]!;
        onParam[n.output] = onParam[n.input]! || n.layer.params.length > 0;
      } else if (n.kind === 'op') {
        const live = n.inputs.filter((_, i) => n.op.differentiable(i));
        for (const o of n.outputs) {
          onInput[o] = live.some((v) => onInput[v]);
          onParam[o] = live.some((v) => onParam[v]);
        }
      }
    }
    this.onInput = onInput;
    this.onParam = onParam;
    if (fixed && dom) {
      this.shapes = fixed.shapes;
      const out = this.shapes[output]!;
      if (!(out.length >= 1 && dimEquals(out[0]!, lead) && out.slice(1).every((d) => !isBatch(d))))
        throw new ShapeError(`graph: its output ${printShape(out)} does not have the batch first and only there`);
      this.dom = dom;
      this.cod = out.slice(1) as number[];
    } else {
      this.shapes = undefined;
      this.dom = undefined;
      this.cod = undefined;
    }
  }

  /** The graph on per-sample inputs of shape `dom` (its layers fixed to the shapes they get). */
  at(dom: Shape): Para {
    if (this.dom && this.dom.join(',') === dom.join(',')) return this;
    return new OpGraph(this.nodes, this.names, this.output, dom, this.fixedBatch);
  }

  /** The operators and layers that compute on host arrays (nothing here runs on a device otherwise). */
  hostOnlyParts(): string[] {
    const out = new Set<string>();
    for (const n of this.nodes) {
      if (n.kind === 'op' && !n.op.kernelsOnly) out.add(n.op.def.name);
      if (n.kind === 'layer') for (const p of hostOnlyParts(n.layer)) out.add(p);
    }
    return [...out];
  }

  forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    if (!this.dom) return this.at(x.shape.slice(1)).forward(theta, x, ctx);
    const N = this.fixedBatch;
    if (N !== undefined && x.batch !== N) return this.inChunks(N, theta, x, ctx);
    const values: (Tensor | undefined)[] = new Array(this.names.length);
    values[0] = x;
    const opCtx: OpCtx = Object.assign(Object.create(ctx) as Ctx, { batch: x.batch });
    const lenses: (OpLens | Lens | undefined)[] = new Array(this.nodes.length);
    this.nodes.forEach((n, i) => {
      const th = theta.slice(this.offsets[i], this.offsets[i + 1]);
      switch (n.kind) {
        case 'param':
          values[n.output] = th[0];
          break;
        case 'constant':
          values[n.output] = n.stored ? th[0] : n.value.dtype === x.dtype ? n.value : n.value.to(x.dtype);
          break;
        case 'layer': {
          const lens = n.layer.forward(th, values[n.input]!, ctx);
          lenses[i] = lens;
          values[n.output] = lens.y;
          break;
        }
        case 'op': {
          const lens = n.op.forward(
            n.inputs.map((v) => values[v]!),
            opCtx,
          );
          lenses[i] = lens;
          n.outputs.forEach((v, k) => (values[v] = lens.ys[k]));
          break;
        }
      }
    });
    const y = values[this.output]!;
    return {
      y,
      pullback: (dy, dTheta, needDx = true) => this.pullback(lenses, dy, dTheta, needDx, x, ctx),
    };
  }

  /** A graph of a fixed batch N on a batch of a multiple of N: N rows at a time, the outputs side by side, the gradients of each chunk added. */
  private inChunks(N: number, theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    if (x.batch % N !== 0) throw new ShapeError(`graph(batch(${N}), …) was exported for batches of ${N} rows; it runs on a multiple of ${N}, not ${x.batch}`);
    const lenses: Lens[] = [];
    for (let r = 0; r < x.batch; r += N) lenses.push(this.forward(theta, x.rows(r, r + N), ctx));
    const per = lenses[0]!.y.size;
    const y = ctx.alloc([x.batch, ...lenses[0]!.y.shape.slice(1)], lenses[0]!.y.dtype, true);
    lenses.forEach((l, i) => y.data.set(l.y.data, i * per));
    return {
      y,
      pullback: (dy, dTheta, needDx = true) => {
        const dx = ctx.alloc(x.shape, x.dtype, true);
        const rows = x.size / x.batch;
        lenses.forEach((l, i) => dx.data.set(l.pullback(dy.rows(i * N, (i + 1) * N), dTheta, needDx).data, i * N * rows));
        return dx;
      },
    };
  }

  private pullback(lenses: readonly (OpLens | Lens | undefined)[], dy: Tensor, dTheta: readonly Tensor[] | null, needDx: boolean, x: Tensor, ctx: Ctx): Tensor {
    const grads: (Tensor | undefined)[] = new Array(this.names.length);
    const owned: boolean[] = new Array(this.names.length).fill(false);
    const need = (v: number): boolean => (needDx && this.onInput[v]!) || (dTheta !== null && this.onParam[v]!);
    /** Adds g into value v's gradient: the first one is kept as it is, later ones summed into a copy (a fan-out). */
    const add = (v: number, g: Tensor | undefined): void => {
      if (!g) return;
      const had = grads[v];
      if (!had) {
        grads[v] = g;
        return;
      }
      let into = had;
      if (!owned[v]) {
        into = ctx.alloc(had.shape, had.dtype, true);
        into.data.set(had.data);
        grads[v] = into;
        owned[v] = true;
      }
      backend().axpy(1, g.data, into.data);
    };
    grads[this.output] = dy;
    for (let i = this.nodes.length - 1; i >= 0; i--) {
      const n = this.nodes[i]!;
      const th = dTheta && dTheta.slice(this.offsets[i], this.offsets[i + 1]);
      switch (n.kind) {
        case 'param': {
          const g = grads[n.output];
          if (g && th) backend().axpy(1, g.data, th[0]!.data);
          break;
        }
        case 'constant':
          break;
        case 'layer': {
          const g = grads[n.output];
          if (!g || !need(n.input)) {
            if (g && th && th.length) (lenses[i] as Lens).pullback(g, th, false);
            break;
          }
          add(n.input, (lenses[i] as Lens).pullback(g, th, true));
          break;
        }
        case 'op': {
          const dys = n.outputs.map((v) => grads[v]);
          if (dys.every((g) => !g)) break;
          const wanted = n.inputs.map((v, k) => n.op.differentiable(k) && need(v));
          if (!wanted.some(Boolean)) break;
          const dxs = (lenses[i] as OpLens).pullback(dys, wanted);
          n.inputs.forEach((v, k) => {
            const g = wanted[k] ? dxs[k] : undefined;
            if (g && g.size !== sizeOf(values(this, v, x)))
              throw new ShapeError(`graph: ${n.op} gave a gradient of ${g.size} entries for an input of ${sizeOf(values(this, v, x))}`);
            add(v, g);
          });
          break;
        }
      }
    }
    const dx = grads[0];
    if (dx) return dx.shape.length === x.shape.length ? dx : new Tensor(dx.data, x.shape);
    return ctx.alloc(x.shape, x.dtype);
  }

  override toString(): string {
    return `graph(${[...(this.fixedBatch !== undefined ? [`batch(${this.fixedBatch})`] : []), ...statements(this)].join(', ')})`;
  }
}

/** A value's concrete shape at batch B = x's (for the pullback's size check). */
function values(g: OpGraph, v: number, x: Tensor): number[] {
  const s = g.shapes![v]!;
  return s.map((d) => (isBatch(d) ? d.k * x.batch : d));
}

export function inputsOf(n: GraphNode): readonly number[] {
  return n.kind === 'op' ? n.inputs : n.kind === 'layer' ? [n.input] : [];
}
export function outputsOf(n: GraphNode): readonly number[] {
  return n.kind === 'op' ? n.outputs : [n.output];
}

/** Every value's shape for an input of shape `input`, and the nodes with their layers fixed to the shapes they get (a ShapeError naming the box that does not fit). */
function fixLayers(nodes: readonly GraphNode[], names: readonly string[], input: SymShape): { shapes: SymShape[]; nodes: GraphNode[] } {
  const shapes: SymShape[] = new Array(names.length);
  const g = { names };
  const fixedNodes: GraphNode[] = [];
  shapes[0] = input;
  for (const n of nodes) {
    fixedNodes.push(n);
    switch (n.kind) {
      case 'param':
        shapes[n.output] = n.shape;
        break;
      case 'constant':
        shapes[n.output] = n.value.shape;
        break;
      case 'layer': {
        const s = shapes[n.input]!;
        if (!(s.length >= 1 && dimEquals(s[0]!, BATCH) && s.slice(1).every((d) => !isBatch(d))))
          throw new ShapeError(`graph: ${n.layer} acts on a batch, but the wire ${g.names[n.input]} is ${printShape(s)}`);
        let fixed: Para;
        try {
          fixed = n.layer.at(s.slice(1) as number[]);
        } catch (e) {
          throw e instanceof ShapeError
            ? new ShapeError(`graph: ${n.layer} on the wire ${g.names[n.input]} ${describeShape(s.slice(1) as number[])}: ${e.message}`)
            : e;
        }
        shapes[n.output] = [BATCH, ...fixed.cod!];
        fixedNodes[fixedNodes.length - 1] = { ...n, layer: fixed };
        break;
      }
      case 'op': {
        let outs: SymShape[];
        try {
          outs = n.op.shapes(n.inputs.map((v) => shapes[v]!));
        } catch (e) {
          if (!(e instanceof ShapeError)) throw e;
          throw new ShapeError(`graph: ${e.message} (reading ${n.inputs.map((v) => `${g.names[v]} ${printShape(shapes[v]!)}`).join(', ')})`);
        }
        n.outputs.forEach((v, k) => (shapes[v] = outs[k]!));
        break;
      }
    }
  }
  return { shapes, nodes: fixedNodes };
}

/** A literal constant as a box: `Constant(0.5)`, `Constant(shape(2), 1, 2)`, or `Constant(shape(…))` when it is stored. */
export function printConstant(value: Tensor, stored: boolean): string {
  if (stored) return `Constant(shape(${value.shape.join(',')}))`;
  const vals = Array.from(value.data, printNumber);
  return value.rank === 0 ? `Constant(${vals[0]})` : `Constant(shape(${value.shape.join(',')}),${vals.join(',')})`;
}

/** The box a node is, as written in a statement. */
function box(n: GraphNode): string {
  switch (n.kind) {
    case 'op':
      return String(n.op);
    case 'layer': {
      const s = String(n.layer);
      return n.layer.kind === 'seq' || n.layer.kind === 'par' ? `(${s})` : s;
    }
    case 'param':
      return `Param(${n.shape.join(',')})`;
    case 'constant':
      return printConstant(n.value, n.stored);
  }
}

/**
 * The statements of a graph: a box whose only reader is the next box of one input continues
 * its statement (`x >> dense(6,16) >> Relu >> h`), so chains print as chains.
 */
function statements(g: OpGraph): string[] {
  const readers = new Array<number>(g.names.length).fill(0);
  for (const n of g.nodes) for (const v of inputsOf(n)) readers[v]!++;
  const out: string[] = [];
  let current: string | undefined;
  g.nodes.forEach((n, i) => {
    const ins = inputsOf(n);
    const outs = outputsOf(n);
    const continues =
      current !== undefined &&
      ins.length === 1 &&
      g.nodes[i - 1] &&
      outputsOf(g.nodes[i - 1]!).length === 1 &&
      outputsOf(g.nodes[i - 1]!)[0] === ins[0] &&
      readers[ins[0]!] === 1 &&
      ins[0] !== g.output;
    if (!continues) {
      if (current !== undefined) out.push(current);
      const src = ins.length === 0 ? '' : ins.length === 1 ? g.names[ins[0]!]! : `(${ins.map((v) => g.names[v]).join(' @ ')})`;
      current = src ? `${src} >> ${box(n)}` : box(n);
    } else current += ` >> ${box(n)}`;
    // the name is written when the statement ends here (the next box does not continue it)
    const next = g.nodes[i + 1];
    const nextContinues =
      next !== undefined &&
      inputsOf(next).length === 1 &&
      outs.length === 1 &&
      inputsOf(next)[0] === outs[0] &&
      readers[outs[0]!] === 1 &&
      outs[0] !== g.output;
    if (!nextContinues) current += ` >> ${outs.length === 1 ? g.names[outs[0]!] : `(${outs.map((v) => g.names[v]).join(' @ ')})`}`;
  });
  if (current !== undefined) out.push(current);
  return out;
}

/** A fresh parameter's initialiser: uniform in ±1/√fan_in (PyTorch's default for linear layers), fan_in the last axis. */
export function defaultInit(shape: Shape): Initializer {
  const fan = shape.length ? shape[shape.length - 1]! : 1;
  const bound = 1 / Math.sqrt(Math.max(1, fan));
  return (rng, out) => {
    for (let i = 0; i < out.length; i++) out[i] = (2 * rng.uniform() - 1) * bound;
  };
}
