import { SpecError } from '../errors.js';
import type { Ctx } from '../para/para.js';
import type { Tensor } from '../tensor/tensor.js';
import { parseDim, printDim } from './dim.js';
import type { Dim, SymShape } from './dim.js';

/**
 * An operator lens: one tensor operator of the ONNX spec as a primitive of Para with n inputs
 * and m outputs. At a point (x₁ … xₙ) it gives the outputs and the pullback
 * (dy₁ … dyₘ) ↦ (dx₁ … dxₙ) — the chain rule for this one operator and nothing else
 * (micrograd's closure, tinygrad's table of derivative rules). Operators have no parameters:
 * a graph feeds them its parameters as inputs (src/ops/graph.ts), so a weight is an input
 * like any other and its gradient is that input's.
 */
export interface OpLens {
  readonly ys: readonly Tensor[];
  /**
   * dys[j] is the gradient at output j, undefined when nothing downstream reads it (zero).
   * need[i] says whether dxᵢ is wanted. Returns dxᵢ, or undefined when it is not wanted or is
   * zero (an input the output does not depend on smoothly: indices, conditions, comparisons).
   * A returned tensor may share memory with a dy (a reshape's pullback is a reshape); the
   * caller copies before it writes into one.
   */
  pullback(dys: readonly (Tensor | undefined)[], need: readonly boolean[]): readonly (Tensor | undefined)[];
}

/** Where an operator runs: the forward's context (memory, mode, randomness) and the batch size its `B` sizes stand for. */
export interface OpCtx extends Ctx {
  readonly batch: number;
}

/** An attribute's value: a number, a word, a list of numbers or of sizes (which may be multiples of B). */
export type AttrValue = number | string | readonly number[] | readonly Dim[];
export type Attrs = Readonly<Record<string, AttrValue>>;

/** How an attribute is read and printed: one number, one word, or a list of numbers or sizes. */
export type AttrKind = 'int' | 'float' | 'string' | 'ints' | 'floats' | 'dims';

export interface AttrSpec {
  readonly kind: AttrKind;
  /** The value when the attribute is absent (absent = required). Printing leaves out an attribute equal to it. */
  readonly default?: AttrValue;
}

/** One operator of the vocabulary: its ONNX name, its inputs and outputs, its attributes, and how to make its lens. */
export interface OpDef {
  /** The ONNX op_type, also its name in spec strings (capitalised, so it never clashes with a layer's name). */
  readonly name: string;
  /** One line for docs/onnx.md and `paralens import --help`. */
  readonly doc: string;
  /** How many inputs it takes: [fewest, most] (Concat, Sum, Max … take any number). */
  readonly inputs: readonly [number, number];
  readonly attrs: Readonly<Record<string, AttrSpec>>;
  /** Its outputs (Split's depend on its attributes). */
  outputs?(a: Attrs): number;
  /** It acts on each entry alone (so, as a layer, on each position of a sequence as on a vector). */
  readonly pointwise?: boolean;
  make(a: Attrs): Op;
}

/** An operator with its attributes fixed: what a graph node holds. */
export interface Op {
  readonly def: OpDef;
  readonly attrs: Attrs;
  /** Output shapes from input shapes (sizes may be multiples of B); a ShapeError naming the operator when they do not fit. */
  shapes(ins: readonly SymShape[]): SymShape[];
  forward(xs: readonly Tensor[], ctx: OpCtx): OpLens;
  /** Whether input i can carry a gradient (false for indices, conditions, shapes). */
  differentiable(i: number): boolean;
  /** Forward and pullback touch tensor data only through Backend kernels (it can run on a device). */
  readonly kernelsOnly: boolean;
  /** Its spec form: `Softmax(axis(1))`, `Relu`. */
  toString(): string;
}

/** What an operator's definition says beyond its name: how it computes. */
export interface OpImpl {
  shapes(ins: readonly SymShape[], a: Attrs, where: string): SymShape[];
  forward(xs: readonly Tensor[], ctx: OpCtx, a: Attrs, where: string): OpLens;
  /** Inputs that never carry a gradient (with these attributes: Cast to an integer type has none). */
  readonly constantInputs?: readonly number[] | ((a: Attrs) => readonly number[]);
  readonly kernelsOnly?: boolean | ((a: Attrs) => boolean);
  /** Checks the attributes once, when the operator is made (a RangeArgError or SpecError naming what is wrong). */
  check?(a: Attrs, where: string): void;
}

/** An operator definition from its name, signature and implementation. */
export function defineOp(
  sig: {
    name: string;
    doc: string;
    inputs: number | readonly [number, number];
    attrs?: Record<string, AttrSpec>;
    outputs?: (a: Attrs) => number;
    pointwise?: boolean;
  },
  impl: OpImpl,
): OpDef {
  const inputs: readonly [number, number] = typeof sig.inputs === 'number' ? [sig.inputs, sig.inputs] : sig.inputs;
  const schema = sig.attrs ?? {};
  const def: OpDef = {
    name: sig.name,
    doc: sig.doc,
    inputs,
    attrs: schema,
    ...(sig.outputs ? { outputs: sig.outputs } : {}),
    ...(sig.pointwise ? { pointwise: true } : {}),
    make(given: Attrs): Op {
      const a = withDefaults(def, given);
      const text = printOp(def, a);
      impl.check?.(a, text);
      const constant = new Set(typeof impl.constantInputs === 'function' ? impl.constantInputs(a) : (impl.constantInputs ?? []));
      return {
        def,
        attrs: a,
        kernelsOnly: typeof impl.kernelsOnly === 'function' ? impl.kernelsOnly(a) : (impl.kernelsOnly ?? false),
        shapes: (ins) => {
          if (ins.length < inputs[0] || ins.length > inputs[1]) {
            throw new SpecError(`${text} takes ${inputs[0] === inputs[1] ? inputs[0] : `${inputs[0]} to ${inputs[1]}`} inputs but got ${ins.length}`);
          }
          return impl.shapes(ins, a, text);
        },
        forward: (xs, ctx) => impl.forward(xs, ctx, a, text),
        differentiable: (i) => !constant.has(i),
        toString: () => text,
      };
    },
  };
  return def;
}

/** The attributes given, completed by the defaults; unknown or missing ones refused. */
function withDefaults(def: OpDef, given: Attrs): Attrs {
  const out: Record<string, AttrValue> = {};
  for (const k of Object.keys(given)) {
    if (!Object.hasOwn(def.attrs, k))
      throw new SpecError(`${def.name} has no attribute '${k}'; its attributes: ${Object.keys(def.attrs).join(', ') || 'none'}`);
  }
  for (const [k, spec] of Object.entries(def.attrs)) {
    const v = Object.hasOwn(given, k) ? given[k]! : spec.default;
    if (v === undefined) throw new SpecError(`${def.name} needs the attribute '${k}'`);
    out[k] = v;
  }
  return out;
}

const sameValue = (a: AttrValue | undefined, b: AttrValue): boolean => a !== undefined && printValue(a) === printValue(b);

/** A number as spec strings write it: finite numbers as JavaScript prints them (exact for float32 values), ±∞ as inf and neg_inf. */
export function printNumber(v: number): string {
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return 'neg_inf';
  if (Number.isNaN(v)) return 'nan';
  return String(v);
}

/** printNumber's inverse. */
export function parseNumber(t: string): number | undefined {
  const s = t.trim();
  if (s === 'inf') return Infinity;
  if (s === 'neg_inf') return -Infinity;
  if (s === 'nan') return NaN;
  if (!/^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(s)) return undefined;
  return Number(s);
}

function printValue(v: AttrValue): string {
  if (typeof v === 'number') return printNumber(v);
  if (typeof v === 'string') return v;
  return v.map((d) => (typeof d === 'number' ? printNumber(d) : printDim(d))).join(',');
}

/** `Name` or `Name(key(value), …)` with the attributes that differ from their defaults, in the definition's order. */
export function printOp(def: OpDef, a: Attrs): string {
  const parts = Object.entries(def.attrs)
    .filter(([k, spec]) => !(spec.default !== undefined && sameValue(a[k], spec.default)))
    .map(([k]) => `${k}(${printValue(a[k]!)})`);
  return parts.length ? `${def.name}(${parts.join(',')})` : def.name;
}

/** Splits `a(1,2), b(x)` at the commas outside parentheses. */
export function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0,
    start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start).trim();
  if (last || out.length) out.push(last);
  return out;
}

/** The attributes written as `key(value)` arguments (printOp's inverse), read by the definition's schema. */
export function parseAttrs(def: OpDef, args: readonly string[]): Attrs {
  const out: Record<string, AttrValue> = {};
  for (const arg of args) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*\(([\s\S]*)\)$/.exec(arg.trim());
    if (!m) throw new SpecError(`${def.name}: expected an attribute written key(value), got '${arg}'`);
    const key = m[1]!,
      body = m[2]!.trim();
    const spec = def.attrs[key];
    if (!spec) throw new SpecError(`${def.name} has no attribute '${key}'; its attributes: ${Object.keys(def.attrs).join(', ') || 'none'}`);
    if (Object.hasOwn(out, key)) throw new SpecError(`${def.name}: attribute '${key}' given twice`);
    out[key] = parseValue(def, key, spec.kind, body);
  }
  return out;
}

function parseValue(def: OpDef, key: string, kind: AttrKind, body: string): AttrValue {
  const bad = (what: string): never => {
    throw new SpecError(`${def.name}: attribute ${key}(${body}) expects ${what}`);
  };
  if (kind === 'string') return /^[A-Za-z_][A-Za-z0-9_,]*$/.test(body) || body === '' ? body : bad('a word');
  const items = body === '' ? [] : body.split(',').map((s) => s.trim());
  if (kind === 'dims') return items.map((s) => parseDim(s) ?? bad('sizes: integers, B or B*k'));
  const nums = items.map((s) => parseNumber(s) ?? bad('numbers'));
  if (kind === 'int' || kind === 'float') {
    if (nums.length !== 1) bad('one number');
    if (kind === 'int' && !Number.isInteger(nums[0])) bad('an integer');
    return nums[0]!;
  }
  if (kind === 'ints' && !nums.every(Number.isInteger)) bad('integers');
  return nums;
}

/** An attribute as a number / list / word (the schema guarantees the kind). */
export const num = (a: Attrs, k: string): number => a[k] as number;
export const ints = (a: Attrs, k: string): readonly number[] => a[k] as readonly number[];
export const dims = (a: Attrs, k: string): readonly Dim[] => a[k] as readonly Dim[];
export const word = (a: Attrs, k: string): string => a[k] as string;
