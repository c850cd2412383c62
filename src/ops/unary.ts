import { SpecError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import type { UnaryOp } from '../tensor/backend.js';
import { erf } from './erf.js';
import { defineOp, num, word } from './op.js';
import type { AttrSpec, Attrs, OpDef } from './op.js';

/**
 * The elementwise operators, one row each: y = f(x) and the derivative f′ read off x and y
 * (tinygrad's table). An operator the backend knows by name (UnaryOp) runs on its kernel both
 * ways; the others run a loop over the array.
 */
interface Pointwise {
  /** f and f′(x, y) for these attributes. */
  readonly fn: (a: Attrs) => { f: (x: number) => number; d: (x: number, y: number) => number };
  /** The backend's kernel for it (with these attributes), if it has one. */
  readonly kernel?: (a: Attrs) => Exclude<UnaryOp, 'identity'> | undefined;
  /** A step function: its derivative is zero wherever it exists, so no gradient flows through it. */
  readonly step?: boolean;
  readonly attrs?: Record<string, AttrSpec>;
  readonly doc: string;
}

const SQRT1_2 = Math.SQRT1_2;
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
const sigmoid = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
const softplus = (x: number): number => (x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x)));
const SELU_ALPHA = 1.6732632423543772;
const SELU_GAMMA = 1.0507009873554805;
const flt = (d: number): AttrSpec => ({ kind: 'float', default: d });

const POINTWISE: Record<string, Pointwise> = {
  Identity: { doc: 'y = x', fn: () => ({ f: (x) => x, d: () => 1 }) },
  Neg: { doc: 'y = −x', kernel: () => 'neg', fn: () => ({ f: (x) => -x, d: () => -1 }) },
  Abs: { doc: 'y = |x|', fn: () => ({ f: Math.abs, d: (x) => Math.sign(x) }) },
  Sqrt: { doc: 'y = √x', fn: () => ({ f: Math.sqrt, d: (_x, y) => 0.5 / y }) },
  Exp: { doc: 'y = eˣ', kernel: () => 'exp', fn: () => ({ f: Math.exp, d: (_x, y) => y }) },
  Log: { doc: 'y = ln x', fn: () => ({ f: Math.log, d: (x) => 1 / x }) },
  Reciprocal: { doc: 'y = 1/x', fn: () => ({ f: (x) => 1 / x, d: (_x, y) => -y * y }) },
  Sin: { doc: 'y = sin x', fn: () => ({ f: Math.sin, d: Math.cos }) },
  Cos: { doc: 'y = cos x', fn: () => ({ f: Math.cos, d: (x) => -Math.sin(x) }) },
  Erf: { doc: 'y = erf x', fn: () => ({ f: erf, d: (x) => 2 * INV_SQRT_2PI * Math.SQRT2 * Math.exp(-x * x) }) },
  Tanh: { doc: 'y = tanh x', kernel: () => 'tanh', fn: () => ({ f: Math.tanh, d: (_x, y) => 1 - y * y }) },
  Sigmoid: { doc: 'y = 1/(1 + e⁻ˣ)', kernel: () => 'sigmoid', fn: () => ({ f: sigmoid, d: (_x, y) => y * (1 - y) }) },
  Relu: { doc: 'y = max(0, x)', kernel: () => 'relu', fn: () => ({ f: (x) => (x > 0 ? x : 0), d: (x) => (x > 0 ? 1 : 0) }) },
  LeakyRelu: {
    doc: 'y = x for x > 0, αx otherwise',
    attrs: { alpha: flt(0.01) },
    fn: (a) => {
      const al = num(a, 'alpha');
      return { f: (x) => (x > 0 ? x : al * x), d: (x) => (x > 0 ? 1 : al) };
    },
  },
  Elu: {
    doc: 'y = x for x > 0, α(eˣ − 1) otherwise',
    attrs: { alpha: flt(1) },
    fn: (a) => {
      const al = num(a, 'alpha');
      return { f: (x) => (x > 0 ? x : al * Math.expm1(x)), d: (x, y) => (x > 0 ? 1 : y + al) };
    },
  },
  Celu: {
    doc: 'y = max(0, x) + min(0, α(e^{x/α} − 1))',
    attrs: { alpha: flt(1) },
    fn: (a) => {
      const al = num(a, 'alpha');
      return { f: (x) => (x > 0 ? x : al * Math.expm1(x / al)), d: (x) => (x > 0 ? 1 : Math.exp(x / al)) };
    },
  },
  Selu: {
    doc: 'y = γx for x > 0, γα(eˣ − 1) otherwise',
    attrs: { alpha: flt(SELU_ALPHA), gamma: flt(SELU_GAMMA) },
    fn: (a) => {
      const al = num(a, 'alpha'),
        g = num(a, 'gamma');
      return { f: (x) => (x > 0 ? g * x : g * al * Math.expm1(x)), d: (x) => (x > 0 ? g : g * al * Math.exp(x)) };
    },
  },
  Gelu: {
    doc: 'y = x·Φ(x) (approximate = none) or its tanh approximation (approximate = tanh)',
    attrs: { approximate: { kind: 'string', default: 'none' } },
    kernel: (a) => (word(a, 'approximate') === 'tanh' ? 'gelu' : undefined),
    fn: (a) => {
      if (word(a, 'approximate') === 'tanh') {
        const c = Math.sqrt(2 / Math.PI);
        return {
          f: (x) => 0.5 * x * (1 + Math.tanh(c * (x + 0.044715 * x * x * x))),
          d: (x) => {
            const t = Math.tanh(c * (x + 0.044715 * x * x * x));
            return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x);
          },
        };
      }
      return { f: (x) => 0.5 * x * (1 + erf(x * SQRT1_2)), d: (x) => 0.5 * (1 + erf(x * SQRT1_2)) + x * INV_SQRT_2PI * Math.exp(-0.5 * x * x) };
    },
  },
  HardSigmoid: {
    doc: 'y = max(0, min(1, αx + β))',
    attrs: { alpha: flt(0.2), beta: flt(0.5) },
    fn: (a) => {
      const al = num(a, 'alpha'),
        b = num(a, 'beta');
      return { f: (x) => Math.max(0, Math.min(1, al * x + b)), d: (x) => (al * x + b > 0 && al * x + b < 1 ? al : 0) };
    },
  },
  HardSwish: {
    doc: 'y = x·max(0, min(1, x/6 + 1/2))',
    fn: () => ({
      f: (x) => x * Math.max(0, Math.min(1, x / 6 + 0.5)),
      d: (x) => (x <= -3 ? 0 : x >= 3 ? 1 : x / 3 + 0.5),
    }),
  },
  Softplus: { doc: 'y = ln(1 + eˣ)', kernel: () => 'softplus', fn: () => ({ f: softplus, d: sigmoid }) },
  Softsign: { doc: 'y = x/(1 + |x|)', fn: () => ({ f: (x) => x / (1 + Math.abs(x)), d: (x) => 1 / (1 + Math.abs(x)) ** 2 }) },
  Mish: {
    doc: 'y = x·tanh(ln(1 + eˣ))',
    fn: () => ({
      f: (x) => x * Math.tanh(softplus(x)),
      d: (x) => {
        const t = Math.tanh(softplus(x));
        return t + x * (1 - t * t) * sigmoid(x);
      },
    }),
  },
  Clip: {
    doc: 'y = min(max(x, min), max); the bounds are constants',
    attrs: { min: flt(-Infinity), max: flt(Infinity) },
    fn: (a) => {
      const lo = num(a, 'min'),
        hi = num(a, 'max');
      return { f: (x) => Math.min(Math.max(x, lo), hi), d: (x) => (x >= lo && x <= hi ? 1 : 0) };
    },
  },
  Floor: { doc: 'y = ⌊x⌋ (no gradient)', step: true, fn: () => ({ f: Math.floor, d: () => 0 }) },
  Ceil: { doc: 'y = ⌈x⌉ (no gradient)', step: true, fn: () => ({ f: Math.ceil, d: () => 0 }) },
  Round: { doc: 'y = x rounded half to even (no gradient)', step: true, fn: () => ({ f: roundHalfEven, d: () => 0 }) },
  Sign: { doc: 'y = sign x (no gradient)', step: true, fn: () => ({ f: Math.sign, d: () => 0 }) },
  Not: { doc: 'y = 1 where x = 0, else 0 (booleans as 0/1; no gradient)', step: true, fn: () => ({ f: (x) => (x === 0 ? 1 : 0), d: () => 0 }) },
  IsNaN: { doc: 'y = 1 where x is NaN (no gradient)', step: true, fn: () => ({ f: (x) => (Number.isNaN(x) ? 1 : 0), d: () => 0 }) },
};

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** The element types Cast converts to, by ONNX name: floats pass through, integers truncate toward zero, bool is x ≠ 0. */
export const CAST_TYPES = ['float', 'double', 'float16', 'bfloat16', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'bool'] as const;
const isFloatType = (t: string): boolean => t === 'float' || t === 'double' || t === 'float16' || t === 'bfloat16';

/** One pointwise operator's definition. */
function pointwiseOp(name: string, p: Pointwise): OpDef {
  return defineOp(
    { name, doc: p.doc, inputs: 1, pointwise: true, ...(p.attrs ? { attrs: p.attrs } : {}) },
    {
      // the identity, and an operator the backend has a kernel for both ways
      kernelsOnly: (a) => name === 'Identity' || p.kernel?.(a) !== undefined,
      ...(p.step ? { constantInputs: [0] } : {}),
      shapes: ([x]) => [x!],
      forward: ([x], ctx, a) => {
        if (name === 'Identity') return { ys: [x!], pullback: ([dy], [need]) => [need ? dy : undefined] };
        const { f, d } = p.fn(a);
        const kernel = p.kernel?.(a);
        const y = ctx.alloc(x!.shape, x!.dtype, true);
        if (kernel) backend().unary(kernel, x!.data, y.data);
        else for (let i = 0; i < y.size; i++) y.data[i] = f(x!.data[i]!);
        return {
          ys: [y],
          pullback: ([dy], [need]) => {
            if (!need || !dy || p.step) return [undefined];
            const dx = ctx.alloc(x!.shape, x!.dtype, true);
            if (kernel) backend().unaryBackward(kernel, x!.data, y.data, dy.data, dx.data, false);
            else for (let i = 0; i < dx.size; i++) dx.data[i] = dy.data[i]! * d(x!.data[i]!, y.data[i]!);
            return [dx];
          },
        };
      },
    },
  );
}

/** Cast(to): to a float type the identity, to an integer type truncation toward zero, to bool x ≠ 0 (values stay in float arrays). */
const cast = defineOp(
  {
    name: 'Cast',
    doc: 'y = x as another element type: floats unchanged, integers truncated toward zero, bool x ≠ 0',
    inputs: 1,
    attrs: { to: { kind: 'string' } },
  },
  {
    constantInputs: (a) => (isFloatType(word(a, 'to')) ? [] : [0]),
    check: (a, where) => {
      if (!(CAST_TYPES as readonly string[]).includes(word(a, 'to'))) throw new SpecError(`${where}: unknown element type; known: ${CAST_TYPES.join(', ')}`);
    },
    shapes: ([x]) => [x!],
    forward: ([x], ctx, a) => {
      const to = word(a, 'to');
      if (isFloatType(to)) return { ys: [x!], pullback: ([dy], [need]) => [need ? dy : undefined] };
      const y = ctx.alloc(x!.shape, x!.dtype, true);
      for (let i = 0; i < y.size; i++) y.data[i] = to === 'bool' ? (x!.data[i] !== 0 ? 1 : 0) : Math.trunc(x!.data[i]!);
      return { ys: [y], pullback: () => [undefined] };
    },
  },
);

/** Every pointwise operator and Cast. */
export const UNARY_OPS: readonly OpDef[] = [...Object.entries(POINTWISE).map(([n, p]) => pointwiseOp(n, p)), cast];
