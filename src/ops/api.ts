import type { Tensor } from '../tensor/tensor.js';
import type { Dim } from './dim.js';
import type { AttrValue } from './op.js';
import { apply, Sym } from './trace.js';
import type { OpValue } from './trace.js';

/**
 * The operator lenses as functions (the library's `ops`): each applies one operator of the
 * vocabulary (src/ops/vocabulary.ts) with ONNX's semantics — broadcasting, axes counted with
 * the batch axis first, attributes by their ONNX names. On symbolic values (inside `trace` or a
 * `layer`'s forward) they build the graph; on tensors they compute at once.
 *
 *   layer('silu', (x) => ops.mul(x, ops.sigmoid(x)))
 */

/** Sym if any input is symbolic, else Tensor. */
export type Out<T extends readonly OpValue[]> = Sym extends T[number] ? Sym : T[number] extends Sym ? Sym : Tensor;

const one = <T extends readonly OpValue[]>(name: string, xs: T, attrs: Record<string, AttrValue> = {}): Out<T> => apply(name, xs, attrs)[0] as Out<T>;

export { apply as op, param, trace, Sym } from './trace.js';
export type { OpValue } from './trace.js';

// arithmetic with broadcasting
export const add = <A extends OpValue, B extends OpValue>(a: A, b: B): Out<[A, B]> => one('Add', [a, b] as [A, B]);
export const sub = <A extends OpValue, B extends OpValue>(a: A, b: B): Out<[A, B]> => one('Sub', [a, b] as [A, B]);
export const mul = <A extends OpValue, B extends OpValue>(a: A, b: B): Out<[A, B]> => one('Mul', [a, b] as [A, B]);
export const div = <A extends OpValue, B extends OpValue>(a: A, b: B): Out<[A, B]> => one('Div', [a, b] as [A, B]);
export const pow = <A extends OpValue, B extends OpValue>(a: A, b: B): Out<[A, B]> => one('Pow', [a, b] as [A, B]);
export const maximum = <A extends OpValue, B extends OpValue>(a: A, b: B): Out<[A, B]> => one('Max', [a, b] as [A, B]);
export const minimum = <A extends OpValue, B extends OpValue>(a: A, b: B): Out<[A, B]> => one('Min', [a, b] as [A, B]);
export const equal = <A extends OpValue, B extends OpValue>(a: A, b: B): Out<[A, B]> => one('Equal', [a, b] as [A, B]);
export const less = <A extends OpValue, B extends OpValue>(a: A, b: B): Out<[A, B]> => one('Less', [a, b] as [A, B]);
export const greater = <A extends OpValue, B extends OpValue>(a: A, b: B): Out<[A, B]> => one('Greater', [a, b] as [A, B]);
export const where = <C extends OpValue, A extends OpValue, B extends OpValue>(c: C, a: A, b: B): Out<[C, A, B]> => one('Where', [c, a, b] as [C, A, B]);
export const matmul = <A extends OpValue, B extends OpValue>(a: A, b: B): Out<[A, B]> => one('MatMul', [a, b] as [A, B]);

// elementwise
const unary =
  (name: string) =>
  <A extends OpValue>(x: A): Out<[A]> =>
    one(name, [x] as [A]);
export const neg = unary('Neg');
export const abs = unary('Abs');
export const sqrt = unary('Sqrt');
export const exp = unary('Exp');
export const log = unary('Log');
export const reciprocal = unary('Reciprocal');
export const erf = unary('Erf');
export const tanh = unary('Tanh');
export const sigmoid = unary('Sigmoid');
export const relu = unary('Relu');
export const softplus = unary('Softplus');
export const hardSwish = unary('HardSwish');
export const not = unary('Not');
export const gelu = <A extends OpValue>(x: A, approximate: 'none' | 'tanh' = 'none'): Out<[A]> => one('Gelu', [x] as [A], { approximate });
export const leakyRelu = <A extends OpValue>(x: A, alpha = 0.01): Out<[A]> => one('LeakyRelu', [x] as [A], { alpha });
export const elu = <A extends OpValue>(x: A, alpha = 1): Out<[A]> => one('Elu', [x] as [A], { alpha });
export const clip = <A extends OpValue>(x: A, min = -Infinity, max = Infinity): Out<[A]> => one('Clip', [x] as [A], { min, max });

// along axes (counted with the batch axis first, as in ONNX and PyTorch)
export const softmax = <A extends OpValue>(x: A, axis = -1): Out<[A]> => one('Softmax', [x] as [A], { axis });
export const logSoftmax = <A extends OpValue>(x: A, axis = -1): Out<[A]> => one('LogSoftmax', [x] as [A], { axis });
export const reduceSum = <A extends OpValue>(x: A, axes: readonly number[] = [], keepdims = true): Out<[A]> =>
  one('ReduceSum', [x] as [A], { axes, keepdims: keepdims ? 1 : 0 });
export const reduceMean = <A extends OpValue>(x: A, axes: readonly number[] = [], keepdims = true): Out<[A]> =>
  one('ReduceMean', [x] as [A], { axes, keepdims: keepdims ? 1 : 0 });
export const reduceMax = <A extends OpValue>(x: A, axes: readonly number[] = [], keepdims = true): Out<[A]> =>
  one('ReduceMax', [x] as [A], { axes, keepdims: keepdims ? 1 : 0 });
export const transpose = <A extends OpValue>(x: A, perm: readonly number[] = []): Out<[A]> => one('Transpose', [x] as [A], { perm });
export const reshape = <A extends OpValue>(x: A, shape: readonly Dim[]): Out<[A]> => one('Reshape', [x] as [A], { shape });
export const flatten = <A extends OpValue>(x: A, axis = 1): Out<[A]> => one('Flatten', [x] as [A], { axis });
export const unsqueeze = <A extends OpValue>(x: A, axes: readonly number[]): Out<[A]> => one('Unsqueeze', [x] as [A], { axes });
export const squeeze = <A extends OpValue>(x: A, axes: readonly number[] = []): Out<[A]> => one('Squeeze', [x] as [A], { axes });
export const slice = <A extends OpValue>(
  x: A,
  starts: readonly number[],
  ends: readonly number[],
  axes: readonly number[] = [],
  steps: readonly number[] = [],
): Out<[A]> => one('Slice', [x] as [A], { starts, ends, axes, steps });
export const gather = <A extends OpValue, I extends OpValue>(x: A, indices: I, axis = 0): Out<[A, I]> => one('Gather', [x, indices] as [A, I], { axis });
export const concat = <A extends OpValue>(xs: readonly A[], axis: number): Out<A[]> => apply('Concat', xs, { axis })[0] as Out<A[]>;
export const split = <A extends OpValue>(x: A, sizes: readonly number[], axis = 0): Out<[A]>[] => apply('Split', [x], { split: sizes, axis }) as Out<[A]>[];
export const layerNorm = <A extends OpValue, S extends OpValue, B extends OpValue>(x: A, scale: S, bias: B, axis = -1, epsilon = 1e-5): Out<[A, S, B]> =>
  one('LayerNormalization', [x, scale, bias] as [A, S, B], { axis, epsilon });
export const einsum = <A extends OpValue>(inputs: string, output: string, ...xs: A[]): Out<A[]> => apply('Einsum', xs, { inputs, output })[0] as Out<A[]>;
