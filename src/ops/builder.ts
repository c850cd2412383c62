import { ShapeError } from '../errors.js';
import type { Initializer, Para } from '../para/para.js';
import type { Shape, Tensor } from '../tensor/tensor.js';
import { defaultInit, OpGraph, inputsOf, MAX_LITERAL, outputsOf, WIRE } from './graph.js';
import type { GraphNode } from './graph.js';
import type { Op } from './op.js';

/**
 * Builds an operator graph box by box (import, tracing and the spec reader all do): each call adds a node
 * and returns its wires; `build` drops what the output does not need and fixes the domain.
 * Wire names are kept readable: a hint is made a spec identifier and numbered when taken.
 */
export class GraphBuilder {
  private readonly nodes: GraphNode[] = [];
  private readonly names: string[] = ['x'];
  private readonly taken = new Set<string>(['x']);
  /** Names kept for wires made later by exactly that name (a spec's statements bind them). */
  private readonly reserved = new Set<string>();
  /** The next number to try after each base name (numbering stays linear in the wires made). */
  private readonly numbered = new Map<string, number>();

  /** The graph's input x. */
  readonly input = 0;

  /** Keeps these names for wires made later under exactly them; other wires avoid them. */
  reserve(names: Iterable<string>): void {
    for (const n of names) {
      if (!WIRE.test(n) || this.taken.has(n) || this.reserved.has(n))
        throw new ShapeError(`graph: the wire name '${n}' is not an identifier or is bound twice`);
      this.reserved.add(n);
    }
  }

  /** A fresh wire named after the hint (made a spec identifier, numbered if taken); a reserved name is used as it is. */
  wire(hint = 'v'): number {
    if (this.reserved.delete(hint)) {
      this.taken.add(hint);
      this.names.push(hint);
      return this.names.length - 1;
    }
    let base = hint
      .replace(/[^A-Za-z0-9_.]+/g, '_')
      .replace(/^[^A-Za-z_]+/, '')
      .replace(/[._]+$/, '');
    if (!base || !WIRE.test(base)) base = 'v';
    let name = base;
    let i = this.numbered.get(base) ?? 1;
    while (this.taken.has(name) || this.reserved.has(name)) name = `${base}_${i++}`;
    this.numbered.set(base, i);
    this.taken.add(name);
    this.names.push(name);
    return this.names.length - 1;
  }

  nameOf(v: number): string {
    return this.names[v]!;
  }

  /** A trainable parameter of this shape. */
  param(shape: Shape, hint = 'w', init: Initializer = defaultInit(shape)): number {
    const output = this.wire(hint);
    this.nodes.push({ kind: 'param', shape: [...shape], init, output });
    return output;
  }

  /** A constant: written into the spec when small, stored with the parameters (never trained) when larger. */
  constant(value: Tensor, hint = 'c', stored = value.size > MAX_LITERAL): number {
    const output = this.wire(hint);
    this.nodes.push({ kind: 'constant', value, stored, output });
    return output;
  }

  /** An operator box on these wires; its outputs. */
  op(op: Op, inputs: readonly number[], hints: readonly string[] = []): number[] {
    const [lo, hi] = op.def.inputs;
    if (inputs.length < lo || inputs.length > hi) throw new ShapeError(`${op} takes ${lo === hi ? lo : `${lo} to ${hi}`} inputs but got ${inputs.length}`);
    const count = op.def.outputs?.(op.attrs) ?? 1;
    const outputs = Array.from({ length: count }, (_, i) => this.wire(hints[i] ?? op.def.name.toLowerCase()));
    this.nodes.push({ kind: 'op', op, inputs: [...inputs], outputs });
    return outputs;
  }

  /** A layer box on one wire; its output. */
  layer(layer: Para, input: number, hint = layer.kind): number {
    const output = this.wire(hint);
    this.nodes.push({ kind: 'layer', layer, input, output });
    return output;
  }

  /** The graph computing `output` from x (boxes the output does not need left out), on per-sample inputs `dom` when given. */
  build(output: number, dom?: Shape, fixedBatch?: number): OpGraph {
    const live = new Set<number>([output]);
    const kept: GraphNode[] = [];
    for (let i = this.nodes.length - 1; i >= 0; i--) {
      const n = this.nodes[i]!;
      if (!outputsOf(n).some((v) => live.has(v))) continue;
      kept.push(n);
      for (const v of inputsOf(n)) live.add(v);
    }
    kept.reverse();
    return new OpGraph(kept, [...this.names], output, dom, fixedBatch);
  }
}
