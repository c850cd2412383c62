import { SpecError } from '../errors.js';
import type { Para } from '../para/para.js';
import { Tensor } from '../tensor/tensor.js';
import { GraphBuilder } from '../ops/builder.js';
import type { OpGraph } from '../ops/graph.js';
import { WIRE } from '../ops/graph.js';
import { isLayerOp, opLayer } from '../ops/op-layer.js';
import { parseAttrs, parseNumber, splitTopLevel } from '../ops/op.js';
import { TracedLayer } from '../ops/trace.js';
import type { Sym } from '../ops/trace.js';
import { LAYER_OPERATORS, operator } from '../ops/vocabulary.js';
import type { ArgKind, LayerDef } from './grammar.js';

/**
 * The spec strings of operators and operator graphs. An operator of one input and output is a
 * layer by its ONNX name (`Erf`, `Clip(max(6))`); `graph(stmt, …)` is an operator graph
 * (src/ops/graph.ts prints it), each statement `SOURCE >> box >> … >> NAME`: SOURCE a wire,
 * a product of wires `(a @ b)`, or nothing before a box of no inputs; a box an operator by its
 * ONNX name with attributes `key(value)`, `Param(shape…)`, `Constant(…)`, or any layer; NAME the
 * wire (or product of wires) it binds. The input is `x`; the last statement's wire the output.
 */

/** Splits a statement at the `>>` outside parentheses. */
function segments(stmt: string): string[] {
  const out: string[] = [];
  let depth = 0,
    start = 0;
  for (let i = 0; i < stmt.length; i++) {
    const c = stmt[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '>' && stmt[i + 1] === '>' && depth === 0) {
      out.push(stmt.slice(start, i).trim());
      start = i + 2;
      i++;
    }
  }
  out.push(stmt.slice(start).trim());
  return out;
}

/** The wire names of `a`, `a @ b` or `(a @ b)`, or undefined when the text is not that. */
function wireNames(text: string): string[] | undefined {
  const t = text.trim().replace(/^\((.*)\)$/s, '$1');
  const names = t.split('@').map((s) => s.trim());
  return names.every((n) => WIRE.test(n)) ? names : undefined;
}

/** `Name` or `Name(args…)`: its name and arguments. */
function callOf(text: string): { name: string; args: string[] } | undefined {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(([\s\S]*)\))?$/.exec(text.trim());
  return m ? { name: m[1]!, args: m[2] === undefined ? [] : splitTopLevel(m[2]) } : undefined;
}

/** Reads `Constant(0.5)`, `Constant(shape(2),1,2)` or `Constant(shape(…))` (stored). */
function constantOf(args: readonly string[], where: string): { value: Tensor; stored: boolean } {
  const bad = (): never => {
    throw new SpecError(`${where}: expected Constant(number), Constant(shape(d…), values…) or Constant(shape(d…))`);
  };
  const shape = args[0] && /^shape\s*\(/.test(args[0]) ? callOf(args[0])!.args.map((d) => Number(d)) : undefined;
  const values = (shape ? args.slice(1) : args).map((v) => parseNumber(v) ?? bad());
  if (shape) {
    if (!shape.every((d) => Number.isInteger(d) && d >= 0)) bad();
    const n = shape.reduce((a, b) => a * b, 1);
    if (values.length === 0) return { value: Tensor.zeros(shape, 'float64'), stored: true };
    if (values.length !== n) bad();
    return { value: Tensor.of(values, shape, 'float64'), stored: false };
  }
  if (values.length !== 1) bad();
  return { value: Tensor.of(values, [], 'float64'), stored: false };
}

/** An operator graph from its statements; `layerOf` reads a box that is a layer (the spec grammar). */
export function parseGraph(stmts: readonly string[], layerOf: (text: string) => Para): OpGraph {
  const fixed = stmts[0] !== undefined ? /^batch\s*\(\s*(\d+)\s*\)$/.exec(stmts[0].trim()) : null;
  const body = fixed ? stmts.slice(1) : stmts;
  if (body.length === 0) throw new SpecError('graph(…) needs at least one statement');
  const b = new GraphBuilder();
  const parsed = body.map((s) => {
    const segs = segments(s);
    const out = segs.length >= 2 ? wireNames(segs.pop()!) : undefined;
    if (!out) throw new SpecError(`graph: the statement '${s}' must end in the wire it binds (… >> name)`);
    return { s, segs, out };
  });
  b.reserve(parsed.flatMap((p) => p.out));
  const wires = new Map<string, number>([['x', b.input]]);
  let last = b.input;
  for (const { s, segs, out } of parsed) {
    const src = wireNames(segs[0]!);
    let current: number[] = [];
    if (src && src.every((n) => wires.has(n))) {
      current = src.map((n) => wires.get(n)!);
      segs.shift();
    } else if (src && src.length > 1)
      throw new SpecError(`graph: '${s}' reads a wire that no earlier statement binds (${src.filter((n) => !wires.has(n)).join(', ')})`);
    if (segs.length === 0) throw new SpecError(`graph: the statement '${s}' has no box`);
    segs.forEach((text, i) => {
      const hints = i === segs.length - 1 ? out : [];
      current = applyBox(b, text, current, hints, s, layerOf);
    });
    if (current.length !== out.length) throw new SpecError(`graph: '${s}' gives ${current.length} value(s) but binds ${out.length}`);
    out.forEach((n, i) => wires.set(n, current[i]!));
    last = current[current.length - 1]!;
  }
  return b.build(last, undefined, fixed ? Number(fixed[1]) : undefined);
}

/** Adds one box reading the wires `ins`; its output wires. */
function applyBox(b: GraphBuilder, text: string, ins: readonly number[], hints: readonly string[], where: string, layerOf: (text: string) => Para): number[] {
  const call = callOf(text);
  if (call?.name === 'Param') {
    if (ins.length) throw new SpecError(`graph: Param takes no input in '${where}'`);
    const shape = call.args.map((d) => Number(d));
    if (!shape.every((d) => Number.isInteger(d) && d >= 0)) throw new SpecError(`graph: Param(${call.args.join(',')}) expects sizes in '${where}'`);
    return [b.param(shape, hints[0])];
  }
  if (call?.name === 'Constant') {
    if (ins.length) throw new SpecError(`graph: Constant takes no input in '${where}'`);
    const { value, stored } = constantOf(call.args, where);
    return [b.constant(value, hints[0], stored)];
  }
  const def = call && operator(call.name);
  if (def && call) return b.op(def.make(parseAttrs(def, call.args)), ins, hints);
  if (ins.length !== 1) throw new SpecError(`graph: '${text}' is a layer, which reads one wire, but gets ${ins.length} in '${where}'`);
  return [b.layer(layerOf(text), ins[0]!, hints[0])];
}

/** The spec's layers of this module: graph(…) and every operator of one input and one output, by its ONNX name. */
export function opsLayers(layerOf: (text: string) => Para): LayerDef[] {
  const defs: LayerDef[] = [
    {
      name: 'graph',
      args: ['string*'],
      doc: 'graph(stmt, …): an operator graph, each statement SOURCE >> box >> … >> NAME (x the input, the last NAME the output)',
      make: (...stmts) => parseGraph(stmts as string[], layerOf),
    },
  ];
  for (const def of LAYER_OPERATORS) {
    defs.push({
      name: def.name,
      args: ['string*'],
      doc: `${def.name}${
        Object.keys(def.attrs).length
          ? `(${Object.keys(def.attrs)
              .map((k) => `${k}(…)`)
              .join(',')})`
          : ''
      }: ${def.doc}`,
      make: (...attrs) => {
        const op = def.make(parseAttrs(def, attrs as string[]));
        if (!isLayerOp(op)) throw new SpecError(`${op} gives ${def.outputs?.(op.attrs)} values; as a layer an operator gives one`);
        return opLayer(op);
      },
    });
  }
  return defs;
}

/** A user's layer defined by a traced forward (see `layer`). */
export interface TracedLayerDef {
  /** Kinds of its numeric arguments, e.g. ['number'] for swish(β). */
  readonly args?: readonly ('int' | 'number')[];
  readonly doc?: string;
}

/** The LayerDef of a traced layer (for defineLayer). */
export function tracedLayerDef(name: string, forward: (x: Sym, ...args: number[]) => Sym, opts: TracedLayerDef = {}): LayerDef {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new SpecError(`layer name '${name}': use lower-case letters, digits and _ (capitalised names are operators)`);
  return {
    name,
    args: (opts.args ?? []) as ArgKind[],
    doc: opts.doc ?? `${name}: a layer traced from its forward`,
    make: (...args) => new TracedLayer(name, args as number[], forward),
  };
}
